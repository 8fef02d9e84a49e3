import { describe, expect, it } from 'vitest';
import {
  ACCOUNT_TIER,
  ADDRESS_TIER,
  LoginThrottle,
  lockSeconds,
  releaseSlot,
  settleFailure,
  SLOT_LEASE_MS,
  takeSlot,
  type KeyCount,
  type LockedOut,
} from '../../src/core/accounts/login-throttle.js';
import { ManualClock } from '../../src/core/clock.js';

// Fast tier: the brute-force rule on the in-memory store (the sign-in page's 429, and attempts at
// once on PostgreSQL, are tested through HTTP in oidc.test.ts and reliability/races.test.ts).
describe('lockSeconds', () => {
  it('lets the first failures through, then locks for a time that doubles per failure up to a cap', () => {
    expect([1, 2, 3, 4].map((n) => lockSeconds(ACCOUNT_TIER, n))).toEqual([0, 0, 0, 0]);
    expect([5, 6, 7, 8].map((n) => lockSeconds(ACCOUNT_TIER, n))).toEqual([30, 60, 120, 240]);
    expect(lockSeconds(ACCOUNT_TIER, 50)).toBe(15 * 60);
    expect(lockSeconds(ADDRESS_TIER, 29)).toBe(0);
    expect(lockSeconds(ADDRESS_TIER, 30)).toBe(60);
    expect(lockSeconds(ADDRESS_TIER, 100)).toBe(3600);
  });
});

describe('slots: an attempt is counted before its password is checked', () => {
  const now = Date.parse('2026-12-02T12:00:00Z');
  /** Takes slots until one is refused; answers how many were taken and the count then. */
  const takeAll = (count: KeyCount | null, at = now) => {
    let taken = 0;
    for (;;) {
      const slot = takeSlot(ACCOUNT_TIER, count, at);
      if ('waitSeconds' in slot) return { taken, count, wait: slot.waitSeconds };
      count = slot.count;
      taken += 1;
    }
  };

  it('gives a fresh key its free failures as slots, and no more however many ask at once', () => {
    expect(takeAll(null)).toMatchObject({ taken: 5, wait: 1, count: { checking: 5 } });
  });

  it('leaves as many slots as failures still free, then one after each lock has passed', () => {
    let count: KeyCount | null = null;
    for (let i = 0; i < 4; i++) count = settleFailure(ACCOUNT_TIER, count, now).count;
    expect(takeAll(count).taken).toBe(1);
    const locked = settleFailure(ACCOUNT_TIER, count, now);
    expect(locked.lockSeconds).toBe(30);
    expect(takeAll(locked.count)).toMatchObject({ taken: 0, wait: 30 });
    expect(takeAll(locked.count, now + 30_000).taken).toBe(1);
  });

  it('turns a slot into a failure, or gives it back; a slot never settled lapses after its lease', () => {
    const first = takeSlot(ACCOUNT_TIER, null, now) as { count: KeyCount };
    expect(settleFailure(ACCOUNT_TIER, first.count, now).count).toMatchObject({ failures: 1, checking: 0 });
    expect(releaseSlot(first.count, now)).toMatchObject({ failures: 0, checking: 0 });
    const full = takeAll(null).count!;
    expect(takeAll(full, now + SLOT_LEASE_MS).taken).toBe(5);
  });

  it('forgets failures a day after the last', () => {
    let count: KeyCount | null = null;
    for (let i = 0; i < 7; i++) count = settleFailure(ACCOUNT_TIER, count, now).count;
    expect(takeAll(count, now + 24 * 3600_000).taken).toBe(5);
  });
});

