import type { Clock } from '../clock.js';
import type { Orm } from '../db/orm.js';
import { preparedQuery, preparedQueryIn, transaction } from '../db/prepared.js';
import { DomainError } from '../errors.js';
import { digestSecret } from '../secrets.js';

// Password guessing (issue 20, brute force). Failed sign-ins are counted per account (its email,
// whether or not it exists, so the answer does not tell) and per client address. Past a few
// failures the key is locked for a while that doubles with every further failure, up to a cap:
// a person who mistypes waits seconds, a script guessing one account gets a handful of tries an
// hour, and one address spraying many accounts is stopped by its own count. A locked sign-in
// answers 429 `rate_limited` with Retry-After before the password is even checked; a success
// clears the account's count.
//
// An attempt takes its slot before its password is checked (issue 46): counted after the check,
// twenty guesses sent at once all passed the lock before the first failure was counted. A key has
// as many slots as failures it may still make before its next lock, so however many attempts
// arrive together, no more are checked than one at a time would have been. The take, the count
// and the lock are one transaction on the key's row of `signin_throttle` (PostgreSQL, shared by
// every instance; memory on the embedded store, which is one process).

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
const MEMORY_MS = 24 * 3600_000;
/** A slot not settled by then is free again: an instance that died mid-check does not hold it for ever. */
export const SLOT_LEASE_MS = 60_000;

/** How long the n-th failure (1-based) locks a key of this tier: 0 while still free. */
export function lockSeconds(tier: Tier, failures: number): number {
  if (failures < tier.free) return 0;
  return Math.min(tier.maxLockSeconds, tier.firstLockSeconds * 2 ** (failures - tier.free));
}

/** One key's count (an account's or an address's); times in epoch milliseconds, 0 for never. */
export interface KeyCount {
  failures: number;
  /** Attempts whose password is being checked, each holding a slot. */
  checking: number;
  /** When the slots held lapse (the last one taken plus SLOT_LEASE_MS). */
  checkingUntil: number;
  lockedUntil: number;
  /** When the failures are forgotten (a day after the last). */
  forgetAt: number;
}

const NO_COUNT: KeyCount = { failures: 0, checking: 0, checkingUntil: 0, lockedUntil: 0, forgetAt: 0 };

/** The count as it stands at `now`: failures forgotten a day after the last, slots lapsed after their lease. */
export function countAt(count: KeyCount | null, now: number): KeyCount {
  let current = count ?? NO_COUNT;
  if (current.forgetAt <= now) current = { ...current, failures: 0, lockedUntil: 0, forgetAt: 0 };
  if (current.checkingUntil <= now) current = { ...current, checking: 0, checkingUntil: 0 };
  return current;
}

/**
 * An attempt asking to check a password at `now`: the count with its slot taken, or how many
 * seconds to wait. A locked key waits for the rest of its lock. Otherwise the key has as many
 * slots as failures it may still make before it locks (its free failures not yet made, or one
 * once it has locked before); attempts being checked hold them, and an attempt finding none left
 * waits a second, within which they settle.
 */
export function takeSlot(
  tier: Tier,
  count: KeyCount | null,
  now: number,
): { count: KeyCount } | { waitSeconds: number } {
  const current = countAt(count, now);
  if (current.lockedUntil > now) return { waitSeconds: Math.max(1, Math.ceil((current.lockedUntil - now) / 1000)) };
  if (current.checking >= Math.max(1, tier.free - current.failures)) return { waitSeconds: 1 };
  return { count: { ...current, checking: current.checking + 1, checkingUntil: now + SLOT_LEASE_MS } };
}

/** A checked password was wrong: its slot becomes a failure, which locks the key once past the free ones. */
export function settleFailure(
  tier: Tier,
  count: KeyCount | null,
  now: number,
): { count: KeyCount; lockSeconds: number } {
  const current = countAt(count, now);
  const failures = current.failures + 1;
  const seconds = lockSeconds(tier, failures);
  return {
    count: {
      ...current,
      failures,
      checking: Math.max(0, current.checking - 1),
      lockedUntil: seconds > 0 ? now + seconds * 1000 : current.lockedUntil,
      forgetAt: now + MEMORY_MS,
    },
    lockSeconds: seconds,
  };
}

