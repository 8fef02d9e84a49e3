import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Orm } from './db/orm.js';
import { preparedQuery } from './db/prepared.js';
import { unhealthyDestinations } from './webhooks/health.js';

// What ops watch besides HTTP: verdicts, webhook deliveries, the job queue, sessions, wallets and
// the database pool. Counters are bumped where the thing happens; gauges are read from the
// database when Prometheus scrapes, so every instance reports the same shared state.

/** Wallet balances are reported for at most this many projects (the lowest first): a bounded label set. */
const MAX_WALLET_SERIES = 50;

export class ServiceMetrics {
  readonly registry = new Registry();
  readonly checkVerdicts = new Counter({
    name: 'verity_check_verdicts_total',
    help: 'Standalone check verdicts by check type, status and reason (reason "none" for a pass)',
    labelNames: ['type', 'status', 'reason'] as const,
    registers: [this.registry],
  });
  readonly webhookAttempts = new Counter({
    name: 'verity_webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome: delivered, retry (will be tried again), failed (gave up), disabled (410)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly webhookDeliverySeconds = new Histogram({
    name: 'verity_webhook_delivery_seconds',
    help: 'From an event being recorded to its receiver acknowledging it',
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 28800],
    registers: [this.registry],
  });

  readonly inferenceSeconds = new Histogram({
    name: 'verity_model_inference_seconds',
    help: 'Model inference per call, by model (document_read, face_detect, face_describe, liveness, head_pose), waiting for the inference queue included',
    labelNames: ['model'] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32],
    registers: [this.registry],
  });

  /**
   * `projectLabels`: the per-project gauges (wallet balances, unhealthy webhook destinations) carry
   * the project id as a label. Off by default: a scrape, a dashboard or a remote-write copy is then
   * no list of tenants; each gauge is one series over every project.
   */
  constructor(orm: Orm, options: { projectLabels?: boolean } = {}) {
    const registry = this.registry;
    const projectLabels = options.projectLabels === true;
    const rows = <T>(name: string, text: string, values: unknown[] = []) =>
      preparedQuery<T>(orm, name, text, values).catch(() => [] as T[]);
    new Gauge({
      name: 'verity_job_queue_depth',
      help: 'Jobs waiting (created or retry) per queue; 0 for a queue with none',
      labelNames: ['queue'] as const,
      registers: [registry],
      async collect() {
        this.reset();
        // Every queue has a series (0 when idle): a dashboard shows 0, not "no data".
        for (const row of await rows<{ name: string; depth: number }>(
          'metrics_queue_depth',
          `select q.name, count(j.id)::int as depth from pgboss.queue q left join pgboss.job j on j.name = q.name and j.state in ('created', 'retry') group by q.name`,
        ))
          this.set({ queue: row.name }, Number(row.depth));
      },
    });
    new Gauge({
      name: 'verity_job_queue_oldest_seconds',
      help: 'How long the oldest due job of each queue has waited since it became due; 0 for a queue with none',
      labelNames: ['queue'] as const,
      registers: [registry],
      async collect() {
        this.reset();
        for (const row of await rows<{ name: string; age: number | null }>(
          'metrics_queue_oldest',
          `select q.name, extract(epoch from now() - min(j.start_after))::float8 as age from pgboss.queue q left join pgboss.job j on j.name = q.name and j.state in ('created', 'retry') and j.start_after <= now() group by q.name`,
        ))
          this.set({ queue: row.name }, Math.max(0, Number(row.age ?? 0)));
      },
    });
    new Gauge({
      name: 'verity_sessions',
      help: 'Verification sessions by status',
      labelNames: ['status'] as const,
      registers: [registry],
      async collect() {
        this.reset();
        // The trigger-kept counts (Migration20261204090000_growth): a count of the table grew with its history.
        for (const row of await rows<{ status: string; n: string }>(
          'metrics_session_counts',
          'select status, sum(n) as n from session_status_count group by status having sum(n) > 0',
        ))
          this.set({ status: row.status }, Number(row.n));
      },
    });
    new Gauge({
      name: 'verity_wallet_balance_minor',
      help: projectLabels
        ? `Wallet balance in minor units per project (the ${MAX_WALLET_SERIES} lowest)`
        : 'The lowest wallet balance of any project, in minor units (per project with VERITY_METRICS_PROJECT_LABELS=1)',
      labelNames: projectLabels ? ['project'] : [],
      registers: [registry],
      async collect() {
        this.reset();
        const lowest = await rows<{ id: string; balance: number }>(
          'metrics_lowest_balances',
          'select project_id as id, balance_minor::float8 as balance from wallet order by balance_minor asc, project_id limit $1',
          [projectLabels ? MAX_WALLET_SERIES : 1],
        );
        for (const row of lowest) {
          if (projectLabels) this.set({ project: row.id }, Number(row.balance));
          else this.set(Number(row.balance));
        }
      },
    });
    new Gauge({
      name: 'verity_webhook_destination_unhealthy',
      help: projectLabels
        ? 'Webhook destinations that keep failing (see isDestinationHealthy), counted per project; only projects with one have a series'
        : 'Webhook destinations that keep failing (see isDestinationHealthy), of every project (per project with VERITY_METRICS_PROJECT_LABELS=1)',
      labelNames: projectLabels ? ['project'] : [],
      registers: [registry],
      async collect() {
        this.reset();
        const unhealthy = await unhealthyDestinations(orm, new Date()).catch(() => []);
        if (!projectLabels) this.set(unhealthy.length);
        else for (const destination of unhealthy) this.inc({ project: destination.projectId });
      },
    });
    const pool = () =>
      (
        orm.em.getConnection().getKnex().client as {
          pool?: { numUsed(): number; numFree(): number; numPendingAcquires(): number };
        }
      ).pool;
    new Gauge({
      name: 'verity_db_pool_connections',
      help: 'Database pool connections of this instance: in use, idle, and requests waiting for one',
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        const p = pool();
        this.set({ state: 'in_use' }, p?.numUsed() ?? 0);
        this.set({ state: 'idle' }, p?.numFree() ?? 0);
        this.set({ state: 'waiting' }, p?.numPendingAcquires() ?? 0);
      },
    });
  }

  /** A standalone check's verdict, once it is recorded. */
  recordVerdict(type: string, status: string, reason: string | null | undefined): void {
    this.checkVerdicts.inc({ type, status, reason: status === 'passed' ? 'none' : (reason ?? 'unspecified') });
  }
}
