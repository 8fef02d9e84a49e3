import { createHmac, timingSafeEqual } from 'node:crypto';
import { chmod, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import pg from 'pg';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import sharp from 'sharp';
import supertest from 'supertest';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestSecret } from '../src/core/secrets.js';
import { webhookSignature } from '../src/core/webhooks/service.js';
import { renderDocument, renderSpecs } from '../test/helpers/documents.js';
import { markerFaceEngine, markerImage } from '../test/helpers/face-engine.js';
import { authorizePath, PageDriver } from '../test/helpers/oidc.js';
import { sql, startTestService, type TestService } from '../test/helpers/service.js';
import { startInProcess, type InProcessService } from './helpers/in-process.js';
import { OidcFlow } from './helpers/oidc-flow.js';

// Attacks through the real interfaces: one tenant reaching for another's objects, open
// redirects, replayed codes and tokens, forged webhooks, secrets compared in variable time, and
// secrets or identity data left in clear in the logs or the database.

let service: InProcessService;
let api: ReturnType<typeof supertest>;
let flow: OidcFlow;
/** Every secret and piece of raw identity data this file handles: none may be found in clear (last test). */
const secrets = new Map<string, string>();
const keep = (label: string, value: string) => {
  secrets.set(label, value);
  return value;
};

/** Project B: everything a key of project A must not reach. */
let b: {
  projectId: string;
  key: string;
  workflowId: string;
  sessionId: string;
  eventId: string;
  faceId: string;
  challengeId: string;
  svcId: string;
  accessToken: string;
  client: { client_id: string; client_secret: string; redirect_uris: string[] };
  org: { clientId: string; clientSecret: string };
  memberId: string;
  memberEmail: string;
  webhookSecret: string;
};
/** An admin token scoped to project A. */
let adminA: string;

const dataUrl = (bytes: Buffer) => `data:image/png;base64,${bytes.toString('base64')}`;
const asA = () => ({ 'X-API-Key': service.demo.api_key });
const asB = () => ({ 'X-API-Key': b.key });
const orgHeaders = (org: { clientId: string; clientSecret: string }) => ({
  'X-Client-Id': org.clientId,
  'X-Client-Secret': org.clientSecret,
});
const graphql = (token: string, query: string, variables: Record<string, unknown> = {}) =>
  api.post('/graphql').set('Authorization', `Bearer ${token}`).send({ query, variables });

/** A loopback receiver that records every webhook it is sent. */
async function webhookReceiver() {
  const received: { headers: http.IncomingHttpHeaders; body: Buffer }[] = [];
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  return { received, receiver };
}

beforeAll(async () => {
  service = await startInProcess(
    { rateLimitPerMinute: 1e9, allowInsecureCallbacks: true },
    { faceEngine: markerFaceEngine() },
  );
  api = supertest(service.url);
  flow = new OidcFlow(service);
  const { core, demo } = service;
  for (const [label, value] of Object.entries({
    api_key: demo.api_key,
    webhook_secret: demo.webhook_signing_secret,
    oidc_secret: demo.oidc.client_secret,
    org_secret: demo.org.client_secret,
    password: demo.account.password,
    admin_token: demo.admin_token,
    encryption_key: service.config.encryptionKey!,
  }))
    keep(`demo ${label}`, value);

  const project = await core.tenancy.createProject({ name: 'Tenant B', balance: 100 });
  const workflowId = (
    await core.tenancy.createWorkflow({ projectId: project.project.id, name: 'b', features: ['location'] })
  ).id;
  const created = (
    await api
      .post('/api/v2/session')
      .set('X-API-Key', project.key)
      .send({ workflow_id: workflowId, vendor_data: 'tenant-b' })
  ).body.data;
  keep('B session token', created.session_token);
  await api
    .post('/api/hosted/session/steps/location')
    .set('X-Session-Token', created.session_token)
    .send({ latitude: 1, longitude: 2, accuracy: 5 });
  const [event] = await sql<{ id: string }>(service, 'select id from webhook_event where session_id = ?', [
    created.session_id,
  ]);
  const enrolled = await api
    .post('/api/v2/face-uniqueness')
    .set('X-API-Key', project.key)
    .send({ image: dataUrl(await markerImage({ person: 42 })), enroll: true, reference: 'b-user' });
  const challenge = await api.post('/api/v2/antispoof/challenge').set('X-API-Key', project.key);
  const client = await core.tenancy.createOidcClient({
    projectId: project.project.id,
    name: 'B app',
    redirectUris: ['https://b.example/cb'],
    scopes: ['openid', 'profile'],
  });
  const account = await core.accounts.createAccount({
    email: 'b-user@b.example',
    password: keep('B password', 'b-user correct horse 1'),
  });
  const { token: accessToken } = await core.accessTokens.issue(account.svcId, client.client.clientId, ['openid']);
  const orgApp = await core.tenancy.createOrgApp({ organizationName: 'Org B' });
  const org = { clientId: orgApp.app.clientId, clientSecret: keep('B org secret', orgApp.clientSecret) };
  const member = (
    await api
      .post('/api/sdk/members')
      .set(orgHeaders(org))
      .send({ members: [{ email: 'b.member@b.example' }], notify: false, invite: 'face' })
  ).body.data.created[0];
  keep('B activation token', new URL(member.activation_link).pathname.split('/').pop()!);
  b = {
    projectId: project.project.id,
    key: keep('B api key', project.key),
    workflowId,
    sessionId: created.session_id,
    eventId: event!.id,
    faceId: enrolled.body.data.check.data.face_id,
    challengeId: challenge.body.data.challenge_id,
    svcId: account.svcId,
    accessToken: keep('B access token', accessToken),
    client: {
      client_id: client.client.clientId,
      client_secret: keep('B oidc secret', client.clientSecret),
      redirect_uris: client.client.redirectUris,
    },
    org,
    memberId: member.member_id,
    memberEmail: member.email,
    webhookSecret: keep('B webhook secret', project.webhookSigningSecret),
  };
  expect(b.faceId).toBeTruthy();
  adminA = keep(
    'A-scoped admin token',
    (await core.tenancy.createAdminToken({ role: 'admin', projectId: demo.project_id })).token,
  );
}, 120_000);

afterAll(async () => {
  await service?.close();
});

