import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../src/core/clock.js';
import { CONCURRENT_DELIVERIES, retryDelaySeconds, DEFAULT_RETRY_POLICY } from '../src/core/webhooks/service.js';
import { PgWebhookStore } from '../src/core/webhooks/store.js';
import { loggerIntoMemory } from './helpers/logs.js';
import { sql, startTestService, type TestService } from './helpers/service.js';

// Webhooks end to end: pg-boss workers deliver from the outbox to a real receiver on loopback,
// which checks the signature over the raw bytes the way an integrator must.

/** Real time plus an offset the test can move (the sweep looks for events overdue by 30 s). */
let offsetMs = 0;
const clock: Clock = { now: () => new Date(Date.now() + offsetMs) };

interface Delivery {
  eventId: string;
  /** When the request arrived (ms since the epoch). */
  at: number;
  timestamp: string;
  body: string;
  validSignature: boolean;
  signature: string;
  /** `X-Svc-Signature-Previous`, sent during a rotation's overlap. */
  previousSignature?: string;
}

/** A receiver that answers from a script of statuses per path, then 200. */
class Receiver {
  readonly deliveries: Delivery[] = [];
  readonly scripts = new Map<string, { status: number; headers?: Record<string, string> }[]>();
  /** Per path, how long the receiver takes to answer (to see attempts overlap). */
  readonly delays = new Map<string, number>();
  /** Requests being answered now, and the most there ever were at once. */
  inFlight = 0;
  maxInFlight = 0;
  private server!: http.Server;
  url = '';

  constructor(private readonly secret: () => string) {}

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const at = Date.now();
      this.inFlight += 1;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
      res.on('close', () => (this.inFlight -= 1));
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', async () => {
        const delay = this.delays.get(req.url ?? '');
        if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
        const body = Buffer.concat(chunks).toString('utf8');
        const timestamp = String(req.headers['x-svc-timestamp']);
        const expected = createHmac('sha256', this.secret()).update(`${timestamp}.${body}`).digest();
        const given = Buffer.from(String(req.headers['x-svc-signature'] ?? ''), 'hex');
        const validSignature = given.length === expected.length && timingSafeEqual(given, expected);
        const previousSignature = req.headers['x-svc-signature-previous'] as string | undefined;
        const signature = String(req.headers['x-svc-signature'] ?? '');
        this.deliveries.push({
          eventId: String(req.headers['x-svc-event-id']),
          at,
          timestamp,
          body,
          validSignature,
          signature,
          previousSignature,
        });
        if (!validSignature) return void res.writeHead(400).end('bad signature');
        const next = this.scripts.get(req.url ?? '')?.shift();
        res.writeHead(next?.status ?? 200, next?.headers ?? {}).end(next ? 'not now' : 'ok');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => {
      this.server.close(resolve);
      this.server.closeAllConnections();
    });
  }
}

/** Every log line the service writes, parsed. */
const { logger, lines: logLines } = loggerIntoMemory();

let service: TestService;
let receiver: Receiver;
let workflowId: string;

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false>,
  timeoutMs = 40_000,
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A session whose one step (location) finishes it at once: APPROVED, announced to `path`. */
async function approvedSession(
  path: string,
  tenant = { projectId: '', apiKey: '', workflowId: '' },
  options: { vendorData?: false } = {},
): Promise<string> {
  const callback = `${receiver.url}${path}`;
  const projectId = tenant.projectId || service.demo.project_id;
  await service.core.tenancy.approveCallback({ projectId, url: callback });
  const created = await service.http
    .post('/api/v2/session')
    .set('X-API-Key', tenant.apiKey || service.demo.api_key)
    .send({
      workflow_id: tenant.workflowId || workflowId,
      callback,
      ...(options.vendorData === false ? {} : { vendor_data: path }),
    });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const { session_id: sessionId, session_token: token } = created.body.data;
  const step = await service.http
    .post('/api/hosted/session/steps/location')
    .set('X-Session-Token', token)
    .send({ latitude: 1, longitude: 2, accuracy: 5 });
  expect(step.body.data.status).toBe('APPROVED');
  return sessionId;
}

const eventOf = async (sessionId: string) =>
  (
    await sql<{ id: string; state: string; attempts: number }>(
      service,
      'select id, state, attempts from webhook_event where session_id = ?',
      [sessionId],
    )
  )[0]!;

beforeAll(async () => {
  service = await startTestService(
    { runJobs: true, webhookRetryBaseSeconds: 1, allowInsecureCallbacks: true, metricsProjectLabels: true },
    { clock, logger },
  );
  receiver = new Receiver(() => service.demo.webhook_signing_secret);
  await receiver.start();
  workflowId = (
    await service.core.tenancy.createWorkflow({
      projectId: service.demo.project_id,
      name: 'loc',
      features: ['location'],
    })
  ).id;
}, 120_000);

afterAll(async () => {
  await receiver?.stop();
  await service?.close();
});

