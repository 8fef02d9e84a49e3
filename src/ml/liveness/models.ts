import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type * as Tf from '@tensorflow/tfjs';
import { loadTf, type TfModule } from '../tf.js';
import { loadMiniFasNet, miniFasNetLogits, type MiniFasNet } from './minifasnet.js';

// The liveness graphs: MiniFASNet (minifasnet.ts, our TF.js port) for passive liveness, and the
// face mesh that ships inside @vladmandic/human for head pose, loaded straight into the process's
// shared TF.js (src/ml/tf.ts) without the Human class: Human's node-wasm build fetches models over
// `fetch` (no file: URLs in Node) and runs its own pipeline we do not need. (human's antispoof and
// liveness models were dropped: they scored every unseen attack as real.)
//
// - facemesh.json: 192x192x3 RGB 0..1 -> 468 3-D points (`output_mesh`, [1,1404], crop pixels)
//   and the probability that the crop holds a face (`output_faceflag`); head pose comes from
//   the mesh (see pose.ts).

const require = createRequire(import.meta.url);

export interface LivenessGraphs {
  tf: TfModule;
  facemesh: Tf.GraphModel;
  /** MiniFASNetV2 (2.7x crop) and MiniFASNetV1SE (4.0x crop), see minifasnet.ts. */
  miniFasNets: MiniFasNet[];
}

/** node_modules/@vladmandic/human/models. Its `exports` map hides package.json, so walk up from the main entry. */
function modelDir(): string {
  let dir = dirname(require.resolve('@vladmandic/human'));
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'models', 'facemesh.json'))) {
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

/** Loads the graphs once per process and runs one warm-up inference each. */
export function livenessGraphs(): Promise<LivenessGraphs> {
  loading ??= (async () => {
    const tf = await loadTf();
    const facemesh = await loadGraph(tf, 'facemesh');
    const [h, w] = inputSize(facemesh);
    tf.tidy(() => {
      const out = facemesh.execute(tf.zeros([1, h, w, 3]));
      for (const t of Array.isArray(out) ? out : [out]) t.dataSync();
    });
    const miniFasNets = [loadMiniFasNet(tf, 'MiniFASNetV2'), loadMiniFasNet(tf, 'MiniFASNetV1SE')];
    for (const net of miniFasNets) tf.tidy(() => void miniFasNetLogits(tf, net, tf.zeros([1, 80, 80, 3])).dataSync());
    return { tf, facemesh, miniFasNets };
  })().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}
