import { createHmac } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import type { Clock } from '../clock.js';
import { DomainError } from '../errors.js';
import type { JobQueue } from '../jobs.js';
import type { ChangeFeed } from '../db/notifications.js';
import { postOnce } from '../net/destinations.js';
import { StatementBatch } from '../db/statement-batch.js';
import { newId } from '../secrets.js';
import { inSpan } from '../tracing.js';
import { SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import { defaultCallbackOf, type TenancyService, webhookModeOf } from '../tenancy/service.js';
import type { AttemptOutcome, StoredAttempt, StoredEvent, WebhookStore } from './store.js';

/**
 * When a failed delivery is tried again: attempt n waits base x 2^(n-1) seconds (capped), with
 * +-20% jitter so many failed receivers do not all come back at once. Defaults: 30 s, 1 min,
 * 2 min ... 1 h, 12 attempts in all (about 7 hours), then the event is `failed` (resendable).
 */
export interface RetryPolicy {
  baseSeconds: number;
  capSeconds: number;
  maxAttempts: number;
  timeoutMs: number;
}

/**
 * Attempts one process runs at once: its dispatcher claims at most this many due events and
 * claims again as each attempt ends. An attempt holds a database connection only for its claim
 * and its outcome, not while it waits on the receiver, so what this bounds is the sockets open
 * to receivers. At 100 finished sessions a second (bench/sessions.ts, one instance on 2 cores)
 * 8 at once could not keep up: terminal state to webhook received p50 6.2-7.6 s, against
 * 4.8-4.9 s with 32; and a few receivers that hang until the timeout hold fewer of the slots.
 */
export const CONCURRENT_DELIVERIES = 32;

/** The channel on which an instance without a dispatcher asks one elsewhere to claim at once. */
export const WEBHOOK_DUE_CHANNEL = 'verity_webhook_due';

/** How many events one bulk resend queues at most (run it again for the rest). */
export const BULK_RESEND_LIMIT = 5000;
/** How many of them one statement moves back to pending. */
const RESEND_BATCH = 250;

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  baseSeconds: 30,
  capSeconds: 3600,
  maxAttempts: 12,
  timeoutMs: 10_000,
};

export function retryDelaySeconds(policy: RetryPolicy, attempt: number, random = Math.random): number {
  const plain = Math.min(policy.capSeconds, policy.baseSeconds * 2 ** (attempt - 1));
  return plain * (0.8 + 0.4 * random());
}

/** `X-Svc-Signature`: lowercase hex HMAC-SHA256 of `<timestamp>.<raw body>` with the signing secret. */
export function webhookSignature(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
}

/** `Retry-After` in seconds (delta or HTTP date), or undefined. */
function retryAfterSeconds(header: string | null, now: Date): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - now.getTime()) / 1000);
}

export interface WebhookLogger {
  warn(object: object, message: string): void;
}

export const eventView = (event: StoredEvent) => ({
  event_id: event.id,
  session_id: event.sessionId,
  type: event.type,
  livemode: event.livemode,
  url: event.url,
  state: event.state,
  attempts: event.attempts,
  next_attempt_at: ['pending', 'sending'].includes(event.state) ? event.nextAttemptAt.toISOString() : null,
  delivered_at: event.deliveredAt?.toISOString() ?? null,
  created_at: event.createdAt.toISOString(),
});

export const attemptView = (attempt: StoredAttempt) => ({
  attempt: attempt.attempt,
  at: attempt.at.toISOString(),
  http_status: attempt.httpStatus,
  latency_ms: attempt.latencyMs,
  error: attempt.error,
  response_snippet: attempt.responseSnippet,
});

/** Signed webhooks from an outbox, delivered by jobs, each attempt logged. */
/**
 * What is kept of a receiver's answer for ops: its first 64 printable characters. The status is
 * what matters; the body of a misconfigured receiver is not ours to store.
 */
export function sanitisedSnippet(body: string): string | null {
  const printable = body.replace(/[^\x20-\x7e]+/g, ' ').trim();
  return printable ? printable.slice(0, 64) : null;
}

