import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCatalog } from '../src/core/errors.js';
import { sql, startTestService, type TestService } from './helpers/service.js';

// The sandbox through HTTP: test keys (vk_test_...) are never charged, see only test data, and
// may force every outcome with the Verity-Test-Outcome header; live keys ignore the header.

let service: TestService;
let projectId: string;
let liveKey: string;
let testKey: string;

const charges = async () => (await sql(service, 'select id from charge where project_id = ?', [projectId])).length;
const balance = async () =>
  Number(
    (
      await sql<{ balance_minor: number }>(service, 'select balance_minor from wallet where project_id = ?', [
        projectId,
      ])
    )[0]!.balance_minor,
  );
const post = (key: string, path: string, body: object, outcome?: string) => {
  const request = service.http.post(`/api/v2${path}`).set('X-API-Key', key);
  if (outcome) request.set('Verity-Test-Outcome', outcome);
  return request.send(body);
};

beforeAll(async () => {
  service = await startTestService({ allowInsecureCallbacks: true, runJobs: true });
  // A project with an empty wallet: live calls are refused, test calls are not.
  const created = await service.core.tenancy.createProject({ name: 'Sandbox', balance: 0 });
  projectId = created.project.id;
  liveKey = created.key;
  const made = await service.core.tenancy.createApiKey({ projectId, name: 'ci', mode: 'test' });
  testKey = made.key;
  expect(made.apiKey.mode).toBe('test');
  expect(made.apiKey.prefix.startsWith('vk_test_')).toBe(true);
});
afterAll(async () => {
  await service?.close();
});

describe('test keys on standalone checks', () => {
  it('run the real check with a zero balance and leave no charge; a live key gets 402', async () => {
    const live = await post(liveKey, '/age-verification', { dob: '1990-01-01' });
    expect(live.status).toBe(402);
    expect(live.body.error.code).toBe('insufficient_balance');

    const test = await post(testKey, '/age-verification', { dob: '1990-01-01' });
    expect(test.status).toBe(200);
    expect(test.body.data).toMatchObject({ status: 'passed', livemode: false });
    expect(test.body.data.check.data.age).toBeGreaterThan(30); // the real rule ran
    expect(await charges()).toBe(0);
    expect(await balance()).toBe(0);
    const rows = await sql<{ livemode: boolean }>(service, 'select livemode from check_record where id = ?', [
      test.body.data.session_id,
    ]);
    expect(rows[0]!.livemode).toBe(false);
  });

  it('force approve, decline and review without running the check', async () => {
    const faceMatchVerdicts = async () =>
      (await service.core.metrics.checkVerdicts.get()).values
        .filter((value) => value.labels.type === 'face_match')
        .reduce((sum, value) => sum + value.value, 0);
    const verdictsBefore = await faceMatchVerdicts();
    // Input the real check would refuse to score: a forced verdict does not look at the images.
    for (const [outcome, status] of [
      ['approve', 'passed'],
      ['decline', 'failed'],
      ['review', 'review'],
    ]) {
      const res = await post(testKey, '/face-match', { image1: 'aGVsbG8=', image2: 'aGVsbG8=' }, outcome);
      expect(res.status, outcome).toBe(200);
      expect(res.body.data).toMatchObject({
        status,
        livemode: false,
        check: { type: 'face_match', status, data: { test_outcome: outcome } },
      });
    }
    expect(await charges()).toBe(0);
    expect(await faceMatchVerdicts()).toBe(verdictsBefore); // forced verdicts stay out of the models' metrics
  });

  it('force each error code with its catalog status and envelope', async () => {
    for (const code of [
      'validation_error',
      'insufficient_balance',
      'rate_limited',
      'engine_unreachable',
      'account_not_found',
      'idempotency_key_reused',
    ] as const) {
      const res = await post(testKey, '/liveness', {}, code);
      expect(res.status, code).toBe(errorCatalog[code].status);
      expect(res.body).toMatchObject({ success: false, error: { code } });
    }
    const limited = await post(testKey, '/location', {}, 'rate_limited');
    expect(limited.headers['retry-after']).toBe('1');
  });

  it('answers an unknown outcome word with validation_error instead of running for real', async () => {
    const res = await post(testKey, '/age-verification', { dob: '1990-01-01' }, 'approved-please');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
  });

  it('a live key ignores the header and runs normally', async () => {
    const rich = await service.core.tenancy.createProject({ name: 'Live', balance: 10 });
    const res = await post(rich.key, '/age-verification', { dob: '2015-01-01' }, 'approve');
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('failed'); // the real verdict: a child is not 18+
    expect(res.body.data.livemode).toBeUndefined();
    const errored = await post(rich.key, '/age-verification', { dob: '1990-01-01' }, 'engine_unreachable');
    expect(errored.status).toBe(200);
    const paid = await sql(service, 'select id from charge where project_id = ?', [rich.project.id]);
    expect(paid.length).toBe(2);
  });
});

