import type { ChallengeRecord, ChallengeStore } from '../../src/core/checks/challenge-store.js';

/** ChallengeStore in memory, held to the same contract as PgChallengeStore (test/contracts/challenge-store.ts). */
export class FakeChallengeStore implements ChallengeStore {
  rows = new Map<string, ChallengeRecord>();
  async add(challenge: ChallengeRecord): Promise<void> {
    this.rows.set(challenge.id, { ...challenge });
  }
  async find(projectId: string, id: string): Promise<ChallengeRecord | null> {
    const row = this.rows.get(id);
    return row?.projectId === projectId ? { ...row } : null;
  }
  async consume(projectId: string, id: string, now: Date): Promise<boolean> {
    const row = this.rows.get(id);
    if (row?.projectId !== projectId || row.usedAt || row.expiresAt < now) return false;
    row.usedAt = now;
    return true;
  }
}
