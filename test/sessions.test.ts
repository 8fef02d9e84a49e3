import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/core/clock.js';
import { decide } from '../src/core/sessions/service.js';
import { markerFaceEngine, markerImage, type MarkerFace } from './helpers/face-engine.js';
import { renderDocument, renderSpecs } from './helpers/documents.js';
import { sql, startTestService, type TestService } from './helpers/service.js';

// Hosted sessions through their real interfaces: the integrator's REST API and the hosted page's
// session-token API. Faces come from the deterministic engine (this file is about the rules);
// documents are read by the real OCR.

let service: TestService;
const clock = new ManualClock(new Date('2026-11-23T10:00:00Z'));
const key = () => ({ 'X-API-Key': service.demo.api_key });
let otherProject: { projectId: string; apiKey: string; workflowId: string };

const live = (nonce = 0) => markerImage({ person: 7, live: true, nonce });
const dataUrl = (bytes: Buffer) => `data:image/png;base64,${bytes.toString('base64')}`;

/** What each challenge gesture looks like to the test engine. */
const PERFORM: Record<string, Partial<MarkerFace>> = {
  turn_left: { yaw: 0.2 },
  turn_right: { yaw: -0.2 },
  look_up: { pitch: -0.15 },
  blink: { ear: 0.05 },
  smile: { mouth: 1.3 },
};

/** Asks the session for a challenge and takes a 3-frame burst of `face` performing it (or not). */
async function selfie(token: string, face: MarkerFace = { person: 7 }, options: { perform?: boolean } = {}) {
  const challenge = await hosted(token, '/session/challenge', {});
  expect(challenge.status, JSON.stringify(challenge.body)).toBe(200);
  const { challenge_id, gesture } = challenge.body.data;
  const gestureFace = options.perform === false ? {} : PERFORM[gesture];
  // Jitter 0.03: natural micro-motion, but too little for the noise alone to look like a gesture.
  const burst = [
    { ...face, jitter: 0.03 },
    { ...face, jitter: 0.03, nonce: 1, ...gestureFace },
    { ...face, jitter: 0.03, nonce: 2 },
  ];
  return {
    frames: await Promise.all(burst.map(async (f) => dataUrl(await markerImage(f)))),
    challenge_id,
    captured_ms: [0, 200, 400],
  };
}

async function workflow(features: string[]): Promise<string> {
  return (
    await service.core.tenancy.createWorkflow({
      projectId: service.demo.project_id,
      name: features.join('+'),
      features,
    })
  ).id;
}

async function createSession(body: Record<string, unknown>) {
  const response = await service.http.post('/api/v2/session').set(key()).send(body);
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data as {
    session_id: string;
    session_token: string;
    url: string;
    status: string;
    features: string[];
    expires_at: string;
  };
}

const hosted = (token: string | undefined, path: string, body?: unknown) => {
  const request =
    body === undefined
      ? service.http.get(`/api/hosted${path}`)
      : service.http.post(`/api/hosted${path}`).send(body as object);
  return token === undefined ? request : request.set('X-Session-Token', token);
};

beforeAll(async () => {
  service = await startTestService({}, { clock, faceEngine: markerFaceEngine() });
  const { project, key: apiKey } = await service.core.tenancy.createProject({ name: 'Other', balance: 10 });
  const other = await service.core.tenancy.createWorkflow({
    projectId: project.id,
    name: 'other',
    features: ['liveness'],
  });
  otherProject = { projectId: project.id, apiKey, workflowId: other.id };
  await service.core.tenancy.approveCallback({
    projectId: service.demo.project_id,
    url: 'https://hooks.example.com/verity',
  });
}, 120_000);

afterAll(async () => {
  await service?.close();
});

describe('the automatic decision', () => {
  it('declines on any failure, waits for every feature, and sends reviews to a person', () => {
    expect(decide(['liveness', 'location'], [{ type: 'liveness', status: 'passed' }])).toBeNull();
    expect(decide(['liveness', 'location'], [{ type: 'liveness', status: 'failed' }])).toBe('check_failed');
    expect(
      decide(
        ['liveness', 'location'],
        [
          { type: 'liveness', status: 'passed' },
          { type: 'location', status: 'review' },
        ],
      ),
    ).toBe('needs_review');
    expect(
      decide(
        ['liveness', 'location'],
        [
          { type: 'liveness', status: 'passed' },
          { type: 'location', status: 'passed' },
        ],
      ),
    ).toBe('checks_passed');
  });
});