describe('the retry schedule', () => {
  it('doubles from the base with +-20% jitter up to the cap', () => {
    expect(retryDelaySeconds(DEFAULT_RETRY_POLICY, 1, () => 0.5)).toBe(30);
    expect(retryDelaySeconds(DEFAULT_RETRY_POLICY, 3, () => 0.5)).toBe(120);
    expect(retryDelaySeconds(DEFAULT_RETRY_POLICY, 3, () => 0)).toBeCloseTo(96);
    expect(retryDelaySeconds(DEFAULT_RETRY_POLICY, 3, () => 1)).toBeCloseTo(144);
    expect(retryDelaySeconds(DEFAULT_RETRY_POLICY, 20, () => 0.5)).toBe(3600);
  });
});

describe('delivery', () => {
  it('sends vendor_data as "" when the session was created without one, in the webhook as in the decision and the session', async () => {
    const sessionId = await approvedSession('/no-vendor-data', undefined, { vendorData: false });
    const event = await until('delivery', async () => {
      const e = await eventOf(sessionId);
      return e.state === 'delivered' && e;
    });
    const delivered = JSON.parse(receiver.deliveries.find((d) => d.eventId === event.id)!.body);
    expect(delivered).toMatchObject({ session_id: sessionId, vendor_data: '' });
    const decision = await service.http
      .get(`/api/v2/session/${sessionId}/decision`)
      .set('X-API-Key', service.demo.api_key);
    expect(decision.body.data.vendor_data).toBe('');
    const current = await service.http.get(`/api/v2/session/${sessionId}`).set('X-API-Key', service.demo.api_key);
    expect(current.body.data.vendor_data).toBe('');
    const listed = await service.http
      .get('/api/v2/session')
      .query({ limit: 100 })
      .set('X-API-Key', service.demo.api_key);
    expect(listed.body.data.find((s: { session_id: string }) => s.session_id === sessionId).vendor_data).toBe('');
  });

  it('signs every attempt, retries failures with backoff and Retry-After, and delivers each event', async () => {
    receiver.scripts.set('/flaky', [{ status: 500 }, { status: 503, headers: { 'Retry-After': '2' } }]);
    const sessionId = await approvedSession('/flaky');
    const event = await until('delivery', async () => {
      const e = await eventOf(sessionId);
      return e.state === 'delivered' && e;
    });
    expect(event.attempts).toBe(3);
    const got = receiver.deliveries.filter((d) => d.eventId === event.id);
    expect(got).toHaveLength(3);
    expect(got.every((d) => d.validSignature)).toBe(true);
    // The same bytes every time, and the receiver deduplicates on the event id.
    expect(new Set(got.map((d) => d.body)).size).toBe(1);
    expect(JSON.parse(got[0]!.body)).toMatchObject({
      event_id: event.id,
      type: 'verification.approved',
      session_id: sessionId,
      status: 'APPROVED',
      decision: 'approved',
      vendor_data: '/flaky',
    });
    const attempts = await service.core.webhooks.attempts(service.demo.project_id, event.id);
    expect(attempts.map((a) => a.http_status)).toEqual([500, 503, 200]);
    // Retry-After: 2 was honoured between the second and third attempts.
    expect(Date.parse(attempts[2]!.at) - Date.parse(attempts[1]!.at)).toBeGreaterThanOrEqual(1900);
    expect(attempts[0]!.response_snippet).toBe('not now');
    // one warning per failed attempt, with what ops need and nothing of the body or the URL's path
    const warnings = logLines.filter((l) => l.msg === 'webhook attempt failed' && l.event_id === event.id);
    expect(warnings.map((w) => [w.attempt, w.http_status, w.state])).toEqual([
      [1, 500, 'pending'],
      [2, 503, 'pending'],
    ]);
    expect(warnings[0]).toMatchObject({
      level: 40,
      destination_host: new URL(receiver.url).host,
      project_id: service.demo.project_id,
    });
    expect(typeof warnings[0]!.next_attempt_at).toBe('string');
    expect(JSON.stringify(warnings)).not.toContain('/flaky');
    expect(JSON.stringify(warnings)).not.toContain('verification.approved');
    // each committed move of the session, one info line each, with ids and states only
    const moves = logLines.filter((l) => l.msg === 'session moved' && l.session_id === sessionId);
    expect(moves.map((m) => [m.from, m.to, m.actor])).toEqual([
      ['NOT_STARTED', 'IN_PROGRESS', 'user'],
      ['IN_PROGRESS', 'APPROVED', 'system'],
    ]);
    expect(moves[1]).toMatchObject({ level: 30, project_id: service.demo.project_id, reason: 'location completed' });
    expect(JSON.stringify(moves)).not.toContain('/flaky');
    const metrics = (await service.http.get('/metrics')).text;
    expect(metrics).toMatch(/verity_webhook_attempts_total\{outcome="retry"\} [2-9]/);
    expect(metrics).toMatch(/verity_webhook_attempts_total\{outcome="delivered"\} [1-9]/);
    expect(metrics).toMatch(/verity_webhook_delivery_seconds_count [1-9]/);
  }, 60_000);

  it('a receiver that answers 410 disables the destination; ops can resend after re-enabling it', async () => {
    receiver.scripts.set('/gone', [{ status: 410 }]);
    const sessionId = await approvedSession('/gone');
    const event = await until('disabled', async () => {
      const e = await eventOf(sessionId);
      return e.state === 'disabled' && e;
    });
    const destinations = await service.core.tenancy.listCallbacks(service.demo.project_id);
    expect(destinations.find((d) => d.url === `${receiver.url}/gone`)?.active).toBe(false);
    // The approved destinations are cached: the 410 drops the entry, so a new session refuses it at once.
    const refused = await service.http
      .post('/api/v2/session')
      .set('X-API-Key', service.demo.api_key)
      .send({ workflow_id: workflowId, callback: `${receiver.url}/gone` });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('callback_not_allowed');
    await service.core.tenancy.setCallbackActive({
      projectId: service.demo.project_id,
      url: `${receiver.url}/gone`,
      active: true,
    });
    // The requeue statement itself: an attempt claimed meanwhile keeps the event; another project's id moves nothing.
    const store = new PgWebhookStore(service.core.orm);
    await sql(service, "update webhook_event set state = 'sending' where id = ?", [event.id]);
    expect(await store.requeue(service.demo.project_id, event.id, `${receiver.url}/gone`, new Date())).toBe('sending');
    await sql(service, "update webhook_event set state = 'disabled' where id = ?", [event.id]);
    expect(await store.requeue('prj_other', event.id, `${receiver.url}/gone`, new Date())).toBeNull();
    await expect(service.core.webhooks.resend('prj_other', event.id)).rejects.toMatchObject({ code: 'not_found' });
    await service.core.webhooks.resend(service.demo.project_id, event.id);
    await until('resent delivery', async () => (await eventOf(sessionId)).state === 'delivered');
  }, 60_000);

  it('loses nothing when the queueing after the commit never happened: the sweep finds the event', async () => {
    const jobs = service.core.webhooks.jobs;
    service.core.webhooks.jobs = undefined; // as if the process died right after the commit
    const sessionId = await approvedSession('/lost');
    service.core.webhooks.jobs = jobs;
    expect((await eventOf(sessionId)).state).toBe('pending');
    offsetMs = 60_000;
    try {
      await service.core.jobs!.send('maintenance.sweep', {});
      await until('rescued delivery', async () => (await eventOf(sessionId)).state === 'delivered');
    } finally {
      offsetMs = 0;
    }
    expect(receiver.deliveries.filter((d) => d.body.includes(sessionId))).toHaveLength(1);
  }, 60_000);

  it('records events with no destination without sending them', async () => {
    const created = await service.http
      .post('/api/v2/session')
      .set('X-API-Key', service.demo.api_key)
      .send({ workflow_id: workflowId });
    const token = created.body.data.session_token;
    await service.http
      .post('/api/hosted/session/steps/location')
      .set('X-Session-Token', token)
      .send({ latitude: 1, longitude: 2, accuracy: 5 });
    expect((await eventOf(created.body.data.session_id)).state).toBe('no_destination');
  });
});

