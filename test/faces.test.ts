import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_FACE_MATCH_THRESHOLD, type FaceModels, faceDistance, faceSimilarity } from '../src/ml/faces/index.js';
import { loadFaceModels } from '../src/ml/inference/index.js';
import {
  DESCRIPTOR_DIMENSIONS,
  faceCosine,
  MATCH_COSINE,
  MATCH_DISTANCE,
  similarityFromDistance,
} from '../src/ml/faces/match.js';
import type { Worker } from 'node:worker_threads';
import type { Tensor3D } from '@tensorflow/tfjs';
import type { TNetInput } from '@vladmandic/face-api';
import sharp from 'sharp';
import { detectionPixels } from '../src/ml/faces/detect.js';
import { type DecodedImage, decodeImage } from '../src/ml/image.js';
import { FaceWorkerPool } from '../src/ml/inference/pool.js';
import type { ImageArea } from '../src/ml/faces/onnx-input.js';
import { faceApiModelDir, faceRuntime } from '../src/ml/faces/runtime.js';
import { onnxRecognition } from '../src/ml/faces/recognition-onnx.js';
import { QUICK_SIDE } from '../src/ml/faces/quick.js';
import { faceWork } from '../src/ml/faces/work.js';
import { loadTf } from '../src/ml/tf.js';
import { compiledRoot } from './helpers/compiled.js';
import { demoPhoto, hasSharedData, sharedImage, syntheticNoFace, turned, turned90 } from './helpers/faces.js';
import { findUprightFaceQuickly } from '../src/ml/faces/quick.js';

// Real models on the WASM (or native) backend. Kept to a handful of images: the machine is
// shared; scripts/eval-faces.ts runs the full pair sets.

let models: FaceModels;
beforeAll(async () => {
  models = await loadFaceModels();
});
afterAll(async () => {
  await models?.close();
});

const bbt = (f: string) => `faceapi-bbt-identities/${f}`;
const ob = (f: string) => `face_recognition-obama-biden/${f}`;

async function descriptor(path: string): Promise<Float32Array> {
  const face = await models.describeLargestFace(await sharedImage(path));
  expect(face, `a face in ${path}`).not.toBeNull();
  return face!.descriptor;
}

describe('face similarity', () => {
  it('is about 1 for one descriptor, rises with the cosine, and crosses the default threshold at the match cosine', () => {
    const unit = (angle: number) =>
      Float32Array.from({ length: DESCRIPTOR_DIMENSIONS }, (_, i) =>
        i === 0 ? Math.cos(angle) : i === 1 ? Math.sin(angle) : 0,
      );
    const a = unit(0);
    const atMatch = unit(Math.acos(MATCH_COSINE));
    expect(faceDistance(a, a)).toBe(0);
    expect(faceSimilarity(a, a)).toBeGreaterThan(0.99);
    expect(faceCosine(a, atMatch)).toBeCloseTo(MATCH_COSINE, 6);
    expect(faceDistance(a, atMatch)).toBeCloseTo(MATCH_DISTANCE, 6);
    expect(faceSimilarity(a, atMatch)).toBeCloseTo(DEFAULT_FACE_MATCH_THRESHOLD, 6);
    expect(faceSimilarity(a, unit(Math.acos(MATCH_COSINE) + 0.05))).toBeLessThan(DEFAULT_FACE_MATCH_THRESHOLD);
    expect(faceSimilarity(a, unit(Math.PI / 2))).toBeLessThan(0.01); // strangers: cosine about 0
    expect(similarityFromDistance(MATCH_DISTANCE)).toBeCloseTo(DEFAULT_FACE_MATCH_THRESHOLD, 6);
    expect(DEFAULT_FACE_MATCH_THRESHOLD).toBeCloseTo(0.95, 2);
  });
});

describe('face models', () => {
  it('load once on a known backend', async () => {
    expect(['tensorflow', 'wasm', 'cpu']).toContain(models.backend);
    const again = await loadFaceModels();
    expect(again.backend).toBe(models.backend);
  });

  it('find no face in a synthetic picture', async () => {
    const image = await syntheticNoFace();
    expect(await models.detectFaces(image)).toEqual([]);
  });
});