describe('POST /api/v2/session', () => {
  it('honours Idempotency-Key: a retry answers the first session, charged once; another body 422; simultaneous retries make one session', async () => {
    const body = { workflow_id: await workflow(['liveness']), vendor_data: 'idem-1' };
    const balance = async () =>
      Number(
        (
          await sql<{ balance_minor: string }>(service, 'select balance_minor from wallet where project_id = ?', [
            service.demo.project_id,
          ])
        )[0]!.balance_minor,
      );
    const sessions = async () =>
      Number(
        (
          await sql<{ n: string }>(
            service,
            "select count(*) as n from verification_session where vendor_data like 'idem-%'",
          )
        )[0]!.n,
      );
    const before = await balance();
    const first = await service.http.post('/api/v2/session').set(key()).set('Idempotency-Key', 'create-1').send(body);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const retry = await service.http.post('/api/v2/session').set(key()).set('Idempotency-Key', 'create-1').send(body);
    expect(retry.status).toBe(201);
    expect(retry.body.data).toEqual(first.body.data);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(await sessions()).toBe(1);
    const charged = before - (await balance());
    const other = await service.http
      .post('/api/v2/session')
      .set(key())
      .set('Idempotency-Key', 'create-1')
      .send({ ...body, vendor_data: 'idem-2' });
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('idempotency_key_reused');
    const racing = await Promise.all(
      Array.from({ length: 5 }, () =>
        service.http
          .post('/api/v2/session')
          .set(key())
          .set('Idempotency-Key', 'create-race')
          .send({ ...body, vendor_data: 'idem-race' }),
      ),
    );
    expect(
      racing
        .filter((r) => r.status === 201)
        .map((r) => r.body.data.session_id)
        .filter((v, i, all) => all.indexOf(v) === i),
    ).toHaveLength(1);
    for (const r of racing) expect([201, 409]).toContain(r.status);
    expect(await sessions()).toBe(2);
    expect(before - (await balance())).toBe(2 * charged);
    // Without the key every call is a new session.
    const plain = await Promise.all(
      [0, 1].map(() =>
        service.http
          .post('/api/v2/session')
          .set(key())
          .send({ ...body, vendor_data: 'idem-plain' }),
      ),
    );
    expect(new Set(plain.map((r) => r.body.data.session_id)).size).toBe(2);
  });

  it('creates a NOT_STARTED session with a hosted url, a token shown once, the features and the expiry', async () => {
    const id = await workflow(['liveness', 'location']);
    const session = await createSession({
      workflow_id: id,
      vendor_data: 'user-42',
      redirect_url: 'https://app.example.com/done',
      ttl_seconds: 600,
      callback: 'https://hooks.example.com/verity',
    });
    expect(session.status).toBe('NOT_STARTED');
    expect(session.features).toEqual(['liveness', 'location']);
    expect(session.url).toBe(`http://verity.test/verify/${session.session_id}#${session.session_token}`);
    expect(session.expires_at).toBe('2026-11-23T10:10:00.000Z');
    const [row] = await sql<{ token_digest: string }>(
      service,
      'select token_digest from verification_session where id = ?',
      [session.session_id],
    );
    expect(row!.token_digest).not.toContain(session.session_token);
    const read = await service.http.get(`/api/v2/session/${session.session_id}`).set(key());
    expect(JSON.stringify(read.body)).not.toContain(session.session_token);
    // GET shows the session as created, field for field and to the millisecond, without the token and its url.
    const { session_token: _token, url: _url, ...view } = session;
    expect(read.body.data).toEqual(view);
    // Polls that arrive together are read by one statement (these four, asked in one turn): each
    // is answered as its own caller, and only the owner gets the session.
    const polls = await Promise.allSettled(
      [service.demo.project_id, otherProject.projectId, service.demo.project_id, otherProject.projectId].map((owner) =>
        service.core.sessions.get(owner, session.session_id),
      ),
    );
    expect(polls.map((p) => p.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected']);
    expect(polls[0]).toMatchObject({ value: view });
    expect(polls[1]).toMatchObject({ reason: { code: 'not_found' } });
  });

  it("answers workflow_not_found for an unknown workflow and for another project's, even once that project has used it", async () => {
    // The other project's workflow is read (and kept in memory) by a session of its own first.
    const own = await service.http
      .post('/api/v2/session')
      .set('X-API-Key', otherProject.apiKey)
      .send({ workflow_id: otherProject.workflowId });
    expect(own.status).toBe(201);
    for (const workflowId of ['wf_nope', otherProject.workflowId]) {
      const response = await service.http.post('/api/v2/session').set(key()).send({ workflow_id: workflowId });
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('workflow_not_found');
    }
  });

  it('refuses a callback that is not exactly an approved destination with 422 callback_not_allowed', async () => {
    const id = await workflow(['liveness']);
    for (const callback of [
      'https://hooks.example.com/verity/',
      'https://evil.example.com/verity',
      'http://hooks.example.com/verity',
    ]) {
      const response = await service.http.post('/api/v2/session').set(key()).send({ workflow_id: id, callback });
      expect(response.status).toBe(422);
      expect(response.body.error.code).toBe('callback_not_allowed');
    }
  });

  it('validates the body: ttl bounds, redirect scheme, geofence metadata, types, missing workflow_id, malformed JSON', async () => {
    const id = await workflow(['location']);
    const bad: [unknown, string][] = [
      [{}, 'workflow_id'],
      [{ workflow_id: 12 }, 'workflow_id'],
      [{ workflow_id: id, ttl_seconds: 299 }, 'ttl_seconds'],
      [{ workflow_id: id, ttl_seconds: 7 * 86400 + 1 }, 'ttl_seconds'],
      [{ workflow_id: id, ttl_seconds: 'soon' }, 'ttl_seconds'],
      [{ workflow_id: id, redirect_url: 'javascript:alert(1)' }, 'redirect_url'],
      [{ workflow_id: id, metadata: { expected_lat: 40.7 } }, 'metadata.expected_lng'],
      [{ workflow_id: id, metadata: { expected_lat: 95, expected_lng: 0 } }, 'metadata.expected_lat'],
      [{ workflow_id: id, metadata: { radius_m: 100 } }, 'metadata.radius_m'],
      [{ workflow_id: id, vendor_data: 'x'.repeat(1001) }, 'vendor_data'],
    ];
    for (const [body, field] of bad) {
      const response = await service.http
        .post('/api/v2/session')
        .set(key())
        .send(body as object);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.code).toBe('validation_error');
      expect(Object.keys(response.body.data.errors)).toContain(field);
    }
    const malformed = await service.http
      .post('/api/v2/session')
      .set(key())
      .set('content-type', 'application/json')
      .send('{"workflow_id":');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('validation_error');
  });

  it('needs an API key; a user access token binds the account, an invalid one is refused', async () => {
    const id = await workflow(['liveness']);
    const noKey = await service.http.post('/api/v2/session').send({ workflow_id: id });
    expect(noKey.status).toBe(401);
    expect(noKey.body.error.code).toBe('invalid_api_key');
    const badToken = await service.http
      .post('/api/v2/session')
      .set(key())
      .send({ workflow_id: id, svc_access_token: 'nope' });
    expect(badToken.status).toBe(401);
    expect(badToken.body.error.code).toBe('invalid_token');
    const { token } = await service.core.accessTokens.issue(service.demo.account.svc_id, service.demo.oidc.client_id, [
      'openid',
    ]);
    const bound = await createSession({ workflow_id: id, svc_access_token: token });
    expect((await service.http.get(`/api/v2/session/${bound.session_id}`).set(key())).body.data.svc_id).toBe(
      service.demo.account.svc_id,
    );
  });
});

describe('GET /api/v2/session', () => {
  it('filters by status and vendor_data and pages with a cursor, newest first, without repeats', async () => {
    const id = await workflow(['liveness']);
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await createSession({ workflow_id: id, vendor_data: 'paging' })).session_id);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const response = await service.http
        .get('/api/v2/session')
        .query({ vendor_data: 'paging', limit: 2, ...(cursor ? { cursor } : {}) })
        .set(key());
      expect(response.status).toBe(200);
      expect(response.body.data.length).toBeLessThanOrEqual(2);
      seen.push(
        ...response.body.data.map((s: { session_id: string; vendor_data: string }) => {
          expect(s.vendor_data).toBe('paging');
          return s.session_id;
        }),
      );
      cursor = response.headers['x-next-cursor'];
    } while (cursor);
    expect(seen.sort()).toEqual([...made].sort());
    const byStatus = await service.http
      .get('/api/v2/session')
      .query({ status: 'APPROVED', vendor_data: 'paging' })
      .set(key());
    expect(byStatus.body.data).toEqual([]);
    for (const query of [{ status: 'DONE' }, { limit: 0 }, { limit: 101 }, { cursor: 'garbage' }]) {
      const response = await service.http.get('/api/v2/session').query(query).set(key());
      expect(response.status, JSON.stringify(query)).toBe(400);
      expect(response.body.error.code).toBe('validation_error');
    }
  });

  it("never shows another project's sessions: 404 on retrieve, decision and review", async () => {
    const id = await workflow(['liveness']);
    const session = await createSession({ workflow_id: id });
    for (const request of [
      service.http.get(`/api/v2/session/${session.session_id}`),
      service.http.get(`/api/v2/session/${session.session_id}/decision`),
      service.http.patch(`/api/v2/session/${session.session_id}/status`).send({ status: 'APPROVED' }),
    ]) {
      const response = await request.set('X-API-Key', otherProject.apiKey);
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('not_found');
    }
    const list = await service.http.get('/api/v2/session').set('X-API-Key', otherProject.apiKey);
    expect(list.body.data.map((s: { session_id: string }) => s.session_id)).not.toContain(session.session_id);
  });
});

