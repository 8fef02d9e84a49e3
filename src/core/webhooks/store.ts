import type { EntityManager } from '@mikro-orm/core';
import type { Orm } from '../db/orm.js';
import { ormStatements, preparedQueryIn, sqlDate, type StatementRunner } from '../db/prepared.js';
import type { WebhookEventState } from './entities.js';

/** A webhook event as it is stored (the outbox row, without its claim's lease). */
export interface StoredEvent {
  id: string;
  projectId: string;
  sessionId: string;
  type: string;
  /** False for a test-mode session's event: test destinations and the test secret only. */
  livemode: boolean;
  /** The signed JSON, exactly as sent. */
  body: string;
  url: string | null;
  state: WebhookEventState;
  attempts: number;
  nextAttemptAt: Date;
  deliveredAt: Date | null;
  createdAt: Date;
}

/** One delivery attempt as it is stored. */
export interface StoredAttempt {
  attempt: number;
  at: Date;
  httpStatus: number | null;
  latencyMs: number;
  error: string | null;
  responseSnippet: string | null;
}

/** One attempt's row and its event's new state, written together. */
export interface AttemptOutcome {
  attemptId: string;
  eventId: string;
  attempt: number;
  at: Date;
  httpStatus: number | null;
  latencyMs: number;
  error: string | null;
  snippet: string | null;
  state: WebhookEventState;
  deliveredAt: Date | null;
  nextAttemptAt: Date;
}

/**
 * The outbox (`webhook_event`) and its attempts (`webhook_attempt`): the only code that touches
 * them. Claims take a lease on the row (`sending` until `leaseUntil`), so each event goes to one
 * sender at a time across instances.
 */
export interface WebhookStore {
  /** Writes a new event in the caller's transaction: it commits with the state change it announces. */
  record(
    em: EntityManager,
    event: {
      id: string;
      projectId: string;
      sessionId: string;
      type: string;
      livemode: boolean;
      body: string;
      url: string | null;
      now: Date;
    },
  ): Promise<void>;
  /** Claims up to `limit` due events (pending, `nextAttemptAt` by `now`), oldest first; others' claims are skipped. */
  claimDue(limit: number, leaseUntil: Date, now: Date): Promise<StoredEvent[]>;
  /** Claims one event if it is pending and due by `dueBy`. */
  claimOne(eventId: string, leaseUntil: Date, dueBy: Date): Promise<StoredEvent | null>;
  /** Writes attempts and their events' new states, all in one statement. */
  writeOutcomes(outcomes: AttemptOutcome[]): Promise<void>;
  /** Events whose sender died mid-attempt (lease passed) go back to pending. */
  releaseLapsedClaims(now: Date): Promise<void>;
  /** Pending events due before `before`, oldest first. */
  overdue(before: Date, limit: number): Promise<string[]>;
  /** A project's failed events with a destination, created in [from, to), oldest first. */
  failedIn(projectId: string, range: { from: Date; to: Date }, limit: number): Promise<string[]>;
  /** Moves these events back to pending, due now, if they are still failed; the ids moved. */
  requeueFailed(eventIds: readonly string[], now: Date): Promise<string[]>;
  /**
   * Sends an event again (pending, due now, to `url`) unless an attempt is running; null when it is not the project's.
   */
  requeue(projectId: string, eventId: string, url: string, now: Date): Promise<StoredEvent | 'sending' | null>;
  event(projectId: string, eventId: string): Promise<StoredEvent | null>;
  /** A project's events, newest first. */
  events(projectId: string, filter: { sessionId?: string; state?: string }, limit: number): Promise<StoredEvent[]>;
  /** An event's attempts, in order. */
  attempts(eventId: string): Promise<StoredAttempt[]>;
}

const EVENT_COLUMNS =
  'id, project_id, session_id, type, livemode, body, url, state, attempts, next_attempt_at, delivered_at, created_at';

interface EventRow {
  id: string;
  project_id: string;
  session_id: string;
  type: string;
  livemode: boolean;
  body: string;
  url: string | null;
  state: WebhookEventState;
  attempts: number;
  next_attempt_at: Date | string;
  delivered_at: Date | string | null;
  created_at: Date | string;
}

const eventOf = (row: EventRow): StoredEvent => ({
  id: row.id,
  projectId: row.project_id,
  sessionId: row.session_id,
  type: row.type,
  livemode: row.livemode,
  body: row.body,
  url: row.url,
  state: row.state,
  attempts: row.attempts,
  nextAttemptAt: sqlDate(row.next_attempt_at),
  deliveredAt: row.delivered_at === null ? null : sqlDate(row.delivered_at),
  createdAt: sqlDate(row.created_at),
});