describe('the descriptor on photos every clone has (face-api demo photos)', () => {
  /** Each face of a group photo cut out with room around it, as its own image. */
  async function facesOf(n: 1 | 2 | 3 | 4 | 5 | 6): Promise<DecodedImage[]> {
    const image = await demoPhoto(n);
    const faces = await models.detectFaces(image);
    return Promise.all(
      faces.map(async (face) => decodeImage(await models.cropFace(image, face.box, { margin: 0.6, maxSide: 480 }))),
    );
  }

  it('matches one face with itself shrunk, mirrored and turned, and keeps the people of one photo apart', {
    timeout: 120_000,
  }, async () => {
    const people = await facesOf(1);
    expect(people.length).toBeGreaterThanOrEqual(3);
    const described = await Promise.all(people.map((p) => models.describeLargestFace(p)));
    for (const d of described) expect(d?.descriptor).toHaveLength(DESCRIPTOR_DIMENSIONS);
    // different people: every pair of the photo
    for (let i = 0; i < described.length; i++)
      for (let j = i + 1; j < described.length; j++)
        expect(faceSimilarity(described[i]!.descriptor, described[j]!.descriptor), `faces ${i} and ${j}`).toBeLessThan(
          DEFAULT_FACE_MATCH_THRESHOLD,
        );
    // the same person: the first face shrunk to half and re-encoded, mirrored, turned 15 degrees
    const bytes = await sharp(people[0]!.bytes).png().toBuffer();
    const width = people[0]!.width;
    for (const [name, variant] of [
      [
        'shrunk',
        sharp(bytes)
          .resize({ width: Math.round(width / 2) })
          .jpeg({ quality: 75 }),
      ],
      ['mirrored', sharp(bytes).flop().jpeg({ quality: 90 })],
      ['turned', sharp(bytes).rotate(15, { background: '#808080' }).jpeg({ quality: 90 })],
    ] as const) {
      const again = await models.describeLargestFace(await decodeImage(await variant.toBuffer()));
      expect(again, name).not.toBeNull();
      expect(faceSimilarity(again!.descriptor, described[0]!.descriptor), name).toBeGreaterThanOrEqual(
        DEFAULT_FACE_MATCH_THRESHOLD,
      );
    }
  });
});