describe('the dispatcher', () => {
  it("sends a terminal session's webhook right after the commit, not at the next sweep", async () => {
    const decided = Date.now();
    const sessionId = await approvedSession('/at-once');
    const event = await until('delivery', async () => {
      const e = await eventOf(sessionId);
      return e.state === 'delivered' && e;
    });
    const arrivals = receiver.deliveries.filter((d) => d.eventId === event.id);
    expect(arrivals).toHaveLength(1);
    // The sweep runs once a minute and takes events overdue by 30 s: this came in seconds.
    expect(arrivals[0]!.at - decided).toBeLessThan(5000);
  });

  it('runs several attempts at once, at most CONCURRENT_DELIVERIES, and sends each event once', async () => {
    const path = '/slow';
    receiver.delays.set(path, 300);
    const callback = `${receiver.url}${path}`;
    await service.core.tenancy.approveCallback({ projectId: service.demo.project_id, url: callback });
    receiver.maxInFlight = 0;
    const finish = async (i: number) => {
      const created = await service.http
        .post('/api/v2/session')
        .set('X-API-Key', service.demo.api_key)
        .send({ workflow_id: workflowId, callback, vendor_data: `slow-${i}` });
      await service.http
        .post('/api/hosted/session/steps/location')
        .set('X-Session-Token', created.body.data.session_token)
        .send({ latitude: 1, longitude: 2, accuracy: 5 });
      return created.body.data.session_id as string;
    };
    const sessionIds = await Promise.all(Array.from({ length: 3 * CONCURRENT_DELIVERIES }, (_, i) => finish(i)));
    const events = await Promise.all(sessionIds.map(eventOf));
    const deliveredCount = async (ids: string[]) =>
      (
        await sql<{ n: number }>(
          service,
          `select count(*)::int as n from webhook_event where id in (?) and state = 'delivered'`,
          [ids],
        )
      )[0]!.n;
    await until('every delivery', async () => (await deliveredCount(events.map((e) => e.id))) === events.length);
    for (const e of events) expect(receiver.deliveries.filter((d) => d.eventId === e.id)).toHaveLength(1);
    expect(receiver.maxInFlight).toBeGreaterThan(1);
    expect(receiver.maxInFlight).toBeLessThanOrEqual(CONCURRENT_DELIVERIES);

    // Two claimants for every event at once (the dispatcher and a duplicate job, or two instances): one sends.
    const jobs = service.core.webhooks.jobs;
    service.core.webhooks.jobs = undefined; // recorded only, so both claimants start together below
    let racing: string[];
    try {
      racing = await Promise.all(Array.from({ length: CONCURRENT_DELIVERIES }, (_, i) => finish(100 + i)));
    } finally {
      service.core.webhooks.jobs = jobs;
    }
    const raced = (await Promise.all(racing.map(eventOf))).map((e) => e.id);
    await Promise.all([service.core.webhooks.dispatch(raced), ...raced.map((id) => service.core.webhooks.deliver(id))]);
    await until('every raced delivery', async () => (await deliveredCount(raced)) === raced.length);
    for (const id of raced) expect(receiver.deliveries.filter((d) => d.eventId === id)).toHaveLength(1);
    receiver.delays.delete(path);
  }, 60_000);

  it('records the outcomes of attempts that end together each on its own event: delivered, to retry, disabled', async () => {
    // Outcomes of attempts ending at once go to the database in one statement: each must land on its own event.
    const answers = { '/together-ok': 200, '/together-busy': 503, '/together-gone': 410 } as const;
    const paths = Object.keys(answers) as (keyof typeof answers)[];
    for (const path of paths) {
      await service.core.tenancy.approveCallback({ projectId: service.demo.project_id, url: `${receiver.url}${path}` });
      receiver.scripts.set(path, [{ status: answers[path] }]);
      receiver.delays.set(path, 200);
    }
    const sessions = await Promise.all(
      paths.map(async (path) => {
        const created = await service.http
          .post('/api/v2/session')
          .set('X-API-Key', service.demo.api_key)
          .send({ workflow_id: workflowId, callback: `${receiver.url}${path}` });
        await service.http
          .post('/api/hosted/session/steps/location')
          .set('X-Session-Token', created.body.data.session_token)
          .send({ latitude: 1, longitude: 2, accuracy: 5 });
        return created.body.data.session_id as string;
      }),
    );
    const outcomes = await until('every first attempt', async () => {
      const rows = await sql<{
        path: string;
        state: string;
        attempts: number;
        http_status: number;
        retry_later: boolean;
      }>(
        service,
        `select e.url as path, e.state, e.attempts, a.http_status, e.next_attempt_at > a.at as retry_later
         from webhook_event e join webhook_attempt a on a.event_id = e.id and a.attempt = 1 where e.session_id in (?)`,
        [sessions],
      );
      return rows.length === paths.length && rows;
    });
    const byPath = Object.fromEntries(outcomes.map((row) => [new URL(row.path).pathname, row]));
    expect(byPath['/together-ok']).toMatchObject({ state: 'delivered', attempts: 1, http_status: 200 });
    expect(byPath['/together-busy']).toMatchObject({
      state: 'pending',
      attempts: 1,
      http_status: 503,
      retry_later: true,
    });
    expect(byPath['/together-gone']).toMatchObject({ state: 'disabled', attempts: 1, http_status: 410 });
    for (const path of paths) receiver.delays.delete(path);
  });

  it('retries an event whose attempt died after claiming it, once its lease has run out', async () => {
    const jobs = service.core.webhooks.jobs;
    service.core.webhooks.jobs = undefined; // recorded, not sent: the claim below stands for a process killed mid-attempt
    let sessionId: string;
    try {
      sessionId = await approvedSession('/crashed');
    } finally {
      service.core.webhooks.jobs = jobs;
    }
    const { id } = await eventOf(sessionId);
    await sql(service, `update webhook_event set state = 'sending', lease_until = ? where id = ?`, [
      new Date(Date.now() + 40_000),
      id,
    ]);
    // While the lease lasts the event is the dead attempt's: a sweep leaves it alone.
    await service.core.webhooks.rescue();
    await service.core.webhooks.deliver(id);
    expect((await eventOf(sessionId)).state).toBe('sending');
    offsetMs = 60_000;
    try {
      await service.core.jobs!.send('maintenance.sweep', {});
      await until('delivery after the lease', async () => (await eventOf(sessionId)).state === 'delivered');
    } finally {
      offsetMs = 0;
    }
    expect(receiver.deliveries.filter((d) => d.eventId === id)).toHaveLength(1);
    expect((await eventOf(sessionId)).attempts).toBe(1);
  }, 60_000);
});