/**
 * Each destination's run of failed attempts (kept per destination so that the health of every
 * project, the metric, reads one row a destination instead of a week of attempts): a batch with a
 * 2xx restarts the run with its failures after that 2xx, one without adds its failures to it.
 */
const DESTINATION_STREAK = `streak as (
  insert into webhook_destination_streak (project_id, url, livemode, failures, last_attempt_at, last_ok_at)
  select b.project_id, b.url, b.livemode,
    (select count(*) from tried t where t.project_id = b.project_id and t.url = b.url and t.livemode = b.livemode and not t.ok and (b.last_ok is null or t.at > b.last_ok)),
    b.last_at, b.last_ok
  from batch b
  on conflict (project_id, url, livemode) do update set
    failures = case when excluded.last_ok_at is null then webhook_destination_streak.failures + excluded.failures else excluded.failures end,
    last_attempt_at = greatest(webhook_destination_streak.last_attempt_at, excluded.last_attempt_at),
    last_ok_at = coalesce(excluded.last_ok_at, webhook_destination_streak.last_ok_at)
)`;

const RECORD_OUTCOMES = `
with input as (
  select * from unnest($1::varchar[], $2::varchar[], $3::int[], $4::timestamptz[], $5::int[], $6::int[], $7::varchar[], $8::varchar[], $9::varchar[], $10::timestamptz[], $11::timestamptz[])
    as i(attempt_id, event_id, attempt, at, http_status, latency_ms, error, snippet, state, delivered_at, next_attempt_at)
), logged as (
  insert into webhook_attempt (id, event_id, attempt, at, http_status, latency_ms, error, response_snippet)
  select attempt_id, event_id, attempt, at, http_status, latency_ms, error, snippet from input
), tried as (
  select e.project_id, e.url, e.livemode, i.at, coalesce(i.http_status between 200 and 299, false) as ok
  from input i join webhook_event e on e.id = i.event_id where e.url is not null
), batch as (
  select project_id, url, livemode, max(at) as last_at, max(at) filter (where ok) as last_ok from tried group by project_id, url, livemode
), ${DESTINATION_STREAK}
update webhook_event e set state = i.state, attempts = i.attempt, lease_until = null, delivered_at = i.delivered_at, next_attempt_at = i.next_attempt_at
from input i where e.id = i.event_id`;

// The event as it was, and whether this statement moved it: an attempt running keeps it as it is.
const REQUEUE = `
with found as (select id, state from webhook_event where id = $1 and project_id = $2 for update),
moved as (
  update webhook_event e set url = $3, state = 'pending', next_attempt_at = $4 from found
  where e.id = found.id and found.state <> 'sending'
  returning ${EVENT_COLUMNS.split(', ')
    .map((column) => `e.${column}`)
    .join(', ')}
)
select moved.*, found.state as found_state from found left join moved on true`;

/**
 * The store on PostgreSQL. The dispatcher's claims and outcomes run on `dispatch` (in production
 * a small pool of its own, so requests and deliveries do not starve each other); the rest on the
 * ORM's pool.
 */
export class PgWebhookStore implements WebhookStore {
  private readonly statements: StatementRunner;

  constructor(
    private readonly orm: Orm,
    private readonly dispatch: StatementRunner = ormStatements(orm),
  ) {
    this.statements = ormStatements(orm);
  }

  async record(
    em: EntityManager,
    event: {
      id: string;
      projectId: string;
      sessionId: string;
      type: string;
      livemode: boolean;
      body: string;
      url: string | null;
      now: Date;
    },
  ): Promise<void> {
    await preparedQueryIn(
      this.orm,
      em,
      'webhook_record',
      `insert into webhook_event (id, project_id, session_id, type, livemode, body, url, state, attempts, next_attempt_at, created_at)
       values ($1, $2, $3, $4, $9, $5, $6, $7, 0, $8, $8)`,
      [
        event.id,
        event.projectId,
        event.sessionId,
        event.type,
        event.body,
        event.url,
        event.url ? 'pending' : 'no_destination',
        event.now,
        event.livemode,
      ],
    );
  }

  async claimDue(limit: number, leaseUntil: Date, now: Date): Promise<StoredEvent[]> {
    const rows = await this.dispatch<EventRow>(
      'webhook_claim_due',
      // RETURNING gives the rows in the order the update met them: the outer select orders them.
      `with claimed as (
         update webhook_event set state = 'sending', lease_until = $1
         where id in (select id from webhook_event where state = 'pending' and next_attempt_at <= $2 order by next_attempt_at limit $3 for update skip locked)
         returning ${EVENT_COLUMNS}
       )
       select ${EVENT_COLUMNS} from claimed order by next_attempt_at, created_at`,
      [leaseUntil, now, limit],
    );
    return rows.map(eventOf);
  }

