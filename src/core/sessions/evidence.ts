import type { EntityManager } from '@mikro-orm/core';
import type { Orm } from '../db/orm.js';
import type { Sealer } from '../secrets.js';
import { type EvidenceKind, SessionEvidence } from './entities.js';

/** The review images of hosted sessions: the only code that touches `session_evidence`. */
export class EvidenceStore {
  constructor(
    private readonly orm: Orm,
    private readonly sealer: Sealer,
  ) {}

  /** Seals and keeps images in the caller's transaction (the step's commit). */
  keep(em: EntityManager, sessionId: string, images: { kind: EvidenceKind; bytes: Buffer }[], now: Date): void {
    for (const { kind, bytes } of images) em.create(SessionEvidence, { sessionId, kind, sealed: this.sealer.sealBytes(bytes), createdAt: now });
  }

  /** A session's images, opened, oldest first. */
  async list(sessionId: string): Promise<{ id: string; kind: EvidenceKind; bytes: Buffer; createdAt: Date }[]> {
    const rows = await this.orm.em.fork().find(SessionEvidence, { sessionId }, { orderBy: { id: 'asc' } });
    return rows.map((row) => ({ id: String(row.id), kind: row.kind, bytes: this.sealer.openBytes(row.sealed), createdAt: row.createdAt }));
  }

  /** Deletes a session's images in the caller's transaction; returns how many there were. */
  async erase(em: EntityManager, sessionId: string): Promise<number> {
    return em.nativeDelete(SessionEvidence, { sessionId });
  }

  /**
   * The purge: images of sessions decided (or expired, abandoned) longer ago than their project's
   * retention. Open and IN_REVIEW sessions have no `decided_at`, so theirs are never touched.
   */
  async purgeExpired(now: Date): Promise<number> {
    const rows = await this.orm.em.getConnection().execute<{ id: string }[]>(
      `delete from session_evidence e using verification_session s, project p
       where e.session_id = s.id and s.project_id = p.id and s.decided_at is not null
         and s.decided_at + make_interval(days => p.evidence_retention_days) <= ?
       returning e.id`,
      [now],
    );
    return rows.length;
  }
}
