import type {
  ClaimOutcome,
  IdempotencyClaim,
  IdempotencyRow,
  IdempotencyStore,
} from '../../src/core/billing/idempotency.js';

/** The record a claim or a take-over writes. */
const running = (c: IdempotencyClaim): IdempotencyRow => ({
  fingerprint: c.fingerprint,
  state: 'running',
  responseStatus: null,
  responseSealed: null,
  lockedUntil: c.lockedUntil,
  expiresAt: c.expiresAt,
});

/**
 * IdempotencyStore in memory, with the SQL's conditions, held to the same contract as PgIdempotencyStore
 * (test/contracts/idempotency-store.ts).
 */
export class FakeIdempotencyStore implements IdempotencyStore {
  rows = new Map<string, IdempotencyRow>();
  private id = (projectId: string, key: string) => `${projectId} ${key}`;
  async claim(c: IdempotencyClaim): Promise<ClaimOutcome> {
    const held = this.rows.get(this.id(c.projectId, c.key));
    if (held) return { claimed: false, existing: { ...held } };
    this.rows.set(this.id(c.projectId, c.key), running(c));
    return { claimed: true };
  }
  async takeOver(c: IdempotencyClaim): Promise<boolean> {
    const row = this.rows.get(this.id(c.projectId, c.key));
    if (!row || !(row.expiresAt <= c.now || (row.state === 'running' && row.lockedUntil <= c.now))) return false;
    this.rows.set(this.id(c.projectId, c.key), running(c));
    return true;
  }
  async release(projectId: string, key: string): Promise<void> {
    if (this.rows.get(this.id(projectId, key))?.state === 'running') this.rows.delete(this.id(projectId, key));
  }
  async complete(projectId: string, key: string, status: number, responseSealed: string): Promise<void> {
    Object.assign(this.rows.get(this.id(projectId, key))!, { state: 'done', responseStatus: status, responseSealed });
  }
  async purge(now: Date): Promise<number> {
    const lapsed = [...this.rows].filter(([, row]) => row.expiresAt <= now);
    for (const [id] of lapsed) this.rows.delete(id);
    return lapsed.length;
  }
}
