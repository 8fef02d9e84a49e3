import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type * as Tf from '@tensorflow/tfjs';
import { loadTf, type TfModule } from '../tf.js';

// The two single-image liveness models and the face mesh that ship inside @vladmandic/human,
// loaded straight into the process's shared TF.js (src/ml/tf.ts) without the Human class: Human's
// node-wasm build fetches models over `fetch` (no file: URLs in Node) and runs its own pipeline
// we do not need.
//
// - antispoof.json: 128x128x3 RGB 0..1 -> [1,1] probability the face is REAL (kaggle "fake face
//   detection"; human reports it as `face.real`).
// - liveness.json: 32x32x3 RGB 0..1 -> [1,2] softmax (leokwu/livenessnet); human reports
//   element 0 as `face.live`.
// Human feeds both from the same face tensor: a square crop, 1.4x the detector box, bilinearly
// cut to 256x256 and divided by 255, then resized bilinearly to each model's input size. We do
// the same (see modelScores in index.ts).
// - facemesh.json: 192x192x3 RGB 0..1 -> 468 3-D points (`output_mesh`, [1,1404], crop pixels)
//   and the probability that the crop holds a face (`output_faceflag`); head pose comes from
//   the mesh (see pose.ts).

const require = createRequire(import.meta.url);

export interface LivenessGraphs {
  tf: TfModule;
  antispoof: Tf.GraphModel;
  liveness: Tf.GraphModel;
  facemesh: Tf.GraphModel;
}

/** node_modules/@vladmandic/human/models. Its `exports` map hides package.json, so walk up from the main entry. */
function modelDir(): string {
  let dir = dirname(require.resolve('@vladmandic/human'));
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'models', 'antispoof.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('@vladmandic/human models directory not found');
    dir = up;
  }
  return join(dir, 'models');
}

/** Reads model.json and its weight shards from disk and hands them to TF.js from memory. */
async function loadGraph(tf: TfModule, name: string): Promise<Tf.GraphModel> {
  const dir = modelDir();
  const json = JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as {
    modelTopology: unknown;
    weightsManifest: { paths: string[]; weights: Tf.io.WeightsManifestEntry[] }[];
  };
  const weightSpecs = json.weightsManifest.flatMap((group) => group.weights);
  const shards = json.weightsManifest.flatMap((group) => group.paths.map((p) => readFileSync(join(dir, p))));
  const all = Buffer.concat(shards);
  const weightData = all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength) as ArrayBuffer;
  return tf.loadGraphModel(tf.io.fromMemory({ modelTopology: json.modelTopology as object, weightSpecs, weightData }));
}

/** [height, width] of a graph model's NHWC input. */
export function inputSize(model: Tf.GraphModel): [number, number] {
  const shape = model.inputs[0]?.shape;
  if (!shape || shape.length !== 4 || !shape[1] || !shape[2]) throw new Error('unexpected liveness model input shape');
  return [shape[1], shape[2]];
}

let loading: Promise<LivenessGraphs> | undefined;

/** Loads the three graphs once per process and runs one warm-up inference each. */
export function livenessGraphs(): Promise<LivenessGraphs> {
  loading ??= (async () => {
    const tf = await loadTf();
    const antispoof = await loadGraph(tf, 'antispoof');
    const liveness = await loadGraph(tf, 'liveness');
    const facemesh = await loadGraph(tf, 'facemesh');
    for (const model of [antispoof, liveness, facemesh]) {
      const [h, w] = inputSize(model);
      tf.tidy(() => {
        const out = model.execute(tf.zeros([1, h, w, 3]));
        for (const t of Array.isArray(out) ? out : [out]) t.dataSync();
      });
    }
    return { tf, antispoof, liveness, facemesh };
  })().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}