/** A destination's host for logs and spans: a path or query may carry the integrator's tokens. */
function destinationHost(url: string | null | undefined): string {
  try {
    return new URL(url!).host;
  } catch {
    return 'invalid url';
  }
}

/** The destination as span attributes: host and port only, like the log line. */
function destinationAttributes(url: string | null | undefined): Record<string, string | number> {
  try {
    const parsed = new URL(url!);
    return {
      'server.address': parsed.hostname,
      'server.port': Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80)),
    };
  } catch {
    return {};
  }
}

/**
 * What delivery reports to the service's metrics (ServiceMetrics has these): the port is ours, so webhooks/ does not
 * import metrics.ts, which reads webhook health.
 */
export interface DeliveryMetrics {
  webhookAttempts: { inc(labels: { outcome: string }): void };
  webhookDeliverySeconds: { observe(seconds: number): void };
}

export class WebhookService {
  /** Jobs are attached when the service runs; CLI commands only write the outbox. */
  jobs?: JobQueue;

  constructor(
    private readonly deps: {
      /** The outbox and its attempts. */
      store: WebhookStore;
      clock: Clock;
      tenancy: TenancyService;
      policy: RetryPolicy;
      logger?: WebhookLogger;
      metrics?: DeliveryMetrics;
      allowPrivateDestinations?: boolean;
      notifications?: ChangeFeed;
    },
  ) {
    deps.notifications?.on(WEBHOOK_DUE_CHANNEL, () => this.wake());
    this.outcomes = new StatementBatch(async (outcomes) => {
      await this.deps.store.writeOutcomes(outcomes);
      return outcomes.map(() => undefined);
    });
  }

  /** Attempts that end together write their outcomes in one statement. */
  private readonly outcomes: StatementBatch<AttemptOutcome, undefined>;

  /**
   * Writes an event in the caller's transaction, by one statement: it commits with the state
   * change it announces. Answers the event's id; call `dispatch` with it after the commit.
   * `livemode` is the session's: a test session's event goes to its callback or the project's
   * test default only (none: kept as `no_destination`), and says `livemode: false` in the signed
   * body, as a live one says `livemode: true`.
   */
  async record(
    em: EntityManager,
    projectId: string,
    sessionId: string,
    payload: { type: string; livemode: boolean; callback?: string | null; body: Record<string, unknown> },
  ): Promise<string> {
    const id = newId('evt');
    // The project's default destination is read from the shared cache that its changes clear everywhere.
    const url =
      payload.callback ??
      defaultCallbackOf(await this.deps.tenancy.projectSettingsOf(projectId, em), webhookModeOf(payload.livemode));
    const body = JSON.stringify({ event_id: id, ...payload.body, livemode: payload.livemode });
    await this.deps.store.record(em, {
      id,
      projectId,
      sessionId,
      type: payload.type,
      livemode: payload.livemode,
      body,
      url,
      now: this.deps.clock.now(),
    });
    return id;
  }

  /**
   * After the commit that made (or re-queued) events: this process's dispatcher claims due events
   * at once. A process without one (jobs off, a CLI command) asks another instance through
   * NOTIFY. The sweep catches what this misses (a crash mid-attempt leaves a lease that runs out).
   */
  async dispatch(eventIds: string[]): Promise<void> {
    if (eventIds.length === 0) return;
    if (this.jobs) return this.wake();
    await this.deps.notifications
      ?.send(WEBHOOK_DUE_CHANNEL, '')
      .catch((error: unknown) =>
        this.deps.logger?.warn({ err: error }, 'announcing a webhook failed; the sweep will send it'),
      );
  }

  /** Attempts the dispatcher started and not finished yet. */
  private readonly running = new Set<Promise<void>>();
  /** A claim is in flight: a wake meanwhile only sets `more`. */
  private claiming = false;
  /** Due events may be waiting: claim again when a slot is free. */
  private more = false;
  /** Shutting down: claim nothing new. */
  private stopping = false;
  private retryClaim?: NodeJS.Timeout;

