import PgBoss from 'pg-boss';
import { ADVISORY_LOCKS, withAdvisoryLock } from './db/advisory-lock.js';

/** Background work: webhook delivery, the sweep that expires sessions and rescues stuck events, billing periods. */
export interface JobQueue {
  send(name: string, data: object, options?: { startAfterSeconds?: number; singletonKey?: string }): Promise<void>;
  /**
   * Runs `handler` for each job of `name`, up to `batchSize` at once per process. A handler that
   * throws is logged, not retried here: every job's truth lives in its own table (the webhook
   * outbox, the session row) and the sweep picks up what a failed handler left.
   */
  work(
    name: string,
    handler: (data: Record<string, unknown>) => Promise<void>,
    options?: { batchSize?: number },
  ): Promise<void>;
  /** Runs `name` on a cron schedule; with many instances, one of them runs it per tick. */
  schedule(name: string, cron: string): Promise<void>;
  stop(): Promise<void>;
}

export const JOB_NAMES = ['webhook.deliver', 'maintenance.sweep', 'billing.close-periods'] as const;

/**
 * pg-boss on the service's own Postgres: jobs survive restarts, and with several instances each
 * job runs on exactly one of them at a time.
 */
export class PgBossJobs implements JobQueue {
  private constructor(private readonly boss: PgBoss) {}

  static async start(
    connectionString: string,
    options: { pollingIntervalSeconds?: number; onError?: (error: Error) => void } = {},
  ): Promise<PgBossJobs> {
    const boss = new PgBoss({
      connectionString,
      max: 3,
      application_name: 'verity-jobs',
      schedule: true,
      supervise: true,
    });
    boss.on('error', (error) => options.onError?.(error));
    // Instances starting together take turns: pg-boss creating the same queue (a partition of its
    // job table) from two processes at once deadlocked, and one of them failed its start.
    await withAdvisoryLock(connectionString, ADVISORY_LOCKS.jobQueues, async () => {
      await boss.start();
      for (const name of JOB_NAMES) {
        // Our handlers own their retries (webhooks keep their own schedule), so pg-boss only
        // retries a job whose process died: expireIn returns it to the queue.
        await boss.createQueue(name, { name, retryLimit: 3, retryDelay: 5, expireInSeconds: 120 });
      }
    });
    const jobs = new PgBossJobs(boss);
    jobs.pollingIntervalSeconds = options.pollingIntervalSeconds ?? 1;
    jobs.onError = options.onError;
    return jobs;
  }

  private pollingIntervalSeconds = 1;
  private onError?: (error: Error) => void;
  /** Local workers per queue, woken right after a send instead of at their next poll. */
  private readonly workers = new Map<string, string[]>();

  async send(
    name: string,
    data: object,
    options: { startAfterSeconds?: number; singletonKey?: string } = {},
  ): Promise<void> {
    await this.boss.send(name, data, {
      ...(options.startAfterSeconds ? { startAfter: Math.max(1, Math.ceil(options.startAfterSeconds)) } : {}),
      ...(options.singletonKey ? { singletonKey: options.singletonKey } : {}),
    });
    if (!options.startAfterSeconds) for (const id of this.workers.get(name) ?? []) this.boss.notifyWorker(id);
  }

  async work(
    name: string,
    handler: (data: Record<string, unknown>) => Promise<void>,
    options: { batchSize?: number } = {},
  ): Promise<void> {
    const id = await this.boss.work<Record<string, unknown>>(
      name,
      { pollingIntervalSeconds: this.pollingIntervalSeconds, batchSize: options.batchSize ?? 1 },
      async (jobs) => {
        const results = await Promise.allSettled(jobs.map((job) => handler(job.data)));
        for (const result of results) if (result.status === 'rejected') this.onError?.(result.reason as Error);
      },
    );
    this.workers.set(name, [...(this.workers.get(name) ?? []), id]);
  }

  async schedule(name: string, cron: string): Promise<void> {
    await this.boss.schedule(name, cron, {});
  }

  /** Stops fetching, lets running handlers finish (up to 20 s), and closes the pool. */
  async stop(): Promise<void> {
    await this.boss.stop({ graceful: true, wait: true, timeout: 20_000 });
  }
}