describe.skipIf(!hasSharedData)('face models on the shared evaluation images', () => {
  it('match the same person and separate different people (tight 150x150 grey crops)', async () => {
    const [amy1, amy3, penny1, sheldon2, sheldon5] = await Promise.all(
      ['amy1.png', 'amy3.png', 'penny1.png', 'sheldon2.png', 'sheldon5.png'].map((f) => descriptor(bbt(f))),
    );
    expect(faceSimilarity(amy1!, amy3!)).toBeGreaterThanOrEqual(DEFAULT_FACE_MATCH_THRESHOLD);
    expect(faceSimilarity(sheldon2!, sheldon5!)).toBeGreaterThanOrEqual(DEFAULT_FACE_MATCH_THRESHOLD);
    expect(faceSimilarity(amy1!, penny1!)).toBeLessThan(DEFAULT_FACE_MATCH_THRESHOLD);
    expect(faceSimilarity(sheldon2!, amy3!)).toBeLessThan(DEFAULT_FACE_MATCH_THRESHOLD);
  });

  it('match the same person across photos and a 90-degree turn; different people do not match', async () => {
    const obama = await descriptor(ob('obama.jpg'));
    const obama2 = await descriptor(ob('obama2.jpg'));
    const biden = await descriptor(ob('biden.jpg'));
    expect(faceSimilarity(obama, obama2)).toBeGreaterThanOrEqual(DEFAULT_FACE_MATCH_THRESHOLD);
    expect(faceSimilarity(obama, biden)).toBeLessThan(DEFAULT_FACE_MATCH_THRESHOLD);

    const turned = await turned90(ob('obama.jpg'));
    const faces = await models.detectFaces(turned);
    expect(faces.length).toBeGreaterThanOrEqual(1);
    expect(Math.abs(Math.abs(faces[0]!.rollDegrees) - 90)).toBeLessThan(25); // eyes now run vertically
    // Told how the image stands upright (three clockwise turns), the one orientation finds the same face.
    const [hinted] = await models.detectFaces(turned, { upright: 3 });
    expect(hinted).toBeDefined();
    expect(Math.abs(hinted!.box.x - faces[0]!.box.x) + Math.abs(hinted!.box.y - faces[0]!.box.y)).toBeLessThan(
      0.1 * faces[0]!.box.width,
    );
    const face = await models.describeLargestFace(turned);
    expect(face).not.toBeNull();
    expect(faceSimilarity(face!.descriptor, obama)).toBeGreaterThanOrEqual(DEFAULT_FACE_MATCH_THRESHOLD);
  });

  it('return every face of a group photo, largest first, inside the image', async () => {
    const image = await sharedImage(bbt('group_bbt4.jpg'));
    const faces = await models.detectFaces(image);
    expect(faces.length).toBeGreaterThanOrEqual(4);
    const areas = faces.map((f) => f.box.width * f.box.height);
    expect(areas).toEqual([...areas].sort((a, b) => b - a));
    for (const f of faces) {
      expect(f.landmarks).toHaveLength(68);
      expect(f.score).toBeGreaterThan(0.5);
      expect(f.box.x + f.box.width / 2).toBeGreaterThan(0);
      expect(f.box.x + f.box.width / 2).toBeLessThan(image.width);
    }
    const crop = await models.cropFace(image, faces[0]!.box, { maxSide: 200 });
    expect(crop.subarray(0, 2).toString('hex')).toBe('ffd8'); // a JPEG
  });

  it('find no face in pictures without one', async () => {
    for (const f of ['landscape_view.jpg', 'object_mask_blue.jpg']) {
      expect(await models.detectFaces(await sharedImage(`no-face-negatives/${f}`)), f).toEqual([]);
    }
    expect(await models.describeLargestFace(await sharedImage('no-face-negatives/blank_white.png'))).toBeNull();
  });

  it('leak no tensors (in-process, where the tensors are countable) and keep concurrent requests apart', async () => {
    const tf = await loadTf();
    const work = faceWork(await faceRuntime());
    const a = await sharedImage(bbt('raj2.png'));
    const b = await sharedImage(ob('obama-480p.jpg'));
    const alone = await work.describeLargestFace(a);
    const before = tf.memory().numTensors;
    await work.describeLargestFace(b);
    await work.detectFaces(b);
    expect(tf.memory().numTensors).toBe(before);
    // the worker pool: three requests at once, each answered as alone (and as in-process)
    const [x, y, z] = await Promise.all([
      models.describeLargestFace(a),
      models.describeLargestFace(b),
      models.detectFaces(b),
    ]);
    expect(faceDistance(x!.descriptor, alone!.descriptor)).toBeLessThan(1e-5);
    expect(y).not.toBeNull();
    expect(z.length).toBeGreaterThanOrEqual(1);
  });

  it('a worker that dies fails only its own queued requests and is replaced for later ones', async () => {
    const pool = await FaceWorkerPool.start(2);
    try {
      const image = await sharedImage(bbt('raj2.png'));
      const slots = Reflect.get(pool.pool, 'slots') as { worker: Worker }[];
      const [first, second] = slots;
      const lost = pool.describeLargestFace(image); // goes to the first worker (both idle)
      const kept = pool.describeLargestFace(image); // the second: the least busy
      await first!.worker.terminate();
      await expect(lost).rejects.toThrow(/face worker exited/);
      expect((await kept)?.descriptor).toHaveLength(DESCRIPTOR_DIMENSIONS);
      await expect.poll(() => (Reflect.get(pool.pool, 'slots') as unknown[]).length, { timeout: 30_000 }).toBe(2);
      expect((Reflect.get(pool.pool, 'slots') as unknown[]).includes(second)).toBe(true);
      expect((await pool.describeLargestFace(image))?.descriptor).toHaveLength(DESCRIPTOR_DIMENSIONS);
    } finally {
      await pool.close();
    }
    await expect(pool.detectFaces(await syntheticNoFace())).rejects.toThrow(/closed/);
  });
});

/** Some of face-api's demo photos, named. */
async function demoPhotos(ns: (1 | 2 | 3 | 4 | 5 | 6)[]) {
  return Promise.all(ns.map(async (n) => [`demo sample${n}`, await demoPhoto(n)] as const));
}

type Detection = { score: number; box: { x: number; y: number; width: number; height: number } };
/** The same detections, in the same order, to float rounding. */
function expectSameDetections(found: Detection[], expected: Detection[], path: string): void {
  expect(found.length, path).toBe(expected.length);
  found.forEach((face, i) => {
    const want = expected[i]!;
    expect(Math.abs(face.score - want.score), path).toBeLessThan(1e-3);
    for (const k of ['x', 'y', 'width', 'height'] as const)
      expect(Math.abs(face.box[k] - want.box[k]), `${path} ${k}`).toBeLessThan(0.05);
  });
}

