import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeImage, type DecodedImage } from '../src/ml/image.js';
import { loadLivenessModels } from '../src/ml/inference/index.js';
import type { LivenessModels } from '../src/ml/liveness/index.js';
import { loadTf } from '../src/ml/tf.js';

// Real models on the shared samples (read in place, never copied into the repo). Kept to four
// images because the machine is shared; scripts/eval-liveness.ts runs every set.

const DATA = fileURLToPath(new URL('../../shared/data/', import.meta.url));
const hasData = existsSync(`${DATA}liveness-samples/LABELS.csv`) && existsSync(`${DATA}no-face-negatives/LABELS.csv`);
if (!hasData)
  console.warn(`liveness tests skipped: no evaluation images at ${DATA}liveness-samples and no-face-negatives`);

const image = (path: string): Promise<DecodedImage> => decodeImage(readFileSync(`${DATA}${path}`));
const LIVE = 'liveness-samples/live_image_T1.jpg';
const PRINT = 'liveness-samples/spoof_print_image_F1.jpg';
const REPLAY = 'liveness-samples/spoof_screen_tablet_image_F2.jpg'; // EXIF orientation 6
const NO_FACE = 'no-face-negatives/object_mask_blue.jpg';

describe.skipIf(!hasData)('passive liveness on the shared samples', () => {
  let models: LivenessModels;
  const images = new Map<string, DecodedImage>();
  beforeAll(async () => {
    models = await loadLivenessModels();
    for (const p of [LIVE, PRINT, REPLAY, NO_FACE]) images.set(p, await image(p));
  });
  afterAll(async () => {
    await models?.close();
  });

  it('decides live, print spoof, replay spoof and no face, with explained evidence', async () => {
    const tf = await loadTf();
    const live = await models.assess(images.get(LIVE)!);
    const before = tf.memory().numTensors; // after the first call: any lazily created state exists
    const print = await models.assess(images.get(PRINT)!);
    const replay = await models.assess(images.get(REPLAY)!);
    const none = await models.assess(images.get(NO_FACE)!);

    expect(live).toMatchObject({ liveScore: 1, result: 'live', faceCount: 1 });
    expect(print).toMatchObject({ liveScore: 0, result: 'spoof' });
    expect(replay).toMatchObject({ liveScore: 0, result: 'spoof' });
    expect(none).toMatchObject({ liveScore: -1, result: 'no_face', faceCount: 0 });

    for (const a of [live, print, replay]) {
      expect(a.evidence.map((e) => e.name)).toEqual(
        expect.arrayContaining(['minifasnet', 'face_area_fraction', 'sharpness', 'glare', 'moire', 'frame_edges']),
      );
      for (const e of a.evidence) expect(e.detail.length).toBeGreaterThan(0);
    }
    // MiniFASNet decides: the live selfie is clearly real, the print and the tablet clearly not.
    expect(live.scores.minifasnet).toBeGreaterThan(0.9);
    expect(print.scores.minifasnet).toBeLessThan(0.3);
    expect(replay.scores.minifasnet).toBeLessThan(0.3);
    for (const a of [print, replay])
      expect(a.evidence.find((e) => e.name === 'minifasnet')).toMatchObject({ passed: false });

    expect(tf.memory().numTensors).toBe(before);
  });

  it('gives the same answers to concurrent calls as to sequential ones', async () => {
    const order = [REPLAY, LIVE, NO_FACE, PRINT, LIVE];
    const results = await Promise.all(order.map((p) => models.assess(images.get(p)!)));
    expect(results.map((r) => r.liveScore)).toEqual([0, 1, -1, 0, 1]);
    expect(results[1]!.scores).toEqual(results[4]!.scores); // deterministic
  });

  it('loads once per process and refuses work after close', async () => {
    const other = await loadLivenessModels();
    await other.close();
    await expect(other.assess(images.get(LIVE)!)).rejects.toThrow(/closed/);
    expect((await models.assess(images.get(NO_FACE)!)).liveScore).toBe(-1); // the first handle still works
  });
});
