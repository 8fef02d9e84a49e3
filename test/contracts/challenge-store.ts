import { describe, expect, it } from 'vitest';
import type { ChallengeRecord, ChallengeStore } from '../../src/core/checks/challenge-store.js';

/** What a contract run needs: a store with nothing of these ids in it, and two projects that exist. */
export interface ChallengeStoreSubject {
  store: ChallengeStore;
  projectId: string;
  otherProjectId: string;
}

let serial = 0;
const challenge = (projectId: string, expiresAt: Date): ChallengeRecord => ({
  id: `chl_contract_${process.pid}_${++serial}`,
  projectId,
  gesture: 'turn_left',
  createdAt: new Date(expiresAt.getTime() - 60_000),
  expiresAt,
  usedAt: null,
});

/**
 * The rules every ChallengeStore keeps, run against the in-memory fake (test/fast) and
 * PgChallengeStore (test/store-contracts.test.ts): a project sees only its own challenges, and
 * a challenge is consumed once, before it expires, by one caller.
 */
export function challengeStoreContract(kind: string, subject: () => ChallengeStoreSubject): void {
  describe(`ChallengeStore contract: ${kind}`, () => {
    const at = new Date('2026-06-01T12:00:00.000Z');

    it('finds what it added, for its project only', async () => {
      const { store, projectId, otherProjectId } = subject();
      const added = challenge(projectId, new Date(at.getTime() + 60_000));
      await store.add(added);
      expect(await store.find(projectId, added.id)).toEqual(added);
      expect(await store.find(otherProjectId, added.id)).toBeNull();
      expect(await store.find(projectId, `${added.id}_unknown`)).toBeNull();
    });

    it('consumes once, and records when', async () => {
      const { store, projectId } = subject();
      const added = challenge(projectId, new Date(at.getTime() + 60_000));
      await store.add(added);
      expect(await store.consume(projectId, added.id, at)).toBe(true);
      expect(await store.consume(projectId, added.id, at)).toBe(false);
      expect((await store.find(projectId, added.id))?.usedAt).toEqual(at);
    });

    it("refuses another project's challenge and leaves it unused", async () => {
      const { store, projectId, otherProjectId } = subject();
      const added = challenge(projectId, new Date(at.getTime() + 60_000));
      await store.add(added);
      expect(await store.consume(otherProjectId, added.id, at)).toBe(false);
      expect((await store.find(projectId, added.id))?.usedAt).toBeNull();
    });

    it('is usable up to its expiry, inclusive, and not after', async () => {
      const { store, projectId } = subject();
      const lastMoment = challenge(projectId, at);
      const lapsed = challenge(projectId, at);
      await store.add(lastMoment);
      await store.add(lapsed);
      expect(await store.consume(projectId, lastMoment.id, at)).toBe(true);
      expect(await store.consume(projectId, lapsed.id, new Date(at.getTime() + 1))).toBe(false);
    });

    it('gives one winner among concurrent consumers', async () => {
      const { store, projectId } = subject();
      const added = challenge(projectId, new Date(at.getTime() + 60_000));
      await store.add(added);
      const outcomes = await Promise.all(Array.from({ length: 6 }, () => store.consume(projectId, added.id, at)));
      expect(outcomes.filter(Boolean)).toHaveLength(1);
    });
  });
}
