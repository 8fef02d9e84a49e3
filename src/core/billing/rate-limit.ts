import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { Orm } from '../db/orm.js';
import { preparedQuery } from '../db/prepared.js';
import { DomainError } from '../errors.js';

export interface RateLimitOptions {
  /** Requests per window per key. */
  points: number;
  /** Counters of different limits stay apart (default `api`). */
  keyPrefix?: string;
  /** What one key is, for the error message (default `API key`). */
  per?: string;
  windowSeconds: number;
  /**
   * `postgres` shares counters between every instance on one database; `memory` is for the
   * embedded store, where the data-dir lock guarantees a single instance.
   */
  store: 'postgres' | 'memory';
}

/** A slice of a key's window granted to this instance, spent without asking the database. */
interface Slice {
  left: number;
  /** The window had nothing left to grant: 429 until it ends. */
  spent: boolean;
  /** When the window ends (epoch ms); what is left of the slice is worth nothing after it. */
  windowEnds: number;
}

/** What PostgreSQL grants: a number of points of the window (0 when it is spent) and when the window ends. */
export interface WindowGrant {
  granted: number;
  windowEnds: number;
}

// One statement per slice, on the key's row of `rate_limit` (shared with the login throttle's
// counters, which rate-limiter-flexible keeps there). A slice is at most `$2` points and shrinks
// to an eighth of what the window has left, down to one, so near the limit no instance sits on
// points another could use. A window that has ended starts again from this grant.
const GRANT_SLICE = `
insert into rate_limit (key, points, expire, last_grant) values ($1, least($2::int, $3::int), $4::bigint + $5::bigint, least($2::int, $3::int))
on conflict (key) do update set
  last_grant = case when rate_limit.expire <= $4::bigint then least($2::int, $3::int)
    else greatest(0, least(greatest(1, least($2::int, ($3::int - rate_limit.points) / 8)), $3::int - rate_limit.points)) end,
  points = case when rate_limit.expire <= $4::bigint then least($2::int, $3::int)
    else rate_limit.points + greatest(0, least(greatest(1, least($2::int, ($3::int - rate_limit.points) / 8)), $3::int - rate_limit.points)) end,
  expire = case when rate_limit.expire <= $4::bigint then $4::bigint + $5::bigint else rate_limit.expire end
returning last_grant, expire::float8 as expire`;

/** Grants slices of a key's window from PostgreSQL, so every instance together stays within the limit. */
export async function grantSlice(
  orm: Orm,
  key: string,
  maxSlice: number,
  points: number,
  windowMs: number,
  nowMs: number,
): Promise<WindowGrant> {
  const rows = await preparedQuery<{ last_grant: number; expire: number }>(orm, 'rate_limit_grant_slice', GRANT_SLICE, [
    key,
    maxSlice,
    points,
    nowMs,
    windowMs,
  ]);
  return { granted: Number(rows[0]!.last_grant), windowEnds: Number(rows[0]!.expire) };
}

/** The `rate_limit.points` column is an integer: a limit above it is no limit, counted up to it. */
const MAX_COUNTED = 2_147_483_647;

/** Keys whose window has ended are dropped once this many are held. */
const MAX_HELD_KEYS = 10_000;

/**
 * Request limits per key (an API key, a session, an address): 429 `rate_limited` with the seconds
 * to wait. On PostgreSQL each instance takes slices of a key's fixed window (at most a twentieth
 * of the limit at a time) and spends them in memory: one write per slice, not per request, and
 * no request of any instance beyond the limit.
 */
export class RateLimits {
  private readonly memory: RateLimiterMemory | undefined;
  private readonly slices = new Map<string, Slice>();
  private readonly granting = new Map<string, Promise<Slice>>();
  private readonly maxSlice: number;
  private readonly counted: number;

  constructor(
    private readonly orm: Orm,
    private readonly options: RateLimitOptions,
    private readonly now: () => number = Date.now,
  ) {
    this.memory =
      options.store === 'memory'
        ? new RateLimiterMemory({
            points: options.points,
            duration: options.windowSeconds,
            keyPrefix: options.keyPrefix ?? 'api',
          })
        : undefined;
    this.counted = Math.min(options.points, MAX_COUNTED);
    this.maxSlice = Math.max(1, Math.ceil(this.counted / 20));
  }

  async consume(key: string): Promise<void> {
    if (this.memory) return this.consumeInMemory(key);
    for (;;) {
      const held = this.slices.get(key);
      const slice = held && this.now() < held.windowEnds ? held : await this.newSlice(key);
      // A window with nothing left to grant answers 429 here until it ends, without asking again.
      if (slice.spent) throw this.limited(slice.windowEnds - this.now());
      if (slice.left > 0) {
        slice.left -= 1;
        return;
      }
      // Spent by other requests of this instance: ask for another slice.
      if (slice === held) this.slices.delete(key);
    }
  }

  /** One grant at a time per key; requests arriving meanwhile share it. */
  private async newSlice(key: string): Promise<Slice> {
    const pending = this.granting.get(key);
    if (pending) return pending;
    const granting = (async () => {
      const now = this.now();
      const { granted, windowEnds } = await grantSlice(
        this.orm,
        `${this.options.keyPrefix ?? 'api'}:${key}`,
        this.maxSlice,
        this.counted,
        this.options.windowSeconds * 1000,
        now,
      );
      const slice = { left: granted, spent: granted === 0, windowEnds };
      if (this.slices.size >= MAX_HELD_KEYS) this.dropEnded(now);
      this.slices.set(key, slice);
      return slice;
    })().finally(() => this.granting.delete(key));
    this.granting.set(key, granting);
    return granting;
  }

  private dropEnded(now: number): void {
    for (const [key, slice] of this.slices) if (slice.windowEnds <= now) this.slices.delete(key);
  }

  private async consumeInMemory(key: string): Promise<void> {
    try {
      await this.memory!.consume(key);
    } catch (error) {
      if (error instanceof RateLimiterRes) throw this.limited(error.msBeforeNext);
      throw error;
    }
  }

  private limited(msBeforeNext: number): DomainError {
    const seconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
    return new DomainError(
      'rate_limited',
      `more than ${this.options.points} requests in ${this.options.windowSeconds} s for this ${this.options.per ?? 'API key'}; retry in ${seconds} s`,
      {
        retryAfterSeconds: seconds,
      },
    );
  }

  /** Deletes expired counters (Postgres store); returns how many. */
  async purgeExpired(orm: Orm): Promise<number> {
    if (this.options.store !== 'postgres') return 0;
    const [row] = await preparedQuery<{ purged: number }>(
      orm,
      'rate_limit_purge_expired',
      'with purged as (delete from rate_limit where expire < $1 returning 1) select count(*)::int as purged from purged',
      [Date.now()],
    );
    return Number(row?.purged ?? 0);
  }
}