  async claimOne(eventId: string, leaseUntil: Date, dueBy: Date): Promise<StoredEvent | null> {
    const [row] = await this.dispatch<EventRow>(
      'webhook_claim_one',
      `update webhook_event set state = 'sending', lease_until = $1 where id = $2 and state = 'pending' and next_attempt_at <= $3 returning ${EVENT_COLUMNS}`,
      [leaseUntil, eventId, dueBy],
    );
    return row ? eventOf(row) : null;
  }

  async writeOutcomes(outcomes: AttemptOutcome[]): Promise<void> {
    const column = <K extends keyof AttemptOutcome>(key: K) => outcomes.map((outcome) => outcome[key]);
    await this.dispatch('webhook_record_outcomes', RECORD_OUTCOMES, [
      column('attemptId'),
      column('eventId'),
      column('attempt'),
      column('at'),
      column('httpStatus'),
      column('latencyMs'),
      column('error'),
      column('snippet'),
      column('state'),
      column('deliveredAt'),
      column('nextAttemptAt'),
    ]);
  }

  async releaseLapsedClaims(now: Date): Promise<void> {
    await this.statements(
      'webhook_release_lapsed',
      `update webhook_event set state = 'pending', lease_until = null where state = 'sending' and lease_until < $1`,
      [now],
    );
  }

  async overdue(before: Date, limit: number): Promise<string[]> {
    const rows = await this.statements<{ id: string }>(
      'webhook_overdue',
      `select id from webhook_event where state = 'pending' and next_attempt_at < $1 order by next_attempt_at limit $2`,
      [before, limit],
    );
    return rows.map((row) => row.id);
  }

  async failedIn(projectId: string, range: { from: Date; to: Date }, limit: number): Promise<string[]> {
    const rows = await this.statements<{ id: string }>(
      'webhook_failed_in',
      `select id from webhook_event where project_id = $1 and state = 'failed' and url is not null and created_at >= $2 and created_at < $3 order by created_at, id limit $4`,
      [projectId, range.from, range.to, limit],
    );
    return rows.map((row) => row.id);
  }

  async requeueFailed(eventIds: readonly string[], now: Date): Promise<string[]> {
    const rows = await this.statements<{ id: string }>(
      'webhook_requeue_failed',
      `update webhook_event set state = 'pending', next_attempt_at = $2, lease_until = null where id = any($1::varchar[]) and state = 'failed' returning id`,
      [eventIds, now],
    );
    return rows.map((row) => row.id);
  }

  async requeue(projectId: string, eventId: string, url: string, now: Date): Promise<StoredEvent | 'sending' | null> {
    const [row] = await this.statements<EventRow & { found_state: string }>('webhook_requeue', REQUEUE, [
      eventId,
      projectId,
      url,
      now,
    ]);
    if (!row) return null;
    return row.id === null ? 'sending' : eventOf(row);
  }

  async event(projectId: string, eventId: string): Promise<StoredEvent | null> {
    const [row] = await this.statements<EventRow>(
      'webhook_event_of_project',
      `select ${EVENT_COLUMNS} from webhook_event where id = $1 and project_id = $2`,
      [eventId, projectId],
    );
    return row ? eventOf(row) : null;
  }

  async events(
    projectId: string,
    filter: { sessionId?: string; state?: string },
    limit: number,
  ): Promise<StoredEvent[]> {
    const rows = await this.statements<EventRow>(
      'webhook_events_of_project',
      `select ${EVENT_COLUMNS} from webhook_event
       where project_id = $1 and ($2::varchar is null or session_id = $2) and ($3::varchar is null or state = $3)
       order by created_at desc, id desc limit $4`,
      [projectId, filter.sessionId ?? null, filter.state ?? null, limit],
    );
    return rows.map(eventOf);
  }

  async attempts(eventId: string): Promise<StoredAttempt[]> {
    const rows = await this.statements<{
      attempt: number;
      at: Date | string;
      http_status: number | null;
      latency_ms: number;
      error: string | null;
      response_snippet: string | null;
    }>(
      'webhook_attempts_of_event',
      'select attempt, at, http_status, latency_ms, error, response_snippet from webhook_attempt where event_id = $1 order by attempt, at',
      [eventId],
    );
    return rows.map((row) => ({
      attempt: row.attempt,
      at: sqlDate(row.at),
      httpStatus: row.http_status,
      latencyMs: row.latency_ms,
      error: row.error,
      responseSnippet: row.response_snippet,
    }));
  }
}
