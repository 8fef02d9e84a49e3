import type { z } from 'zod';
import type { Clock } from '../clock.js';
import type { Orm } from '../db/orm.js';
import { preparedQuery } from '../db/prepared.js';
import { DomainError } from '../errors.js';
import type { aggregatesInput } from './inputs.js';
import { SESSION_TTL } from '../sessions/inputs.js';
import type {
  CheckFailureReasonView,
  StatusDayCountView,
  TimeToDecisionView,
  WebhookStatsView,
  WorkflowApprovalView,
} from './views.js';

// The figures ops ask for, computed by Postgres over [from, to) of session creation (last 30
// days by default). Each reads covering indexes of the ops migration, so none loads rows into Node.

const DAY_MS = 86_400_000;
const MAX_RANGE_DAYS = 366;

type Range = { projectId: string; from: Date; to: Date };
type Row = Record<string, any>;

/**
 * The earliest a session can have been created and still record a check at `from`: a session
 * takes input only until its deadline. Bounding the sessions too lets PostgreSQL start from the
 * project's sessions of the range (an index range) instead of every project's failed checks.
 */
const sessionsFrom = (from: Date) => new Date(from.getTime() - SESSION_TTL.maxSeconds * 1000);

const ratio = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 10_000) / 10_000 : null);

export class OpsAggregates {
  constructor(private readonly deps: { orm: Orm; clock: Clock }) {}

  private sql(name: string, text: string, values: unknown[]): Promise<Row[]> {
    return preparedQuery<Row>(this.deps.orm, name, text, values);
  }

  /** The range an aggregate covers: [from, to), defaulting to the last 30 days. */
  range(input: z.output<typeof aggregatesInput>): Range {
    const to = input.to ? new Date(input.to) : this.deps.clock.now();
    const from = input.from ? new Date(input.from) : new Date(to.getTime() - 30 * DAY_MS);
    if (to.getTime() - from.getTime() > MAX_RANGE_DAYS * DAY_MS) {
      throw new DomainError('validation_error', `an aggregate covers at most ${MAX_RANGE_DAYS} days`, {
        data: { errors: { from: `at most ${MAX_RANGE_DAYS} days before to` } },
      });
    }
    return { projectId: input.projectId, from, to };
  }

  /** Sessions created per UTC day and status. */
  async sessionsPerDay(range: Range): Promise<StatusDayCountView[]> {
    const rows = await this.sql(
      'ops_sessions_per_day',
      `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day, status, count(*)::int as count
       from verification_session where project_id = $1 and created_at >= $2 and created_at < $3
       group by 1, 2 order by 1, 2`,
      [range.projectId, range.from, range.to],
    );
    return rows.map((row) => ({
      day: row.day as string,
      status: row.status as StatusDayCountView['status'],
      count: Number(row.count),
    }));
  }

  /** Per workflow: sessions, decided ones, approvals and the approval rate (approved / approved + declined). */
  async approvalRates(range: Range): Promise<WorkflowApprovalView[]> {
    const rows = await this.sql(
      'ops_approval_rates',
      `select s.workflow_id, w.name, count(*)::int as sessions,
         count(*) filter (where s.decision = 'APPROVED')::int as approved,
         count(*) filter (where s.decision = 'DECLINED')::int as declined
       from verification_session s left join workflow w on w.id = s.workflow_id
       where s.project_id = $1 and s.created_at >= $2 and s.created_at < $3
       group by s.workflow_id, w.name order by s.workflow_id`,
      [range.projectId, range.from, range.to],
    );
    return rows.map((row) => ({
      workflowId: row.workflow_id as string,
      workflowName: (row.name ?? null) as string | null,
      sessions: Number(row.sessions),
      approved: Number(row.approved),
      declined: Number(row.declined),
      approvalRate: ratio(Number(row.approved), Number(row.approved) + Number(row.declined)),
    }));
  }