  /** Something may be due: fill the free slots (no-op while jobs are not attached to this process). */
  wake(): void {
    this.more = true;
    void this.fill();
  }

  /**
   * Claims due events for the free slots and starts their attempts; claims again while a claim
   * came back full (a backlog) and a slot frees. One claim runs at a time per process.
   */
  private async fill(): Promise<void> {
    if (this.claiming) return;
    this.claiming = true;
    try {
      while (this.more && this.jobs && !this.stopping && this.running.size < CONCURRENT_DELIVERIES) {
        this.more = false;
        const free = CONCURRENT_DELIVERIES - this.running.size;
        const rows = await this.claimDue(free);
        for (const row of rows) this.start(row);
        if (rows.length === free) this.more = true;
      }
    } catch (error) {
      // The database is away (a restart): try again in a second; the sweep stays the safety net.
      this.deps.logger?.warn({ err: error }, 'claiming due webhooks failed; trying again');
      this.more = true;
      clearTimeout(this.retryClaim);
      this.retryClaim = setTimeout(() => void this.fill(), 1000);
      this.retryClaim.unref();
    } finally {
      this.claiming = false;
    }
  }

  private start(event: StoredEvent): void {
    const attempt: Promise<void> = inSpan(
      'webhook deliver',
      { kind: SpanKind.CLIENT, attributes: { 'verity.webhook.event_id': event.id } },
      (span) => this.send(event, span),
    )
      .catch((error: unknown) =>
        this.deps.logger?.warn(
          { err: error, eventId: event.id },
          'a webhook attempt could not finish; its lease runs out and the sweep retries it',
        ),
      )
      .finally(() => {
        this.running.delete(attempt);
        void this.fill();
      });
    this.running.add(attempt);
  }

  /**
   * Claims up to `limit` due events in one statement and returns their rows: `SKIP LOCKED` lets
   * several instances claim side by side, each event going to one of them.
   */
  private claimDue(limit: number): Promise<StoredEvent[]> {
    const now = this.deps.clock.now();
    return this.deps.store.claimDue(limit, this.leaseUntil(now), now);
  }

  /** Until when a claimed attempt owns its row: past the HTTP timeout, with room for the outcome write. */
  private leaseUntil(now: Date): Date {
    return new Date(now.getTime() + this.deps.policy.timeoutMs + 30_000);
  }