describe('tenant isolation: a credential of A gets not_found for every id of B', () => {
  const expectNotFound = (res: { status: number; body: { error?: { code: string } } }, code = 'not_found') => {
    expect(res.status, JSON.stringify(res.body)).toBe(404);
    expect(res.body.error?.code).toBe(code);
  };

  it("sessions: retrieve, decision, review, list; and B's workflow", async () => {
    expectNotFound(await api.get(`/api/v2/session/${b.sessionId}`).set(asA()));
    expectNotFound(await api.get(`/api/v2/session/${b.sessionId}/decision`).set(asA()));
    expectNotFound(await api.patch(`/api/v2/session/${b.sessionId}/status`).set(asA()).send({ status: 'DECLINED' }));
    expect((await api.get('/api/v2/session').query({ vendor_data: 'tenant-b' }).set(asA())).body.data).toEqual([]);
    expectNotFound(
      await api.post('/api/v2/session').set(asA()).send({ workflow_id: b.workflowId }),
      'workflow_not_found',
    );
    expect((await api.get(`/api/v2/session/${b.sessionId}`).set(asB())).status).toBe(200);
  });

  it("faces: B's enrolled face can be neither deleted nor matched from A", async () => {
    expectNotFound(await api.delete(`/api/v2/face-uniqueness/${b.faceId}`).set(asA()));
    const fromA = await api
      .post('/api/v2/face-uniqueness')
      .set(asA())
      .send({ image: dataUrl(await markerImage({ person: 42, variant: 1 })) });
    expect(fromA.body.data.check.data).toMatchObject({ unique: true, matches: [] });
    const fromB = await api
      .post('/api/v2/face-uniqueness')
      .set(asB())
      .send({ image: dataUrl(await markerImage({ person: 42, variant: 1 })) });
    expect(fromB.body.data.check.data.matches.map((m: { face_id: string }) => m.face_id)).toEqual([b.faceId]);
  });

  it("challenges and accounts: B's challenge is invalid for A; B's user is not an account of A", async () => {
    const frames = await Promise.all(
      [0, 1, 2].map(async (nonce) => dataUrl(await markerImage({ person: 3, jitter: 0.05, nonce }))),
    );
    const challenged = await api.post('/api/v2/antispoof').set(asA()).send({ frames, challengeId: b.challengeId });
    expect(challenged.status).toBe(403);
    expect(challenged.body.error.code).toBe('invalid_challenge');
    expectNotFound(
      await api
        .post('/api/v2/age-verification')
        .set(asA())
        .send({ svc_access_token: b.accessToken, bands: [18] }),
      'account_not_found',
    );
    expectNotFound(
      await api
        .post('/api/v2/age-verification')
        .set(asA())
        .send({ svc_id: b.svcId, bands: [18] }),
      'account_not_found',
    );
    expectNotFound(
      await api
        .post('/api/v2/session')
        .set(asA())
        .send({ workflow_id: service.demo.workflows.location, svc_access_token: b.accessToken }),
      'account_not_found',
    );
  });

  it("idempotency keys: the same key and body in A runs anew instead of replaying B's answer", async () => {
    const body = { latitude: 10, longitude: 20, accuracy: 5 };
    const fromB = await api.post('/api/v2/location').set(asB()).set('Idempotency-Key', 'shared-key').send(body);
    const fromA = await api.post('/api/v2/location').set(asA()).set('Idempotency-Key', 'shared-key').send(body);
    expect(fromA.status).toBe(200);
    expect(fromA.headers['idempotent-replayed']).toBeUndefined();
    expect(fromA.body.data.session_id).not.toBe(fromB.body.data.session_id);
  });

  it("the admin API with a token scoped to A: B's sessions, webhook events, attempts, destination health, bulk resend, check records, reviews, accounts", async () => {
    const a = service.demo.project_id;
    const denied: [string, Record<string, unknown>][] = [
      [
        'query ($p: String!, $s: String!) { session(projectId: $p, sessionId: $s) { id } }',
        { p: b.projectId, s: b.sessionId },
      ],
      ['query ($p: String!, $s: String!) { session(projectId: $p, sessionId: $s) { id } }', { p: a, s: b.sessionId }],
      ['query ($p: String!) { webhookEvents(projectId: $p) { edges { cursor } } }', { p: b.projectId }],
      [
        'query ($p: String!, $e: String!) { webhookAttempts(projectId: $p, eventId: $e) { attempt } }',
        { p: a, e: b.eventId },
      ],
      ['query ($p: String!) { checkRecords(projectId: $p) { edges { cursor } } }', { p: b.projectId }],
      [
        'query ($p: String!, $u: String!) { accountIdentity(projectId: $p, svcId: $u) { svcId } }',
        { p: a, u: b.svcId },
      ],
      [
        'mutation ($i: ReviewSessionInput!) { reviewSession(input: $i) { id } }',
        { i: { projectId: a, sessionId: b.sessionId, status: 'DECLINED', note: 'not ours' } },
      ],
      [
        'mutation ($i: WebhookEventRefInput!) { resendWebhookEvent(input: $i) { id } }',
        { i: { projectId: a, eventId: b.eventId } },
      ],
      ['query ($p: String!) { webhookHealth(projectId: $p) { destination } }', { p: b.projectId }],
      [
        'mutation ($i: ResendFailedWebhooksInput!) { resendFailedWebhooks(input: $i) { queued } }',
        { i: { projectId: b.projectId, from: '2020-01-01T00:00:00Z', to: '2020-12-01T00:00:00Z' } },
      ],
    ];
    for (const [query, variables] of denied) {
      const res = await graphql(adminA, query, variables);
      expect(res.body.errors?.[0]?.extensions?.code, `${query} ${JSON.stringify(res.body)}`).toBe('not_found');
    }
    const events = await graphql(
      adminA,
      'query ($p: String!, $s: String) { webhookEvents(projectId: $p, sessionId: $s) { edges { cursor } } }',
      { p: a, s: b.sessionId },
    );
    expect(events.body.data.webhookEvents.edges).toEqual([]);
    const trpc = await api
      .get('/trpc/session')
      .query({ input: JSON.stringify({ projectId: b.projectId, sessionId: b.sessionId }) })
      .set('Authorization', `Bearer ${adminA}`);
    expect(trpc.body.error.data.domainCode).toBe('not_found');
  });

  it("the roster: another organization's app gets 404 for B's member by id, email and in resolve and lists", async () => {
    const a = { clientId: service.demo.org.client_id, clientSecret: service.demo.org.client_secret };
    for (const ref of [b.memberId, b.memberEmail, b.memberEmail.toUpperCase()]) {
      expectNotFound(await api.patch(`/api/sdk/members/${encodeURIComponent(ref)}/deactivate`).set(orgHeaders(a)));
      expectNotFound(await api.patch(`/api/sdk/members/${encodeURIComponent(ref)}/reactivate`).set(orgHeaders(a)));
      expectNotFound(await api.post(`/api/sdk/members/${encodeURIComponent(ref)}/invite`).set(orgHeaders(a)));
      expectNotFound(await api.delete(`/api/sdk/members/${encodeURIComponent(ref)}?permanent=true`).set(orgHeaders(a)));
    }
    expect(
      (await api.post('/api/sdk/members/resolve').set(orgHeaders(a)).send({ email: b.memberEmail })).body.data,
    ).toEqual({ found: false, member: null });
    expect(JSON.stringify((await api.get('/api/sdk/members').set(orgHeaders(a))).body)).not.toContain(b.memberId);
    expect(
      (await api.get(`/api/sdk/members`).set(orgHeaders(b.org))).body.data.members.map(
        (m: { member_id: string }) => m.member_id,
      ),
    ).toContain(b.memberId);
  });

  it("OIDC: A's refresh token presented by B's client is invalid_grant, and stays usable by A", async () => {
    const tokens = await flow.tokens();
    const stolen = await api.post('/api/auth/oidc/token').type('form').send({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: b.client.client_id,
      client_secret: b.client.client_secret,
    });
    expect(stolen.body.error).toBe('invalid_grant');
    expect((await flow.refresh(tokens.refresh_token)).status).toBe(200);
  });
});

describe('open redirects', () => {
  const registered = () => 'http://localhost:3000/callback';
  const attacks = [
    'http://localhost:3000.evil.example/callback',
    'http://localhost.evil.example:3000/callback',
    'http://evil.example/callback',
    'http://localhost:3001/callback',
    'http://localhost:3000/callback/extra',
    'http://localhost:3000/callback/../evil',
    'http://localhost:3000/callbackx',
    'http://localhost:3000/Callback',
    'http://localhost:3000/callback/',
    'http://localhost:3000/callback?next=https://evil.example',
    'http://localhost:3000/callback#fragment',
    'http://localhost:3000/callback?',
    'http://evil.example@localhost:3000/callback',
    'http://localhost:3000@evil.example/callback',
    'http://localhost:3000\\@evil.example/callback',
    'https://localhost:3000/callback',
    'javascript://localhost:3000/callback',
    'data:text/html,<script>alert(1)</script>',
    '//evil.example/callback',
    'evil.example',
    'http://localhost%3A3000/callback',
    'http://localhost:3000/%63allback',
    'http://localhost:3000/callback%2F..%2Fevil',
    'http://localhost:3000/callback%00',
    'http://LOCALHOST:3000/callback',
    'http://localhost.:3000/callback',
    ' http://localhost:3000/callback',
    'http://localhost:3000/callback\t',
    'http://[::1]:3000/callback',
  ];

  it('authorize shows a page for every redirect_uri but the exact registered one, never a Location', async () => {
    const params = {
      client_id: service.demo.oidc.client_id,
      response_type: 'code',
      scope: 'openid',
      state: 'st',
      prompt: 'none',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    };
    for (const redirectUri of attacks) {
      const res = await api.get(authorizePath({ ...params, redirect_uri: redirectUri }));
      expect(res.status, redirectUri).toBe(400);
      expect(res.headers.location, redirectUri).toBeUndefined();
    }
    const control = await api.get(authorizePath({ ...params, redirect_uri: registered() }));
    expect(control.status).toBe(303);
    expect(control.headers.location).toMatch(new RegExp(`^${registered()}\\?`));
  });

  it('logout shows a page for every post_logout_redirect_uri but the exact registered one, never a Location, asked or confirmed', async () => {
    const tokens = await flow.tokens();
    // A browser without the person's sign-in: a registered target gets the confirmation page, whose form (with its CSRF
    // token) is the only way on.
    const browser = new PageDriver({ http: api } as unknown as TestService);
    const logout = (target: string) => ({
      id_token_hint: tokens.id_token,
      post_logout_redirect_uri: target,
      state: 'x',
    });
    const control = await browser.get(`/api/auth/oidc/logout?${new URLSearchParams(logout(registered()))}`);
    expect(control.status).toBe(200);
    expect(control.headers.location).toBeUndefined();
    for (const target of attacks) {
      const res = await api.get(`/api/auth/oidc/logout?${new URLSearchParams(logout(target))}`);
      expect(res.status, target).toBe(400);
      expect(res.headers.location, target).toBeUndefined();
      const confirmed = await browser.post('/api/auth/oidc/logout', logout(target));
      expect(confirmed.status, target).toBe(400);
      expect(confirmed.headers.location, target).toBeUndefined();
    }
    const confirmed = await browser.post('/api/auth/oidc/logout', logout(registered()));
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.location).toBe(`${registered()}?state=x`);
  });
});