/**
 * A slot given back: the password was right (for the address: successes are not held against it), or could not be
 * checked.
 */
export function releaseSlot(count: KeyCount | null, now: number): KeyCount {
  const current = countAt(count, now);
  return { ...current, checking: Math.max(0, current.checking - 1) };
}

/**
 * Where the counts live. `change` reads the keys' counts (null: none yet), and stores the counts
 * `decide` answers in their place, as one step no other change of those keys can interleave with.
 */
interface CountStore {
  change<T>(
    keys: readonly string[],
    now: number,
    decide: (counts: (KeyCount | null)[]) => { counts: KeyCount[]; result: T },
  ): Promise<T>;
  /** Drops the counts that hold nothing any more; returns how many. */
  purge(now: number): Promise<number>;
}

/** Keys whose count holds nothing are dropped once this many are held. */
const MAX_HELD_KEYS = 10_000;

const holdsNothing = (count: KeyCount, now: number) => count.forgetAt <= now && count.checkingUntil <= now;

/** The embedded store's counts: one process, so a change with no await between read and write is atomic. */
class MemoryCounts implements CountStore {
  private readonly counts = new Map<string, KeyCount>();

  async change<T>(
    keys: readonly string[],
    now: number,
    decide: (counts: (KeyCount | null)[]) => { counts: KeyCount[]; result: T },
  ): Promise<T> {
    const { counts, result } = decide(keys.map((key) => this.counts.get(key) ?? null));
    for (const [i, key] of keys.entries()) this.counts.set(key, counts[i]!);
    if (this.counts.size > MAX_HELD_KEYS) await this.purge(now);
    return result;
  }

  async purge(now: number): Promise<number> {
    const before = this.counts.size;
    for (const [key, count] of this.counts) if (holdsNothing(count, now)) this.counts.delete(key);
    return before - this.counts.size;
  }
}

interface CountRow {
  key: string;
  failures: number;
  checking: number;
  checking_until: string | number;
  locked_until: string | number;
  forget_at: string | number;
}

/**
 * The counts on PostgreSQL, one row per key. A change is a transaction that makes the keys' rows
 * exist and locks them in key order (two sign-ins never wait on each other in a circle), reads,
 * and writes what was decided.
 */
class PgCounts implements CountStore {
  constructor(private readonly orm: Orm) {}

  change<T>(
    keys: readonly string[],
    _now: number,
    decide: (counts: (KeyCount | null)[]) => { counts: KeyCount[]; result: T },
  ): Promise<T> {
    const sorted = [...keys].sort();
    return transaction(this.orm, async (em) => {
      await preparedQueryIn(
        this.orm,
        em,
        'signin_throttle_hold',
        'insert into signin_throttle (key) select unnest($1::varchar[]) on conflict do nothing',
        [sorted],
      );
      const rows = await preparedQueryIn<CountRow>(
        this.orm,
        em,
        'signin_throttle_lock',
        'select key, failures, checking, checking_until, locked_until, forget_at from signin_throttle where key = any($1::varchar[]) order by key for update',
        [sorted],
      );
      const byKey = new Map(rows.map((row) => [row.key, row]));
      const { counts, result } = decide(keys.map((key) => countOf(byKey.get(key))));
      await preparedQueryIn(
        this.orm,
        em,
        'signin_throttle_write',
        `update signin_throttle t set failures = c.failures, checking = c.checking, checking_until = c.checking_until, locked_until = c.locked_until, forget_at = c.forget_at
         from unnest($1::varchar[], $2::int[], $3::int[], $4::bigint[], $5::bigint[], $6::bigint[]) as c(key, failures, checking, checking_until, locked_until, forget_at)
         where t.key = c.key`,
        [
          keys,
          ...(['failures', 'checking', 'checkingUntil', 'lockedUntil', 'forgetAt'] as const).map((field) =>
            counts.map((count) => count[field]),
          ),
        ],
      );
      return result;
    });
  }

  async purge(now: number): Promise<number> {
    const rows = await preparedQuery(
      this.orm,
      'signin_throttle_purge',
      'delete from signin_throttle where forget_at <= $1 and checking_until <= $1 returning 1',
      [now],
    );
    return rows.length;
  }
}

