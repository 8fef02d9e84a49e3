import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/core/clock.js';
import { LIVENESS_ASSURANCES, livenessAssurance } from '../src/core/checks/liveness.js';
import { createSession, liveBurst, submitStep } from './helpers/admin-sessions.js';
import { markerFaceEngine, markerImage, type MarkerFace } from './helpers/face-engine.js';
import { startTestService, type TestService } from './helpers/service.js';

// What a liveness answer can prove, said in its data: one uploaded still cannot rule out an
// injected or generated image (`single_image`), the hosted page's burst with its challenge,
// capture times and continuity says more (`hosted_capture`). The spec's `live_score` and
// `result` are unchanged. The deterministic face engine stands in for the models.

let service: TestService;
const clock = new ManualClock(new Date('2026-11-23T10:00:00Z'));
const key = () => ({ 'X-API-Key': service.demo.api_key });
const b64 = async (face: MarkerFace) => (await markerImage(face)).toString('base64');
const codes = (limits: Array<{ code: string; detail: string }>) => limits.map((l) => l.code);
/** One still of a marker face, sent to a standalone route as `image`. */
const still = async (path: string, face: MarkerFace) =>
  service.http
    .post(path)
    .set(key())
    .send({ image: await b64(face) });

beforeAll(async () => {
  service = await startTestService({}, { clock, faceEngine: markerFaceEngine() });
});
afterAll(async () => {
  await service?.close();
});

describe('liveness assurance', () => {
  it('says a standalone liveness call on one still is single_image, with what it cannot rule out; live_score and result as the spec has them', async () => {
    const res = await still('/api/v2/liveness', { person: 3, live: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { check } = res.body.data;
    expect(check).toMatchObject({
      type: 'liveness',
      status: 'passed',
      data: { live_score: 1, result: 'live', assurance: 'single_image' },
    });
    expect(codes(check.data.limits)).toEqual(['injected_image', 'synthetic_face', 'earlier_photo']);
    for (const limit of check.data.limits) expect(limit.detail.length).toBeGreaterThan(20);
    // A spoof still says the same of itself.
    const spoof = await still('/api/v2/liveness', { person: 3, live: false });
    expect(spoof.body.data.check.data).toMatchObject({ live_score: 0, result: 'spoof', assurance: 'single_image' });
  });

  it('says the same of a single-image anti-spoof, and burst for uploaded frames without a challenge', async () => {
    const single = await still('/api/v2/antispoof', { person: 4, live: true });
    expect(single.status, JSON.stringify(single.body)).toBe(200);
    expect(single.body.data.check.data).toMatchObject({ live_score: 1, result: 'live', assurance: 'single_image' });
    const frames = await Promise.all([0, 1, 2].map((nonce) => b64({ person: 4, live: true, jitter: 0.05, nonce })));
    const burst = await service.http.post('/api/v2/antispoof').set(key()).send({ frames });
    expect(burst.status, JSON.stringify(burst.body)).toBe(200);
    expect(burst.body.data.check.data).toMatchObject({ mode: 'burst', assurance: 'burst' });
    expect(codes(burst.body.data.check.data.limits)).toEqual(['injected_frames', 'replayed_capture']);
  });

  it("reports hosted_capture for the hosted page's burst (challenge, capture times, continuity), above single_image", async () => {
    const workflow = await service.core.tenancy.createWorkflow({
      projectId: service.demo.project_id,
      name: 'selfie',
      features: ['liveness'],
    });
    const session = await createSession(service, service.demo.api_key, { workflow_id: workflow.id });
    expect(
      (await submitStep(service, session.session_token, 'selfie', await liveBurst(service, session.session_token)))
        .status,
    ).toBe('APPROVED');
    const decision = (await service.http.get(`/api/v2/session/${session.session_id}/decision`).set(key())).body.data;
    const [liveness] = decision.checks;
    expect(liveness).toMatchObject({
      type: 'liveness',
      status: 'passed',
      data: { live_score: 1, result: 'live', assurance: 'hosted_capture' },
    });
    expect(codes(liveness.data.limits)).toEqual(['real_time_face_swap']);
    expect(LIVENESS_ASSURANCES.indexOf(liveness.data.assurance)).toBeGreaterThan(
      LIVENESS_ASSURANCES.indexOf('single_image'),
    );
  });
});

describe('livenessAssurance (rule)', () => {
  it('ranks a still, an uploaded burst, a burst answering a challenge and the hosted capture, each with its limits', () => {
    expect(livenessAssurance({ frames: 1, challenge: false, captureTimes: false, hosted: false }).assurance).toBe(
      'single_image',
    );
    expect(livenessAssurance({ frames: 4, challenge: false, captureTimes: false, hosted: false }).assurance).toBe(
      'burst',
    );
    const timed = livenessAssurance({ frames: 4, challenge: true, captureTimes: true, hosted: false });
    expect(timed.assurance).toBe('challenge_burst');
    expect(codes(timed.limits)).toEqual(['injected_frames', 'real_time_face_swap']);
    expect(codes(livenessAssurance({ frames: 4, challenge: true, captureTimes: false, hosted: false }).limits)).toEqual(
      ['capture_times_unchecked', 'injected_frames', 'real_time_face_swap'],
    );
    expect(livenessAssurance({ frames: 3, challenge: true, captureTimes: true, hosted: true }).assurance).toBe(
      'hosted_capture',
    );
    expect(LIVENESS_ASSURANCES).toEqual(['single_image', 'burst', 'challenge_burst', 'hosted_capture']);
  });
});