describe('destination health and bulk resend', () => {
  const tokens = {} as Record<'global' | 'scoped', string>;
  let other: { projectId: string; apiKey: string; workflowId: string };

  const gql = async (token: string, query: string, variables: Record<string, unknown> = {}) =>
    (await service.http.post('/graphql').set('Authorization', `Bearer ${token}`).send({ query, variables })).body;
  const HEALTH = `query($p: String!) { webhookHealth(projectId: $p) { projectId destination healthy attemptsLastHour successRateLastHour
    attemptsLastDay successRateLastDay consecutiveFailures nextRetryAt pendingEvents lastAttemptAt lastStatus lastError lastSuccessAt } }`;
  const RESEND =
    'mutation($i: ResendFailedWebhooksInput!) { resendFailedWebhooks(input: $i) { queued limitReached from to } }';

  beforeAll(async () => {
    tokens.global = (await service.core.tenancy.createAdminToken({ role: 'admin' })).token;
    tokens.scoped = (
      await service.core.tenancy.createAdminToken({ role: 'admin', projectId: service.demo.project_id })
    ).token;
    const { project, key } = await service.core.tenancy.createProject({ name: 'Other', balance: 100 });
    const workflow = await service.core.tenancy.createWorkflow({
      projectId: project.id,
      name: 'loc',
      features: ['location'],
    });
    other = { projectId: project.id, apiKey: key, workflowId: workflow.id };
  });

  it('a receiver that keeps answering 503 turns its destination unhealthy in GraphQL and the metric, and healthy again once it answers', async () => {
    receiver.scripts.set(
      '/down',
      Array.from({ length: 4 }, () => ({ status: 503 })),
    );
    const sessionId = await approvedSession('/down');
    const destination = `${new URL(receiver.url).host}/down`;
    const healthOf = async () =>
      (
        (await gql(tokens.scoped, HEALTH, { p: service.demo.project_id })).data.webhookHealth as Record<
          string,
          unknown
        >[]
      ).find((d) => d.destination === destination);
    const sick = await until('unhealthy', async () => {
      const d = await healthOf();
      return d && d.healthy === false && d;
    });
    expect(sick).toMatchObject({
      projectId: service.demo.project_id,
      lastStatus: 503,
      lastSuccessAt: null,
      successRateLastHour: 0,
      successRateLastDay: 0,
      pendingEvents: 1,
    });
    expect(sick.attemptsLastHour).toBeGreaterThanOrEqual(3);
    expect(sick.consecutiveFailures).toBe(sick.attemptsLastHour);
    expect(Date.parse(sick.nextRetryAt as string)).toBeGreaterThan(Date.parse(sick.lastAttemptAt as string));
    // unhealthy destinations come first
    const all = (await gql(tokens.scoped, HEALTH, { p: service.demo.project_id })).data.webhookHealth as {
      healthy: boolean;
    }[];
    expect(all[0]!.healthy).toBe(false);
    const metrics = (await service.http.get('/metrics')).text;
    expect(metrics).toMatch(
      new RegExp(`^verity_webhook_destination_unhealthy\\{project="${service.demo.project_id}"\\} [1-9]`, 'm'),
    );
    expect(metrics).not.toContain('/down');
    // ... and the log told the same story as it went: one warning per failed attempt.
    const failing = await eventOf(sessionId);
    const warnings = logLines.filter((l) => l.msg === 'webhook attempt failed' && l.event_id === failing.id);
    expect(warnings.length).toBeGreaterThanOrEqual(sick.consecutiveFailures as number);
    expect(warnings.every((w) => w.http_status === 503 && w.destination_host === new URL(receiver.url).host)).toBe(
      true,
    );
    // The receiver recovers: the next attempt is answered 200 and the rule clears.
    await until('delivered after recovery', async () => (await eventOf(sessionId)).state === 'delivered');
    const well = await healthOf();
    expect(well).toMatchObject({
      healthy: true,
      consecutiveFailures: 0,
      lastStatus: 200,
      pendingEvents: 0,
      nextRetryAt: null,
    });
    expect(typeof well!.lastSuccessAt).toBe('string');
    expect(well!.successRateLastHour).toBeCloseTo(1 / (well!.attemptsLastHour as number), 3);
    expect((await service.http.get('/metrics')).text).not.toMatch(
      new RegExp(`verity_webhook_destination_unhealthy\\{project="${service.demo.project_id}"\\}`),
    );
  }, 60_000);

  it("a token scoped to one project never sees another project's destinations", async () => {
    await approvedSession('/other-health', other);
    const foreign = await gql(tokens.scoped, HEALTH, { p: other.projectId });
    expect(foreign.errors[0].extensions.code).toBe('not_found');
    expect(JSON.stringify(foreign)).not.toContain('/other-health');
    const own = await gql(tokens.scoped, HEALTH, { p: service.demo.project_id });
    expect(JSON.stringify(own.data)).not.toContain('/other-health');
    const global = await gql(tokens.global, HEALTH, { p: other.projectId });
    expect(global.data.webhookHealth.map((d: { destination: string }) => d.destination)).toContain(
      `${new URL(receiver.url).host}/other-health`,
    );
  }, 60_000);

  it("resends the failed events of a time range, of the caller's project only", async () => {
    const jobs = service.core.webhooks.jobs;
    service.core.webhooks.jobs = undefined; // recorded, not sent: the test makes them failed below
    const ids: Record<string, string> = {};
    try {
      for (const name of ['old', 'inside', 'delivered'])
        ids[name] = (await eventOf(await approvedSession(`/bulk-${name}`))).id;
      ids.foreign = (await eventOf(await approvedSession('/bulk-foreign', other))).id;
    } finally {
      service.core.webhooks.jobs = jobs;
    }
    const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000);
    const mark = (id: string, state: string, createdAt: Date) =>
      sql(service, 'update webhook_event set state = ?, attempts = 12, created_at = ? where id = ?', [
        state,
        createdAt,
        id,
      ]);
    await mark(ids.old!, 'failed', hoursAgo(5));
    await mark(ids.inside!, 'failed', hoursAgo(2));
    await mark(ids.delivered!, 'delivered', hoursAgo(2));
    await mark(ids.foreign!, 'failed', hoursAgo(2));
    const range = { from: hoursAgo(3).toISOString(), to: hoursAgo(1).toISOString() };

    const refused = await gql(tokens.scoped, RESEND, { i: { projectId: other.projectId, ...range } });
    expect(refused.errors[0].extensions.code).toBe('not_found');
    const bad = await gql(tokens.scoped, RESEND, {
      i: { projectId: service.demo.project_id, from: range.to, to: range.from },
    });
    expect(bad.errors[0].extensions.code).toBe('validation_error');

    const done = await gql(tokens.scoped, RESEND, { i: { projectId: service.demo.project_id, ...range } });
    expect(done.data.resendFailedWebhooks).toEqual({ queued: 1, limitReached: false, ...range });
    const stateOf = async (id: string) =>
      (await sql<{ state: string }>(service, 'select state from webhook_event where id = ?', [id]))[0]!.state;
    await until('the resent event delivered', async () => (await stateOf(ids.inside!)) === 'delivered');
    expect(await stateOf(ids.old!)).toBe('failed');
    expect(await stateOf(ids.foreign!)).toBe('failed');
    expect(receiver.deliveries.filter((d) => d.eventId === ids.inside).length).toBe(1);
    expect(
      receiver.deliveries.some(
        (d) => d.eventId === ids.old || d.eventId === ids.foreign || d.eventId === ids.delivered,
      ),
    ).toBe(false);
    // Nothing failed is left in the range: a second run queues none.
    expect(
      (await gql(tokens.scoped, RESEND, { i: { projectId: service.demo.project_id, ...range } })).data
        .resendFailedWebhooks.queued,
    ).toBe(0);
  }, 60_000);

  it('moves a bulk resend back to pending in batches, reporting its progress after each (the CLI draws it)', async () => {
    const [template] = await sql<{ id: string }>(service, 'select id from webhook_event where project_id = ? limit 1', [
      service.demo.project_id,
    ]);
    const createdAt = new Date('2020-03-01T12:00:00Z');
    await sql(
      service,
      `insert into webhook_event (id, project_id, session_id, type, body, url, state, attempts, next_attempt_at, created_at)
      select 'evt_bulk_' || g, project_id, session_id, type, body, url, 'failed', 12, now(), ? from webhook_event, generate_series(1, 600) g where id = ?`,
      [createdAt, template!.id],
    );
    const jobs = service.core.webhooks.jobs;
    service.core.webhooks.jobs = undefined; // moved back to pending, not sent
    const progress: [number, number][] = [];
    try {
      const result = await service.core.webhooks.resendFailed(
        service.demo.project_id,
        { from: new Date('2020-03-01T00:00:00Z'), to: new Date('2020-03-02T00:00:00Z') },
        (done, total) => progress.push([done, total]),
      );
      expect(result).toEqual({ queued: 600, limitReached: false });
      expect(progress).toEqual([
        [250, 600],
        [500, 600],
        [600, 600],
      ]);
      expect(
        (
          await sql<{ n: number }>(
            service,
            `select count(*)::int as n from webhook_event where id like 'evt_bulk_%' and state = 'pending'`,
          )
        )[0]!.n,
      ).toBe(600);
    } finally {
      service.core.webhooks.jobs = jobs;
      await sql(service, `delete from webhook_event where id like 'evt_bulk_%'`);
    }
  });
});

