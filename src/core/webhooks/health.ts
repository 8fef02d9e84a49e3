import type { Orm } from '../db/orm.js';
import { preparedQuery, StatementValues } from '../db/prepared.js';
import type { DestinationHealth } from './health-view.js';

export type { DestinationHealth };

// Webhook health per destination (a project, one callback URL and a mode: a test receiver that is
// down says nothing about the live one at the same URL), computed by PostgreSQL from
// the outbox and its attempts: what ops need at 3 a.m. is "is this receiver answering now?", not
// the share of events that eventually got through over a month.

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** How far back attempts are read: consecutive failures and the last success look this far. */
export const HEALTH_LOOKBACK_DAYS = 7;

/** The figures the health rule reads. */
export interface HealthFigures {
  /** Attempts since the last 2xx (within the lookback). */
  consecutiveFailures: number;
  attemptsLastHour: number;
  successfulLastHour: number;
}

/** Five failed attempts in a row mark a destination unhealthy ... */
export const UNHEALTHY_CONSECUTIVE_FAILURES = 5;
/** ... and so does no 2xx at all in the last hour once it was tried at least this often. */
export const UNHEALTHY_MIN_ATTEMPTS_LAST_HOUR = 3;

/**
 * The health rule, once: a destination is unhealthy when it keeps failing, that is when its last
 * 5 attempts (or more) all failed, or when the last hour saw at least 3 attempts and none of them
 * was answered 2xx. Anything else is healthy, including a destination that failed now and then.
 */
export function isDestinationHealthy(figures: HealthFigures): boolean {
  if (figures.consecutiveFailures >= UNHEALTHY_CONSECUTIVE_FAILURES) return false;
  if (figures.attemptsLastHour >= UNHEALTHY_MIN_ATTEMPTS_LAST_HOUR && figures.successfulLastHour === 0) return false;
  return true;
}

