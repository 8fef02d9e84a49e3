import pg from 'pg';

// Start-up work that processes of one database must not do at the same time (instances started
// together by an orchestrator or a compose file): applying migrations, creating the job queues.

/** Keys of the session advisory locks (bigints, one per kind of work). */
export const ADVISORY_LOCKS = {
  /** The bytes of 'verity' (0x766572697479). */
  migrations: '130178083288185',
  jobQueues: '130178083288186',
} as const;

/**
 * Runs `work` while this process holds the session advisory lock `key`, on a connection of its
 * own (so that `work` still has every connection of its pool, even a pool of one): a process
 * that comes second waits, then finds the work done. Closing the connection would release the
 * lock too; it is released explicitly first.
 */
export async function withAdvisoryLock<T>(connectionString: string, key: string, work: () => Promise<T>): Promise<T> {
  const lock = new pg.Client({ connectionString, application_name: 'verity-startup' });
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [key]);
    return await work();
  } finally {
    await lock.query('select pg_advisory_unlock($1)', [key]).catch(() => undefined);
    await lock.end().catch(() => undefined);
  }
}