describe('the native SSD detector', () => {
  it("finds exactly face-api's own SSD detections (same boxes and scores to float rounding), on faces and on no-face pictures", async () => {
    const rt = await faceRuntime();
    for (const [path, image] of [...(await demoPhotos([1, 5])), ['synthetic', await syntheticNoFace()] as const]) {
      const { rgb } = await detectionPixels(image);
      const input = rt.tf.tensor3d(rgb.data, [rgb.height, rgb.width, 3], 'int32');
      try {
        const options = { minConfidence: 0.5, maxResults: 20 };
        const expected = await rt.faceapi.nets.ssdMobilenetv1.locateFaces(input as unknown as TNetInput, options);
        expectSameDetections(await rt.ssd.locateFaces(rgb, options), expected, path);
      } finally {
        input.dispose();
      }
    }
  });
});

describe('the native tiny detector', () => {
  it("finds exactly face-api's own tiny-detector detections (same boxes and scores to float rounding)", async () => {
    const rt = await faceRuntime();
    for (const [path, image] of [...(await demoPhotos([2, 6])), ['synthetic', await syntheticNoFace()] as const]) {
      const { rgb } = await detectionPixels(image);
      const input = rt.tf.tensor3d(rgb.data, [rgb.height, rgb.width, 3], 'int32');
      try {
        const expected = await rt.faceapi.nets.tinyFaceDetector.locateFaces(
          input as unknown as TNetInput,
          new rt.faceapi.TinyFaceDetectorOptions({ inputSize: QUICK_SIDE, scoreThreshold: 0.3 }),
        );
        expectSameDetections(await rt.tiny.locateFaces(rgb, { scoreThreshold: 0.3 }), expected, path);
      } finally {
        input.dispose();
      }
    }
  });
});

describe.skipIf(!hasSharedData)('the quick way to a face match', () => {
  const quickly = async (image: Awaited<ReturnType<typeof sharedImage>>) => {
    const { rgb, scale } = await detectionPixels(image);
    return findUprightFaceQuickly(await faceRuntime(), rgb, scale);
  };

  it('takes a plainly upright face, and describes it as the same person as the full way does', async () => {
    const work = faceWork(await faceRuntime());
    for (const path of [ob('obama2.jpg'), bbt('penny4.png'), ob('rose_leslie_2.jpg')]) {
      const image = await sharedImage(path);
      expect(await quickly(image), path).not.toBeNull();
      const fast = await work.describeLargestFace(image, { quick: true });
      const full = await work.describeLargestFace(image);
      expect(faceDistance(fast!.descriptor, full!.descriptor), path).toBeLessThan(0.2);
    }
  });

  it('leaves a face turned upside down or on its side to the full way, which still finds the person', async () => {
    const work = faceWork(await faceRuntime());
    // the tiny detector fires on these turned faces and the landmark net draws an upright face on them
    for (const [path, degrees] of [
      [ob('knn_test_obama1.jpg'), 180],
      ['passporteye-mrz/tests_passport-td3.jpg', 90],
      [bbt('expr_angry.jpg'), 180],
    ] as const) {
      const image = await turned(path, degrees);
      expect(await quickly(image), `${path} ${degrees}`).toBeNull();
    }
    const upright = await work.describeLargestFace(await sharedImage(ob('knn_test_obama1.jpg')), { quick: true });
    const upsideDown = await work.describeLargestFace(await turned(ob('knn_test_obama1.jpg'), 180), { quick: true });
    expect(faceSimilarity(upsideDown!.descriptor, upright!.descriptor)).toBeGreaterThanOrEqual(
      DEFAULT_FACE_MATCH_THRESHOLD,
    );
  });

  it('finds nothing on pictures without a face', async () => {
    for (const path of [
      'no-face-negatives/object_mask_blue.jpg',
      'no-face-negatives/landscape_view.jpg',
      'no-face-negatives/object_dome_pacman.jpg',
    ])
      expect(await quickly(await sharedImage(path)), path).toBeNull();
    expect(await quickly(await syntheticNoFace())).toBeNull();
  });
});

/**
 * Each crop (at most h x w, 5 pixels in from the top left) of a shared photo: as an int32 tensor
 * for face-api, disposed after `check`, and as the area of the photo our nets read. Then the same
 * crop mirrored left to right (face-api's input through tf.reverse).
 */
