import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTRPCClient, httpLink, type TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/core/clock.js';
import type { AdminRouter } from '../src/graph/trpc.js';
import { createSession, inReviewSession, submitStep } from './helpers/admin-sessions.js';
import { markerFaceEngine } from './helpers/face-engine.js';
import { sql, startTestService, type TestService } from './helpers/service.js';

// The ops API (GraphQL and tRPC over HTTP) on sessions made through the real REST and hosted-page
// APIs: filters, pages, roles, project isolation, query limits, reviews, resend, and aggregates
// on a small data set whose figures are known.

let service: TestService;
let server: Server;
let baseUrl: string;
let receiver: Server;
const clock = new ManualClock(new Date('2026-11-23T10:00:00Z'));
const tokens = {} as Record<'admin' | 'viewer' | 'reviewer' | 'scoped', { id: string; token: string }>;
let ops: { projectId: string; apiKey: string; workflowA: string; workflowB: string };
const made: Record<string, string> = {};
const reviewed = {} as { declinable: string; approvable: string; svcId: string };

async function gql(token: string, query: string, variables: Record<string, unknown> = {}) {
  return service.http.post('/graphql').set('Authorization', `Bearer ${token}`).send({ query, variables });
}

const here = { latitude: 40.7, longitude: -74, accuracy: 10 };
const geofence = { expected_lat: 51.5, expected_lng: -0.12, radius_m: 500 };

/** A session of the Ops project that is decided `seconds` after it was created, by its location. */
async function decided(
  name: string,
  workflowId: string,
  seconds: number,
  outcome: 'approve' | 'deny_location' | 'outside',
) {
  const session = await createSession(service, ops.apiKey, {
    workflow_id: workflowId,
    vendor_data: `v-${name}`,
    ...(outcome === 'outside' ? { metadata: geofence } : {}),
  });
  made[name] = session.session_id;
  clock.advance(seconds * 1000);
  // A refused location is asked again (422 step_retry_required); the workflow's third refusal declines.
  for (let i = 0; outcome === 'deny_location' && i < 2; i++) {
    expect(
      (
        await service.http
          .post('/api/hosted/session/steps/location')
          .set('X-Session-Token', session.session_token)
          .send({ source: 'permission_denied' })
      ).status,
    ).toBe(422);
  }
  await submitStep(
    service,
    session.session_token,
    'location',
    outcome === 'deny_location' ? { source: 'permission_denied' } : here,
  );
}

beforeAll(async () => {
  service = await startTestService({ allowInsecureCallbacks: true }, { clock, faceEngine: markerFaceEngine() });
  server = await new Promise((resolve) => {
    const s = service.app.listen(0, '127.0.0.1', () => resolve(s));
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Webhook receiver: approvals are accepted, declines answered 500 (retried later).
  receiver = await new Promise((resolve) => {
    const s = http
      .createServer((req, res) => {
        let body = '';
        req.on('data', (chunk) => {
          body += chunk;
        });
        req.on('end', () => {
          res.statusCode = body.includes('"APPROVED"') ? 200 : 500;
          res.end('ok');
        });
      })
      .listen(0, '127.0.0.1', () => resolve(s));
  });

  for (const role of ['admin', 'viewer', 'reviewer'] as const)
    tokens[role] = await service.core.tenancy.createAdminToken({ role });
  tokens.scoped = await service.core.tenancy.createAdminToken({ role: 'admin', projectId: service.demo.project_id });

  const { project, key } = await service.core.tenancy.createProject({ name: 'Ops', balance: 100 });
  const a = await service.core.tenancy.createWorkflow({ projectId: project.id, name: 'A', features: ['location'] });
  const b = await service.core.tenancy.createWorkflow({ projectId: project.id, name: 'B', features: ['location'] });
  ops = { projectId: project.id, apiKey: key, workflowA: a.id, workflowB: b.id };
  await service.core.tenancy.setDefaultCallback({
    projectId: project.id,
    url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
  });

  // The known data set: decisions after 60, 120, 180 and 240 s; one session never opened.
  await decided('a1', a.id, 60, 'approve');
  await decided('a2', a.id, 120, 'approve');
  await decided('a3', a.id, 180, 'deny_location');
  await decided('b1', b.id, 240, 'outside');
  made.a4 = (await createSession(service, ops.apiKey, { workflow_id: a.id, vendor_data: 'v-a4' })).session_id;
  const standalone = await service.http
    .post('/api/v2/location')
    .set('X-API-Key', ops.apiKey)
    .send({ source: 'permission_denied' });
  expect(standalone.status, JSON.stringify(standalone.body)).toBe(200);
  // Two sessions of the demo project waiting for a person (the real OCR reads the documents).
  reviewed.declinable = (await inReviewSession(service)).sessionId;
  clock.advance(1000);
  const approvable = await inReviewSession(service, { approvable: true, email: 'ops-review@example.com' });
  reviewed.approvable = approvable.sessionId;
  reviewed.svcId = approvable.svcId!;
  // One delivery attempt per event, as the delivery job would make it.
  for (const { id } of await sql<{ id: string }>(service, 'select id from webhook_event where project_id = ?', [
    project.id,
  ]))
    await service.core.webhooks.deliver(id);
}, 120_000);

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await new Promise((resolve) => receiver?.close(resolve));
  await service?.close();
});