describe('LoginThrottle', () => {
  const setUp = () => {
    const locks: LockedOut[] = [];
    const clock = new ManualClock(new Date('2026-12-02T12:00:00Z'));
    return { clock, locks, throttle: new LoginThrottle({ store: 'memory', clock }, (lock) => locks.push(lock)) };
  };
  const fail = async (throttle: LoginThrottle, email: string, address: string) => {
    await throttle.reserve(email, address);
    await throttle.failed(email, address);
  };

  it('locks the account after its free failures, whatever the case of the email, and reports the lock', async () => {
    const { throttle, locks } = setUp();
    for (let i = 0; i < 4; i++) await fail(throttle, 'ada@example.com', '10.0.0.1');
    await fail(throttle, 'ADA@example.com', '10.0.0.2');
    await expect(throttle.reserve('ada@example.com', '10.0.0.3')).rejects.toMatchObject({
      code: 'rate_limited',
      retryAfterSeconds: 30,
    });
    expect(locks).toEqual([{ key: 'account', seconds: 30, failures: 5 }]);
    await expect(throttle.reserve('grace@example.com', '10.0.0.1')).resolves.toBeUndefined();
  });

  it('checks no more attempts sent at once than it would one after the other', async () => {
    const { throttle } = setUp();
    const reserved = await Promise.allSettled(
      Array.from({ length: 20 }, () => throttle.reserve('ada@example.com', '10.0.0.1')),
    );
    expect(reserved.filter((result) => result.status === 'fulfilled')).toHaveLength(5);
    expect(
      reserved
        .filter((result) => result.status === 'rejected')
        .map((result) => (result as PromiseRejectedResult).reason),
    ).toEqual(
      Array.from({ length: 15 }, () => expect.objectContaining({ code: 'rate_limited', retryAfterSeconds: 1 })),
    );
  });

  it('locks an address that sprays many accounts, and a success clears only the account and counts nothing against the address', async () => {
    const { throttle } = setUp();
    for (let i = 0; i < 30; i++) await fail(throttle, `person${i}@example.com`, '10.9.9.9');
    await expect(throttle.reserve('fresh@example.com', '10.9.9.9')).rejects.toMatchObject({
      code: 'rate_limited',
      retryAfterSeconds: 60,
    });
    await expect(throttle.reserve('fresh@example.com', '10.1.1.1')).resolves.toBeUndefined();

    for (let i = 0; i < 4; i++) await fail(throttle, 'ada@example.com', '10.0.0.1');
    await throttle.reserve('ada@example.com', '10.0.0.1');
    await throttle.succeeded('ada@example.com', '10.0.0.1');
    for (let i = 0; i < 4; i++) await fail(throttle, 'ada@example.com', '10.0.0.1');
    await expect(throttle.reserve('ada@example.com', '10.0.0.1')).resolves.toBeUndefined();
    await throttle.released('ada@example.com', '10.0.0.1');
    // the address made 8 failures and one success: 22 more before its lock
    for (let i = 0; i < 22; i++) await fail(throttle, `other${i}@example.com`, '10.0.0.1');
    await expect(throttle.reserve('someone@example.com', '10.0.0.1')).rejects.toMatchObject({ code: 'rate_limited' });
  });

  it('gives back the slots of an attempt that could not be checked, and forgets an account whose password was reset', async () => {
    const { throttle } = setUp();
    for (let i = 0; i < 4; i++) await fail(throttle, 'ada@example.com', '10.0.0.1');
    await throttle.reserve('ada@example.com', '10.0.0.1');
    await expect(throttle.reserve('ada@example.com', '10.0.0.1')).rejects.toMatchObject({ code: 'rate_limited' });
    await throttle.released('ada@example.com', '10.0.0.1');
    await fail(throttle, 'ada@example.com', '10.0.0.1');
    await expect(throttle.reserve('ada@example.com', '10.0.0.1')).rejects.toMatchObject({
      code: 'rate_limited',
      retryAfterSeconds: 30,
    });
    await throttle.forgetAccount('Ada@example.com');
    await expect(throttle.reserve('ada@example.com', '10.0.0.1')).resolves.toBeUndefined();
  });
});
