import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Orm } from '../db/orm.js';
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

/** Request limits per key (an API key, a session, an address): 429 `rate_limited` with the seconds to wait. */
export class RateLimits {
  private readonly limiter: RateLimiterAbstract;

  constructor(
    orm: Orm,
    private readonly options: RateLimitOptions,
  ) {
    const common = { points: options.points, duration: options.windowSeconds, keyPrefix: options.keyPrefix ?? 'api' };
    this.limiter =
      options.store === 'postgres'
        ? new RateLimiterPostgres({
            ...common,
            storeClient: orm.em.getConnection().getKnex(),
            storeType: 'knex',
            tableName: 'rate_limit',
            tableCreated: true,
            clearExpiredByTimeout: false,
          })
        : new RateLimiterMemory(common);
  }

  async consume(key: string): Promise<void> {
    try {
      await this.limiter.consume(key);
    } catch (error) {
      if (error instanceof RateLimiterRes) {
        const seconds = Math.max(1, Math.ceil(error.msBeforeNext / 1000));
        throw new DomainError('rate_limited', `more than ${this.options.points} requests in ${this.options.windowSeconds} s for this ${this.options.per ?? 'API key'}; retry in ${seconds} s`, {
          retryAfterSeconds: seconds,
        });
      }
      throw error;
    }
  }

  /** Deletes expired counters (Postgres store); returns how many. */
  async purgeExpired(orm: Orm): Promise<number> {
    if (this.options.store !== 'postgres') return 0;
    return orm.em
      .getConnection()
      .execute('delete from rate_limit where expire < ?', [Date.now()], 'run')
      .then((result) => Number((result as { affectedRows?: number }).affectedRows ?? 0));
  }
}
