import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/core/clock.js';
import type { CheckContext } from '../src/core/checks/types.js';
import { markerFaceEngine, markerImage, type MarkerFace } from './helpers/face-engine.js';
import { sql, startTestService, type TestService } from './helpers/service.js';

// POST /api/v2/antispoof, /antispoof/challenge and /antispoof/identity: the rules (frame counts,
// burst motion, gestures, challenge single use and expiry, identity ids) through HTTP on the
// deterministic engine. The real models have their own tests (test/face-engine.test.ts).

const clock = new ManualClock(new Date('2026-11-23T10:00:00Z'));
const engine = markerFaceEngine();
let service: TestService;
let other: { projectId: string; key: string };

beforeAll(async () => {
  service = await startTestService({}, { clock, faceEngine: engine });
  const created = await service.core.tenancy.createProject({ name: 'Other', balance: 100 });
  other = { projectId: created.project.id, key: created.key };
});
afterAll(async () => {
  await service?.close();
});

const post = (path: string, key = service.demo.api_key) => service.http.post(`/api/v2${path}`).set('X-API-Key', key);
const b64 = async (face: MarkerFace | null) => (await markerImage(face)).toString('base64');
const burst = (faces: MarkerFace[]) => Promise.all(faces.map(b64));
/** A live person holding still: tiny non-rigid motion between frames. */
const still = (person: number, n = 4, extra: Partial<MarkerFace> = {}): MarkerFace[] =>
  Array.from({ length: n }, (_, i) => ({ person, jitter: 0.05, nonce: i, ...extra }));
const balance = async () =>
  Number(
    (
      await sql<{ balance_minor: string }>(service, 'select balance_minor from wallet where project_id = ?', [
        service.demo.project_id,
      ])
    )[0]!.balance_minor,
  );

describe('POST /api/v2/antispoof: input', () => {
  it('takes 3 to 8 frames: invalid_frames below, too_many_frames above, both before any model runs or charge', async () => {
    const calls = engine.calls;
    const before = await balance();
    const two = await post('/antispoof').send({ frames: await burst(still(1, 2)) });
    expect(two.status).toBe(400);
    expect(two.body.error.code).toBe('invalid_frames');
    const nine = await post('/antispoof').send({ frames: await burst(still(1, 9)) });
    expect(nine.status).toBe(400);
    expect(nine.body.error.code).toBe('too_many_frames');
    const empty = await post('/antispoof').send({ frames: [] });
    expect(empty.body.error.code).toBe('invalid_frames');
    const both = await post('/antispoof').send({ image: await b64({ person: 1 }), frames: await burst(still(1, 3)) });
    expect(both.status).toBe(400);
    expect(both.body.error.code).toBe('validation_error');
    const neither = await post('/antispoof').send({});
    expect(neither.body.error.code).toBe('validation_error');
    const notImages = await post('/antispoof').send({ frames: 'abc' });
    expect(notImages.status).toBe(400);
    expect(notImages.body.error.code).toBe('validation_error');
    const badElement = await post('/antispoof').send({
      frames: [await b64({ person: 1 }), 12, await b64({ person: 1 })],
    });
    expect(badElement.body.error.code).toBe('validation_error');
    const challengeWithoutBurst = await post('/antispoof').send({
      image: await b64({ person: 1 }),
      challengeId: 'chl_x',
    });
    expect(challengeWithoutBurst.status).toBe(400);
    expect(challengeWithoutBurst.body.error.code).toBe('frames_required');
    expect(engine.calls).toBe(calls);
    expect(await balance()).toBe(before);
  });

  it('accepts a burst as a repeated multipart field, in order', async () => {
    let req = post('/antispoof');
    for (const [i, face] of still(2, 3).entries()) req = req.attach('frames', await markerImage(face), `f${i}.png`);
    const res = await req;
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.check).toMatchObject({
      type: 'antispoof',
      status: 'passed',
      data: { mode: 'burst', frames: 3, live_score: 1, result: 'live' },
    });
  });

  it('answers 422 no_face naming the frame, uncharged', async () => {
    const before = await balance();
    const frames = await burst(still(1, 3));
    frames[1] = await b64(null);
    const res = await post('/antispoof').send({ frames });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('no_face');
    expect(res.body.error.message).toContain('frames[1]');
    expect(await balance()).toBe(before);
  });
});

