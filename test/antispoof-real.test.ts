import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from './helpers/service.js';
import { videoAvailable, videoFrames } from './helpers/video.js';

// POST /api/v2/antispoof with the real models, as an attacker who has the person's photos would
// try it, and with a real continuous capture (frames of one shot of the shared video) that must
// pass. The images are read from ../shared/data in place, never copied into the repository.

const DATA = fileURLToPath(new URL('../../shared/data/', import.meta.url));
const hasPhotos = existsSync(`${DATA}face_recognition-obama-biden/obama.jpg`);
if (!videoAvailable || !hasPhotos)
  console.info('skipping real-model anti-spoof tests: ../shared/data or ffmpeg is absent');

/** Around the performer's head in shot C of the video (a camera held still would see this). */
const HEAD = { x: 60, y: 0, width: 480, height: 360 };
const photo = (name: string) => readFileSync(`${DATA}face_recognition-obama-biden/${name}`);
/** What an attacker does first: every photo at one size, as a phone camera held upright would give. */
const sameSize = (bytes: Buffer) =>
  sharp(bytes).rotate().resize(480, 640, { fit: 'cover', position: 'top' }).jpeg({ quality: 90 }).toBuffer();

let service: TestService;
const post = (body: object) => service.http.post('/api/v2/antispoof').set('X-API-Key', service.demo.api_key).send(body);
const b64 = (frames: Buffer[]) => frames.map((f) => f.toString('base64'));
const evidence = (data: { burst: { evidence: { name: string; passed: boolean }[] } }, name: string) =>
  data.burst.evidence.find((e) => e.name === name);

describe.skipIf(!videoAvailable || !hasPhotos)('anti-spoof bursts on real images, real models', () => {
  beforeAll(async () => {
    service = await startTestService();
  }, 300_000);
  afterAll(async () => {
    await service?.close();
  });

  it('passes consecutive frames of one shot of a real video (a live person, one camera)', async () => {
    const frames = await videoFrames(7.0, 6, 100, HEAD);
    const res = await post({ frames: b64(frames) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.check.data, JSON.stringify(res.body.data.check)).toMatchObject({
      result: 'live',
      live_score: 1,
      burst: { one_capture: true },
    });
    expect(res.body.data.status).toBe('passed');
  });

  it('fails a burst that spans a camera cut', async () => {
    const frames = await videoFrames(7.6, 6, 100, HEAD); // the cut from shot C to D is at 7.88 s
    const res = await post({ frames: b64(frames) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.status).toBe('failed');
    expect(res.body.data.check.data).toMatchObject({ result: 'spoof', burst: { one_capture: false } });
  });

  it('fails three different press photos of one person, even at one size and with a challenge', async () => {
    const files = ['obama.jpg', 'obama2.jpg', 'obama3.jpg'];
    const asIs = await post({ frames: b64(files.map(photo)) });
    expect(asIs.status).toBe(400);
    expect(asIs.body.error.code).toBe('invalid_frames');
    const challenge = (
      await service.http.post('/api/v2/antispoof/challenge').set('X-API-Key', service.demo.api_key).send({})
    ).body.data;
    const resized = await post({
      frames: b64(await Promise.all(files.map((f) => sameSize(photo(f))))),
      challenge_id: challenge.challenge_id,
    });
    expect(resized.status, JSON.stringify(resized.body)).toBe(200);
    expect(resized.body.data.status).toBe('failed');
    expect(resized.body.data.check.data).toMatchObject({
      result: 'spoof',
      live_score: 0,
      burst: { one_capture: false },
    });
    expect(evidence(resized.body.data.check.data, 'background')).toMatchObject({ passed: false });
  });

  it('fails one photo moved in front of the camera (shifted, scaled, turned across the frames)', async () => {
    const portrait = await sharp(photo('obama.jpg')).resize({ width: 300, height: 300, fit: 'inside' }).toBuffer();
    const frames = await Promise.all(
      [
        { left: 150, top: 60, angle: 0, width: 300 },
        { left: 170, top: 70, angle: 3, width: 310 },
        { left: 140, top: 50, angle: -4, width: 285 },
        { left: 160, top: 80, angle: 2, width: 320 },
      ].map(async ({ left, top, angle, width }) => {
        const moved = await sharp(portrait).resize({ width }).rotate(angle, { background: '#777' }).toBuffer();
        return sharp({ create: { width: 640, height: 480, channels: 3, background: '#777' } })
          .composite([{ input: moved, left, top }])
          .jpeg({ quality: 90 })
          .toBuffer();
      }),
    );
    const res = await post({ frames: b64(frames) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.status).toBe('failed');
    expect(res.body.data.check.data.result).toBe('spoof');
    expect(evidence(res.body.data.check.data, 'non_rigid_motion')).toMatchObject({ passed: false });
  });
});