describe('the hosted page API', () => {
  it('every error the hosted API documents has words on the page (in every language: the catalogs are typed alike), never the server English', async () => {
    const document = (await service.http.get('/api/v2/openapi.json')).body as {
      paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>>;
    };
    const codes = new Set<string>();
    for (const [path, operations] of Object.entries(document.paths))
      if (path.startsWith('/api/hosted/'))
        for (const operation of Object.values(operations))
          for (const [status, response] of Object.entries(operation.responses))
            if (Number(status) >= 400) for (const code of response.description.split(', ')) codes.add(code);
    expect(codes.size).toBeGreaterThan(10);
    // Loaded by a computed path: a static import would pull preact's DOM types into the server's type check.
    const { hasWords }: { hasWords: (code: string) => boolean } = await import(`../web/hosted/${'words'}.js`);
    expect([...codes].filter((code) => !hasWords(code))).toEqual([]);
  });

  it('needs the session token: 401 token_missing without, invalid_token with a wrong one, and never the API key', async () => {
    const missing = await hosted(undefined, '/session');
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe('token_missing');
    const wrong = await hosted('sst_wrong', '/session/start', {});
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('invalid_token');
    const withKey = await service.http.get('/api/hosted/session').set(key());
    expect(withKey.body.error.code).toBe('token_missing');
  });

  it('serves the page; opening it moves NOT_STARTED to IN_PROGRESS once, in the timeline', async () => {
    const session = await createSession({ workflow_id: await workflow(['liveness', 'location']) });
    const page = await service.http.get(`/verify/${session.session_id}`);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<script type="module" src="\/assets\/hosted-[\w-]+\.js"><\/script>/);
    const first = await hosted(session.session_token, '/session/start', {});
    expect(first.body.data.status).toBe('IN_PROGRESS');
    expect(first.body.data.steps).toEqual([
      { step: 'selfie', done: false, outcome: null },
      { step: 'location', done: false, outcome: null },
    ]);
    await hosted(session.session_token, '/session/start', {});
    const timeline = await service.core.sessions.timeline(service.demo.project_id, session.session_id);
    expect(timeline.map((entry) => [entry.from, entry.to, entry.actor])).toEqual([
      [null, 'NOT_STARTED', expect.stringMatching(/^api_key:/)],
      ['NOT_STARTED', 'IN_PROGRESS', 'user'],
    ]);
  });

  it('approves when every check passes, records the checks, writes the webhook and hints the redirect', async () => {
    const session = await createSession({
      workflow_id: await workflow(['liveness', 'location']),
      redirect_url: 'https://app.example.com/done?from=verity',
      vendor_data: 'approve-me',
      metadata: { expected_lat: 40.7128, expected_lng: -74.006, radius_m: 500 },
    });
    await hosted(session.session_token, '/session/start', {});
    const burst = await hosted(session.session_token, '/session/steps/selfie', await selfie(session.session_token));
    expect(burst.status, JSON.stringify(burst.body)).toBe(200);
    expect(burst.body.data.status).toBe('IN_PROGRESS');
    const location = await hosted(session.session_token, '/session/steps/location', {
      latitude: 40.713,
      longitude: -74.0065,
      accuracy: 12,
    });
    expect(location.body.data.status).toBe('APPROVED');
    expect(location.body.data.redirect_to).toBe('https://app.example.com/done?from=verity&status=APPROVED');

    const decision = (await service.http.get(`/api/v2/session/${session.session_id}/decision`).set(key())).body.data;
    expect(decision).toMatchObject({
      session_id: session.session_id,
      status: 'APPROVED',
      decision: 'APPROVED',
      decided_at: '2026-11-23T10:00:00.000Z',
      vendor_data: 'approve-me',
    });
    expect(decision.checks.map((c: { type: string; status: string }) => [c.type, c.status])).toEqual([
      ['liveness', 'passed'],
      ['location', 'passed'],
    ]);
    expect(decision.checks[0].data).toMatchObject({
      live_score: 1,
      result: 'live',
      mode: 'burst',
      frames: 3,
      challenge: { performed: true },
    });
    expect(decision.checks[1].data).toMatchObject({ expected_latitude: 40.7128, radius_m: 500, match: true });

    const events = await sql<{ type: string; body: string; state: string }>(
      service,
      'select type, body, state from webhook_event where session_id = ?',
      [session.session_id],
    );
    expect(events).toHaveLength(1);
    expect(events[0]!.type).toBe('verification.approved');
    expect(JSON.parse(events[0]!.body)).toMatchObject({
      type: 'verification.approved',
      session_id: session.session_id,
      status: 'APPROVED',
      decision: 'approved',
      vendor_data: 'approve-me',
    });

    const again = await hosted(session.session_token, '/session/steps/location', {
      latitude: 40.713,
      longitude: -74.0065,
      accuracy: 12,
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('session_closed');
  });

  it('declines at once on a hard fail: outside the geofence', async () => {
    const session = await createSession({
      workflow_id: await workflow(['location', 'liveness']),
      metadata: { expected_lat: 40.7128, expected_lng: -74.006, radius_m: 500 },
    });
    const response = await hosted(session.session_token, '/session/steps/location', {
      latitude: 51.5,
      longitude: -0.12,
      accuracy: 10,
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data.status).toBe('DECLINED');
    const [check] = await sql<{ reason: string }>(service, 'select reason from session_check where session_id = ?', [
      session.session_id,
    ]);
    expect(check!.reason).toBe('outside_geofence');
  });

  it("takes the geofence from the session alone: an expected point in the person's body is not passed on", async () => {
    const session = await createSession({ workflow_id: await workflow(['location']) });
    const response = await hosted(session.session_token, '/session/steps/location', {
      latitude: 51.5,
      longitude: -0.12,
      accuracy: 10,
      expected_latitude: 40.7128,
      expected_longitude: -74.006,
      radius_m: 500,
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data.status).toBe('APPROVED');
    const decision = (await service.http.get(`/api/v2/session/${session.session_id}/decision`).set(key())).body.data;
    expect(decision.checks[0].data).toMatchObject({ latitude: 51.5, longitude: -0.12 });
    expect(decision.checks[0].data).not.toHaveProperty('expected_latitude');
  });

  it("asks again when the location prompt is refused, with the reason and each try in the timeline; the workflow's last try declines", async () => {
    const session = await createSession({ workflow_id: await workflow(['location', 'liveness']) });
    const refusal = { source: 'permission_denied', error: 'location permission denied' };
    const first = await hosted(session.session_token, '/session/steps/location', refusal);
    expect(first.status, JSON.stringify(first.body)).toBe(422);
    expect(first.body.error.code).toBe('step_retry_required');
    expect(first.body.data).toEqual({ step: 'location', reason: 'permission_denied', tries_left: 2 });
    expect(first.body.error.message).toMatch(/Try again \(2 tries left\)/);
    // Nothing was recorded and the step is still to do.
    expect(await sql(service, 'select id from session_check where session_id = ?', [session.session_id])).toEqual([]);
    const state = await hosted(session.session_token, '/session');
    expect(state.body.data.status).toBe('IN_PROGRESS');
    expect(state.body.data.steps.find((s: { step: string }) => s.step === 'location').done).toBe(false);
    const timeline = await service.core.sessions.timeline(service.demo.project_id, session.session_id);
    expect(timeline.at(-1)).toMatchObject({
      from: 'IN_PROGRESS',
      to: 'IN_PROGRESS',
      actor: 'user',
      reason: 'location: permission_denied, asked again (try 1 of 3)',
    });

    const second = await hosted(session.session_token, '/session/steps/location', refusal);
    expect(second.body.data).toEqual({ step: 'location', reason: 'permission_denied', tries_left: 1 });
    const last = await hosted(session.session_token, '/session/steps/location', refusal);
    expect(last.status, JSON.stringify(last.body)).toBe(200);
    expect(last.body.data.status).toBe('DECLINED');
    const [check] = await sql<{ reason: string }>(service, 'select reason from session_check where session_id = ?', [
      session.session_id,
    ]);
    expect(check!.reason).toBe('permission_denied');
  });

  it('a workflow gives as many tries as it says: one try declines at once; out-of-range limits are refused', async () => {
    const once = await service.core.tenancy.createWorkflow({
      projectId: service.demo.project_id,
      name: 'one try',
      features: ['location'],
      maxStepTries: 1,
    });
    expect(once.maxStepTries).toBe(1);
    const session = await createSession({ workflow_id: once.id });
    const refused = await hosted(session.session_token, '/session/steps/location', { source: 'permission_denied' });
    expect(refused.status).toBe(200);
    expect(refused.body.data.status).toBe('DECLINED');
    for (const maxStepTries of [0, 11, 2.5]) {
      await expect(
        service.core.tenancy.createWorkflow({
          projectId: service.demo.project_id,
          name: 'bad',
          features: ['location'],
          maxStepTries,
        }),
      ).rejects.toMatchObject({ code: 'validation_error' });
    }
    expect(
      (
        await service.core.tenancy.createWorkflow({
          projectId: service.demo.project_id,
          name: 'default',
          features: ['location'],
        })
      ).maxStepTries,
    ).toBe(3);
  });

  it('a refusal then a good answer passes the step: the try that was asked again does not count against the person', async () => {
    const session = await createSession({ workflow_id: await workflow(['location']) });
    expect(
      (await hosted(session.session_token, '/session/steps/location', { source: 'permission_denied' })).status,
    ).toBe(422);
    const answered = await hosted(session.session_token, '/session/steps/location', {
      latitude: 40.7128,
      longitude: -74.006,
      accuracy: 10,
    });
    expect(answered.body.data.status).toBe('APPROVED');
  });

  it('lets a spoofed or gesture-less selfie be retaken twice, and declines on the third', async () => {
    const session = await createSession({ workflow_id: await workflow(['liveness', 'location']) });
    const attempts = [
      await selfie(session.session_token, { person: 3, live: false }),
      await selfie(session.session_token, { person: 3 }, { perform: false }),
      await selfie(session.session_token, { person: 3, live: false }),
    ];
    for (const [i, body] of attempts.entries()) {
      const response = await hosted(session.session_token, '/session/steps/selfie', body);
      if (i < 2) {
        expect(response.status).toBe(422);
        expect(response.body.error.code).toBe('face_rescan_required');
        expect(response.body.error.message).toContain(`${2 - i} left`);
        // The page words the reason in the person's language from its code.
        expect(response.body.data).toEqual({ step: 'selfie', reason: 'spoof', tries_left: 2 - i });
      } else {
        expect(response.body.data.status).toBe('DECLINED');
        expect(response.body.data.steps).toEqual([
          { step: 'selfie', done: true, outcome: 'failed' },
          { step: 'location', done: true, outcome: 'not_run' },
        ]);
      }
    }
    const [check] = await sql<{ type: string; reason: string }>(
      service,
      'select type, reason from session_check where session_id = ?',
      [session.session_id],
    );
    expect(check).toEqual({ type: 'liveness', reason: 'spoof' });
    // Every try is in the timeline with its reason, and keeps its frame for the review.
    const timeline = await service.core.sessions.timeline(service.demo.project_id, session.session_id);
    expect(timeline.map((entry) => entry.reason)).toEqual([
      'created',
      'page opened',
      'selfie: spoof, retake asked (try 1 of 3)',
      'selfie: spoof, retake asked (try 2 of 3)',
      'liveness: spoof',
    ]);
    const images = await service.core.sessions.evidenceOf(service.demo.project_id, session.session_id);
    expect(images.map((image) => [image.kind, image.attempt])).toEqual([
      ['selfie', 1],
      ['selfie', 2],
      ['selfie', 3],
    ]);
  });

  it('asks for a challenge per selfie: required, single use, and only where the workflow has liveness', async () => {
    const session = await createSession({ workflow_id: await workflow(['liveness', 'location']) });
    const body = await selfie(session.session_token);
    const without = await hosted(session.session_token, '/session/steps/selfie', {
      frames: body.frames,
      captured_ms: body.captured_ms,
    });
    expect(without.status).toBe(400);
    expect(without.body.data.errors).toHaveProperty('challenge_id');
    const untimed = await hosted(session.session_token, '/session/steps/selfie', {
      frames: body.frames,
      challenge_id: body.challenge_id,
    });
    expect(untimed.status).toBe(400);
    expect(untimed.body.data.errors).toHaveProperty('captured_ms');
    // Frames from before the challenge, or spread over more than 4 s, were not taken for it.
    for (const captured_ms of [
      [-500, 0, 400],
      [0, 2500, 5000],
    ]) {
      const stale = await hosted(session.session_token, '/session/steps/selfie', { ...body, captured_ms });
      expect(stale.status, JSON.stringify(captured_ms)).toBe(400);
      expect(stale.body.error.code).toBe('invalid_frames');
    }
    expect((await hosted(session.session_token, '/session/steps/selfie', body)).status).toBe(200);
    const noLiveness = await createSession({ workflow_id: await workflow(['location']) });
    expect((await hosted(noLiveness.session_token, '/session/challenge', {})).status).toBe(404);
  });

  it('runs each step once, asks for a retry on unusable input, and refuses unknown steps', async () => {
    const session = await createSession({ workflow_id: await workflow(['liveness', 'location']) });
    const { challenge_id, captured_ms } = await selfie(session.session_token);
    const blank = (grey: number) =>
      sharp({ create: { width: 64, height: 64, channels: 3, background: { r: grey, g: grey, b: grey } } })
        .png()
        .toBuffer();
    const noFace = await hosted(session.session_token, '/session/steps/selfie', {
      frames: await Promise.all([10, 20, 30].map(async (grey) => dataUrl(await blank(grey)))),
      challenge_id,
      captured_ms,
    });
    expect(noFace.status).toBe(422);
    expect(noFace.body.error.code).toBe('no_face');
    const corrupt = await hosted(session.session_token, '/session/steps/selfie', {
      frames: ['AAQSkZJRgABAQ', 'AAQSkZJRgABAg', 'AAQSkZJRgABAw'].map((tail) => `data:image/jpeg;base64,/9j/4${tail}`),
      challenge_id,
      captured_ms,
    });
    expect(corrupt.status).toBe(422);
    const tooFew = await hosted(session.session_token, '/session/steps/selfie', {
      frames: [dataUrl(await live())],
      challenge_id,
      captured_ms: [0],
    });
    expect(tooFew.body.error.code).toBe('invalid_frames');
    const tooMany = await hosted(session.session_token, '/session/steps/selfie', {
      frames: Array.from({ length: 9 }, () => dataUrl(Buffer.from('x'))),
      challenge_id,
      captured_ms,
    });
    expect(tooMany.body.error.code).toBe('too_many_frames');
    const notFrames = await hosted(session.session_token, '/session/steps/selfie', { frames: 'abc' });
    expect(notFrames.body.error.code).toBe('validation_error');
    const ok = await hosted(session.session_token, '/session/steps/selfie', await selfie(session.session_token));
    expect(ok.body.data.steps[0]).toEqual({ step: 'selfie', done: true, outcome: 'passed' });
    const twice = await hosted(session.session_token, '/session/steps/selfie', await selfie(session.session_token));
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe('conflict');
    const unknown = await hosted(session.session_token, '/session/steps/licence', {});
    expect(unknown.status).toBe(404);
  });

  it('lets exactly one of two simultaneous submissions of a step through', async () => {
    const session = await createSession({ workflow_id: await workflow(['liveness', 'location']) });
    await hosted(session.session_token, '/session/start', {});
    const bursts = await Promise.all([1, 2, 3].map(() => selfie(session.session_token)));
    const answers = await Promise.all(
      bursts.map((body) => hosted(session.session_token, '/session/steps/selfie', body)),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409]);
    const checks = await sql(service, 'select id from session_check where session_id = ?', [session.session_id]);
    expect(checks).toHaveLength(1);
  });
});

describe('account-bound sessions', () => {
  async function boundSession(email: string, identity: { documentExpiry?: string }) {
    const account = await service.core.accounts.createAccount({ email, password: 'correct horse battery' });
    await service.core.accounts.recordVerifiedIdentity({
      svcId: account.svcId,
      fullName: 'Ada Lovelace',
      dateOfBirth: '1990-12-10',
      ...identity,
    });
    const { token } = await service.core.accessTokens.issue(account.svcId, service.demo.oidc.client_id, ['openid']);
    return createSession({
      workflow_id: await workflow(['id_verification', 'age', 'location']),
      svc_access_token: token,
    });
  }

  it('reuses a verified identity: the document step is done from the account, proofs only, marked reused', async () => {
    const session = await boundSession('reuse@example.com', { documentExpiry: '2030-01-01' });
    const opened = await hosted(session.session_token, '/session/start', {});
    expect(opened.body.data.steps).toEqual([
      { step: 'document', done: true, outcome: 'passed' },
      { step: 'location', done: false, outcome: null },
    ]);
    const done = await hosted(session.session_token, '/session/steps/location', {
      latitude: 1,
      longitude: 2,
      accuracy: 5,
    });
    expect(done.body.data.status).toBe('APPROVED');
    const decision = (await service.http.get(`/api/v2/session/${session.session_id}/decision`).set(key())).body.data;
    expect(
      decision.checks.slice(0, 2).map((c: { type: string; data: { reused?: boolean } }) => [c.type, c.data.reused]),
    ).toEqual([
      ['id_verification', true],
      ['age', true],
    ]);
    expect(JSON.stringify(decision.checks)).not.toContain('1990-12-10');
    expect(decision.identity).toEqual({ full_name: 'Ada Lovelace', licenses: [] });
  });

  it('does not reuse an identity whose document has expired since: the person verifies fully', async () => {
    const session = await boundSession('expired-doc@example.com', { documentExpiry: '2025-01-01' });
    const opened = await hosted(session.session_token, '/session/start', {});
    expect(opened.body.data.steps).toEqual([
      { step: 'document', done: false, outcome: null },
      { step: 'location', done: false, outcome: null },
    ]);
    expect(opened.body.data.checks).toEqual([]);
  });
});

describe('expiry (the maintenance sweep)', () => {
  it('expires unopened sessions, abandons started ones, refuses input after the deadline, and announces both', async () => {
    const id = await workflow(['liveness', 'location']);
    const unopened = await createSession({ workflow_id: id, ttl_seconds: 300 });
    const started = await createSession({ workflow_id: id, ttl_seconds: 300 });
    const later = await createSession({ workflow_id: id, ttl_seconds: 3600 });
    await hosted(started.session_token, '/session/start', {});
    clock.advance(301_000);
    const lapsed = await hosted(started.session_token, '/session/steps/location', {
      latitude: 1,
      longitude: 2,
      accuracy: 5,
    });
    expect(lapsed.status).toBe(410);
    expect(lapsed.body.error.code).toBe('session_expired');
    // Reading does not move anything; the sweep does.
    expect((await service.http.get(`/api/v2/session/${unopened.session_id}`).set(key())).body.data.status).toBe(
      'NOT_STARTED',
    );
    expect(await service.core.sessions.expireDue()).toBeGreaterThanOrEqual(2);
    const status = async (s: { session_id: string }) =>
      (await service.http.get(`/api/v2/session/${s.session_id}`).set(key())).body.data.status;
    expect(await status(unopened)).toBe('EXPIRED');
    expect(await status(started)).toBe('ABANDONED');
    expect(await status(later)).toBe('NOT_STARTED');
    const types = await sql<{ type: string }>(
      service,
      'select type from webhook_event where session_id in (?, ?) order by type',
      [unopened.session_id, started.session_id],
    );
    expect(types.map((t) => t.type)).toEqual(['verification.abandoned', 'verification.expired']);
    clock.advance(-301_000);
  });
});

describe('manual review (PATCH /api/v2/session/{id}/status)', () => {
  it('applies the 409 rules: not in review, closed, and approval without the face checks', async () => {
    const session = await createSession({ workflow_id: await workflow(['liveness', 'location']) });
    const notPending = await service.http
      .patch(`/api/v2/session/${session.session_id}/status`)
      .set(key())
      .send({ status: 'APPROVED' });
    expect(notPending.status).toBe(409);
    expect(notPending.body.error.code).toBe('review_not_pending');
    const badBody = await service.http
      .patch(`/api/v2/session/${session.session_id}/status`)
      .set(key())
      .send({ status: 'MAYBE' });
    expect(badBody.status).toBe(400);
    // A refused location is asked again; the workflow's third refusal declines.
    for (let i = 0; i < 3; i++)
      await hosted(session.session_token, '/session/steps/location', { source: 'permission_denied' });
    const closed = await service.http
      .patch(`/api/v2/session/${session.session_id}/status`)
      .set(key())
      .send({ status: 'APPROVED' });
    expect(closed.status).toBe(409);
    expect(closed.body.error.code).toBe('session_closed');
  });

  it('takes a document needing review to IN_REVIEW, then one of two reviewers wins, audited; approval verifies the bound account', async () => {
    // A bound account whose face reference is the selfie's person: the face match runs against it.
    const account = await service.core.accounts.createAccount({
      email: 'review@example.com',
      password: 'correct horse battery',
    });
    const engine = markerFaceEngine();
    const { decodeImage } = await import('../src/ml/image.js');
    await service.core.accounts.setFaceReference(
      account.svcId,
      (await engine.describeLargestFace(await decodeImage(await live(4))))!.descriptor,
    );
    const { token } = await service.core.accessTokens.issue(account.svcId, service.demo.oidc.client_id, ['openid']);
    const session = await createSession({
      workflow_id: await workflow(['id_verification', 'liveness', 'face_match']),
      svc_access_token: token,
      vendor_data: 'review',
    });

    // The front of an ID card without its back: printed fields but no machine-readable zone, so
    // the document check is `review` (a person must look at it).
    const card = await renderDocument({
      ...renderSpecs(2)[1]!,
      layout: 'TD1',
      rotation: 0,
      skew: 0,
      blur: 0,
      jpegQuality: null,
    });
    const read = await hosted(session.session_token, '/session/steps/document', { front_image: dataUrl(card.bytes) });
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    const burst = await hosted(session.session_token, '/session/steps/selfie', await selfie(session.session_token));
    expect(burst.status, JSON.stringify(burst.body)).toBe(200);
    expect(burst.body.data.checks.map((c: { type: string; status: string }) => [c.type, c.status])).toEqual([
      ['id_verification', 'review'],
      ['liveness', 'passed'],
      ['face_match', 'passed'],
    ]);
    expect(burst.body.data.status).toBe('IN_REVIEW');

    const decisions = await Promise.all(
      ['APPROVED', 'APPROVED'].map((status) =>
        service.http.patch(`/api/v2/session/${session.session_id}/status`).set(key()).send({ status }),
      ),
    );
    expect(decisions.map((d) => d.status).sort()).toEqual([200, 409]);
    const winner = decisions.find((d) => d.status === 200)!.body.data;
    expect(decisions.find((d) => d.status === 409)!.body.error.code).toBe('session_closed');
    const timeline = await service.core.sessions.timeline(service.demo.project_id, session.session_id);
    expect(timeline.at(-1)).toMatchObject({
      from: 'IN_REVIEW',
      to: winner.status,
      actor: expect.stringMatching(/^api_key:/),
      reason: 'manual review',
    });
    const events = await sql<{ type: string }>(
      service,
      'select type from webhook_event where session_id = ? order by created_at, type',
      [session.session_id],
    );
    expect(events.map((e) => e.type).sort()).toEqual(
      [`verification.${winner.status.toLowerCase()}`, 'verification.in_review'].sort(),
    );
    const [work] = await sql<{ work_sealed: string | null }>(
      service,
      'select work_sealed from verification_session where id = ?',
      [session.session_id],
    );
    expect(work!.work_sealed).toBeNull();
    const decision = (await service.http.get(`/api/v2/session/${session.session_id}/decision`).set(key())).body.data;
    expect(decision.svc_id).toBe(account.svcId);
    expect(decision.checks[0].data.portrait).toBeUndefined();
    expect(winner.status).toBe('APPROVED');
    expect((await service.core.accounts.view(account.svcId)).idVerified).toBe(true);
    expect(decision.identity.full_name).toBeTruthy();
  }, 60_000);
});