describe('POST /api/v2/antispoof: verdicts', () => {
  it('judges a single selfie by passive evidence; human_score is at least 0.5 exactly when live', async () => {
    const live = await post('/antispoof').send({ image: await b64({ person: 1 }) });
    expect(live.status).toBe(200);
    expect(live.body.data.status).toBe('passed');
    expect(live.body.data.check.data).toMatchObject({ mode: 'single', live_score: 1, result: 'live' });
    expect(live.body.data.check.data.human_score).toBeGreaterThanOrEqual(0.5);
    expect(live.body.data.check.data.human_score).toBeLessThanOrEqual(1);
    const spoof = await post('/antispoof').send({ image: await b64({ person: 1, live: false }) });
    expect(spoof.body.data.status).toBe('failed');
    expect(spoof.body.data.check.data).toMatchObject({ live_score: 0, result: 'spoof' });
    expect(spoof.body.data.check.data.human_score).toBeLessThan(0.5);
    expect(spoof.body.data.check.data.human_score).toBeGreaterThanOrEqual(0);
  });

  it('calls a burst of a picture only shifted and scaled a spoof', async () => {
    const held = await post('/antispoof').send({
      frames: await burst([
        { person: 3 },
        { person: 3, dx: 12, dy: -5 },
        { person: 3, dx: 25, scale: 1.3 },
        { person: 3, dy: 9, scale: 0.8 },
      ]),
    });
    expect(held.body.data.status).toBe('failed');
    expect(held.body.data.check.data.result).toBe('spoof');
    const motion = held.body.data.check.data.burst.evidence.find(
      (e: { name: string }) => e.name === 'non_rigid_motion',
    );
    expect(motion.passed).toBe(false);
    expect(motion.value).toBeLessThan(0.01);
  });

  it('takes micro-motion, a blink or a head turn as evidence of life', async () => {
    const micro = await post('/antispoof').send({ frames: await burst(still(4)) });
    expect(micro.body.data.check.data.result).toBe('live');
    const blink = await post('/antispoof').send({
      frames: await burst([{ person: 4 }, { person: 4, ear: 0.05 }, { person: 4, dx: 3 }]),
    });
    expect(blink.body.data.check.data).toMatchObject({ result: 'live', burst: { gestures: { blink: true } } });
    const turn = await post('/antispoof').send({
      frames: await burst([{ person: 4 }, { person: 4, yaw: 0.1 }, { person: 4, yaw: 0.2 }]),
    });
    expect(turn.body.data.check.data).toMatchObject({
      result: 'live',
      burst: { gestures: { turn_left: true, turn_right: false } },
    });
    expect(turn.body.data.check.data.human_score).toBeGreaterThanOrEqual(0.5);
    const pose = turn.body.data.check.data.burst.evidence.find((e: { name: string }) => e.name === 'pose_change');
    expect(pose).toMatchObject({ passed: true, value: 22 });
    expect(pose.detail).toContain('yaw 0.0 to 22.0');
  });

  it('reads head turns from the absolute yaw: coming back to the camera from one side is not a turn to the other', async () => {
    // Already turned to the left when the burst starts, then facing the camera again.
    const back = await post('/antispoof').send({
      frames: await burst([{ person: 4, yaw: 0.2 }, { person: 4, yaw: 0.1 }, { person: 4 }]),
    });
    expect(back.body.data.check.data.burst.gestures).toMatchObject({ turn_left: false, turn_right: false });
    // A small sway across the middle (±5 degrees) is motion, but neither turn.
    const sway = await post('/antispoof').send({
      frames: await burst([
        { person: 4, yaw: -0.045 },
        { person: 4, yaw: 0.045 },
        { person: 4, yaw: -0.045, nonce: 1 },
      ]),
    });
    expect(sway.body.data.check.data.burst.gestures).toMatchObject({ turn_left: false, turn_right: false });
    // Left, then right: both were shown.
    const both = await post('/antispoof').send({
      frames: await burst([{ person: 4 }, { person: 4, yaw: 0.2 }, { person: 4, yaw: -0.2 }]),
    });
    expect(both.body.data.check.data.burst.gestures).toMatchObject({ turn_left: true, turn_right: true });
    // Looking down and back up is not looking up: up is measured from the first frame.
    const nod = await post('/antispoof').send({
      frames: await burst([{ person: 4 }, { person: 4, pitch: 0.15 }, { person: 4, nonce: 1 }]),
    });
    expect(nod.body.data.check.data.burst.gestures.look_up).toBe(false);
    // The asked movement must be the main one: a 22 degree turn that lifts the chin 12 degrees is
    // a turn, not looking up; looking up 15 degrees with a 5 degree sway is looking up.
    const turnAndLift = await post('/antispoof').send({
      frames: await burst([
        { person: 4 },
        { person: 4, yaw: 0.1, pitch: -0.06 },
        { person: 4, yaw: 0.2, pitch: -0.12 },
      ]),
    });
    expect(turnAndLift.body.data.check.data.burst.gestures).toMatchObject({ turn_left: true, look_up: false });
    const lookUp = await post('/antispoof').send({
      frames: await burst([{ person: 4 }, { person: 4, yaw: 0.045, pitch: -0.08 }, { person: 4, pitch: -0.15 }]),
    });
    expect(lookUp.body.data.check.data.burst.gestures).toMatchObject({ turn_left: false, look_up: true });
    // Asked to smile or blink, a person keeps the head still: talking while turning is no smile.
    const talkingTurn = await post('/antispoof').send({
      frames: await burst([{ person: 4 }, { person: 4, yaw: 0.1, mouth: 1.3, ear: 0.05 }, { person: 4, yaw: 0.2 }]),
    });
    expect(talkingTurn.body.data.check.data.burst.gestures).toMatchObject({
      turn_left: true,
      smile: false,
      blink: false,
    });
  });

  it('fails a burst whose frames show different people, or whose passive evidence is a spoof', async () => {
    const mixed = await post('/antispoof').send({ frames: await burst([...still(5, 2), { person: 6, jitter: 0.05 }]) });
    expect(mixed.body.data.status).toBe('failed');
    expect(mixed.body.data.check.error).toMatch(/different people/);
    const screen = await post('/antispoof').send({ frames: await burst(still(5, 3, { live: false })) });
    expect(screen.body.data.check.data.result).toBe('spoof');
  });
});