const SESSIONS = `query($p: String!, $filter: SessionFilterInput, $sort: SessionSort, $first: Int, $after: String) {
  sessions(projectId: $p, filter: $filter, sort: $sort, first: $first, after: $after) {
    edges { cursor node { id status vendorData workflow { name maxStepTries } } }
    pageInfo { hasNextPage endCursor }
  }
}`;

describe('sessions: filters, sorting, pages', () => {
  const ids = async (filter: Record<string, unknown>) => {
    const res = await gql(tokens.viewer.token, SESSIONS, { p: ops.projectId, filter });
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    return res.body.data.sessions.edges.map((edge: { node: { id: string } }) => edge.node.id).sort();
  };

  it('filters by status, workflow, vendor_data, decision and creation time', async () => {
    expect(await ids({ status: 'APPROVED' })).toEqual([made.a1, made.a2].sort());
    expect(await ids({ workflowId: ops.workflowB })).toEqual([made.b1]);
    expect(await ids({ vendorData: 'v-a3' })).toEqual([made.a3]);
    expect(await ids({ decision: 'DECLINED' })).toEqual([made.a3, made.b1].sort());
    // a1 was created at 10:00:00, a2 at 10:01:00, a3 at 10:03:00, b1 at 10:06:00, a4 at 10:10:00.
    expect(await ids({ createdFrom: '2026-11-23T10:01:00Z', createdTo: '2026-11-23T10:06:00Z' })).toEqual(
      [made.a2, made.a3].sort(),
    );
    expect(await ids({ svcId: 'svc_nobody' })).toEqual([]);
  });

  it('pages newest first (or oldest first) without repeats or gaps, and refuses a forged cursor', async () => {
    for (const [sort, expected] of [
      ['CREATED_AT_DESC', ['a4', 'b1', 'a3', 'a2', 'a1']],
      ['CREATED_AT_ASC', ['a1', 'a2', 'a3', 'b1', 'a4']],
    ] as const) {
      const seen: string[] = [];
      let after: string | null = null;
      do {
        const res = await gql(tokens.viewer.token, SESSIONS, { p: ops.projectId, sort, first: 2, after });
        const connection = res.body.data.sessions;
        expect(connection.edges.length).toBeLessThanOrEqual(2);
        seen.push(...connection.edges.map((edge: { node: { id: string } }) => edge.node.id));
        after = connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null;
      } while (after);
      expect(seen).toEqual(expected.map((name) => made[name]));
    }
    const forged = await gql(tokens.viewer.token, SESSIONS, { p: ops.projectId, after: 'garbage' });
    expect(forged.body.errors[0].extensions.code).toBe('validation_error');
    const tooMany = await gql(tokens.viewer.token, SESSIONS, { p: ops.projectId, first: 101 });
    expect(tooMany.body.errors[0].extensions.code).toBe('validation_error');
  });

  it('shows a session with checks, decision, timeline and webhook attempts; details only to reviewers, never images', async () => {
    const query = `query($p: String!, $s: String!) { session(projectId: $p, sessionId: $s) {
      status decision decidedBy imagesRetained checks { type status reason details } timeline { from to actor }
      webhookEvents { type state attemptCount attempts { httpStatus } } } }`;
    const viewer = (await gql(tokens.viewer.token, query, { p: ops.projectId, s: made.a3 })).body.data.session;
    expect(viewer).toMatchObject({
      status: 'DECLINED',
      decision: 'DECLINED',
      decidedBy: 'system',
      imagesRetained: false,
    });
    expect(
      viewer.checks.map((c: { type: string; status: string; reason: string | null }) => [c.type, c.status, c.reason]),
    ).toEqual([['location', 'failed', 'permission_denied']]);
    expect(viewer.checks.every((c: { details: string | null }) => c.details === null)).toBe(true);
    // The refused location was asked again twice (IN_PROGRESS -> IN_PROGRESS, by the person), then declined.
    expect(viewer.timeline.map((t: { to: string }) => t.to)).toEqual([
      'NOT_STARTED',
      'IN_PROGRESS',
      'IN_PROGRESS',
      'IN_PROGRESS',
      'DECLINED',
    ]);
    expect(viewer.webhookEvents).toEqual([
      { type: 'verification.declined', state: 'pending', attemptCount: 1, attempts: [{ httpStatus: 500 }] },
    ]);
    const reviewer = (await gql(tokens.reviewer.token, query, { p: ops.projectId, s: made.a3 })).body.data.session;
    expect(JSON.parse(reviewer.checks[0].details)).toMatchObject({
      data: { source: 'permission_denied' },
      error: expect.stringContaining('permission_denied'),
    });
    const approvable = await gql(tokens.reviewer.token, query, { p: service.demo.project_id, s: reviewed.approvable });
    const checks = approvable.body.data.session.checks as { type: string; details: string }[];
    expect(checks.map((c) => c.type)).toEqual(['id_verification', 'liveness', 'face_match']);
    expect(checks.map((c) => c.details).join()).not.toMatch(/data:image|portrait"/);
  });

  it('batches nested fields: a page of 5 costs as many queries as a page of 2', async () => {
    const connection = service.core.orm.em.getConnection();
    const original = connection.execute.bind(connection);
    let count = 0;
    connection.execute = ((...args: Parameters<typeof original>) => {
      count += 1;
      return original(...args);
    }) as typeof connection.execute;
    const nested = `query($p: String!, $first: Int) { sessions(projectId: $p, first: $first) { edges { node { id workflow { name } checks { type } timeline { to } webhookEvents { attempts { at } session { status } } } } } }`;
    try {
      // The fewest of three tries per page size: a background sweep (webhooks, expiry) that runs
      // during one try adds its own statements to the count, never takes any away.
      const counts: number[] = [];
      for (const first of [2, 5]) {
        const tries: number[] = [];
        for (let i = 0; i < 3; i++) {
          count = 0;
          const res = await gql(tokens.viewer.token, nested, { p: ops.projectId, first });
          expect(res.body.data.sessions.edges).toHaveLength(first);
          tries.push(count);
        }
        counts.push(Math.min(...tries));
      }
      expect(counts[1]).toBe(counts[0]);
    } finally {
      connection.execute = original;
    }
  });
});

describe('roles, project scope and limits', () => {
  it("keeps a project-scoped token to its project: other projects' sessions are not found", async () => {
    for (const [query, variables] of [
      [SESSIONS, { p: ops.projectId }],
      [
        'query($p: String!, $s: String!) { session(projectId: $p, sessionId: $s) { id } }',
        { p: ops.projectId, s: made.a1 },
      ],
      ['query($p: String!) { webhookEvents(projectId: $p) { edges { node { id } } } }', { p: ops.projectId }],
      ['query($p: String!) { sessionsPerDay(projectId: $p) { count } }', { p: ops.projectId }],
    ] as const) {
      const res = await gql(tokens.scoped.token, query, variables);
      expect(res.body.errors[0].extensions.code).toBe('not_found');
      expect(JSON.stringify(res.body)).not.toContain(made.a1!);
    }
    const own = await gql(tokens.scoped.token, SESSIONS, { p: service.demo.project_id });
    expect(JSON.stringify(own.body.data)).not.toContain(made.a1!);
    const foreign = await gql(
      tokens.scoped.token,
      'mutation($i: ReviewSessionInput!) { reviewSession(input: $i) { status } }',
      {
        i: { projectId: ops.projectId, sessionId: made.a4, status: 'DECLINED', note: 'document unreadable' },
      },
    );
    expect(foreign.body.errors[0].extensions.code).toBe('not_found');
  });

  it('rejects over-deep and over-costly queries with a code in extensions', async () => {
    const deep = await gql(
      tokens.viewer.token,
      `query($p: String!) { webhookEvents(projectId: $p, first: 1) { edges { node { session { webhookEvents { session { webhookEvents { session { id } } } } } } } } }`,
      {
        p: ops.projectId,
      },
    );
    expect(deep.status).toBe(400);
    expect(deep.body.errors[0].extensions.code).toBe('query_too_deep');
    const heavy = (first: number) =>
      gql(
        tokens.viewer.token,
        `query($p: String!) { sessions(projectId: $p, first: ${first}) { edges { node { checks { type details } webhookEvents { attempts { at httpStatus } } } } } }`,
        { p: ops.projectId },
      );
    const costly = await heavy(100);
    expect(costly.status).toBe(400);
    expect(costly.body.errors[0].extensions.code).toBe('query_too_costly');
    expect((await heavy(10)).body.errors).toBeUndefined();
  });

  it("answers the review mutation's 409 rules: a session not in review", async () => {
    const res = await gql(
      tokens.reviewer.token,
      'mutation($i: ReviewSessionInput!) { reviewSession(input: $i) { status } }',
      {
        i: { projectId: ops.projectId, sessionId: made.a4, status: 'APPROVED', note: 'checked by hand' },
      },
    );
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'review_not_pending', status: 409 });
    const closed = await gql(
      tokens.reviewer.token,
      'mutation($i: ReviewSessionInput!) { reviewSession(input: $i) { status } }',
      {
        i: { projectId: ops.projectId, sessionId: made.a1, status: 'DECLINED', note: 'document unreadable' },
      },
    );
    expect(closed.body.errors[0].extensions.code).toBe('session_closed');
  });
});

