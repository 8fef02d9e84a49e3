import { RateLimiterMemory, RateLimiterPostgres, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Orm } from '../db/orm.js';
import { DomainError } from '../errors.js';
import { digestSecret } from '../secrets.js';

// Password guessing (issue 20, brute force). Failed sign-ins are counted per account (its email,
// whether or not it exists, so the answer does not tell) and per client address. Past a few
// failures the key is locked for a while that doubles with every further failure, up to a cap:
// a person who mistypes waits seconds, a script guessing one account gets a handful of tries an
// hour, and one address spraying many accounts is stopped by its own count. A locked sign-in
// answers 429 `rate_limited` with Retry-After before the password is even checked; a success
// clears the account's count. Counters live where the API rate limits do (PostgreSQL's
// rate_limit table, shared by every instance; memory on the embedded store).

interface Tier {
  /** Failures allowed before the first lock. */
  free: number;
  /** The first lock; each further failure doubles it. */
  firstLockSeconds: number;
  maxLockSeconds: number;
}

export const ACCOUNT_TIER: Tier = { free: 5, firstLockSeconds: 30, maxLockSeconds: 15 * 60 };
export const ADDRESS_TIER: Tier = { free: 30, firstLockSeconds: 60, maxLockSeconds: 60 * 60 };
/** Failures are forgotten a day after the last one. */
const MEMORY_SECONDS = 24 * 3600;

/** How long the n-th failure (1-based) locks a key of this tier: 0 while still free. */
export function lockSeconds(tier: Tier, failures: number): number {
  if (failures < tier.free) return 0;
  return Math.min(tier.maxLockSeconds, tier.firstLockSeconds * 2 ** (failures - tier.free));
}

export interface LockedOut {
  key: 'account' | 'address';
  seconds: number;
  failures: number;
}

export class LoginThrottle {
  private readonly failures: RateLimiterAbstract;
  private readonly locks: RateLimiterAbstract;

  constructor(
    orm: Orm,
    store: 'postgres' | 'memory',
    private readonly onLock: (lock: LockedOut) => void = () => undefined,
  ) {
    const make = (keyPrefix: string, points: number) =>
      store === 'postgres'
        ? new RateLimiterPostgres({
            points,
            duration: MEMORY_SECONDS,
            keyPrefix,
            storeClient: orm.em.getConnection().getKnex(),
            storeType: 'knex',
            tableName: 'rate_limit',
            tableCreated: true,
            clearExpiredByTimeout: false,
          })
        : new RateLimiterMemory({ points, duration: MEMORY_SECONDS, keyPrefix });
    this.failures = make('signin_failures', 1_000_000);
    this.locks = make('signin_lock', 1);
  }

  private static keys(email: string, address: string) {
    // digests: the table holds no email address
    const account = digestSecret(email.trim().toLowerCase());
    return { account: `account:${account}`, address: `address:${address}` };
  }

  /** 429 `rate_limited` while the account or the address is locked. */
  async ensureOpen(email: string, address: string): Promise<void> {
    for (const key of Object.values(LoginThrottle.keys(email, address))) {
      const lock = await this.locks.get(key);
      if (lock && lock.consumedPoints > 1 && lock.msBeforeNext > 0) {
        const seconds = Math.max(1, Math.ceil(lock.msBeforeNext / 1000));
        throw new DomainError('rate_limited', `too many failed sign-ins: try again in ${seconds} s`, { retryAfterSeconds: seconds });
      }
    }
  }

  /** Counts a failed sign-in; locks the account or the address once past its free failures. */
  async failed(email: string, address: string): Promise<void> {
    const keys = LoginThrottle.keys(email, address);
    for (const [kind, tier] of [
      ['account', ACCOUNT_TIER],
      ['address', ADDRESS_TIER],
    ] as const) {
      const failures = (await this.failures.penalty(keys[kind], 1)).consumedPoints;
      const seconds = lockSeconds(tier, failures);
      if (seconds > 0) {
        await this.locks.block(keys[kind], seconds);
        this.onLock({ key: kind, seconds, failures });
      }
    }
  }

  /** A successful sign-in forgets the account's failures (the address keeps its count). */
  async succeeded(email: string, address: string): Promise<void> {
    const { account } = LoginThrottle.keys(email, address);
    await Promise.all([this.failures.delete(account), this.locks.delete(account)]);
  }
}
