import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markerFaceEngine, markerImage, type MarkerFace } from './helpers/face-engine.js';
import { startTestService, type TestService } from './helpers/service.js';

// What test mode is for (src/core/checks/sandbox.ts): a test key's calls that run real models answer
// verdicts and reasons without scores, thresholds or model evidence, and only a few times a day
// per project; forced outcomes and checks without models stay free and unlimited.

const engine = markerFaceEngine();
const DAILY = 3;
let service: TestService;
let liveKey: string;
let testKey: string;
let otherTestKey: string;

beforeAll(async () => {
  service = await startTestService({ sandboxDailyChecks: DAILY }, { faceEngine: engine });
  const created = await service.core.tenancy.createProject({ name: 'Sandbox models', balance: 1000 });
  liveKey = created.key;
  testKey = (await service.core.tenancy.createApiKey({ projectId: created.project.id, name: 'ci', mode: 'test' })).key;
  const other = await service.core.tenancy.createProject({ name: 'Other', balance: 0 });
  otherTestKey = (await service.core.tenancy.createApiKey({ projectId: other.project.id, name: 'ci', mode: 'test' }))
    .key;
});
afterAll(async () => {
  await service?.close();
});

const b64 = async (face: MarkerFace | null) => (await markerImage(face)).toString('base64');
const faceMatch = async (key: string, a: MarkerFace, b: MarkerFace, outcome?: string) => {
  const request = service.http.post('/api/v2/face-match').set('X-API-Key', key);
  if (outcome) request.set('Verity-Test-Outcome', outcome);
  return request.send({ image1: await b64(a), image2: await b64(b) });
};

/** Every key anywhere in a JSON value. */
const keysOf = (value: unknown): string[] =>
  Array.isArray(value)
    ? value.flatMap(keysOf)
    : value && typeof value === 'object'
      ? Object.entries(value).flatMap(([key, inner]) => [key, ...keysOf(inner)])
      : [];

describe('test keys with real models', () => {
  it('answer the verdict and its reason, without similarity, threshold or score; a live key gets them', async () => {
    const live = await faceMatch(liveKey, { person: 1 }, { person: 2 });
    expect(live.status, JSON.stringify(live.body)).toBe(200);
    expect(live.body.data.check.data).toHaveProperty('similarity');
    expect(live.body.data.check.data).toHaveProperty('threshold');
    expect(live.body.data.check.error).toMatch(/similarity/);

    const test = await faceMatch(testKey, { person: 1 }, { person: 2 });
    expect(test.status, JSON.stringify(test.body)).toBe(200);
    expect(test.body.data).toMatchObject({ status: 'failed', livemode: false });
    expect(test.body.data.check.score).toBeUndefined();
    const keys = keysOf(test.body.data.check);
    for (const hidden of ['similarity', 'threshold', 'score']) expect(keys).not.toContain(hidden);
    expect(test.body.data.check.error).toBe('the faces do not match');
    expect(test.body.data.check.error).not.toMatch(/\d/);

    const same = await faceMatch(testKey, { person: 1 }, { person: 1, variant: 1 });
    expect(same.body.data.status).toBe('passed'); // the real rule still decides
  });

  it('stop at the daily quota with 429 rate_limited until the next UTC day; forced outcomes, age checks and other projects go on', async () => {
    // Two calls above spent 2 of 3; the third is the last one.
    expect((await faceMatch(testKey, { person: 3 }, { person: 3, variant: 1 })).status).toBe(200);
    const over = await faceMatch(testKey, { person: 3 }, { person: 3, variant: 1 });
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe('rate_limited');
    expect(over.body.error.message).toMatch(/Verity-Test-Outcome/);
    expect(over.body.data).toMatchObject({ reason: 'sandbox_quota', limit: DAILY });
    const retryAfter = Number(over.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(24 * 3600);
    expect(new Date(over.body.data.resets_at).getUTCHours()).toBe(0);

    expect((await faceMatch(testKey, { person: 3 }, { person: 4 }, 'approve')).body.data.status).toBe('passed');
    const age = await service.http
      .post('/api/v2/age-verification')
      .set('X-API-Key', testKey)
      .send({ dob: '1990-01-01' });
    expect(age.status).toBe(200);
    expect((await faceMatch(otherTestKey, { person: 3 }, { person: 3, variant: 1 })).status).toBe(200);
    expect((await faceMatch(liveKey, { person: 3 }, { person: 3, variant: 1 })).status).toBe(200);
  });

  it('racing for the last units of a day never grants more than the quota', async () => {
    const project = await service.core.tenancy.createProject({ name: 'Race', balance: 0 });
    const key = (await service.core.tenancy.createApiKey({ projectId: project.project.id, name: 'ci', mode: 'test' }))
      .key;
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => faceMatch(key, { person: 5 }, { person: 5, variant: i })),
    );
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(DAILY);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(8 - DAILY);
  });
});

describe('test sessions with real models', () => {
  const hosted = (token: string, path: string, body: object) =>
    service.http.post(`/api/hosted${path}`).set('X-Session-Token', token).send(body);
  const dataUrl = (bytes: Buffer) => `data:image/png;base64,${bytes.toString('base64')}`;
  const GESTURE: Record<string, Partial<MarkerFace>> = {
    turn_left: { yaw: 0.2 },
    turn_right: { yaw: -0.2 },
    look_up: { pitch: -0.15 },
    blink: { ear: 0.05 },
    smile: { mouth: 1.3 },
  };

  async function selfieStep(token: string) {
    const { challenge_id, gesture } = (await hosted(token, '/session/challenge', {})).body.data;
    const burst: MarkerFace[] = [
      { person: 8, jitter: 0.03 },
      { person: 8, jitter: 0.03, nonce: 1, ...GESTURE[gesture] },
      { person: 8, jitter: 0.03, nonce: 2 },
    ];
    return hosted(token, '/session/steps/selfie', {
      frames: await Promise.all(burst.map(async (f) => dataUrl(await markerImage(f)))),
      challenge_id,
      captured_ms: [0, 200, 400],
    });
  }

  it('decide on the real checks, record them without scores, and spend the quota per model step', async () => {
    const project = await service.core.tenancy.createProject({ name: 'Hosted sandbox', balance: 0 });
    const key = (await service.core.tenancy.createApiKey({ projectId: project.project.id, name: 'ci', mode: 'test' }))
      .key;
    const workflow = await service.core.tenancy.createWorkflow({
      projectId: project.project.id,
      name: 'selfie',
      features: ['liveness'],
    });
    const start = async () => {
      const created = await service.http
        .post('/api/v2/session')
        .set('X-API-Key', key)
        .send({ workflow_id: workflow.id });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      await hosted(created.body.data.session_token, '/session/start', {});
      return created.body.data as { session_id: string; session_token: string };
    };

    const session = await start();
    const step = await selfieStep(session.session_token);
    expect(step.status, JSON.stringify(step.body)).toBe(200);
    expect(step.body.data.status).toBe('APPROVED');
    const decision = (await service.http.get(`/api/v2/session/${session.session_id}/decision`).set('X-API-Key', key))
      .body.data;
    expect(decision.checks[0]).toMatchObject({
      type: 'liveness',
      status: 'passed',
      data: { live_score: 1, result: 'live' },
    });
    const keys = keysOf(decision.checks[0]);
    for (const hidden of ['score', 'scores', 'evidence', 'similarity', 'threshold']) expect(keys).not.toContain(hidden);

    for (let i = 1; i < DAILY; i++) expect((await selfieStep((await start()).session_token)).status).toBe(200);
    const over = await selfieStep((await start()).session_token);
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe('rate_limited');
  });
});