describe('manual review through the admin API', () => {
  it('lists the review queue oldest first; a viewer cannot decide, approval without face checks is 409, a reviewer declines over tRPC', async () => {
    const sessionId = reviewed.declinable;
    const queue = await gql(
      tokens.viewer.token,
      'query($p: String!) { reviewQueue(projectId: $p) { edges { node { id status approvalBlockers } } } }',
      { p: service.demo.project_id },
    );
    expect(queue.body.data.reviewQueue.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual([
      reviewed.declinable,
      reviewed.approvable,
    ]);
    // The console disables Approve (and says why) where the approval rule would refuse it.
    expect(
      queue.body.data.reviewQueue.edges.map((e: { node: { approvalBlockers: string[] } }) => e.node.approvalBlockers),
    ).toEqual([['liveness', 'face_match'], []]);
    const review = 'mutation($i: ReviewSessionInput!) { reviewSession(input: $i) { status decidedBy } }';
    const viewer = await gql(tokens.viewer.token, review, {
      i: { projectId: service.demo.project_id, sessionId, status: 'DECLINED', note: 'document unreadable' },
    });
    expect(viewer.body.errors[0].extensions.code).toBe('forbidden');
    const approve = await gql(tokens.reviewer.token, review, {
      i: { projectId: service.demo.project_id, sessionId, status: 'APPROVED', note: 'checked by hand' },
    });
    expect(approve.body.errors[0].extensions).toMatchObject({ code: 'required_face_checks_incomplete', status: 409 });

    const trpc = createTRPCClient<AdminRouter>({
      links: [httpLink({ url: `${baseUrl}/trpc`, headers: { authorization: `Bearer ${tokens.reviewer.token}` } })],
    });
    const declined = await trpc.reviewSession.mutate({
      projectId: service.demo.project_id,
      sessionId,
      status: 'DECLINED',
      note: 'document unreadable',
    });
    expect(declined).toMatchObject({ status: 'DECLINED', decidedBy: `admin:${tokens.reviewer.id}` });
    expect(declined.timeline.at(-1)).toMatchObject({
      from: 'IN_REVIEW',
      to: 'DECLINED',
      actor: `admin:${tokens.reviewer.id}`,
      reason: 'manual review: document unreadable',
    });
    const viewerTrpc = createTRPCClient<AdminRouter>({
      links: [httpLink({ url: `${baseUrl}/trpc`, headers: { authorization: `Bearer ${tokens.viewer.token}` } })],
    });
    const refused = await viewerTrpc.reviewSession
      .mutate({ projectId: service.demo.project_id, sessionId, status: 'DECLINED', note: 'document unreadable' })
      .catch((e: unknown) => e);
    expect((refused as TRPCClientError<AdminRouter>).data?.domainCode).toBe('forbidden');
  });

  it('lets exactly one of two reviewers win; the loser gets 409 session_closed; identity reads are admin-only and audited', async () => {
    const sessionId = reviewed.approvable;
    const review = 'mutation($i: ReviewSessionInput!) { reviewSession(input: $i) { status } }';
    const answers = await Promise.all(
      [tokens.reviewer, tokens.admin].map((t) =>
        gql(t.token, review, {
          i: { projectId: service.demo.project_id, sessionId, status: 'APPROVED', note: 'checked by hand' },
        }),
      ),
    );
    const winners = answers.filter((a) => !a.body.errors);
    expect(winners).toHaveLength(1);
    expect(answers.find((a) => a.body.errors)!.body.errors[0].extensions.code).toBe('session_closed');
    const bySvc = await gql(tokens.viewer.token, SESSIONS, {
      p: service.demo.project_id,
      filter: { svcId: reviewed.svcId },
    });
    expect(
      bySvc.body.data.sessions.edges.map((e: { node: { id: string; status: string } }) => [e.node.id, e.node.status]),
    ).toEqual([[sessionId, 'APPROVED']]);

    const identity =
      'query($p: String!, $s: String!) { accountIdentity(projectId: $p, svcId: $s) { fullName dateOfBirth } }';
    expect(
      (await gql(tokens.viewer.token, identity, { p: service.demo.project_id, s: reviewed.svcId })).body.errors[0]
        .extensions.code,
    ).toBe('forbidden');
    const read = await gql(tokens.admin.token, identity, { p: service.demo.project_id, s: reviewed.svcId });
    expect(read.body.data.accountIdentity.fullName).toBeTruthy();
    const audit = await gql(
      tokens.admin.token,
      'query($p: String) { adminAudit(projectId: $p) { edges { node { tokenId action target } } } }',
      { p: service.demo.project_id },
    );
    expect(audit.body.data.adminAudit.edges[0].node).toEqual({
      tokenId: tokens.admin.id,
      action: 'account.identity.read',
      target: reviewed.svcId,
    });
    const accounts = await gql(
      tokens.viewer.token,
      'query($p: String!) { accounts(projectId: $p) { edges { node { svcId idVerified } } } }',
      { p: service.demo.project_id },
    );
    expect(accounts.body.data.accounts.edges).toContainEqual({ node: { svcId: reviewed.svcId, idVerified: true } });
    expect(JSON.stringify(accounts.body)).not.toContain(read.body.data.accountIdentity.fullName);
  });
});

describe('webhooks', () => {
  it('lists events by state with their attempts and resends one (admin only)', async () => {
    const pending = await gql(
      tokens.viewer.token,
      'query($p: String!) { webhookEvents(projectId: $p, state: "pending") { edges { node { id sessionId attempts { httpStatus } } } } }',
      { p: ops.projectId },
    );
    expect(
      pending.body.data.webhookEvents.edges.map((e: { node: { sessionId: string } }) => e.node.sessionId).sort(),
    ).toEqual([made.a3, made.b1].sort());
    const delivered = await gql(
      tokens.viewer.token,
      'query($p: String!) { webhookEvents(projectId: $p, state: "delivered") { edges { node { id sessionId } } } }',
      { p: ops.projectId },
    );
    const event = delivered.body.data.webhookEvents.edges[0].node;
    const resend = 'mutation($i: WebhookEventRefInput!) { resendWebhookEvent(input: $i) { id state nextAttemptAt } }';
    expect(
      (await gql(tokens.viewer.token, resend, { i: { projectId: ops.projectId, eventId: event.id } })).body.errors[0]
        .extensions.code,
    ).toBe('forbidden');
    const res = await gql(tokens.admin.token, resend, { i: { projectId: ops.projectId, eventId: event.id } });
    expect(res.body.data.resendWebhookEvent).toMatchObject({
      id: event.id,
      state: 'pending',
      nextAttemptAt: clock.now().toISOString(),
    });
    await service.core.webhooks.deliver(event.id);
    const attempts = await gql(
      tokens.viewer.token,
      'query($p: String!, $e: String!) { webhookAttempts(projectId: $p, eventId: $e) { attempt httpStatus } }',
      { p: ops.projectId, e: event.id },
    );
    expect(attempts.body.data.webhookAttempts).toEqual([
      { attempt: 1, httpStatus: 200 },
      { attempt: 2, httpStatus: 200 },
    ]);
    const unknown = await gql(tokens.admin.token, resend, { i: { projectId: ops.projectId, eventId: 'evt_nope' } });
    expect(unknown.body.errors[0].extensions.code).toBe('not_found');
  });
});

describe('aggregates on the known data set', () => {
  const day = { from: '2026-11-23T00:00:00Z', to: '2026-11-24T00:00:00Z' };
  it('counts sessions per status per day, approval per workflow, the median time to decision and failure reasons', async () => {
    const res = await gql(
      tokens.viewer.token,
      `query($p: String!, $from: String, $to: String) {
      sessionsPerDay(projectId: $p, from: $from, to: $to) { day status count }
      approvalRates(projectId: $p, from: $from, to: $to) { workflowName sessions approved declined approvalRate }
      timeToDecision(projectId: $p, from: $from, to: $to) { decided medianSeconds }
      checkFailureReasons(projectId: $p, from: $from, to: $to) { source type reason count }
    }`,
      { p: ops.projectId, ...day },
    );
    expect(res.body.errors).toBeUndefined();
    const data = res.body.data;
    expect(data.sessionsPerDay).toEqual([
      { day: '2026-11-23', status: 'APPROVED', count: 2 },
      { day: '2026-11-23', status: 'DECLINED', count: 2 },
      { day: '2026-11-23', status: 'NOT_STARTED', count: 1 },
    ]);
    const rates = Object.fromEntries(data.approvalRates.map((r: { workflowName: string }) => [r.workflowName, r]));
    expect(rates.A).toEqual({ workflowName: 'A', sessions: 4, approved: 2, declined: 1, approvalRate: 0.6667 });
    expect(rates.B).toEqual({ workflowName: 'B', sessions: 1, approved: 0, declined: 1, approvalRate: 0 });
    expect(data.timeToDecision).toEqual({ decided: 4, medianSeconds: 150 });
    expect(data.checkFailureReasons).toEqual(
      expect.arrayContaining([
        { source: 'session', type: 'location', reason: 'permission_denied', count: 1 },
        { source: 'session', type: 'location', reason: 'outside_geofence', count: 1 },
        { source: 'standalone', type: 'location', reason: 'permission_denied', count: 1 },
      ]),
    );
    expect(data.checkFailureReasons).toHaveLength(3);
    const empty = await gql(
      tokens.viewer.token,
      'query($p: String!) { timeToDecision(projectId: $p, from: "2026-01-01T00:00:00Z", to: "2026-01-02T00:00:00Z") { decided medianSeconds } }',
      { p: ops.projectId },
    );
    expect(empty.body.data.timeToDecision).toEqual({ decided: 0, medianSeconds: null });
  });

  it('gives the webhook success rate and backlog, the same over tRPC', async () => {
    const trpc = createTRPCClient<AdminRouter>({
      links: [httpLink({ url: `${baseUrl}/trpc`, headers: { authorization: `Bearer ${tokens.viewer.token}` } })],
    });
    const stats = await trpc.webhookStats.query({ projectId: ops.projectId, ...day });
    // 4 events: 2 approvals delivered (one resent and delivered again), 2 declines answered 500 and waiting to retry.
    expect(stats).toMatchObject({
      events: 4,
      delivered: 2,
      failed: 0,
      backlog: 2,
      successRate: 1,
      attempts: 5,
      attemptSuccessRate: 0.6,
    });
    const page = await trpc.sessions.query({ projectId: ops.projectId, filter: { status: 'DECLINED' }, first: 1 });
    expect(page.edges).toHaveLength(1);
    expect(page.pageInfo.hasNextPage).toBe(true);
    const bad = await trpc.sessions.query({ projectId: ops.projectId, first: 0 }).catch((e: unknown) => e);
    expect((bad as TRPCClientError<AdminRouter>).data?.httpStatus).toBe(400);
  });
});

describe('roster through the admin API', () => {
  it('invites, lists, deactivates and reactivates members of an organization; a project-scoped token cannot reach it', async () => {
    const { app } = await service.core.tenancy.createOrgApp({ organizationName: 'Acme' });
    const organizationId = app.organizationId;
    const invite = await gql(
      tokens.admin.token,
      'mutation($i: InviteMembersInput!) { inviteMembers(input: $i) { created { member { memberId status } activationLink } skipped { email reason } } }',
      {
        i: {
          organizationId,
          members: [{ email: 'ada@example.com', firstName: 'Ada' }, { email: 'bob@example.com' }],
          notify: false,
          invite: 'face',
        },
      },
    );
    expect(invite.body.errors).toBeUndefined();
    expect(
      invite.body.data.inviteMembers.created.map((c: { member: { status: string }; activationLink: string }) => [
        c.member.status,
        c.activationLink.includes('/activate/'),
      ]),
    ).toEqual([
      ['link_sent', true],
      ['link_sent', true],
    ]);
    const invitations = await gql(
      tokens.viewer.token,
      'query($o: Int!) { invitations(organizationId: $o, first: 1) { edges { node { email } } pageInfo { hasNextPage } } }',
      { o: organizationId },
    );
    expect(invitations.body.data.invitations).toEqual({
      edges: [{ node: { email: 'ada@example.com' } }],
      pageInfo: { hasNextPage: true },
    });
    const action = (name: string) =>
      gql(tokens.admin.token, `mutation($i: MemberActionInput!) { ${name}(input: $i) { status } }`, {
        i: { organizationId, memberId: 'bob@example.com' },
      });
    expect((await action('deactivateMember')).body.data.deactivateMember.status).toBe('deactivated');
    expect((await action('reactivateMember')).body.data.reactivateMember.status).toBe('invited');
    const audit = await service.core.roster.auditTrail(organizationId);
    expect(audit[0]).toMatchObject({ action: 'reactivate', actor: `admin:${tokens.admin.id}` });
    const scoped = await gql(
      tokens.scoped.token,
      'query($o: Int!) { members(organizationId: $o) { edges { node { email } } } }',
      { o: organizationId },
    );
    expect(scoped.body.errors[0].extensions.code).toBe('not_found');
    const billing = await gql(
      tokens.viewer.token,
      'query($o: Int!) { organizationBilling(organizationId: $o) { seats subscription { plan } invoices { period } } }',
      { o: organizationId },
    );
    expect(billing.body.data.organizationBilling).toEqual({ seats: 0, subscription: null, invoices: [] });
    await service.core.roster.setPlan({
      organizationId,
      plan: 'team',
      pricePerSeat: 30,
      currency: 'EUR',
      trialDays: 0,
    });
    const planned = await gql(
      tokens.viewer.token,
      'query($o: Int!) { organizationBilling(organizationId: $o) { organizationId currency estimatedNextCharge subscription { plan pricePerSeat inTrial trialEndsAt currentPeriodEnd } } }',
      { o: organizationId },
    );
    expect(planned.body.data.organizationBilling).toEqual({
      organizationId,
      currency: 'EUR',
      estimatedNextCharge: 0,
      subscription: {
        plan: 'team',
        pricePerSeat: 30,
        inTrial: false,
        trialEndsAt: null,
        currentPeriodEnd: expect.any(String),
      },
    });
  });
});