const countOf = (row: CountRow | undefined): KeyCount | null =>
  row
    ? {
        failures: row.failures,
        checking: row.checking,
        checkingUntil: Number(row.checking_until),
        lockedUntil: Number(row.locked_until),
        forgetAt: Number(row.forget_at),
      }
    : null;

export interface LockedOut {
  key: 'account' | 'address';
  seconds: number;
  failures: number;
}

const TIERS = { account: ACCOUNT_TIER, address: ADDRESS_TIER } as const;
const KINDS = ['account', 'address'] as const;

export class LoginThrottle {
  private readonly counts: CountStore;

  constructor(
    private readonly deps: { orm?: Orm; store: 'postgres' | 'memory'; clock: Clock },
    private readonly onLock: (lock: LockedOut) => void = () => undefined,
  ) {
    this.counts = deps.store === 'postgres' ? new PgCounts(deps.orm!) : new MemoryCounts();
  }

  private static keys(email: string, address: string): string[] {
    // digests: the table holds no email address
    return [`account:${accountKey(email)}`, `address:${address}`];
  }

  private now(): number {
    return this.deps.clock.now().getTime();
  }

  /**
   * Takes a slot on the account and on the address for one sign-in attempt, before its password
   * is checked; 429 `rate_limited` with the seconds to wait when either is locked or has no slot
   * left (then neither is taken). Settle it with failed, succeeded or released.
   */
  async reserve(email: string, address: string): Promise<void> {
    const now = this.now();
    const wait = await this.counts.change(LoginThrottle.keys(email, address), now, (counts) => {
      const taken = KINDS.map((kind, i) => takeSlot(TIERS[kind], counts[i] ?? null, now));
      const waits = taken.flatMap((slot) => ('waitSeconds' in slot ? [slot.waitSeconds] : []));
      if (waits.length > 0) return { counts: counts.map((count) => countAt(count, now)), result: Math.max(...waits) };
      return { counts: taken.map((slot) => (slot as { count: KeyCount }).count), result: 0 };
    });
    if (wait > 0)
      throw new DomainError('rate_limited', `too many failed sign-ins: try again in ${wait} s`, {
        retryAfterSeconds: wait,
      });
  }

  /**
   * The reserved attempt's password was wrong: a failure on the account and the address, locking either past its free
   * failures.
   */
  async failed(email: string, address: string): Promise<void> {
    const now = this.now();
    const settled = await this.counts.change(LoginThrottle.keys(email, address), now, (counts) => {
      const each = KINDS.map((kind, i) => settleFailure(TIERS[kind], counts[i] ?? null, now));
      return { counts: each.map((one) => one.count), result: each };
    });
    for (const [i, { count, lockSeconds: seconds }] of settled.entries())
      if (seconds > 0) this.onLock({ key: KINDS[i]!, seconds, failures: count.failures });
  }

  /** The reserved attempt's password was right: the account's failures are forgiven, the address gets its slot back. */
  async succeeded(email: string, address: string): Promise<void> {
    const now = this.now();
    await this.counts.change(LoginThrottle.keys(email, address), now, ([, addressCount]) => ({
      counts: [NO_COUNT, releaseSlot(addressCount ?? null, now)],
      result: undefined,
    }));
  }

  /** The reserved attempt could not be checked (an error): both get their slot back, nothing is counted. */
  async released(email: string, address: string): Promise<void> {
    const now = this.now();
    await this.counts.change(LoginThrottle.keys(email, address), now, (counts) => ({
      counts: counts.map((count) => releaseSlot(count, now)),
      result: undefined,
    }));
  }

  /** Forgets an account's failures and lock (its password was reset). */
  async forgetAccount(email: string): Promise<void> {
    await this.counts.change([`account:${accountKey(email)}`], this.now(), () => ({
      counts: [NO_COUNT],
      result: undefined,
    }));
  }

  /** Drops the counts that hold nothing any more (housekeeping); returns how many. */
  purgeExpired(): Promise<number> {
    return this.counts.purge(this.now());
  }
}

const accountKey = (email: string) => digestSecret(email.trim().toLowerCase());