describe('replayed codes and refresh tokens', () => {
  it('a replayed code is invalid_grant and revokes the tokens it issued', async () => {
    const { code, verifier } = await flow.code();
    const first = (await flow.exchange(keep('code', code), verifier)).body;
    keep('access token (code)', first.access_token);
    keep('refresh token (code)', first.refresh_token);
    expect(await flow.userinfoStatus(first.access_token)).toBe(200);
    expect((await flow.exchange(code, verifier)).body.error).toBe('invalid_grant');
    expect(await flow.userinfoStatus(first.access_token)).toBe(401);
    expect((await flow.refresh(first.refresh_token)).body.error).toBe('invalid_grant');
  });

  it('a replayed refresh token revokes the family: its successor and a parallel sign-in of the same user and client', async () => {
    const first = await flow.tokens();
    const second = (await flow.refresh(first.refresh_token)).body;
    const parallel = await flow.tokens();
    for (const [label, value] of Object.entries({
      first: first.refresh_token,
      second: second.refresh_token,
      parallel: parallel.refresh_token,
      access: second.access_token,
    }))
      keep(`refresh family ${label}`, value);
    expect((await flow.refresh(first.refresh_token)).body.error).toBe('invalid_grant');
    expect((await flow.refresh(second.refresh_token)).body.error).toBe('invalid_grant');
    expect((await flow.refresh(parallel.refresh_token)).body.error).toBe('invalid_grant');
    expect(await flow.userinfoStatus(second.access_token)).toBe(401);
    expect(await flow.userinfoStatus(parallel.access_token)).toBe(401);
  });

  it('a made-up secret under a known refresh row id is invalid_grant and revokes nothing; a real rotated token still revokes the family', async () => {
    const first = await flow.tokens();
    const second = (await flow.refresh(first.refresh_token)).body;
    const other = await flow.tokens();
    for (const [label, value] of Object.entries({
      first: first.refresh_token,
      second: second.refresh_token,
      other: other.refresh_token,
      access: second.access_token,
    }))
      keep(`forged refresh ${label}`, value);
    const rowId = second.refresh_token.slice(second.refresh_token.lastIndexOf('.') + 1);
    const secretOf = (token: string) => token.slice(0, token.lastIndexOf('.'));
    const flipped = (secret: string) => `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    // Whoever saw any token of the sign-in (or its row id in a log) can name the row; none of these was ever its token.
    for (const forged of [
      `vr_${'x'.repeat(43)}.${rowId}`,
      `${flipped(secretOf(second.refresh_token))}.${rowId}`,
      `${flipped(secretOf(first.refresh_token))}.${rowId}`,
      `${secretOf(other.refresh_token)}.${rowId}`,
    ]) {
      expect((await flow.refresh(forged)).body.error, forged).toBe('invalid_grant');
    }
    expect(await flow.userinfoStatus(second.access_token)).toBe(200);
    const third = (await flow.refresh(second.refresh_token)).body;
    expect(await flow.userinfoStatus(third.access_token)).toBe(200);
    expect(await flow.userinfoStatus(other.access_token)).toBe(200);
    // A real token two rotations back is a replay: the sign-in's tokens and the same user's other sign-in with the
    // client end.
    expect((await flow.refresh(first.refresh_token)).body.error).toBe('invalid_grant');
    expect(await flow.userinfoStatus(third.access_token)).toBe(401);
    expect((await flow.refresh(third.refresh_token)).body.error).toBe('invalid_grant');
    expect(await flow.userinfoStatus(other.access_token)).toBe(401);
  });
});

describe('webhook signatures', () => {
  /**
   * What the README asks of a receiver: HMAC-SHA256 of `<timestamp>.<raw body>`, constant-time, and a fresh timestamp.
   */
  const verifies = (
    secret: string,
    timestamp: string,
    body: Buffer | string,
    signature: string,
    now = Date.now() / 1000,
  ) => {
    const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();
    const given = Buffer.from(signature, 'hex');
    return (
      given.length === expected.length && timingSafeEqual(given, expected) && Math.abs(now - Number(timestamp)) <= 300
    );
  };

  it('webhookSignature binds the secret, the exact body and the timestamp', () => {
    const secret = 'whsec_test';
    const body = '{"event_id":"evt_1","status":"APPROVED"}';
    const now = Math.floor(Date.now() / 1000);
    const signature = webhookSignature(secret, now, body);
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    expect(verifies(secret, String(now), body, signature)).toBe(true);
    expect(verifies('whsec_other', String(now), body, signature)).toBe(false);
    expect(verifies(secret, String(now), body.replace('APPROVED', 'DECLINED'), signature)).toBe(false);
    expect(verifies(secret, String(now), `${body} `, signature)).toBe(false);
    expect(verifies(secret, String(now - 1), body, signature)).toBe(false); // re-dating a captured delivery breaks it
    const old = now - 3600;
    expect(verifies(secret, String(old), body, webhookSignature(secret, old, body))).toBe(false); // an old delivery replayed
  });

  it("what we send verifies with the project's secret over the raw bytes and a fresh timestamp, and with nothing else", async () => {
    const { received, receiver } = await webhookReceiver();
    try {
      const callback = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
      await service.core.tenancy.approveCallback({ projectId: service.demo.project_id, url: callback });
      const created = (
        await api
          .post('/api/v2/session')
          .set(asA())
          .send({ workflow_id: service.demo.workflows.location, callback, vendor_data: 'signed' })
      ).body.data;
      await api
        .post('/api/hosted/session/steps/location')
        .set('X-Session-Token', created.session_token)
        .send({ latitude: 1, longitude: 2, accuracy: 5 });
      const [event] = await sql<{ id: string }>(service, 'select id from webhook_event where session_id = ?', [
        created.session_id,
      ]);
      await service.core.webhooks.deliver(event!.id); // the job pg-boss runs, called directly
      expect(received).toHaveLength(1);
      const { headers, body } = received[0]!;
      const [timestamp, signature] = [String(headers['x-svc-timestamp']), String(headers['x-svc-signature'])];
      expect(headers['x-svc-event-id']).toBe(event!.id);
      expect(verifies(service.demo.webhook_signing_secret, timestamp, body, signature)).toBe(true);
      expect(verifies(b.webhookSecret, timestamp, body, signature)).toBe(false);
      const altered = Buffer.from(body);
      altered[altered.indexOf('signed')] = 'S'.charCodeAt(0);
      expect(verifies(service.demo.webhook_signing_secret, timestamp, altered, signature)).toBe(false);
      expect(
        verifies(
          service.demo.webhook_signing_secret,
          String(Number(timestamp) - 600),
          body,
          signature,
          Number(timestamp),
        ),
      ).toBe(false);
      expect(body.toString()).not.toContain(service.demo.webhook_signing_secret);
    } finally {
      await new Promise((resolve) => {
        receiver.close(resolve);
        receiver.closeAllConnections();
      });
    }
  });
});

describe('timing-safe comparisons (read from the source)', () => {
  const SECRETISH = /secret|digest|token|signature|password|hash|verifier|challenge|api_?key|hmac/i;
  const HARMLESS = /^(undefined|null|true|false|'[^']*'|"[^"]*"|`[^`$]*`|-?\d+(\.\d+)?)$|^typeof\b|\.(length|size)$/;
  const EQUALITY = new Set([
    ts.SyntaxKind.EqualsEqualsEqualsToken,
    ts.SyntaxKind.ExclamationEqualsEqualsToken,
    ts.SyntaxKind.EqualsEqualsToken,
    ts.SyntaxKind.ExclamationEqualsToken,
  ]);

  /** `file:line: a === b` for each equality between two non-literal operands where one names a secret. */
  function variableTimeComparisons(file: string, text: string): string[] {
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const found: string[] = [];
    const visit = (node: ts.Node) => {
      if (ts.isBinaryExpression(node) && EQUALITY.has(node.operatorToken.kind)) {
        const sides = [node.left, node.right].map((side) => side.getText(source));
        if (!sides.some((side) => HARMLESS.test(side)) && sides.some((side) => SECRETISH.test(side))) {
          found.push(
            `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${node.getText(source)}`,
          );
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    return found;
  }

  it('compares no secret, digest, token or signature with == or ===', async () => {
    // The scanner finds what it is for (the PKCE check before it used safeEqual).
    expect(
      variableTimeComparisons(
        'x.ts',
        "if (createHash('sha256').update(v).digest('base64url') !== row.codeChallenge) fail();",
      ),
    ).toHaveLength(1);
    expect(
      variableTimeComparisons(
        'x.ts',
        "if (grantType === 'refresh_token' || token === undefined || secret.length !== 3) ok();",
      ),
    ).toEqual([]);
    const root = path.resolve('src');
    const files = (await readdir(root, { recursive: true })).filter((file) => file.endsWith('.ts'));
    const found = (
      await Promise.all(
        files.map(async (file) =>
          variableTimeComparisons(path.join('src', file), await readFile(path.join(root, file), 'utf8')),
        ),
      )
    ).flat();
    expect(found).toEqual([]);
  });

  it('checks client secrets and passwords in constant time and looks every bearer secret up by its digest', async () => {
    const read = (file: string) => readFile(path.resolve('src', file), 'utf8');
    expect(await read('core/oidc/client-auth.ts')).toMatch(/safeEqual\(presented, client\.clientSecretDigest\)/);
    expect(await read('core/tenancy/service.ts')).toMatch(/safeEqual\(presented, app\.clientSecretDigest\)/);
    expect(await read('core/secrets.ts')).toMatch(
      /export async function verifyPassword[\s\S]*?timingSafeEqual\(actual, expected\)/,
    );
    const lookups: [string, RegExp][] = [
      ['core/tenancy/service.ts', /const digest = digestSecret\(key\);[\s\S]*?this\.deps\.store\.liveApiKey\(digest\)/],
      ['core/tenancy/service.ts', /this\.deps\.store\.liveAdminToken\(digestSecret\(token\), this\.now\(\)\)/],
      [
        'core/tenancy/store.ts',
        /'select id, project_id, mode from api_key where secret_digest = \$1 and revoked_at is null'/,
      ],
      ['core/tenancy/store.ts', /from admin_token where token_digest = \$1 and revoked_at is null/],
      ['core/oidc/tokens.ts', /this\.deps\.grants\.accessToken\(digestSecret\(token\)\)/],
      ['core/oidc/introspection.ts', /this\.deps\.grants\.accessToken\(digestSecret\(token\)\)/],
      ['core/oidc/introspection.ts', /revokeAccessToken\(digestSecret\(token\), client\.clientId, now\)/],
      ['core/oidc/introspection.ts', /presentedRefreshToken\(this\.deps\.grants, token\)/],
      // a refresh token names its sign-in's row; the row's digest is compared in constant time
      ['core/oidc/grants/refresh-token.ts', /presentedRefreshToken\(deps\.grants, presented\)/],
      [
        'core/oidc/tokens.ts',
        /const key = refreshTokenKey\(presented\);[\s\S]*?safeEqual\(key\.digest, row\.tokenDigest\)/,
      ],
      ['core/oidc/grant-store.ts', /where t\.id = i\.refresh_id and t\.token_digest = i\.token_digest/],
      ['core/oidc/grants/authorization-code.ts', /deps\.grants\.code\(digestSecret\(code\)\)/],
      [
        'core/oidc/grant-store.ts',
        /'select account_id, client_id, scopes, resource, created_at, expires_at, revoked_at from access_token where token_digest = \$1'/,
      ],
      ['core/oidc/grant-store.ts', /from refresh_token where id = \$1'/],
      ['core/oidc/grant-store.ts', /'select id, client_id from authorization_code where code_digest = \$1'/],
      ['core/oidc/sessions.ts', /this\.deps\.grants\.browserSession\(digestSecret\(cookie\)\)/],
      ['core/oidc/grant-store.ts', /'select account_id, auth_time, expires_at from login_session where digest = \$1'/],
      ['core/oidc/authorization/interaction.ts', /this\.deps\.grants\.interaction\(digestSecret\(secret\)\)/],
      ['core/oidc/grant-store.ts', /'select request, expires_at from oidc_interaction where digest = \$1'/],
      ['core/sessions/service.ts', /this\.deps\.store\.byTokenDigest\(digestSecret\(token\)\)/],
      ['core/sessions/service.ts', /this\.deps\.store\.claimHandoff\(digestSecret\(code\), digestSecret\(phoneToken\)/],
      [
        'core/sessions/store.ts',
        /from verification_session s where s\.token_digest = \$1\s+union all\s+select [^;]*? where h\.phone_token_digest = \$1/,
      ],
      [
        'core/sessions/store.ts',
        /update session_handoff set claimed_at = \$2, phone_token_digest = \$3 where link_digest = \$1/,
      ],
      ['core/roster/service.ts', /this\.deps\.store\.activationTarget\(digestSecret\(token\)\)/],
      ['core/roster/service.ts', /tx\.lockMemberByActivation\(digestSecret\(token\)\)/],
      ['core/roster/store.ts', /where m\.activation_digest = \$1`/],
      ['core/roster/store.ts', /from member where activation_digest = \$1 for update`/],
      ['core/accounts/recovery.ts', /this\.deps\.store\.link\(digestSecret\(secret\), 'verify_email'\)/],
      ['core/accounts/recovery.ts', /this\.deps\.store\.link\(digestSecret\(secret\), 'reset_password'\)/],
      ['core/accounts/recovery.ts', /this\.deps\.store\.useLink\(digestSecret\(secret\), purpose/],
      ['core/accounts/store.ts', /from account_link where digest = \$1 and purpose = \$2`/],
    ];
    for (const [file, pattern] of lookups) expect(await read(file), `${file} ${pattern}`).toMatch(pattern);
  });
});

describe('the embedded database on this machine', () => {
  const modeOf = async (file: string) => (await stat(file)).mode & 0o777;
  async function looseFiles(dir: string): Promise<string[]> {
    const loose: string[] = [];
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const mode = await modeOf(full);
      if (entry.isDirectory()) {
        if (mode !== 0o700) loose.push(`${full} ${mode.toString(8)}`);
        loose.push(...(await looseFiles(full)));
      } else if (mode & 0o077) loose.push(`${full} ${mode.toString(8)}`);
    }
    return loose;
  }
  const connects = async (url: string) => {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    try {
      await client.connect();
      await client.query('select 1');
      return 'connected';
    } catch (error) {
      return (error as Error).message;
    } finally {
      await client.end().catch(() => undefined);
    }
  };

  it("answers only with the generated password; the data dir, the key, demo.json and every database file are the owner's alone", async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'verity-datadir-'));
    const { startService } = await import('../src/main.js');
    const { loadConfig } = await import('../src/config.js');
    const running = await startService(
      loadConfig({}, { dataDir, port: 0, warmModels: false, runJobs: false, seedLicenses: false, logLevel: 'silent' }),
    );
    try {
      const url = (await readFile(path.join(dataDir, 'postgres.url'), 'utf8')).trim();
      expect(await connects(url)).toBe('connected');
      const { port } = new URL(url);
      expect(await connects(`postgresql://postgres@127.0.0.1:${port}/postgres`)).toMatch(/password/);
      expect(await connects(`postgresql://postgres:guess@127.0.0.1:${port}/postgres`)).toMatch(
        /password authentication failed/,
      );
      for (const file of ['encryption.key', 'demo.json', 'postgres.url'])
        expect(await modeOf(path.join(dataDir, file)), file).toBe(0o600);
      expect(await modeOf(dataDir)).toBe(0o700);
    } finally {
      await running.close();
    }
    expect(await looseFiles(dataDir)).toEqual([]);
    await chmod(dataDir, 0o777);
    await expect(
      startService(loadConfig({}, { dataDir, port: 0, warmModels: false, runJobs: false, logLevel: 'silent' })),
    ).rejects.toThrow(/writable by other users .*chmod 700/);
    await rm(dataDir, { recursive: true, force: true });
  });
});

describe('passwords', () => {
  it("are hashed with scrypt at OWASP's cost (N 2^17, r 8, p 1), and an older hash is upgraded at the next sign-in", async () => {
    const email = 'cost@people.example';
    const account = await service.core.accounts.createAccount({ email, password: 'correct horse battery 9' });
    const stored = async () =>
      (await sql<{ password_hash: string }>(service, 'select password_hash from account where email = ?', [email]))[0]!
        .password_hash;
    expect(await stored()).toMatch(/^scrypt\$131072\$8\$1\$/);
    // As an account made before: the 2^14 hash of the same password.
    const { scrypt } = await import('node:crypto');
    const salt = Buffer.from('0123456789abcdef');
    const old = await new Promise<Buffer>((resolve, reject) =>
      scrypt('correct horse battery 9', salt, 32, { N: 16384, r: 8, p: 1 }, (error, key) =>
        error ? reject(error) : resolve(key),
      ),
    );
    await sql(service, 'update account set password_hash = ? where email = ?', [
      `scrypt$16384$8$1$${salt.toString('base64')}$${old.toString('base64')}`,
      email,
    ]);
    expect(await service.core.accounts.checkPassword(email, 'wrong')).toBeNull();
    expect(await stored()).toMatch(/^scrypt\$16384\$/); // a wrong password changes nothing
    expect(await service.core.accounts.checkPassword(email, 'correct horse battery 9')).toMatchObject({
      svcId: account.svcId,
    });
    expect(await stored()).toMatch(/^scrypt\$131072\$8\$1\$/);
    expect(await service.core.accounts.checkPassword(email, 'correct horse battery 9')).not.toBeNull();
  });
});

describe('server-side request forgery', () => {
  it('refuses callbacks to loopback, private, link-local and metadata addresses unless VERITY_ALLOW_INSECURE_CALLBACKS is set', async () => {
    const strict = await startTestService({ allowInsecureCallbacks: false }, { faceEngine: markerFaceEngine() });
    try {
      for (const url of [
        'https://127.0.0.1/hook',
        'https://localhost:8443/hook',
        'https://10.1.2.3/hook',
        'https://192.168.1.10/hook',
        'https://169.254.169.254/latest/meta-data',
        'https://[::1]/hook',
        'https://[fd00::1]/hook',
        'https://100.64.0.1/hook',
      ]) {
        await expect(
          strict.core.tenancy.approveCallback({ projectId: strict.demo.project_id, url }),
          url,
        ).rejects.toMatchObject({ code: 'callback_not_allowed' });
      }
      await expect(
        strict.core.tenancy.approveCallback({
          projectId: strict.demo.project_id,
          url: 'https://hooks.example.com/verity',
        }),
      ).resolves.toBeTruthy();
    } finally {
      await strict.close();
    }
  });

  it('checks the address actually connected to at delivery (a name that resolves to loopback is not sent to), follows no redirect and keeps only a short printable snippet', async () => {
    const { postOnce, PrivateDestination } = await import('../src/core/net/destinations.js');
    const { sanitisedSnippet } = await import('../src/core/webhooks/service.js');
    let reached = 0;
    const server = http.createServer((req, res) => {
      reached += 1;
      if (req.url === '/redirect') return void res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' }).end();
      res.writeHead(200).end(`secret-internal-data\u0000\u001b[31m${'x'.repeat(500)}`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const { port } = server.address() as AddressInfo;
    try {
      // "localhost" is a name: only the lookup at connection time sees that it is loopback.
      await expect(
        postOnce(`http://localhost:${port}/hook`, { headers: {}, body: '{}', timeoutMs: 2000, allowPrivate: false }),
      ).rejects.toBeInstanceOf(PrivateDestination);
      await expect(
        postOnce(`http://127.0.0.1:${port}/hook`, { headers: {}, body: '{}', timeoutMs: 2000, allowPrivate: false }),
      ).rejects.toBeInstanceOf(PrivateDestination);
      expect(reached).toBe(0);
      const redirected = await postOnce(`http://localhost:${port}/redirect`, {
        headers: {},
        body: '{}',
        timeoutMs: 2000,
        allowPrivate: true,
      });
      expect(redirected.status).toBe(302);
      expect(reached).toBe(1); // the redirect was not followed
      const answer = await postOnce(`http://localhost:${port}/hook`, {
        headers: {},
        body: '{}',
        timeoutMs: 2000,
        allowPrivate: true,
        maxBody: 256,
      });
      expect(sanitisedSnippet(answer.body)!.length).toBeLessThanOrEqual(64);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is that no control character gets through
      expect(sanitisedSnippet(answer.body)).not.toMatch(/[\u0000-\u001f]/);
    } finally {
      server.close();
    }
  });

  it('the licence-board client follows no redirect and encodes the licence number into its URL', async () => {
    const { HttpBoard } = await import('../src/core/credentials/boards.js');
    const asked: string[] = [];
    const fake = (async (url: string, init: RequestInit) => {
      asked.push(url);
      expect(init.redirect).toBe('manual');
      return new Response(null, { status: 302, headers: { location: 'http://169.254.169.254/latest' } });
    }) as unknown as typeof fetch;
    const board = new HttpBoard(
      { url: 'https://board.example/lookup/{license_number}', fields: { licenseNumber: 'number' } },
      fake,
    );
    await expect(board.lookup('TX', 'RN', '../../admin?x=1#y')).rejects.toMatchObject({ code: 'engine_unreachable' });
    expect(asked).toEqual(['https://board.example/lookup/..%2F..%2Fadmin%3Fx%3D1%23y']);
  });
});

describe("the hosted page's API under abuse", () => {
  it("refuses images past the request's pixel budget before decoding them, and limits calls per session and per address", async () => {
    const limited = await startTestService({ hostedRateLimitPerMinute: 6 }, { faceEngine: markerFaceEngine() });
    try {
      const workflow = await limited.core.tenancy.createWorkflow({
        projectId: limited.demo.project_id,
        name: 'doc',
        features: ['id_verification'],
      });
      const open = async () =>
        (
          await limited.http
            .post('/api/v2/session')
            .set('X-API-Key', limited.demo.api_key)
            .send({ workflow_id: workflow.id })
        ).body.data as { session_token: string };
      const first = await open();
      // Two 30 MP PNGs of one colour: 60 MP together, past the 50 MP budget, a few hundred KB sent.
      const flat = (r: number) =>
        sharp({ create: { width: 6000, height: 5000, channels: 3, background: { r, g: 0, b: 0 } } })
          .png()
          .toBuffer();
      const huge = await limited.http
        .post('/api/hosted/session/steps/document')
        .set('X-Session-Token', first.session_token)
        .send({ front_image: dataUrl(await flat(1)), back_image: dataUrl(await flat(2)) });
      expect(huge.status).toBe(413);
      expect(huge.body.error.code).toBe('image_too_large');
      // The session has used 1 of its 6 calls a minute.
      const calls = [];
      for (let i = 0; i < 6; i++)
        calls.push((await limited.http.get('/api/hosted/session').set('X-Session-Token', first.session_token)).status);
      expect(calls).toEqual([200, 200, 200, 200, 200, 429]);
      const refused = await limited.http.get('/api/hosted/session').set('X-Session-Token', first.session_token);
      expect(refused.body.error.code).toBe('rate_limited');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      // Another session from the same address still works, until the address's 60 a minute are spent.
      const second = await open();
      expect((await limited.http.get('/api/hosted/session').set('X-Session-Token', second.session_token)).status).toBe(
        200,
      );
      let status = 200;
      for (let i = 0; i < 60 && status !== 429; i++)
        status = (await limited.http.get('/api/hosted/session').set('X-Session-Token', `sst_guess_${i}`)).status;
      expect(status).toBe(429);
    } finally {
      await limited.close();
    }
  });
});

describe('scopes and what the consent page says', () => {
  it('a token with only openid reads /licenses, and the consent page for openid says licences are shared', async () => {
    const { SCOPE_TEXT } = await import('../src/web/login-pages.js');
    const { PageDriver, authorizePath: path, pkce } = await import('../test/helpers/oidc.js');
    const driver = new PageDriver({ http: api } as never);
    let page = await driver.get(
      path({
        client_id: service.demo.oidc.client_id,
        redirect_uri: service.demo.oidc.redirect_uris[0]!,
        response_type: 'code',
        scope: 'openid',
        state: 's',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      }),
    );
    if (page.text.includes('name="password"')) {
      const { interactionOf } = await import('../test/helpers/oidc.js');
      page = await driver.post('/api/auth/oidc/login', {
        interaction: interactionOf(page.text),
        email: service.demo.account.email,
        password: service.demo.account.password,
      });
    }
    if (page.text.includes('value="allow"'))
      expect(page.text).toContain('professional licences verified on your account');
    expect(SCOPE_TEXT.openid).toMatch(/licences/);
    const { access_token } = await flow.tokens('openid');
    const licences = await api.get('/api/auth/oidc/licenses').set('Authorization', `Bearer ${access_token}`);
    expect(licences.status).toBe(200);
  });
});

describe('identity data across tenants', () => {
  it('an account verified elsewhere gives a project that only ran a check proofs, never its raw identity; its email only with profile granted', async () => {
    const { core, demo } = service;
    const person = await core.accounts.createAccount({
      email: 'verified-elsewhere@people.example',
      password: 'correct horse battery 5',
    });
    await core.accounts.recordVerifiedIdentity({
      svcId: person.svcId,
      fullName: 'Grace Hopper',
      dateOfBirth: '1906-12-09',
      documentNumber: 'X1234567',
      documentExpiry: '2031-01-01',
    });
    // The person signs in to A's app with openid only, and A runs one check on the account.
    const { token } = await core.accessTokens.issue(person.svcId, demo.oidc.client_id, ['openid']);
    expect(
      (
        await api
          .post('/api/v2/age-verification')
          .set(asA())
          .send({ bands: ['18+'], svc_access_token: token })
      ).status,
    ).toBe(200);
    const query =
      'query($p: String!, $s: String!) { accountIdentity(projectId: $p, svcId: $s) { proofsOnly identityVerified documentValid fullName dateOfBirth documentNumber } }';
    const read = await graphql(demo.admin_token, query, { p: demo.project_id, s: person.svcId });
    expect(read.body.data.accountIdentity).toEqual({
      proofsOnly: true,
      identityVerified: true,
      documentValid: true,
      fullName: null,
      dateOfBirth: null,
      documentNumber: null,
    });
    expect(JSON.stringify(read.body)).not.toMatch(/Grace|1906|X1234567/);
    const list = 'query($p: String!) { accounts(projectId: $p) { edges { node { svcId email } } } }';
    const node = async () =>
      (await graphql(demo.admin_token, list, { p: demo.project_id })).body.data.accounts.edges
        .map((e: { node: { svcId: string; email: string | null } }) => e.node)
        .find((n: { svcId: string }) => n.svcId === person.svcId);
    expect(await node()).toEqual({ svcId: person.svcId, email: null });
    await sql(service, 'insert into oidc_consent (account_id, client_id, scopes, created_at) values (?, ?, ?, now())', [
      person.svcId,
      demo.oidc.client_id,
      '{openid,profile}',
    ]);
    expect(await node()).toEqual({ svcId: person.svcId, email: 'verified-elsewhere@people.example' });
  });
});

describe('the demo tenant', () => {
  it('is not seeded in production unless asked for', async () => {
    const { loadConfig } = await import('../src/config.js');
    expect(loadConfig({ NODE_ENV: 'production' }).seedDemo).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', VERITY_SEED_DEMO: '1' }).seedDemo).toBe(true);
    expect(loadConfig({}).seedDemo).toBe(true);
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'verity-prod-'));
    const { startService } = await import('../src/main.js');
    const running = await startService(
      loadConfig(
        { NODE_ENV: 'production', VERITY_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') },
        { dataDir, port: 0, warmModels: false, runJobs: false, seedLicenses: false, logLevel: 'silent' },
      ),
    );
    try {
      expect(running.demo).toBeNull();
      await expect(readFile(path.join(dataDir, 'demo.json'))).rejects.toThrow();
    } finally {
      await running.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('credentials that can be revoked', () => {
  it('11. admin tokens: listed without the secret, revoked at once, and expiring', async () => {
    const root = service.demo.admin_token;
    const made = await graphql(
      root,
      'mutation { createAdminToken(input: { role: "viewer", name: "temp", expiresInDays: 1 }) { id token expiresAt } }',
    );
    expect(made.body.errors, JSON.stringify(made.body.errors)).toBeUndefined();
    const { id, token, expiresAt } = made.body.data.createAdminToken;
    expect(Date.parse(expiresAt)).toBeGreaterThan(Date.now());
    const me = 'query { projects { id } }';
    expect((await graphql(token, me)).body.errors).toBeUndefined();
    const listed = await graphql(root, 'query { adminTokens { id name role active expiresAt revokedAt } }');
    expect(listed.body.data.adminTokens).toContainEqual({
      id,
      name: 'temp',
      role: 'viewer',
      active: true,
      expiresAt,
      revokedAt: null,
    });
    expect(JSON.stringify(listed.body)).not.toContain(token);
    const revoked = await graphql(
      root,
      'mutation ($t: String!) { revokeAdminToken(input: { tokenId: $t }) { active revokedAt } }',
      { t: id },
    );
    expect(revoked.body.data.revokeAdminToken.active).toBe(false);
    expect((await graphql(token, me)).body.errors[0].extensions.code).toBe('unauthenticated');
    // Past its expiry a token no longer authenticates.
    const expiring = (
      await graphql(root, 'mutation { createAdminToken(input: { role: "viewer", expiresInDays: 1 }) { id token } }')
    ).body.data.createAdminToken;
    await sql(service, "update admin_token set expires_at = now() - interval '1 minute' where id = ?", [expiring.id]);
    expect((await graphql(expiring.token, me)).body.errors[0].extensions.code).toBe('unauthenticated');
  });

  it('11. OIDC clients and organization apps: rotated secrets replace the old at once; deactivated ones are refused', async () => {
    const root = service.demo.admin_token;
    const created = await service.core.tenancy.createOidcClient({
      projectId: service.demo.project_id,
      name: 'Rotating app',
      redirectUris: ['https://rotate.example/cb'],
      scopes: ['openid'],
    });
    const clientId = created.client.clientId;
    const clientCall = async (secret: string) => {
      const res = await api
        .post('/api/auth/oidc/token')
        .type('form')
        .send({ client_id: clientId, client_secret: secret, grant_type: 'refresh_token', refresh_token: 'nothing' });
      return { body: { error: res.body.error?.code ?? res.body.error } };
    };
    expect((await clientCall(created.clientSecret)).body.error).toBe('invalid_grant'); // authenticated, then a bad grant
    const rotated = await graphql(
      root,
      'mutation ($p: String!, $c: String!) { rotateOidcClientSecret(input: { projectId: $p, clientId: $c }) { clientSecret } }',
      { p: service.demo.project_id, c: clientId },
    );
    const newSecret = keep('rotated oidc secret', rotated.body.data.rotateOidcClientSecret.clientSecret);
    expect((await clientCall(created.clientSecret)).body.error).toBe('invalid_client');
    expect((await clientCall(newSecret)).body.error).toBe('invalid_grant');
    await graphql(
      root,
      'mutation ($p: String!, $c: String!) { setOidcClientActive(input: { projectId: $p, clientId: $c, active: false }) { active } }',
      { p: service.demo.project_id, c: clientId },
    );
    expect((await clientCall(newSecret)).body.error).toBe('invalid_client');

    const app = await service.core.tenancy.createOrgApp({ organizationName: 'Rotating Org' });
    const members = (secret: string) =>
      api.get('/api/sdk/members').set(orgHeaders({ clientId: app.app.clientId, clientSecret: secret }));
    expect((await members(app.clientSecret)).status).toBe(200);
    const appRotated = await graphql(
      root,
      'mutation ($c: String!) { rotateOrgAppSecret(input: { clientId: $c }) { clientSecret } }',
      { c: app.app.clientId },
    );
    const appSecret = keep('rotated org secret', appRotated.body.data.rotateOrgAppSecret.clientSecret);
    expect((await members(app.clientSecret)).status).toBe(401);
    expect((await members(appSecret)).status).toBe(200);
    await graphql(
      root,
      'mutation ($c: String!) { setOrgAppActive(input: { clientId: $c, active: false }) { clientId } }',
      { c: app.app.clientId },
    );
    expect((await members(appSecret)).status).toBe(401);
  });

  it('11. a rotated webhook secret: X-Svc-Signature is the new one, the old one rides alongside during the overlap only', async () => {
    const verifies = (secret: string, timestamp: string, body: Buffer, signature: string) =>
      signature === webhookSignature(secret, Number(timestamp), body.toString('utf8'));
    const { received, receiver } = await webhookReceiver();
    try {
      const project = await service.core.tenancy.createProject({ name: 'Rotating hooks', balance: 100 });
      const oldSecret = keep('pre-rotation webhook secret', project.webhookSigningSecret);
      const workflowId = (
        await service.core.tenancy.createWorkflow({
          projectId: project.project.id,
          name: 'hooks',
          features: ['location'],
        })
      ).id;
      const callback = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
      await service.core.tenancy.approveCallback({ projectId: project.project.id, url: callback });
      const deliverOne = async () => {
        const created = (
          await api.post('/api/v2/session').set('X-API-Key', project.key).send({ workflow_id: workflowId, callback })
        ).body.data;
        await api
          .post('/api/hosted/session/steps/location')
          .set('X-Session-Token', created.session_token)
          .send({ latitude: 1, longitude: 2, accuracy: 5 });
        const [event] = await sql<{ id: string }>(service, 'select id from webhook_event where session_id = ?', [
          created.session_id,
        ]);
        await service.core.webhooks.deliver(event!.id);
        return received.at(-1)!;
      };
      const rotated = await graphql(
        service.demo.admin_token,
        'mutation ($p: String!) { rotateWebhookSecret(input: { projectId: $p, overlapHours: 24 }) { webhookSigningSecret previousValidUntil } }',
        {
          p: project.project.id,
        },
      );
      expect(rotated.body.errors).toBeUndefined();
      const newSecret = keep('rotated webhook secret', rotated.body.data.rotateWebhookSecret.webhookSigningSecret);
      const during = await deliverOne();
      const ts = String(during.headers['x-svc-timestamp']);
      expect(verifies(newSecret, ts, during.body, String(during.headers['x-svc-signature']))).toBe(true);
      expect(verifies(oldSecret, ts, during.body, String(during.headers['x-svc-signature-previous']))).toBe(true);
      await sql(
        service,
        "update project set previous_webhook_secret_until = now() - interval '1 minute' where id = ?",
        [project.project.id],
      );
      const after = await deliverOne();
      expect(after.headers['x-svc-signature-previous']).toBeUndefined();
      expect(
        verifies(
          newSecret,
          String(after.headers['x-svc-timestamp']),
          after.body,
          String(after.headers['x-svc-signature']),
        ),
      ).toBe(true);
    } finally {
      await new Promise((resolve) => {
        receiver.close(resolve);
        receiver.closeAllConnections();
      });
    }
  });
});

describe('admin API limits', () => {
  it('GraphQL refuses a page size outside 1 to 100 before running anything, so a negative first cannot pay for the rest', async () => {
    for (const first of [-100000, 0, 101, 2.5]) {
      const res = await graphql(
        service.demo.admin_token,
        `query($p: String!, $f: Int) { a: sessions(projectId: $p, first: $f) { edges { node { id } } } b: sessions(projectId: $p, first: 100) { edges { node { id checks { type } } } } }`,
        { p: service.demo.project_id, f: first },
      );
      expect(res.status, String(first)).toBe(400);
      expect(res.body.errors[0].extensions.code, String(first)).toBe('validation_error');
      expect(res.body.data ?? null).toBeNull();
    }
    const fine = await graphql(
      service.demo.admin_token,
      'query($p: String!) { sessions(projectId: $p, first: 100) { edges { node { id } } } }',
      { p: service.demo.project_id },
    );
    expect(fine.status).toBe(200);
  });

  it('tRPC caps a batch at 10 calls and a request at five full pages', async () => {
    const auth = { Authorization: `Bearer ${service.demo.admin_token}` };
    const batch = (n: number, input: object) =>
      api
        .get(`/trpc/${Array.from({ length: n }, () => 'sessions').join(',')}`)
        .query({
          batch: '1',
          input: JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [i, input]))),
        })
        .set(auth);
    const eleven = await batch(11, { projectId: service.demo.project_id, first: 1 });
    expect(eleven.status).toBe(400);
    const ten = await batch(10, { projectId: service.demo.project_id, first: 1 });
    expect(ten.status).toBe(200);
    const fivePages = await batch(5, { projectId: service.demo.project_id, first: 100 });
    expect(fivePages.status).toBe(200);
    // The sixth page is over the budget: it alone fails (207: the batch's calls answer separately).
    const sixPages = await batch(6, { projectId: service.demo.project_id, first: 100 });
    expect(sixPages.status).toBe(207);
    expect(sixPages.body.slice(0, 5).every((call: { result?: unknown }) => call.result)).toBe(true);
    expect(sixPages.body[5].error.json?.message ?? sixPages.body[5].error.message).toContain(
      'request cost over the limit',
    );
    // 300 mutations in one request: refused whole, nothing created.
    const before = (await sql<{ n: string }>(service, 'select count(*) as n from workflow'))[0]!.n;
    const many = await api
      .post(`/trpc/${Array.from({ length: 300 }, () => 'createWorkflow').join(',')}?batch=1`)
      .set(auth)
      .send(
        Object.fromEntries(
          Array.from({ length: 300 }, (_, i) => [
            i,
            { projectId: service.demo.project_id, name: `w${i}`, features: ['age'] },
          ]),
        ),
      );
    expect(many.status).toBe(400);
    expect((await sql<{ n: string }>(service, 'select count(*) as n from workflow'))[0]!.n).toBe(before);
  });
});

describe('headers (pages, API answers, metrics)', () => {
  it("every HTML page has a CSP, nosniff, no referrer and refuses to be framed; inline scripts run only with the response's nonce", async () => {
    const interaction = (
      await api
        .get(
          authorizePath({
            client_id: service.demo.oidc.client_id,
            redirect_uri: service.demo.oidc.redirect_uris[0]!,
            response_type: 'code',
            scope: 'openid',
            state: 's',
            code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
            code_challenge_method: 'S256',
          }),
        )
        .redirects(0)
    ).headers.location as string | undefined;
    const pages = [
      '/',
      `/verify/ses_x`,
      '/admin',
      '/activate/not-a-real-invitation',
      '/api/auth/oidc/signup',
      '/api/auth/oidc/forgot-password',
      '/api/auth/oidc/reset-password?token=x',
      '/api/auth/oidc/verify-email?token=x',
      ...(interaction ? [new URL(interaction, service.url).pathname + new URL(interaction, service.url).search] : []),
    ];
    for (const page of pages) {
      const res = await api.get(page);
      expect(res.headers['content-type'], page).toMatch(/text\/html/);
      expect(res.headers['content-security-policy'], page).toMatch(/default-src 'self'/);
      expect(res.headers['content-security-policy'], page).toMatch(/frame-ancestors 'none'/);
      expect(res.headers['content-security-policy'], page).not.toMatch(/script-src[^;]*'unsafe-inline'/);
      expect(res.headers['x-content-type-options'], page).toBe('nosniff');
      expect(res.headers['referrer-policy'], page).toBe('no-referrer');
      // clickjacking: the login, consent, sign-up, activation and hosted pages are never framed
      expect(res.headers['x-frame-options'], page).toBe('DENY');
    }
    const first = await api.get('/');
    const second = await api.get('/');
    const nonce = (res: { headers: Record<string, string> }) =>
      /'nonce-([^']+)'/.exec(res.headers['content-security-policy']!)?.[1];
    expect(nonce(first)).toBeTruthy();
    expect(nonce(first)).not.toBe(nonce(second));
  });

  it('check results, decisions, tokens and userinfo are never cached; the JWKS may be', async () => {
    const check = await api.post('/api/v2/age-verification').set(asA()).send({ dob: '1990-01-01' });
    expect(check.status).toBe(200);
    expect(check.headers['cache-control']).toBe('no-store');
    const decision = await api.get(`/api/v2/session/${b.sessionId}/decision`).set(asB());
    expect(decision.headers['cache-control']).toBe('no-store');
    const token = await api
      .post('/api/auth/oidc/token')
      .type('form')
      .send({ grant_type: 'authorization_code', code: 'nope' });
    expect(token.headers['cache-control']).toBe('no-store');
    const userinfo = await api.get('/api/auth/oidc/userinfo').set('Authorization', 'Bearer nope');
    expect(userinfo.headers['cache-control']).toBe('no-store');
    const jwks = await api.get('/api/auth/oidc/jwks.json');
    expect(jwks.headers['cache-control']).toMatch(/public/);
    expect(check.headers['strict-transport-security']).toBeUndefined(); // this issuer is http
  });

  it('HSTS on an https issuer, and /metrics behind VERITY_METRICS_TOKEN when it is set', async () => {
    // The tests' services open /metrics (metricsPublic); a token still closes it (test/metrics-access.test.ts: closed
    // by default).
    const secured = await startTestService(
      { baseUrl: 'https://verity.example', metricsToken: 'metrics-secret-1' },
      { faceEngine: markerFaceEngine() },
    );
    try {
      const home = await secured.http.get('/healthz');
      expect(home.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
      const anonymous = await secured.http.get('/metrics');
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers['www-authenticate']).toMatch(/^Bearer/);
      expect((await secured.http.get('/metrics').set('Authorization', 'Bearer wrong')).status).toBe(401);
      const allowed = await secured.http.get('/metrics').set('Authorization', 'Bearer metrics-secret-1');
      expect(allowed.status).toBe(200);
      expect(allowed.text).toContain('http_request');
    } finally {
      await secured.close();
    }
  });
});

describe('secrets and raw identity data at rest and in the logs', () => {
  it('appear nowhere in clear after sign-up, login, a document session, identity records, invites and key creation', async () => {
    const { core, demo } = service;
    // Sign-up and login through the pages; a session bound to that account reads a passport and approves.
    const person = {
      email: 'zebulon@people.example',
      password: keep('sign-up password', 'Quillfeather-Secret-42'),
      name: 'Zebulon Quillfeather',
    };
    const tokens = await flow.tokens('openid profile verifications', person);
    for (const label of ['access_token', 'refresh_token', 'id_token'] as const) keep(`sign-up ${label}`, tokens[label]);
    const passport = await renderDocument({
      ...renderSpecs(1)[0]!,
      layout: 'TD3',
      rotation: 0,
      skew: 0,
      blur: 0,
      jpegQuality: null,
    });
    const { truth } = passport;
    keep('document number', truth.documentNumber);
    keep('document surname', truth.surname);
    keep('document birth date', truth.birthDate);
    const workflow = await core.tenancy.createWorkflow({
      projectId: demo.project_id,
      name: 'document only',
      features: ['id_verification'],
    });
    const session = (
      await api
        .post('/api/v2/session')
        .set(asA())
        .send({ workflow_id: workflow.id, svc_access_token: tokens.access_token })
    ).body.data;
    keep('session token', session.session_token);
    const read = await api
      .post('/api/hosted/session/steps/document')
      .set('X-Session-Token', session.session_token)
      .send({ front_image: passport.bytes.toString('base64') });
    expect(read.body.data?.status, JSON.stringify(read.body)).toBe('APPROVED');
    // The same passport as a fresh-mode check, replayable under an Idempotency-Key (its stored answer holds the
    // fields).
    const fresh = await api
      .post('/api/v2/id-verification')
      .set(asA())
      .set('Idempotency-Key', 'passport-1')
      .send({ front_image: passport.bytes.toString('base64') });
    expect(fresh.body.data?.check?.data?.fields?.document_number).toBe(truth.documentNumber);
    // An operator-recorded identity and a fresh age check with a distinctive date of birth.
    await core.accounts.recordVerifiedIdentity({
      svcId: demo.account.svc_id,
      fullName: keep('recorded name', 'Ottoline Vexwarden-Pryce'),
      dateOfBirth: keep('recorded dob', '1937-11-29'),
      documentNumber: keep('recorded document', 'XK4471902'),
      address: keep('recorded address', '17 Marrowgate Lane'),
    });
    await api
      .post('/api/v2/age-verification')
      .set(asA())
      .set('Idempotency-Key', 'age-1')
      .send({ dob: keep('age check dob', '1941-06-23'), bands: [18] });
    await api.post('/api/v2/location').set(asA()).send({ latitude: 1, longitude: 1, accuracy: 1 });
    // Roster invitations, mailed and returned.
    const invited = await api
      .post('/api/sdk/members')
      .set(orgHeaders({ clientId: demo.org.client_id, clientSecret: demo.org.client_secret }))
      .send({
        members: [{ email: 'mailed@corp.example' }, { email: 'linked@corp.example' }],
        notify: false,
        invite: 'face',
      });
    for (const member of invited.body.data.created)
      keep(`activation ${member.email}`, new URL(member.activation_link).pathname.split('/').pop()!);
    await api
      .post('/api/sdk/members')
      .set(orgHeaders({ clientId: demo.org.client_id, clientSecret: demo.org.client_secret }))
      .send({ members: [{ email: 'emailed@corp.example' }] });
    // Keys, clients and tokens created over the admin API.
    const made = await graphql(
      demo.admin_token,
      `mutation ($p: String!) {
      createApiKey(input: { projectId: $p, name: "scan" }) { key }
      createOidcClient(input: { projectId: $p, name: "Scan app", redirectUris: ["https://scan.example/cb"] }) { clientSecret }
      createOrgApp(input: { organizationName: "Scan Org" }) { clientSecret }
      createAdminToken(input: { role: "viewer" }) { token }
      createProject(input: { name: "Scan project" }) { key webhookSigningSecret }
    }`,
      { p: demo.project_id },
    );
    expect(made.body.errors, JSON.stringify(made.body.errors)).toBeUndefined();
    const collect = (value: unknown, label: string): void => {
      if (typeof value === 'string') keep(label, value);
      else if (value && typeof value === 'object')
        for (const [k, v] of Object.entries(value)) collect(v, `${label}.${k}`);
    };
    collect(made.body.data, 'admin API');
    expect(secrets.size).toBeGreaterThan(40);

    // Every row of every table, and every log line.
    const tables = await sql<{ table_schema: string; table_name: string }>(
      service,
      "select table_schema, table_name from information_schema.tables where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')",
    );
    expect(tables.length).toBeGreaterThan(20);
    const bytes = (_key: string, value: unknown) =>
      value && typeof value === 'object' && (value as { type?: string }).type === 'Buffer'
        ? Buffer.from((value as { data: number[] }).data).toString('latin1')
        : value;
    const dump = (
      await Promise.all(
        tables.map(async (t) =>
          JSON.stringify(await sql(service, `select * from "${t.table_schema}"."${t.table_name}"`), bytes),
        ),
      )
    ).join('\n');
    const logs = service.log.lines.join('');
    expect(service.log.lines.length).toBeGreaterThan(50);
    const found: string[] = [];
    for (const [label, value] of secrets) {
      for (const variant of new Set([value, value.toUpperCase()])) {
        if (dump.includes(variant)) found.push(`database: ${label}`);
        if (logs.includes(variant)) found.push(`logs: ${label}`);
      }
    }
    expect(found).toEqual([]);
    // The scan looks where they would be: what is kept in clear (emails, route templates), digests and sealed values
    // are there.
    expect(dump).toContain(person.email);
    expect(logs).toContain('/api/hosted/session/steps/:step');
    expect(dump).toContain(digestSecret(session.session_token));
    expect(dump).toMatch(/v1\.[\w-]+\.[\w-]+\.[\w-]+/);
  }, 60_000);
});