/** Host and path of a callback URL, without its query or fragment (they may carry the integrator's tokens). */
export function destinationLabel(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host}${parsed.pathname}`;
  } catch {
    return 'invalid url';
  }
}

const ratio = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 10_000) / 10_000 : null);
const iso = (value: unknown) => (value ? new Date(value as string).toISOString() : null);

/**
 * Health of every destination that had an event in the lookback (or still has one pending), of
 * one project or of all (the metric). Unhealthy first, then by project and destination.
 */
export async function webhookHealth(
  orm: Orm,
  options: { now: Date; projectId?: string | null },
): Promise<DestinationHealth[]> {
  const now = options.now;
  const since = new Date(now.getTime() - HEALTH_LOOKBACK_DAYS * DAY_MS);
  const eventsSince = new Date(since.getTime() - DAY_MS); // an event's attempts run for up to about a day after it
  const values = new StatementValues();
  const byProject = options.projectId ? `and e.project_id = ${values.bind(options.projectId)}` : '';
  const hourAgo = values.bind(new Date(now.getTime() - HOUR_MS));
  const dayAgo = values.bind(new Date(now.getTime() - DAY_MS));
  const text = `with events as (
       select e.id, e.project_id, e.url, e.livemode, e.state, e.next_attempt_at from webhook_event e
       where e.url is not null and (e.created_at >= ${values.bind(eventsSince)} or e.state in ('pending', 'sending')) ${byProject}
     ),
     attempts as (
       select ev.project_id, ev.url, ev.livemode, a.at, a.http_status, a.error, coalesce(a.http_status between 200 and 299, false) as ok
       from webhook_attempt a join events ev on ev.id = a.event_id where a.at >= ${values.bind(since)}
     ),
     ranked as (
       select x.*, max(at) filter (where ok) over (partition by project_id, url, livemode) as last_ok,
         row_number() over (partition by project_id, url, livemode order by at desc) as newest
       from attempts x
     ),
     stats as (
       select project_id, url, livemode,
         count(*) filter (where at >= ${hourAgo})::int as attempts_hour,
         count(*) filter (where at >= ${hourAgo} and ok)::int as ok_hour,
         count(*) filter (where at >= ${dayAgo})::int as attempts_day,
         count(*) filter (where at >= ${dayAgo} and ok)::int as ok_day,
         max(last_ok) as last_ok,
         count(*) filter (where last_ok is null or at > last_ok)::int as consecutive,
         max(at) as last_at,
         max(http_status) filter (where newest = 1) as last_status,
         max(error) filter (where newest = 1) as last_error
       from ranked group by project_id, url, livemode
     ),
     pending as (
       select project_id, url, livemode, count(*)::int as pending, min(next_attempt_at) as next_retry
       from events where state in ('pending', 'sending') group by project_id, url, livemode
     ),
     destinations as (select distinct project_id, url, livemode from events)
     select d.project_id, d.url, d.livemode,
       coalesce(s.attempts_hour, 0) as attempts_hour, coalesce(s.ok_hour, 0) as ok_hour,
       coalesce(s.attempts_day, 0) as attempts_day, coalesce(s.ok_day, 0) as ok_day,
       s.last_ok, coalesce(s.consecutive, 0) as consecutive, s.last_at, s.last_status, s.last_error,
       coalesce(p.pending, 0) as pending, p.next_retry
     from destinations d
     left join stats s on s.project_id = d.project_id and s.url = d.url and s.livemode = d.livemode
     left join pending p on p.project_id = d.project_id and p.url = d.url and p.livemode = d.livemode
     order by d.project_id, d.url, d.livemode desc`;
  const rows = await preparedQuery<Record<string, unknown>>(
    orm,
    options.projectId ? 'webhook_health_of_project' : 'webhook_health',
    text,
    values.list,
  );
  const health = rows.map((row): DestinationHealth => {
    const n = (key: string) => Number(row[key] ?? 0);
    const figures = {
      consecutiveFailures: n('consecutive'),
      attemptsLastHour: n('attempts_hour'),
      successfulLastHour: n('ok_hour'),
    };
    return {
      projectId: row.project_id as string,
      destination: destinationLabel(row.url as string),
      livemode: row.livemode !== false,
      healthy: isDestinationHealthy(figures),
      attemptsLastHour: figures.attemptsLastHour,
      successRateLastHour: ratio(figures.successfulLastHour, figures.attemptsLastHour),
      attemptsLastDay: n('attempts_day'),
      successRateLastDay: ratio(n('ok_day'), n('attempts_day')),
      consecutiveFailures: figures.consecutiveFailures,
      nextRetryAt: iso(row.next_retry),
      pendingEvents: n('pending'),
      lastAttemptAt: iso(row.last_at),
      lastStatus: row.last_status === null || row.last_status === undefined ? null : Number(row.last_status),
      lastError: (row.last_error ?? null) as string | null,
      lastSuccessAt: iso(row.last_ok),
    };
  });
  return health.sort((a, b) => Number(a.healthy) - Number(b.healthy));
}

/**
 * The destinations of every project that the health rule calls unhealthy, for the metric: from
 * each destination's run of failures (kept with the attempts) and the last hour's attempts, so a
 * scrape reads a row a destination and an hour of attempts, whatever the outbox holds.
 */
export async function unhealthyDestinations(orm: Orm, now: Date): Promise<{ projectId: string }[]> {
  const rows = await preparedQuery<{ project_id: string; consecutive: number; attempts_hour: number; ok_hour: number }>(
    orm,
    'webhook_unhealthy_destinations',
    `with hour as (
       select e.project_id, e.url, e.livemode, count(*)::int as attempts_hour, count(*) filter (where a.http_status between 200 and 299)::int as ok_hour
       from webhook_attempt a join webhook_event e on e.id = a.event_id where a.at >= $1 and e.url is not null group by e.project_id, e.url, e.livemode
     ),
     streak as (select project_id, url, livemode, failures from webhook_destination_streak where failures > 0 and last_attempt_at >= $2)
     select coalesce(s.project_id, h.project_id) as project_id, coalesce(s.failures, 0) as consecutive, coalesce(h.attempts_hour, 0) as attempts_hour, coalesce(h.ok_hour, 0) as ok_hour
     from streak s full join hour h on h.project_id = s.project_id and h.url = s.url and h.livemode = s.livemode`,
    [new Date(now.getTime() - HOUR_MS), new Date(now.getTime() - HEALTH_LOOKBACK_DAYS * DAY_MS)],
  );
  return rows
    .filter(
      (row) =>
        !isDestinationHealthy({
          consecutiveFailures: Number(row.consecutive),
          attemptsLastHour: Number(row.attempts_hour),
          successfulLastHour: Number(row.ok_hour),
        }),
    )
    .map((row) => ({ projectId: row.project_id }));
}