describe('test keys on hosted sessions', () => {
  let workflowId: string;
  beforeAll(async () => {
    workflowId = (
      await service.core.tenancy.createWorkflow({
        projectId,
        name: 'kyc',
        features: ['id_verification', 'liveness', 'face_match'],
      })
    ).id;
  });

  it('create a session with a zero balance, uncharged, marked test; a live key gets 402', async () => {
    const live = await post(liveKey, '/session', { workflow_id: workflowId });
    expect(live.status).toBe(402);
    const res = await post(testKey, '/session', { workflow_id: workflowId });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ status: 'NOT_STARTED', livemode: false });
    expect(await charges()).toBe(0);
  });

  it('force approved, declined and in review: the decision and the webhook show it', async () => {
    for (const [outcome, status] of [
      ['approve', 'APPROVED'],
      ['decline', 'DECLINED'],
      ['review', 'IN_REVIEW'],
    ]) {
      const created = await post(
        testKey,
        '/session',
        { workflow_id: workflowId, vendor_data: `t-${outcome}` },
        outcome,
      );
      expect(created.status, outcome).toBe(201);
      expect(created.body.data.status).toBe(status);
      const id = created.body.data.session_id;
      const decision = await service.http.get(`/api/v2/session/${id}/decision`).set('X-API-Key', testKey);
      expect(decision.body.data).toMatchObject({ status, livemode: false, vendor_data: `t-${outcome}` });
      const events = await sql<{ type: string; body: string }>(
        service,
        'select type, body from webhook_event where session_id = ?',
        [id],
      );
      expect(events.map((event) => event.type)).toEqual([`verification.${status.toLowerCase()}`]);
      expect(JSON.parse(events[0]!.body)).toMatchObject({ session_id: id, status, livemode: false });
    }
    expect(await charges()).toBe(0);
  });

  it('sends the forced decision to the callback, marked test', async () => {
    const bodies: string[] = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        bodies.push(body);
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const callback = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      await service.core.tenancy.approveCallback({ projectId, url: callback, mode: 'test' });
      const created = await post(testKey, '/session', { workflow_id: workflowId, callback }, 'decline');
      expect(created.status).toBe(201);
      for (let i = 0; i < 100 && bodies.length === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(JSON.parse(bodies[0]!)).toMatchObject({
        type: 'verification.declined',
        session_id: created.body.data.session_id,
        status: 'DECLINED',
        livemode: false,
      });
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it("a test session's hosted page picks its outcome with the session token: decided through the state table, with its webhook, free; an error answers itself; a live session has no picker", async () => {
    const created = await post(testKey, '/session', { workflow_id: workflowId, vendor_data: 't-picked' });
    const token = created.body.data.session_token as string;
    const pick = (sessionToken: string, outcome: unknown) =>
      service.http.post('/api/hosted/session/test-outcome').set('X-Session-Token', sessionToken).send({ outcome });
    const page = await service.http.get('/api/hosted/session').set('X-Session-Token', token);
    expect(page.body.data).toMatchObject({ status: 'NOT_STARTED', livemode: false });
    const error = await pick(token, 'session_expired');
    expect([error.status, error.body.error.code]).toEqual([410, 'session_expired']);
    expect((await pick(token, 'maybe')).body.error.code).toBe('validation_error');
    expect(
      (await service.http.post('/api/hosted/session/test-outcome').send({ outcome: 'approve' })).body.error.code,
    ).toBe('token_missing');
    const approved = await pick(token, 'approve');
    expect(approved.status).toBe(200);
    expect(approved.body.data).toMatchObject({ status: 'APPROVED', finished: true, livemode: false });
    expect(approved.body.data.steps.map((step: { outcome: string }) => step.outcome)).toEqual(['not_run', 'not_run']);
    const id = created.body.data.session_id;
    const events = await sql<{ type: string }>(service, 'select type from webhook_event where session_id = ?', [id]);
    expect(events.map((event) => event.type)).toEqual(['verification.approved']);
    expect(await sql(service, 'select used from sandbox_usage where project_id = ?', [projectId])).toEqual([]);
    expect((await pick(token, 'decline')).body.error.code).toBe('session_closed');
    // A live session's token cannot pick anything: its page runs the real checks only.
    const { project, key } = await service.core.tenancy.createProject({ name: 'Live', balance: 10 });
    const liveWorkflow = await service.core.tenancy.createWorkflow({
      projectId: project.id,
      name: 'loc',
      features: ['location'],
    });
    const live = await post(key, '/session', { workflow_id: liveWorkflow.id });
    const refused = await pick(live.body.data.session_token, 'approve');
    expect([refused.status, refused.body.error.code]).toEqual([404, 'not_found']);
    expect(
      (await service.http.get(`/api/v2/session/${live.body.data.session_id}`).set('X-API-Key', key)).body.data.status,
    ).toBe('NOT_STARTED');
  });

  it('force an error on session create', async () => {
    const res = await post(testKey, '/session', { workflow_id: workflowId }, 'workflow_not_found');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('workflow_not_found');
  });

  it('keeps test and live data apart: 404 across modes, lists filtered', async () => {
    const rich = await service.core.tenancy.createProject({ name: 'Both', balance: 10 });
    const richTest = (await service.core.tenancy.createApiKey({ projectId: rich.project.id, mode: 'test' })).key;
    const flow = (
      await service.core.tenancy.createWorkflow({ projectId: rich.project.id, name: 'loc', features: ['location'] })
    ).id;
    const liveSession = (await post(rich.key, '/session', { workflow_id: flow })).body.data.session_id;
    const testSession = (await post(richTest, '/session', { workflow_id: flow }, 'approve')).body.data.session_id;
    for (const [key, other] of [
      [rich.key, testSession],
      [richTest, liveSession],
    ]) {
      for (const path of [`/session/${other}`, `/session/${other}/decision`]) {
        const res = await service.http.get(`/api/v2${path}`).set('X-API-Key', key!);
        expect(res.status, path).toBe(404);
        expect(res.body.error.code).toBe('not_found');
      }
      const erase = await service.http.delete(`/api/v2/session/${other}/data`).set('X-API-Key', key!);
      expect(erase.status, 'DELETE data across modes').toBe(404);
    }
    const liveList = await service.http.get('/api/v2/session').set('X-API-Key', rich.key);
    expect(liveList.body.data.map((s: { session_id: string }) => s.session_id)).toEqual([liveSession]);
    const testList = await service.http.get('/api/v2/session').set('X-API-Key', richTest);
    expect(testList.body.data.map((s: { session_id: string }) => s.session_id)).toEqual([testSession]);
    // A live key's magic header is ignored: the session opens normally and is charged.
    const ignored = await post(rich.key, '/session', { workflow_id: flow }, 'approve');
    expect(ignored.body.data.status).toBe('NOT_STARTED');
    expect((await sql(service, 'select id from charge where project_id = ?', [rich.project.id])).length).toBe(2);
  });
});

describe('idempotency across modes', () => {
  it('refuses a key reused across modes instead of replaying the other mode', async () => {
    const rich = await service.core.tenancy.createProject({ name: 'Replay', balance: 10 });
    const richTest = (await service.core.tenancy.createApiKey({ projectId: rich.project.id, mode: 'test' })).key;
    const body = { dob: '1990-01-01' };
    const first = await post(rich.key, '/age-verification', body).set('Idempotency-Key', 'same-key');
    expect(first.status).toBe(200);
    const other = await post(richTest, '/age-verification', body).set('Idempotency-Key', 'same-key');
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('idempotency_key_reused');
    const again = await post(rich.key, '/age-verification', body).set('Idempotency-Key', 'same-key');
    expect(again.headers['idempotent-replayed']).toBe('true');
    // Within test mode, another forced outcome under the same key is refused, not replayed.
    expect((await post(richTest, '/age-verification', body, 'approve').set('Idempotency-Key', 'test-key')).status).toBe(
      200,
    );
    const switched = await post(richTest, '/age-verification', body, 'decline').set('Idempotency-Key', 'test-key');
    expect(switched.status).toBe(422);
  });
});

describe('creating test keys', () => {
  it('through GraphQL, shown with their mode', async () => {
    const { token } = await service.core.tenancy.createAdminToken({ role: 'admin', name: 'sandbox' });
    const res = await service.http
      .post('/graphql')
      .set('Authorization', `Bearer ${token}`)
      .send({
        query: `mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { key apiKey { mode prefix } } }`,
        variables: { input: { projectId, mode: 'test' } },
      });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.createApiKey.apiKey).toMatchObject({ mode: 'test' });
    expect(res.body.data.createApiKey.key.startsWith('vk_test_')).toBe(true);
    const live = await service.http
      .post('/graphql')
      .set('Authorization', `Bearer ${token}`)
      .send({
        query: `mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { key apiKey { mode } } }`,
        variables: { input: { projectId } },
      });
    expect(live.body.data.createApiKey.apiKey.mode).toBe('live');
  });

  it('the ops API shows operators both modes, each session marked', async () => {
    const { token } = await service.core.tenancy.createAdminToken({ role: 'viewer' });
    const flow = (await service.core.tenancy.createWorkflow({ projectId, name: 'ops', features: ['location'] })).id;
    const testSession = (await post(testKey, '/session', { workflow_id: flow })).body.data.session_id;
    const res = await service.http
      .post('/graphql')
      .set('Authorization', `Bearer ${token}`)
      .send({
        query: 'query($p: String!, $s: String!) { session(projectId: $p, sessionId: $s) { id livemode } }',
        variables: { p: projectId, s: testSession },
      });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.session).toEqual({ id: testSession, livemode: false });
  });
});
