import { describe, expect, it } from 'vitest';
import type { IdempotencyClaim, IdempotencyStore } from '../../src/core/billing/idempotency.js';

/** What a contract run needs: a store, and two projects that exist. */
export interface IdempotencyStoreSubject {
  store: IdempotencyStore;
  projectId: string;
  otherProjectId: string;
}

const at = new Date('2026-06-01T12:00:00.000Z');
const later = (ms: number) => new Date(at.getTime() + ms);
let serial = 0;
const claimOn = (projectId: string, overrides: Partial<IdempotencyClaim> = {}): IdempotencyClaim => ({
  projectId,
  key: `key-contract-${process.pid}-${++serial}`,
  fingerprint: 'f1',
  lockedUntil: later(30_000),
  expiresAt: later(86_400_000),
  now: at,
  ...overrides,
});

/**
 * The rules every IdempotencyStore keeps, run against the in-memory fake (test/fast) and
 * PgIdempotencyStore (test/store-contracts.test.ts): one claim per key and project, a replay reads
 * the record, a lapsed or abandoned record can be taken over once, only a running claim is released.
 */
export function idempotencyStoreContract(kind: string, subject: () => IdempotencyStoreSubject): void {
  describe(`IdempotencyStore contract: ${kind}`, () => {
    it('claims a new key once; a second claim reads the running record', async () => {
      const { store, projectId } = subject();
      const claim = claimOn(projectId);
      expect(await store.claim(claim)).toEqual({ claimed: true });
      expect(await store.claim({ ...claim, fingerprint: 'f2' })).toEqual({
        claimed: false,
        existing: {
          fingerprint: 'f1',
          state: 'running',
          responseStatus: null,
          responseSealed: null,
          lockedUntil: claim.lockedUntil,
          expiresAt: claim.expiresAt,
        },
      });
    });

    it('keeps keys apart per project', async () => {
      const { store, projectId, otherProjectId } = subject();
      const claim = claimOn(projectId);
      expect(await store.claim(claim)).toEqual({ claimed: true });
      expect(await store.claim({ ...claim, projectId: otherProjectId })).toEqual({ claimed: true });
    });

    it('replays the completed answer, which a release no longer removes', async () => {
      const { store, projectId } = subject();
      const claim = claimOn(projectId);
      await store.claim(claim);
      await store.complete(projectId, claim.key, 201, 'sealed-answer');
      await store.release(projectId, claim.key);
      const replay = await store.claim(claim);
      expect(replay).toMatchObject({
        claimed: false,
        existing: { state: 'done', responseStatus: 201, responseSealed: 'sealed-answer' },
      });
    });

    it('releases a running claim, so the key can be claimed again', async () => {
      const { store, projectId } = subject();
      const claim = claimOn(projectId);
      await store.claim(claim);
      await store.release(projectId, claim.key);
      expect(await store.claim(claim)).toEqual({ claimed: true });
    });

    it('takes over only a record whose lock ran out or that lapsed, and only once', async () => {
      const { store, projectId } = subject();
      const running = claimOn(projectId);
      await store.claim(running);
      expect(await store.takeOver({ ...running, now: later(29_999) })).toBe(false);
      const abandoned = { ...running, fingerprint: 'f2', now: later(30_000), lockedUntil: later(60_000) };
      expect(await store.takeOver(abandoned)).toBe(true);
      expect(await store.takeOver(abandoned)).toBe(false);

      const done = claimOn(projectId);
      await store.claim(done);
      await store.complete(projectId, done.key, 200, 'x');
      expect(await store.takeOver({ ...done, now: later(86_399_999) })).toBe(false);
      expect(await store.takeOver({ ...done, now: later(86_400_000) })).toBe(true);
    });

    it('gives one winner among concurrent claims of a key', async () => {
      const { store, projectId } = subject();
      const claim = claimOn(projectId);
      const outcomes = await Promise.all(Array.from({ length: 6 }, () => store.claim(claim)));
      expect(outcomes.filter((outcome) => outcome.claimed)).toHaveLength(1);
    });

    it('answers concurrent claims of different keys each with its own outcome', async () => {
      const { store, projectId, otherProjectId } = subject();
      const done = claimOn(projectId);
      await store.claim(done);
      await store.complete(projectId, done.key, 200, 'first-answer');
      const fresh = claimOn(projectId);
      const outcomes = await Promise.all([
        store.claim(fresh),
        store.claim(done),
        store.claim({ ...fresh, projectId: otherProjectId }),
      ]);
      expect(outcomes[0]).toEqual({ claimed: true });
      expect(outcomes[1]).toMatchObject({
        claimed: false,
        existing: { state: 'done', responseSealed: 'first-answer' },
      });
      expect(outcomes[2]).toEqual({ claimed: true });
    });

    it('purges the records lapsed by now, and no other', async () => {
      const { store, projectId } = subject();
      const far = later(10 * 86_400_000);
      const lapsing = claimOn(projectId, { expiresAt: far });
      const staying = claimOn(projectId, { expiresAt: new Date(far.getTime() + 1) });
      await store.claim(lapsing);
      await store.claim(staying);
      // Every record the earlier cases made lapses before `far` too: count only this pair.
      await store.purge(new Date(far.getTime() - 1));
      expect(await store.purge(far)).toBe(1);
      expect(await store.claim(lapsing)).toEqual({ claimed: true });
      expect((await store.claim(staying)).claimed).toBe(false);
    });
  });
}
