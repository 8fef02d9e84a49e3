import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelFaceEngine, type FaceEngine } from '../src/core/face-engine.js';
import { analyseBurst, BURST_THRESHOLDS, type BurstFace } from '../src/core/faces/burst.js';
import { lazyModels, type Models } from '../src/core/models.js';
import { decodeImage } from '../src/ml/image.js';
import { hasSharedData, SHARED_DATA } from './helpers/faces.js';
import { startTestService, type TestService } from './helpers/service.js';

// The real FaceEngine (face-api + human through src/core/models.ts) on the shared photos (read in
// place, never copied): burst motion from real landmarks, gestures, and the anti-spoof route end
// to end. Bursts are built in memory from one photo (a photo held to the camera: shifted, scaled,
// turned) or from several photos of one person (a face that moved between frames).

const LIVE = 'liveness-samples/live_image_T1.jpg';
const ob = (f: string) => `face_recognition-obama-biden/${f}`;

let models: Models;
let engine: FaceEngine;
beforeAll(() => {
  models = lazyModels();
  engine = modelFaceEngine(models);
});
afterAll(async () => {
  await models?.close();
});

/** A photo as a flat picture moved in front of a camera: the same, shifted, scaled, turned 6 degrees. */
async function heldPhoto(path: string): Promise<Buffer[]> {
  const base = await sharp(readFileSync(`${SHARED_DATA}${path}`))
    .autoOrient()
    .jpeg({ quality: 92 })
    .toBuffer();
  const { width, height } = await sharp(base).metadata();
  const w = Math.round(width! * 0.9);
  const h = Math.round(height! * 0.9);
  return [
    base,
    await sharp(base).extract({ left: 0, top: 0, width: w, height: h }).jpeg({ quality: 90 }).toBuffer(),
    await sharp(base)
      .extract({ left: Math.round(width! * 0.06), top: Math.round(height! * 0.05), width: w, height: h })
      .jpeg({ quality: 90 })
      .toBuffer(),
    await sharp(base)
      .resize({ width: Math.round(width! * 0.8) })
      .jpeg({ quality: 85 })
      .toBuffer(),
    await sharp(base).rotate(6, { background: '#808080' }).jpeg({ quality: 90 }).toBuffer(),
  ];
}

async function faces(frames: Buffer[]): Promise<BurstFace[]> {
  const out: BurstFace[] = [];
  for (const bytes of frames) {
    const image = await decodeImage(bytes);
    const face = await engine.describeLargestFace(image);
    expect(face).not.toBeNull();
    out.push({ ...face!, pose: await engine.headPose(image, face!) });
  }
  return out;
}
const file = (path: string) => readFileSync(`${SHARED_DATA}${path}`);

describe.skipIf(!hasSharedData)('burst evidence from the real models', () => {
  it('sees no life in a photo held still, shifted, scaled or turned: landmark jitter stays far below the motion threshold', {
    timeout: 120_000,
  }, async () => {
    for (const path of [LIVE, ob('obama.jpg')]) {
      const analysis = analyseBurst(await faces(await heldPhoto(path)));
      const motion = analysis.evidence.find((e) => e.name === 'non_rigid_motion')!;
      expect(motion.value, path).toBeLessThan(BURST_THRESHOLDS.microMotion / 2);
      expect(analysis.motion, path).toBe(false);
      expect(analysis.samePerson).toBe(true);
      expect(Object.values(analysis.gestures).some(Boolean), path).toBe(false);
    }
  });

  it('sees a face that moved in several photos of one person, and a smile between expressions', {
    timeout: 120_000,
  }, async () => {
    const obama = analyseBurst(await faces([file(ob('obama.jpg')), file(ob('obama2.jpg')), file(ob('obama3.jpg'))]));
    expect(obama.samePerson).toBe(true);
    expect(obama.motion).toBe(true);
    expect(obama.evidence.find((e) => e.name === 'pose_change')!.passed).toBe(true);
    const expressions = analyseBurst(
      await faces(
        ['expr_neutral.jpg', 'expr_happy.jpg', 'expr_neutral.jpg'].map((f) => file(`faceapi-bbt-identities/${f}`)),
      ),
    );
    // The mouth widens between the photos; as a gesture it also needs the head held still.
    expect(expressions.evidence.find((e) => e.name === 'smile')!.passed).toBe(true);
    expect(expressions.gestures.smile).toBe(!expressions.evidence.find((e) => e.name === 'pose_change')!.passed);
  });

  it('tells frames of different people apart', { timeout: 120_000 }, async () => {
    const mixed = analyseBurst(await faces([file(ob('obama.jpg')), file(ob('biden.jpg')), file(ob('obama.jpg'))]));
    expect(mixed.samePerson).toBe(false);
  });
});

