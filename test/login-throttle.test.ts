import { describe, expect, it } from 'vitest';
import { ACCOUNT_TIER, ADDRESS_TIER, LoginThrottle, lockSeconds, type LockedOut } from '../src/core/accounts/login-throttle.js';
import type { Orm } from '../src/core/db/orm.js';

// Fast tier: the brute-force rule on the in-memory store (the sign-in page's 429 is tested through HTTP in oidc.test.ts).
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

describe('LoginThrottle', () => {
  const memory = (locks: LockedOut[] = []) => new LoginThrottle(undefined as unknown as Orm, 'memory', (lock) => locks.push(lock));

  it('locks the account after its free failures, whatever the case of the email, and reports the lock', async () => {
    const locks: LockedOut[] = [];
    const throttle = memory(locks);
    for (let i = 0; i < 4; i++) await throttle.failed('ada@example.com', '10.0.0.1');
    await expect(throttle.ensureOpen('ada@example.com', '10.0.0.1')).resolves.toBeUndefined();
    await throttle.failed('ADA@example.com', '10.0.0.2');
    await expect(throttle.ensureOpen('ada@example.com', '10.0.0.3')).rejects.toMatchObject({ code: 'rate_limited', retryAfterSeconds: 30 });
    expect(locks).toEqual([{ key: 'account', seconds: 30, failures: 5 }]);
    await expect(throttle.ensureOpen('grace@example.com', '10.0.0.1')).resolves.toBeUndefined();
  });

  it('locks an address that sprays many accounts, and a success clears only the account', async () => {
    const throttle = memory();
    for (let i = 0; i < 30; i++) await throttle.failed(`person${i}@example.com`, '10.9.9.9');
    await expect(throttle.ensureOpen('fresh@example.com', '10.9.9.9')).rejects.toMatchObject({ code: 'rate_limited' });
    await expect(throttle.ensureOpen('fresh@example.com', '10.1.1.1')).resolves.toBeUndefined();
    const other = memory();
    for (let i = 0; i < 5; i++) await other.failed('ada@example.com', '10.0.0.1');
    await other.succeeded('ada@example.com', '10.0.0.1');
    await expect(other.ensureOpen('ada@example.com', '10.0.0.1')).resolves.toBeUndefined();
  });
});