describe('POST /api/v2/antispoof: one continuous capture', () => {
  it('refuses frames of different sizes, a frame sent twice and an oversized burst before any model runs, uncharged', async () => {
    const calls = engine.calls;
    const before = await balance();
    const frames = await burst(still(8, 3));
    const larger = (await sharp(Buffer.from(frames[2]!, 'base64')).resize(120, 120).png().toBuffer()).toString(
      'base64',
    );
    const sizes = await post('/antispoof').send({ frames: [frames[0], frames[1], larger] });
    expect(sizes.status).toBe(400);
    expect(sizes.body.error).toMatchObject({
      code: 'invalid_frames',
      message: expect.stringContaining('frames[2] is 120x120'),
    });
    const twice = await post('/antispoof').send({ frames: [frames[0], frames[1], frames[0]] });
    expect(twice.status).toBe(400);
    expect(twice.body.error).toMatchObject({
      code: 'invalid_frames',
      message: expect.stringContaining('frames[2] is the same image as frames[0]'),
    });
    // Eight 60 MP frames (small files: one flat colour), refused on their headers, never decoded.
    const flat = await sharp({ create: { width: 7745, height: 7745, channels: 3, background: { r: 1, g: 2, b: 3 } } })
      .png()
      .toBuffer();
    const huge = Array.from({ length: 8 }, (_, i) => Buffer.concat([flat, Buffer.from([i])]).toString('base64')); // bytes after the PNG's end make each file another
    const oversized = await post('/antispoof').send({ frames: huge });
    expect(oversized.status).toBe(413);
    expect(oversized.body.error.code).toBe('image_too_large');
    expect(engine.calls).toBe(calls);
    expect(await balance()).toBe(before);
  });

  it('fails a burst of different photos of one person (each taken somewhere else), naming the background', async () => {
    const photos = await post('/antispoof').send({
      frames: await burst([1, 2, 3].map((scene) => ({ person: 8, jitter: 0.05, nonce: scene, scene }))),
    });
    expect(photos.status).toBe(200);
    expect(photos.body.data.status).toBe('failed');
    expect(photos.body.data.check.data).toMatchObject({
      result: 'spoof',
      live_score: 0,
      burst: { one_capture: false },
    });
    expect(photos.body.data.check.error).toMatch(/not one continuous capture \(background/);
    const background = photos.body.data.check.data.burst.evidence.find(
      (e: { name: string }) => e.name === 'background',
    );
    expect(background.passed).toBe(false);
    expect(background.value).toBeGreaterThan(20);
    // The same person in one place, moving a little: one capture.
    const oneCapture = await post('/antispoof').send({ frames: await burst(still(8, 3, { scene: 2 })) });
    expect(oneCapture.body.data.check.data).toMatchObject({ result: 'live', burst: { one_capture: true } });
    for (const name of [
      'face_track',
      'face_scale_track',
      'pose_track',
      'background',
      'illumination',
      'image_quality',
    ]) {
      expect(
        oneCapture.body.data.check.data.burst.evidence.find((e: { name: string }) => e.name === name),
        name,
      ).toMatchObject({ passed: true });
    }
  });

  it('fails a burst whose face jumps between neighbouring frames (a cut), though each step alone looks live', async () => {
    const cut = await post('/antispoof').send({
      frames: await burst([
        { person: 9, jitter: 0.05 },
        { person: 9, jitter: 0.05, nonce: 1 },
        { person: 9, jitter: 0.05, nonce: 2, dx: 200 },
      ]),
    });
    expect(cut.body.data.check.data.result).toBe('spoof');
    const track = cut.body.data.check.data.burst.evidence.find((e: { name: string }) => e.name === 'face_track');
    expect(track).toMatchObject({ passed: false });
    expect(track.detail).toContain('frames 1 to 2');
  });
});

describe('gesture challenge', () => {
  const perform: Record<string, Partial<MarkerFace>> = {
    turn_left: { yaw: 0.2 },
    turn_right: { yaw: -0.2 },
    look_up: { pitch: -0.15 },
    blink: { ear: 0.05 },
    smile: { mouth: 1.3 },
  };
  // Jitter 0.03: natural micro-motion, but too little for the noise alone to look like a gesture
  // (at 0.05 the nose tip wanders enough to read as looking up).
  const framesFor = (gesture: string, person = 7) =>
    burst([
      { person, jitter: 0.03 },
      { person, jitter: 0.03, nonce: 1, ...perform[gesture] },
      { person, jitter: 0.03, nonce: 2 },
    ]);
  // Every gesture but the asked one. The bursts are a gesture and back (neutral, gesture,
  // neutral), so this includes the other head turn: coming back from a left turn is no right turn.
  const otherGestures = (gesture: string) => Object.keys(perform).filter((g) => g !== gesture);

  it('is created for 60 s, passes when the burst shows the gesture, and is single use', async () => {
    const created = await post('/antispoof/challenge').send({});
    expect(created.status).toBe(200);
    const { challenge_id, gesture, expires_at } = created.body.data;
    expect(Object.keys(perform)).toContain(gesture);
    expect(new Date(expires_at).getTime() - clock.now().getTime()).toBe(60_000);
    const res = await post('/antispoof').send({ frames: await framesFor(gesture), challengeId: challenge_id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.status).toBe('passed');
    expect(res.body.data.check.data.challenge).toEqual({ challenge_id, gesture, performed: true });
    // Answering a challenge, without capture times: the assurance says so.
    expect(res.body.data.check.data.assurance).toBe('challenge_burst');
    expect(res.body.data.check.data.limits.map((l: { code: string }) => l.code)).toContain('capture_times_unchecked');
    const again = await post('/antispoof').send({ frames: await framesFor(gesture), challengeId: challenge_id });
    expect(again.status).toBe(403);
    expect(again.body.error.code).toBe('invalid_challenge');
  });

  it('fails the check with a clear error when another gesture is performed, for every gesture asked', async () => {
    // Challenges are drawn at random: draw until each gesture was asked once per other gesture.
    const pending = new Map(Object.keys(perform).map((g) => [g, otherGestures(g)]));
    for (let draws = 0; [...pending.values()].some((left) => left.length > 0) && draws < 500; draws++) {
      const { challenge_id, gesture } = (await post('/antispoof/challenge').send({})).body.data;
      const shown = pending.get(gesture)!.pop();
      if (!shown) continue;
      const res = await post('/antispoof').send({ frames: await framesFor(shown), challengeId: challenge_id });
      expect(res.body.data.status, `asked ${gesture}, showed ${shown}`).toBe('failed');
      expect(res.body.data.check.data.challenge.performed).toBe(false);
      expect(res.body.data.check.error).toContain('the challenge asked to');
    }
    expect([...pending.values()].flat()).toEqual([]);
  });

  it("answers challenge_expired after 60 s, and invalid_challenge for unknown ids and other projects' challenges", async () => {
    const { challenge_id, gesture } = (await post('/antispoof/challenge').send({})).body.data;
    clock.advance(60_001);
    const late = await post('/antispoof').send({ frames: await framesFor(gesture), challengeId: challenge_id });
    expect(late.status).toBe(400);
    expect(late.body.error.code).toBe('challenge_expired');
    const unknown = await post('/antispoof').send({
      frames: await framesFor(gesture),
      challengeId: 'chl_000000000000000000000000',
    });
    expect(unknown.status).toBe(403);
    expect(unknown.body.error.code).toBe('invalid_challenge');
    const theirs = (await post('/antispoof/challenge', other.key).send({})).body.data;
    const stolen = await post('/antispoof').send({
      frames: await framesFor(theirs.gesture),
      challengeId: theirs.challenge_id,
    });
    expect(stolen.status).toBe(403);
    expect(stolen.body.error.code).toBe('invalid_challenge');
    const own = await post('/antispoof', other.key).send({
      frames: await framesFor(theirs.gesture),
      challengeId: theirs.challenge_id,
    });
    expect(own.body.data.status).toBe('passed');
  });

  it('is answered under both names: challenge_id enforces the gesture exactly like challengeId', async () => {
    const created = (await post('/antispoof/challenge').send({})).body.data;
    expect(created.challengeId).toBe(created.challenge_id);
    const wrong = otherGestures(created.gesture)[0]!;
    const res = await post('/antispoof').send({ frames: await framesFor(wrong), challenge_id: created.challenge_id });
    expect(res.body.data.status).toBe('failed');
    expect(res.body.data.check.data.challenge).toMatchObject({ challenge_id: created.challenge_id, performed: false });
    const right = (await post('/antispoof/challenge').send({})).body.data;
    const ok = await post('/antispoof').send({
      frames: await framesFor(right.gesture),
      challenge_id: right.challenge_id,
    });
    expect(ok.body.data.status).toBe('passed');
    const both = await post('/antispoof').send({
      frames: await framesFor(right.gesture),
      challengeId: right.challenge_id,
      challenge_id: created.challenge_id,
    });
    expect(both.status).toBe(400);
    expect(both.body.error.code).toBe('validation_error');
  });

  it('refuses frames captured before the challenge, later than it is old, or over more than 4 s, without using it up', async () => {
    const { challenge_id, gesture } = (await post('/antispoof/challenge').send({})).body.data;
    clock.advance(3_000);
    const frames = await framesFor(gesture);
    for (const captured_ms of [
      [-100, 200, 400],
      [0, 2_000, 4_500],
      [6_000, 6_200, 6_400],
      [400, 200, 600],
    ]) {
      const res = await post('/antispoof').send({ frames, challengeId: challenge_id, captured_ms });
      expect(res.status, JSON.stringify(captured_ms)).toBe(400);
      expect(res.body.error.code).toBe('invalid_frames');
    }
    const short = await post('/antispoof').send({ frames, challengeId: challenge_id, captured_ms: [0, 100] });
    expect(short.body.error.code).toBe('validation_error');
    const ok = await post('/antispoof').send({ frames, challengeId: challenge_id, captured_ms: [500, 900, 1_300] });
    expect(ok.body.data.status, JSON.stringify(ok.body)).toBe('passed');
  });

  it('works from core the way the hosted session page uses it: create, then prepare/execute with a CheckContext', async () => {
    const projectId = service.demo.project_id;
    const { challenge_id, gesture } = await service.core.challenges.create(projectId);
    const context: CheckContext = { projectId, livemode: true, mode: 'fresh', svcId: null, today: clock.now() };
    const frames = (await framesFor(gesture)).map((b) => Buffer.from(b, 'base64'));
    const check = service.core.checks.antispoof;
    const outcome = await check.execute(await check.prepare({ frames, challengeId: challenge_id }, context), context);
    expect('check' in outcome && outcome.check.status).toBe('passed');
    await expect(check.prepare({ frames, challengeId: challenge_id }, context)).rejects.toMatchObject({
      code: 'invalid_challenge',
    });
  });
});

describe('POST /api/v2/antispoof/identity', () => {
  it('gives one person the same face_id across photos and different people different ids', async () => {
    const first = await post('/antispoof/identity').send({ image: await b64({ person: 20, variant: 1 }) });
    expect(first.status).toBe(200);
    expect(first.body.data.check.data).toMatchObject({ result: 'live', new_identity: true });
    const faceId = first.body.data.check.data.face_id;
    expect(faceId).toMatch(/^fce_/);
    const again = await post('/antispoof/identity').send({ frames: await burst(still(20, 3, { variant: 2 })) });
    expect(again.body.data.check.data).toMatchObject({ face_id: faceId, new_identity: false });
    const someoneElse = await post('/antispoof/identity').send({ image: await b64({ person: 21, variant: 1 }) });
    expect(someoneElse.body.data.check.data.face_id).not.toBe(faceId);
    const otherProject = await post('/antispoof/identity', other.key).send({
      image: await b64({ person: 20, variant: 1 }),
    });
    expect(otherProject.body.data.check.data.face_id).not.toBe(faceId);
  });

  it('never creates an identity for a spoof', async () => {
    const res = await post('/antispoof/identity').send({ image: await b64({ person: 22, live: false }) });
    expect(res.body.data.check.data).toMatchObject({ result: 'spoof', face_id: null, new_identity: false });
  });
});

describe('account mode', () => {
  it("compares the judged face with the account's face reference", async () => {
    const svcId = service.demo.account.svc_id;
    const { token } = await service.core.accessTokens.issue(svcId, service.demo.oidc.client_id, ['openid']);
    const none = await post('/antispoof').send({ image: await b64({ person: 30 }), svc_access_token: token });
    expect(none.status).toBe(409);
    expect(none.body.error.code).toBe('face_not_enrolled');
    const reference = await engine.describeLargestFace(
      await import('../src/ml/image.js').then(async (m) => m.decodeImage(await markerImage({ person: 30 }))),
    );
    await service.core.accounts.setFaceReference(svcId, reference!.descriptor);
    const same = await post('/antispoof').send({
      image: await b64({ person: 30, variant: 3 }),
      svc_access_token: token,
    });
    expect(same.body.data.status).toBe('passed');
    expect(same.body.data.check.data.face_match.similarity).toBeGreaterThanOrEqual(0.95);
    const stranger = await post('/antispoof').send({ image: await b64({ person: 31 }), svc_access_token: token });
    expect(stranger.body.data.status).toBe('failed');
    expect(stranger.body.data.check.error).toMatch(/not the account's face/);
  });
});
