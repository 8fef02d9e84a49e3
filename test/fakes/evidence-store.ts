import type { EvidenceKind } from '../../src/core/sessions/entities.js';
import type { EvidenceImage, EvidenceStore } from '../../src/core/sessions/evidence.js';
import type { SessionTx } from '../../src/core/sessions/store.js';
import type { FakeSessionStore } from './session-store.js';

const DAY_MS = 86_400_000;

/**
 * The review images in memory, held to the same contract as PgEvidenceStore (test/contracts/evidence-store.ts).
 * Its writes join the sessions' transactions (they commit with the step), and the purge reads the sessions'
 * decisions from `sessions` and each project's retention from `retentionDays`.
 */
export class FakeEvidenceStore implements EvidenceStore {
  images = new Map<string, EvidenceImage[]>();
  private serial = 0;

  constructor(
    private readonly sessions: FakeSessionStore,
    private readonly retentionDays: (projectId: string) => number = () => 30,
  ) {}

  async keep(
    tx: SessionTx,
    sessionId: string,
    images: { kind: EvidenceKind; bytes: Buffer }[],
    attempt: number,
    now: Date,
  ): Promise<void> {
    if (images.length === 0) return;
    const kept = images.map((image) => ({
      id: String(++this.serial),
      kind: image.kind,
      bytes: Buffer.from(image.bytes),
      attempt,
      createdAt: now,
    }));
    this.sessions.later(tx, () => this.images.set(sessionId, [...(this.images.get(sessionId) ?? []), ...kept]));
  }

  async list(sessionId: string): Promise<EvidenceImage[]> {
    return (this.images.get(sessionId) ?? []).map((image) => ({ ...image, bytes: Buffer.from(image.bytes) }));
  }

  async erase(tx: SessionTx, sessionId: string): Promise<number> {
    const count = this.images.get(sessionId)?.length ?? 0;
    this.sessions.later(tx, () => this.images.delete(sessionId));
    return count;
  }

  async purgeExpired(now: Date, limit: number): Promise<number> {
    // Each image is due at its session's decision plus the project's retention (the SQL's purge_after).
    const due = [...this.images].flatMap(([sessionId, images]) => {
      const session = this.sessions.sessions.get(sessionId);
      if (!session?.decidedAt) return [];
      const dueAt = session.decidedAt.getTime() + this.retentionDays(session.projectId) * DAY_MS;
      return dueAt > now.getTime() ? [] : images.map((image) => ({ sessionId, image, dueAt }));
    });
    const purged = due
      .sort((a, b) => a.dueAt - b.dueAt || a.image.createdAt.getTime() - b.image.createdAt.getTime())
      .slice(0, limit);
    for (const { sessionId, image } of purged) {
      const left = this.images.get(sessionId)!.filter((kept) => kept !== image);
      if (left.length) this.images.set(sessionId, left);
      else this.images.delete(sessionId);
    }
    return purged.length;
  }
}