describe('test mode: its own destinations and signing secret', () => {
  const TEST_OUTCOME = 'Verity-Test-Outcome';
  let project: { id: string; liveKey: string; testKey: string; workflowId: string; liveSecret: string };
  let testSecret: string;
  let live: Receiver;
  let sandbox: Receiver;
  const gql = async (query: string, variables: Record<string, unknown> = {}) => {
    const body = (
      await service.http
        .post('/graphql')
        .set('Authorization', `Bearer ${service.demo.admin_token}`)
        .send({ query, variables })
    ).body;
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    return body.data;
  };
  const SET_DEFAULT =
    'mutation($i: DefaultCallbackInput!) { setDefaultCallback(input: $i) { defaultCallbackUrl testDefaultCallbackUrl } }';
  const APPROVE = 'mutation($i: CallbackUrlInput!) { approveCallback(input: $i) { url mode active } }';
  const ROTATE =
    'mutation($i: RotateWebhookSecretInput!) { rotateWebhookSecret(input: $i) { mode webhookSigningSecret previousValidUntil } }';
  const EVENTS =
    'query($p: String!, $s: String) { webhookEvents(projectId: $p, sessionId: $s) { edges { node { id livemode state url } } } }';
  const signatureWith = (secret: string, delivery: Delivery) =>
    createHmac('sha256', secret).update(`${delivery.timestamp}.${delivery.body}`).digest('hex');
  /**
   * A session of `key`, finished at once: forced with the sandbox header for a test key, by its location step for a
   * live one.
   */
  const finished = async (key: string, body: Record<string, unknown> = {}) => {
    const request = service.http.post('/api/v2/session').set('X-API-Key', key);
    if (key === project.testKey) request.set(TEST_OUTCOME, 'approve');
    const created = await request.send({ workflow_id: project.workflowId, vendor_data: 'user-42', ...body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    if (key !== project.testKey) {
      await service.http
        .post('/api/hosted/session/steps/location')
        .set('X-Session-Token', created.body.data.session_token)
        .send({ latitude: 1, longitude: 2, accuracy: 5 });
    }
    return created.body.data.session_id as string;
  };
  const eventNode = async (sessionId: string) =>
    (await gql(EVENTS, { p: project.id, s: sessionId })).webhookEvents.edges[0]?.node as {
      id: string;
      livemode: boolean;
      state: string;
      url: string | null;
    };
  const deliveredTo = (receiver: Receiver, eventId: string) =>
    until(`delivery of ${eventId}`, async () => receiver.deliveries.find((d) => d.eventId === eventId));

  beforeAll(async () => {
    const created = await gql(
      'mutation { createProject(input: { name: "Sandbox hooks", balance: 100 }) { project { id hasTestWebhookSecret } key webhookSigningSecret testWebhookSigningSecret } }',
    );
    const made = created.createProject;
    expect(made.project.hasTestWebhookSecret).toBe(true);
    expect(made.testWebhookSigningSecret).not.toBe(made.webhookSigningSecret);
    testSecret = made.testWebhookSigningSecret;
    const testKey = (await service.core.tenancy.createApiKey({ projectId: made.project.id, mode: 'test' })).key;
    const workflowId = (
      await service.core.tenancy.createWorkflow({ projectId: made.project.id, name: 'loc', features: ['location'] })
    ).id;
    project = { id: made.project.id, liveKey: made.key, testKey, workflowId, liveSecret: made.webhookSigningSecret };
    live = new Receiver(() => project.liveSecret);
    sandbox = new Receiver(() => testSecret);
    await live.start();
    await sandbox.start();
    // Production has a default receiver; test mode has none yet.
    await gql(SET_DEFAULT, { i: { projectId: project.id, url: `${live.url}/production` } });
  });
  afterAll(async () => {
    await live?.stop();
    await sandbox?.stop();
  });

  it("a test key's forced approval never reaches the live receiver: with no test destination it is kept as no_destination, marked test", async () => {
    const liveSession = await finished(project.liveKey);
    const liveEvent = await eventNode(liveSession);
    const liveDelivery = await deliveredTo(live, liveEvent.id);
    expect(liveDelivery.validSignature).toBe(true);
    expect(JSON.parse(liveDelivery.body)).toMatchObject({
      event_id: liveEvent.id,
      session_id: liveSession,
      livemode: true,
    });

    const testSession = await finished(project.testKey);
    const testEvent = await eventNode(testSession);
    expect(testEvent).toMatchObject({ livemode: false, state: 'no_destination', url: null });
    // The dispatcher has had its chance (the live event above went out right after its commit): nothing came.
    await finished(project.liveKey)
      .then(eventNode)
      .then((e) => deliveredTo(live, e.id));
    expect(live.deliveries.some((d) => d.eventId === testEvent.id || d.body.includes(testSession))).toBe(false);
    expect(sandbox.deliveries).toHaveLength(0);
  }, 60_000);

  it("test events go to test mode's default callback, signed with the test secret only, livemode false in the signed body", async () => {
    expect(
      (await gql(SET_DEFAULT, { i: { projectId: project.id, url: `${sandbox.url}/sandbox`, mode: 'test' } }))
        .setDefaultCallback,
    ).toEqual({
      defaultCallbackUrl: `${live.url}/production`,
      testDefaultCallbackUrl: `${sandbox.url}/sandbox`,
    });
    const sessionId = await finished(project.testKey);
    const event = await eventNode(sessionId);
    expect(event).toMatchObject({ livemode: false, url: `${sandbox.url}/sandbox` });
    const delivery = await deliveredTo(sandbox, event.id);
    expect(delivery.validSignature).toBe(true);
    expect(delivery.signature).not.toBe(signatureWith(project.liveSecret, delivery));
    expect(delivery.previousSignature).toBeUndefined();
    expect(JSON.parse(delivery.body)).toEqual({
      event_id: event.id,
      type: 'verification.approved',
      session_id: sessionId,
      status: 'APPROVED',
      vendor_data: 'user-42',
      decision: 'approved',
      occurred_at: expect.any(String),
      livemode: false,
    });
    expect(live.deliveries.some((d) => d.eventId === event.id)).toBe(false);
    // Ops see each mode's destination apart.
    const health = (
      await gql('query($p: String!) { webhookHealth(projectId: $p) { destination livemode } }', { p: project.id })
    ).webhookHealth;
    expect(health).toEqual(
      expect.arrayContaining([
        { destination: `${new URL(sandbox.url).host}/sandbox`, livemode: false },
        { destination: `${new URL(live.url).host}/production`, livemode: true },
      ]),
    );
  }, 60_000);

  it("a session's callback must be approved for its key's mode, else 422 callback_not_allowed", async () => {
    const liveHook = `${live.url}/per-session`;
    const testHook = `${sandbox.url}/per-session`;
    expect((await gql(APPROVE, { i: { projectId: project.id, url: liveHook } })).approveCallback).toEqual({
      url: liveHook,
      mode: 'live',
      active: true,
    });
    expect((await gql(APPROVE, { i: { projectId: project.id, url: testHook, mode: 'test' } })).approveCallback).toEqual(
      { url: testHook, mode: 'test', active: true },
    );
    for (const [key, callback] of [
      [project.testKey, liveHook],
      [project.liveKey, testHook],
    ] as const) {
      const refused = await service.http
        .post('/api/v2/session')
        .set('X-API-Key', key)
        .set(TEST_OUTCOME, 'approve')
        .send({ workflow_id: project.workflowId, callback });
      expect(refused.status, callback).toBe(422);
      expect(refused.body.error.code).toBe('callback_not_allowed');
    }
    const sessionId = await finished(project.testKey, { callback: testHook });
    const event = await eventNode(sessionId);
    expect(event.url).toBe(testHook);
    expect((await deliveredTo(sandbox, event.id)).validSignature).toBe(true);
  }, 60_000);

  it('the test secret rotates through GraphQL apart from the live one: the new one signs, the old one rides alongside for the overlap', async () => {
    const before = testSecret;
    const rotated = (await gql(ROTATE, { i: { projectId: project.id, mode: 'test', overlapHours: 1 } }))
      .rotateWebhookSecret;
    expect(rotated).toMatchObject({ mode: 'test', webhookSigningSecret: expect.stringMatching(/^whsec_test_/) });
    testSecret = rotated.webhookSigningSecret;
    const testDelivery = await deliveredTo(sandbox, (await eventNode(await finished(project.testKey))).id);
    expect(testDelivery.validSignature).toBe(true);
    expect(testDelivery.previousSignature).toBe(signatureWith(before, testDelivery));
    // The live secret did not move: live deliveries verify with it, with no previous signature.
    const liveDelivery = await deliveredTo(live, (await eventNode(await finished(project.liveKey))).id);
    expect(liveDelivery.validSignature).toBe(true);
    expect(liveDelivery.previousSignature).toBeUndefined();
  }, 60_000);

  it('a project made before test webhooks sends no test event until it rotates a test secret, then resends it', async () => {
    const older = (await service.core.tenancy.createProject({ name: 'Older', balance: 0 })).project.id;
    // As the migration leaves a project that existed before: no test secret.
    await sql(service, 'update project set test_webhook_signing_secret_sealed = null where id = ?', [older]);
    expect(
      (await gql('query($p: String!) { project(projectId: $p) { hasTestWebhookSecret } }', { p: older })).project
        .hasTestWebhookSecret,
    ).toBe(false);
    await gql(SET_DEFAULT, { i: { projectId: older, url: `${sandbox.url}/older`, mode: 'test' } });
    const key = (await service.core.tenancy.createApiKey({ projectId: older, mode: 'test' })).key;
    const workflowId = (
      await service.core.tenancy.createWorkflow({ projectId: older, name: 'loc', features: ['location'] })
    ).id;
    const created = await service.http
      .post('/api/v2/session')
      .set('X-API-Key', key)
      .set(TEST_OUTCOME, 'decline')
      .send({ workflow_id: workflowId });
    const eventId = (await gql(EVENTS, { p: older, s: created.body.data.session_id })).webhookEvents.edges[0].node.id;
    const attempts = await until('a refused attempt', async () => {
      const list = (
        await gql(
          'query($p: String!, $e: String!) { webhookAttempts(projectId: $p, eventId: $e) { httpStatus error } }',
          { p: older, e: eventId },
        )
      ).webhookAttempts;
      return list.length > 0 && list;
    });
    expect(attempts[0]).toEqual({ httpStatus: null, error: expect.stringContaining('no test signing secret') });
    expect(sandbox.deliveries.some((d) => d.eventId === eventId)).toBe(false);
    const rotated = (await gql(ROTATE, { i: { projectId: older, mode: 'test', overlapHours: 0 } })).rotateWebhookSecret;
    testSecret = rotated.webhookSigningSecret;
    // Its retries keep failing meanwhile: a resend during one is a conflict, tried again.
    await until('resent', async () => {
      const answer = await service.http
        .post('/graphql')
        .set('Authorization', `Bearer ${service.demo.admin_token}`)
        .send({
          query: 'mutation($i: WebhookEventRefInput!) { resendWebhookEvent(input: $i) { state } }',
          variables: { i: { projectId: older, eventId } },
        });
      return !answer.body.errors;
    });
    expect((await deliveredTo(sandbox, eventId)).validSignature).toBe(true);
  }, 60_000);
});