describe.skipIf(!hasSharedData)('head pose from the face mesh', () => {
  const bbt = (f: string) => file(`faceapi-bbt-identities/${f}`);
  async function poseOf(bytes: Buffer) {
    const image = await decodeImage(bytes);
    const face = await engine.describeLargestFace(image);
    expect(face).not.toBeNull();
    const pose = await engine.headPose(image, face!);
    expect(pose).not.toBeNull();
    return pose!;
  }

  it('flips the sign of the yaw when the photo is mirrored, and reads an in-plane turn as roll', {
    timeout: 180_000,
  }, async () => {
    // Measured on every shared photo: the mirror flips the sign of the yaw, never its size by much.
    for (const [bytes, side] of [
      [bbt('bernadette2.png'), 1],
      [bbt('bernadette4.png'), -1],
      [file(ob('kit_harington_john2.jpeg')), -1],
    ] as const) {
      const pose = await poseOf(bytes);
      const mirrored = await poseOf(await sharp(bytes).flop().png().toBuffer());
      expect(Math.sign(pose.yaw)).toBe(side);
      expect(pose.yaw * side).toBeGreaterThan(10);
      expect(mirrored.yaw * side).toBeLessThan(-10);
      expect(Math.abs(pose.yaw + mirrored.yaw)).toBeLessThan(5);
      expect(Math.abs(pose.pitch - mirrored.pitch)).toBeLessThan(5);
    }
    const upright = await poseOf(file(ob('obama.jpg')));
    expect(Math.abs(upright.yaw)).toBeLessThan(8);
    // Turned 15 degrees clockwise: the chin moves to the image's left.
    const leaning = await poseOf(
      await sharp(file(ob('obama.jpg')))
        .rotate(15, { background: '#808080' })
        .jpeg()
        .toBuffer(),
    );
    expect(leaning.roll - upright.roll).toBeLessThan(-10);
    expect(leaning.roll - upright.roll).toBeGreaterThan(-20);
    expect(Math.abs(leaning.yaw - upright.yaw)).toBeLessThan(5);
  });

  it('tells a turn to the left from a turn to the right in bursts of real photos of one person', {
    timeout: 180_000,
  }, async () => {
    // bernadette1 faces the camera (yaw ~1), bernadette2 is turned to her left (~15), bernadette4 to her right (~-13).
    const left = analyseBurst(await faces([bbt('bernadette1.png'), bbt('bernadette2.png'), bbt('bernadette1.png')]));
    expect(left.gestures).toMatchObject({ turn_left: true, turn_right: false });
    expect(left.evidence.find((e) => e.name === 'pose_change')!.passed).toBe(true);
    const right = analyseBurst(await faces([bbt('bernadette1.png'), bbt('bernadette4.png'), bbt('bernadette1.png')]));
    expect(right.gestures).toMatchObject({ turn_left: false, turn_right: true });
  });
});

describe.skipIf(!hasSharedData)('POST /api/v2/antispoof with the real models', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => {
    await service?.close();
  });
  const post = () => service.http.post('/api/v2/antispoof').set('X-API-Key', service.demo.api_key);

  it('passes the live selfie alone, and calls the same selfie held still in a burst a spoof', {
    timeout: 180_000,
  }, async () => {
    const single = await post().attach('image', file(LIVE), 'live.jpg');
    expect(single.status, JSON.stringify(single.body)).toBe(200);
    expect(single.body.data.check.data).toMatchObject({ mode: 'single', live_score: 1, result: 'live' });
    expect(single.body.data.check.data.human_score).toBeGreaterThanOrEqual(0.5);
    const print = await post().attach('image', file('liveness-samples/spoof_print_image_F1.jpg'), 'print.jpg');
    expect(print.body.data.check.data.result).toBe('spoof');
    expect(print.body.data.check.data.human_score).toBeLessThan(0.5);

    // As a camera sees a photo held up: every frame at the camera's size.
    const [a, ...moved] = await heldPhoto(LIVE);
    const { width, height } = await sharp(a!).metadata();
    const [b, c] = await Promise.all(
      moved
        .slice(0, 2)
        .map((frame) => sharp(frame).resize(width, height, { fit: 'fill' }).jpeg({ quality: 90 }).toBuffer()),
    );
    const held = await post().attach('frames', a!, '0.jpg').attach('frames', b!, '1.jpg').attach('frames', c!, '2.jpg');
    expect(held.status, JSON.stringify(held.body)).toBe(200);
    expect(held.body.data.check.data).toMatchObject({ mode: 'burst', frames: 3, live_score: 0, result: 'spoof' });
    expect(held.body.data.check.error).toMatch(/no natural motion/);
  });
});