  /** Stops claiming and waits for the running attempts (before the database closes at shutdown). */
  async settle(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.retryClaim);
    while (this.running.size) await Promise.all([...this.running]);
  }

  /** One attempt of one event (a retry job, ops), traced as a `webhook deliver` span (its queries nest under it). */
  deliver(eventId: string): Promise<void> {
    return inSpan(
      'webhook deliver',
      { kind: SpanKind.CLIENT, attributes: { 'verity.webhook.event_id': eventId } },
      (span) => this.attempt(eventId, span),
    );
  }

  /** Safe to run twice at once: only the one that claims the row sends. */
  private async attempt(eventId: string, span: Span): Promise<void> {
    const now = this.deps.clock.now();
    // pg-boss rounds start times to whole seconds: accept a job that runs a little early.
    const due = new Date(now.getTime() + 2000);
    // Claimed and read in one statement.
    const claimed = await this.deps.store.claimOne(eventId, this.leaseUntil(now), due);
    if (!claimed) {
      span.setAttribute('verity.webhook.outcome', 'not_claimed');
      return;
    }
    await this.send(claimed, span);
  }

  /** Sends a claimed event once and writes the outcome: the attempt row, the event's new state. */
  private async send(claimed: StoredEvent, span: Span): Promise<void> {
    const event = { ...claimed };
    const eventId = event.id;
    const attempt = event.attempts + 1;
    span.setAttributes({
      'verity.webhook.event_type': event.type,
      'verity.webhook.attempt': attempt,
      ...destinationAttributes(event.url),
    });
    const mode = webhookModeOf(event.livemode);
    const { current: secret, previous } = await this.deps.tenancy.webhookSigningSecrets(event.projectId, mode);
    const timestamp = Math.floor(this.deps.clock.now().getTime() / 1000);
    const started = Date.now();
    let status: number | null = null;
    let error: string | null = null;
    let snippet: string | null = null;
    let retryAfter: number | undefined;
    try {
      // A project made before test webhooks has no test secret until it rotates one: nothing is signed with the live
      // one.
      if (secret === null)
        throw new Error(
          'not sent: the project has no test signing secret yet; rotate it (rotateWebhookSecret, mode test)',
        );
      const answer = await postOnce(event.url!, {
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Verity-Webhooks/1',
          'x-svc-timestamp': String(timestamp),
          'x-svc-event-id': event.id,
          'x-svc-signature': webhookSignature(secret, timestamp, event.body),
          // During a rotation's overlap, the old secret's signature too (receivers switch at leisure).
          ...(previous ? { 'x-svc-signature-previous': webhookSignature(previous, timestamp, event.body) } : {}),
        },
        body: event.body,
        timeoutMs: this.deps.policy.timeoutMs,
        allowPrivate: this.deps.allowPrivateDestinations === true,
        maxBody: 256,
      });
      status = answer.status;
      retryAfter = retryAfterSeconds(
        typeof answer.headers['retry-after'] === 'string' ? answer.headers['retry-after'] : null,
        this.deps.clock.now(),
      );
      snippet = sanitisedSnippet(answer.body);
    } catch (failure) {
      error =
        (failure as Error).name === 'TimeoutError'
          ? `no answer within ${this.deps.policy.timeoutMs} ms`
          : `${(failure as Error).message}`.slice(0, 300);
    }
    const finished = this.deps.clock.now();
    const latencyMs = Date.now() - started;
    event.attempts = attempt;
    let retryInSeconds: number | undefined;
    if (status !== null && status >= 200 && status < 300) {
      event.state = 'delivered';
      event.deliveredAt = finished;
    } else if (status === 410) {
      // The receiver says this URL is gone for good: stop sending to it until ops re-enable it.
      event.state = 'disabled';
      await this.deps.tenancy.disableCallback(event.projectId, event.url!, mode);
    } else if (attempt >= this.deps.policy.maxAttempts) {
      event.state = 'failed';
    } else {
      retryInSeconds = Math.min(Math.max(retryAfter ?? 0, retryDelaySeconds(this.deps.policy, attempt)), 86_400);
      event.state = 'pending';
      event.nextAttemptAt = new Date(finished.getTime() + retryInSeconds * 1000);
    }
    // The attempt and the event's new state in one statement (atomic), shared with the attempts ending beside it.
    await this.outcomes.submit({
      attemptId: newId('wat'),
      eventId,
      attempt,
      at: finished,
      httpStatus: status,
      latencyMs,
      error,
      snippet,
      state: event.state,
      deliveredAt: event.deliveredAt ?? null,
      nextAttemptAt: event.nextAttemptAt,
    });
    const outcome = event.state === 'pending' ? 'retry' : event.state;
    span.setAttribute('verity.webhook.outcome', outcome);
    if (status !== null) span.setAttribute('http.response.status_code', status);
    if (event.state !== 'delivered') span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
    this.deps.metrics?.webhookAttempts.inc({ outcome });
    if (event.state === 'delivered')
      this.deps.metrics?.webhookDeliverySeconds.observe((finished.getTime() - event.createdAt.getTime()) / 1000);
    else this.logFailedAttempt(event, { status, error, retryInSeconds });
    if (retryInSeconds !== undefined && this.jobs)
      await this.jobs.send('webhook.deliver', { eventId }, { startAfterSeconds: retryInSeconds });
  }

  /**
   * One warning per failed attempt, for the ops engineer watching a receiver go down: the
   * destination's host only (a path or query may carry the integrator's tokens), never the body.
   */
  private logFailedAttempt(
    event: StoredEvent,
    outcome: { status: number | null; error: string | null; retryInSeconds?: number },
  ): void {
    this.deps.logger?.warn(
      {
        event_id: event.id,
        project_id: event.projectId,
        destination_host: destinationHost(event.url),
        attempt: event.attempts,
        http_status: outcome.status,
        error: outcome.error,
        state: event.state,
        next_attempt_at: outcome.retryInSeconds === undefined ? null : event.nextAttemptAt.toISOString(),
      },
      'webhook attempt failed',
    );
  }

  /**
   * Part of the maintenance sweep: events whose attempt crashed (lease passed) go back to pending,
   * and pending events that are overdue (their job was lost) are queued again.
   */
  async rescue(): Promise<number> {
    const now = this.deps.clock.now();
    await this.deps.store.releaseLapsedClaims(now);
    const overdue = await this.deps.store.overdue(new Date(now.getTime() - 30_000), 500);
    // The dispatcher claims them (and any other due event), oldest first.
    await this.dispatch(overdue);
    return overdue.length;
  }

  /** Ops: send an event again (a new attempt series), e.g. after fixing the receiver. */
  async resend(projectId: string, eventId: string) {
    const event = await this.deps.store.event(projectId, eventId);
    if (!event) throw new DomainError('not_found', 'webhook event not found');
    const running = () => new DomainError('conflict', 'an attempt of this event is running; try again in a moment');
    if (event.state === 'sending') throw running();
    const url =
      event.url ??
      defaultCallbackOf(await this.deps.tenancy.projectSettingsOf(projectId), webhookModeOf(event.livemode));
    if (!url)
      throw new DomainError(
        'callback_not_allowed',
        event.livemode
          ? 'the project has no callback URL to send to'
          : 'the project has no test callback URL to send test events to',
      );
    // Moved only if no attempt claimed it since it was read.
    const requeued = await this.deps.store.requeue(projectId, eventId, url, this.deps.clock.now());
    if (requeued === 'sending') throw running();
    if (!requeued) throw new DomainError('not_found', 'webhook event not found');
    await this.dispatch([requeued.id]);
    return eventView(requeued);
  }

  /**
   * Ops: every `failed` event of the project created in [from, to) is sent again, each as the
   * single resend does (pending now, the next attempt continues its series). At most
   * `BULK_RESEND_LIMIT` events per call, oldest first, queued in batches (`onProgress` after each,
   * for the CLI's progress bar); returns how many were queued.
   */
  async resendFailed(
    projectId: string,
    range: { from: Date; to: Date },
    onProgress?: (done: number, total: number) => void,
  ): Promise<{ queued: number; limitReached: boolean }> {
    const selected = await this.deps.store.failedIn(projectId, range, BULK_RESEND_LIMIT);
    let queued = 0;
    for (let start = 0; start < selected.length; start += RESEND_BATCH) {
      const ids = selected.slice(start, start + RESEND_BATCH);
      // Still `failed` when its batch comes: an event resent meanwhile by someone else is left alone.
      const moved = await this.deps.store.requeueFailed(ids, this.deps.clock.now());
      await this.dispatch(moved);
      queued += moved.length;
      onProgress?.(start + ids.length, selected.length);
    }
    return { queued, limitReached: selected.length === BULK_RESEND_LIMIT };
  }

  async listEvents(projectId: string, filter: { sessionId?: string; state?: string; limit?: number } = {}) {
    const events = await this.deps.store.events(
      projectId,
      { sessionId: filter.sessionId || undefined, state: filter.state || undefined },
      Math.min(filter.limit ?? 50, 500),
    );
    return events.map(eventView);
  }

  async attempts(projectId: string, eventId: string) {
    if (!(await this.deps.store.event(projectId, eventId)))
      throw new DomainError('not_found', 'webhook event not found');
    return (await this.deps.store.attempts(eventId)).map(attemptView);
  }
}