  /** Median (and 90th percentile) seconds from creation to an APPROVED or DECLINED decision. */
  async timeToDecision(range: Range): Promise<TimeToDecisionView> {
    const [row] = await this.sql(
      'ops_time_to_decision',
      `select count(*)::int as decided,
         percentile_cont(0.5) within group (order by extract(epoch from decided_at - created_at)) as median,
         percentile_cont(0.9) within group (order by extract(epoch from decided_at - created_at)) as p90
       from verification_session
       where project_id = $1 and created_at >= $2 and created_at < $3 and decision in ('APPROVED', 'DECLINED') and decided_at is not null`,
      [range.projectId, range.from, range.to],
    );
    const seconds = (value: unknown) =>
      value === null || value === undefined ? null : Math.round(Number(value) * 1000) / 1000;
    return { decided: Number(row?.decided ?? 0), medianSeconds: seconds(row?.median), p90Seconds: seconds(row?.p90) };
  }

  /** Why checks did not pass: session checks and standalone check records, by type and reason. */
  async checkFailureReasons(range: Range): Promise<CheckFailureReasonView[]> {
    const rows = await this.sql(
      'ops_check_failure_reasons',
      `select 'session' as source, c.type, coalesce(c.reason, 'unspecified') as reason, c.status, count(*)::int as count
       from session_check c join verification_session s on s.id = c.session_id
       where s.project_id = $1 and s.created_at >= $2 and s.created_at < $3 and c.status <> 'passed' and c.created_at >= $4 and c.created_at < $5
       group by c.type, c.reason, c.status
       union all
       select 'standalone' as source, r.type, coalesce(r.reason, 'unspecified') as reason, r.status, count(*)::int as count
       from check_record r
       where r.project_id = $6 and r.status <> 'passed' and r.created_at >= $7 and r.created_at < $8
       group by r.type, r.reason, r.status
       order by count desc, source, type, reason`,
      [
        range.projectId,
        sessionsFrom(range.from),
        range.to,
        range.from,
        range.to,
        range.projectId,
        range.from,
        range.to,
      ],
    );
    return rows.map((row) => ({
      source: row.source as CheckFailureReasonView['source'],
      type: row.type as string,
      reason: row.reason as string,
      status: row.status as string,
      count: Number(row.count),
    }));
  }

  /**
   * Webhook delivery: events by state, the success rate of finished events (delivered / delivered
   * + failed + disabled), the share of attempts answered 2xx, and the backlog still to send.
   */
  async webhookStats(range: Range): Promise<WebhookStatsView> {
    const [events] = await this.sql(
      'ops_webhook_event_stats',
      `select count(*)::int as total,
         count(*) filter (where state = 'delivered')::int as delivered,
         count(*) filter (where state = 'failed')::int as failed,
         count(*) filter (where state = 'disabled')::int as disabled,
         count(*) filter (where state = 'no_destination')::int as no_destination,
         count(*) filter (where state in ('pending', 'sending'))::int as backlog,
         min(created_at) filter (where state in ('pending', 'sending')) as oldest_pending
       from webhook_event where project_id = $1 and created_at >= $2 and created_at < $3`,
      [range.projectId, range.from, range.to],
    );
    const [attempts] = await this.sql(
      'ops_webhook_attempt_stats',
      `select count(*)::int as total, count(*) filter (where a.http_status between 200 and 299)::int as ok
       from webhook_attempt a join webhook_event e on e.id = a.event_id
       where e.project_id = $1 and e.created_at >= $2 and e.created_at < $3`,
      [range.projectId, range.from, range.to],
    );
    const n = (value: unknown) => Number(value ?? 0);
    const delivered = n(events?.delivered);
    const finished = delivered + n(events?.failed) + n(events?.disabled);
    return {
      events: n(events?.total),
      delivered,
      failed: n(events?.failed),
      disabled: n(events?.disabled),
      noDestination: n(events?.no_destination),
      backlog: n(events?.backlog),
      oldestPendingAt: events?.oldest_pending ? new Date(events.oldest_pending).toISOString() : null,
      successRate: ratio(delivered, finished),
      attempts: n(attempts?.total),
      attemptSuccessRate: ratio(n(attempts?.ok), n(attempts?.total)),
    };
  }
}
