import type { Orm } from '../db/orm.js';
import { preparedQuery, preparedQueryIn, sqlDate } from '../db/prepared.js';
import type { Sealer } from '../secrets.js';
import type { EvidenceKind } from './entities.js';
import type { SessionTx } from './store.js';

/** An image kept for review, opened. */
export interface EvidenceImage {
  id: string;
  kind: EvidenceKind;
  bytes: Buffer;
  /** The try of its step the image comes from (1 for the first). */
  attempt: number;
  createdAt: Date;
}

/** The review images of hosted sessions (`session_evidence`), sealed at rest. */
export interface EvidenceStore {
  /**
   * Seals and keeps images of one try of a step (`attempt`, from 1) in the caller's transaction (the step's commit, or
   * the try's).
   */
  keep(
    tx: SessionTx,
    sessionId: string,
    images: { kind: EvidenceKind; bytes: Buffer }[],
    attempt: number,
    now: Date,
  ): Promise<void>;
  /** A session's images, opened, oldest first. */
  list(sessionId: string): Promise<EvidenceImage[]>;
  /** Deletes a session's images in the caller's transaction; returns how many there were. */
  erase(tx: SessionTx, sessionId: string): Promise<number>;
  /**
   * One round of the purge: up to `limit` images of sessions decided (or expired, abandoned)
   * longer ago than their project's retention, the longest overdue first and the oldest image first
   * among equals. Open and IN_REVIEW sessions have no `decided_at`, so theirs are never touched.
   */
  purgeExpired(now: Date, limit: number): Promise<number>;
}

/** The review images in PostgreSQL: the only code that touches `session_evidence`. */
export class PgEvidenceStore implements EvidenceStore {
  constructor(
    private readonly orm: Orm,
    private readonly sealer: Sealer,
  ) {}

  async keep(
    tx: SessionTx,
    sessionId: string,
    images: { kind: EvidenceKind; bytes: Buffer }[],
    attempt: number,
    now: Date,
  ): Promise<void> {
    if (images.length === 0) return;
    await preparedQueryIn(
      this.orm,
      tx,
      'evidence_keep',
      `insert into session_evidence (session_id, kind, sealed, attempt, created_at)
       select $1, i.kind, i.sealed, $4, $5 from unnest($2::varchar[], $3::bytea[]) with ordinality as i(kind, sealed, n) order by i.n`,
      [
        sessionId,
        images.map((image) => image.kind),
        images.map((image) => this.sealer.sealBytes(image.bytes)),
        attempt,
        now,
      ],
    );
  }

  async list(sessionId: string): Promise<EvidenceImage[]> {
    const rows = await preparedQuery<{
      id: string;
      kind: EvidenceKind;
      sealed: Buffer;
      attempt: number;
      created_at: Date | string;
    }>(
      this.orm,
      'evidence_list',
      'select id, kind, sealed, attempt, created_at from session_evidence where session_id = $1 order by id',
      [sessionId],
    );
    return rows.map((row) => ({
      id: String(row.id),
      kind: row.kind,
      bytes: this.sealer.openBytes(row.sealed),
      attempt: Number(row.attempt),
      createdAt: sqlDate(row.created_at),
    }));
  }

  async erase(tx: SessionTx, sessionId: string): Promise<number> {
    return (
      await preparedQueryIn(
        this.orm,
        tx,
        'evidence_erase',
        'delete from session_evidence where session_id = $1 returning id',
        [sessionId],
      )
    ).length;
  }

  async purgeExpired(now: Date, limit: number): Promise<number> {
    const rows = await preparedQuery<{ id: string }>(this.orm, 'evidence_purge', EVIDENCE_PURGE, [now, limit]);
    return rows.length;
  }
}

/**
 * One purge round: the images whose time has come (`purge_after`, set from the decision and the
 * project's retention by the triggers of Migration20261205090000), soonest due first and the
 * oldest image first among equals, through the partial index that holds only images of decided
 * sessions. The ids as an array, so the delete finds them by its key.
 */
export const EVIDENCE_PURGE = `delete from session_evidence where id = any(array(
  select id from session_evidence where purge_after <= $1 order by purge_after, created_at limit $2
)) returning id`;