async function onCrops(
  crops: readonly (readonly [1 | 2 | 3 | 4 | 5 | 6, number, number])[],
  check: (crop: Tensor3D, area: ImageArea, path: string) => Promise<void>,
): Promise<void> {
  const rt = await faceRuntime();
  for (const [n, h, w] of crops) {
    const path = `demo sample${n}`;
    const { rgb } = await detectionPixels(await demoPhoto(n));
    const box = { x: 5, y: 5, width: Math.min(w, rgb.width - 5), height: Math.min(h, rgb.height - 5) };
    const image = rt.tf.tensor3d(rgb.data, [rgb.height, rgb.width, 3], 'int32');
    const crop = rt.tf.slice(image, [box.y, box.x, 0], [box.height, box.width, 3]) as Tensor3D;
    const mirrored = rt.tf.reverse(crop, 1) as Tensor3D;
    try {
      await check(crop, { rgb, box }, path);
      await check(mirrored, { rgb, box, mirrored: true }, `${path} mirrored`);
    } finally {
      mirrored.dispose();
      crop.dispose();
      image.dispose();
    }
  }
}
/** Square, tall and wide crops. */
const CROPS = [
  [1, 150, 150],
  [3, 140, 100],
  [6, 90, 160],
] as const;

describe("the old kind's recognition net (face-api's 128-d, kept for npm run eval:faces)", () => {
  it("gives face-api's own descriptor (to float rounding) for square and oblong crops", async () => {
    const rt = await faceRuntime();
    await rt.faceapi.nets.faceRecognitionNet.loadFromDisk(faceApiModelDir());
    const recognition = await onnxRecognition(rt, 1);
    await onCrops(
      [
        [1, 150, 150],
        [3, 140, 120],
        [6, 100, 160],
      ],
      async (crop, area, path) => {
        const expected = (await rt.faceapi.nets.faceRecognitionNet.computeFaceDescriptor(
          crop as unknown as TNetInput,
        )) as Float32Array;
        expect(faceDistance(await recognition.describe(area), expected), path).toBeLessThan(1e-4);
      },
    );
  });
});

describe('the native landmark net', () => {
  it("gives face-api's own 68 points (to float rounding) for square, tall and wide crops", async () => {
    const rt = await faceRuntime();
    await onCrops(CROPS, async (crop, area, path) => {
      const expected = (await rt.faceapi.nets.faceLandmark68Net.detectLandmarks(crop as unknown as TNetInput)) as {
        positions: { x: number; y: number }[];
      };
      const found = await rt.landmarks.detect(area);
      expect(found).toHaveLength(68);
      found.forEach((p, i) => {
        expect(Math.abs(p.x - expected.positions[i]!.x), `${path} point ${i} x`).toBeLessThan(0.01);
        expect(Math.abs(p.y - expected.positions[i]!.y), `${path} point ${i} y`).toBeLessThan(0.01);
      });
    });
  });
});

describe('the native age net', () => {
  it("gives face-api's own age estimate (to float rounding) for square, tall and wide crops", async () => {
    const rt = await faceRuntime();
    await onCrops(CROPS, async (crop, area, path) => {
      const expected = (await rt.faceapi.nets.ageGenderNet.predictAgeAndGender(crop as unknown as TNetInput)) as {
        age: number;
      };
      expect(Math.abs((await rt.age.estimate(area)) - expected.age), path).toBeLessThan(1e-3);
    });
  });
});

describe('the face worker pool', () => {
  it('never holds the process open: a script that started two workers and used one exits by itself', async () => {
    // A module file beside the compiled source (its workers would inherit `--input-type` from an `-e` script).
    const script = path.join(compiledRoot, 'pool-exits.mjs');
    await writeFile(
      script,
      `
      import sharp from 'sharp';
      import { FaceWorkerPool } from './src/ml/inference/pool.js';
      import { decodeImage } from './src/ml/image.js';
      const pool = await FaceWorkerPool.start(2);
      const blank = await decodeImage(await sharp({ create: { width: 64, height: 64, channels: 3, background: '#808080' } }).png().toBuffer());
      console.log(JSON.stringify(await pool.detectFaces(blank)));`, // one request: the other worker stays idle throughout
    );
    const { stdout } = await promisify(execFile)(process.execPath, [script], { timeout: 30_000 });
    expect(stdout.trim().split('\n').at(-1)).toBe('[]'); // answered, then exited on its own (not killed by the timeout)
  });
});
