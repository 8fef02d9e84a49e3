import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as Tf from '@tensorflow/tfjs';

// Picks the TF.js backend once per process: tfjs-node when it is installed (native, fastest),
// else WASM (SIMD, threads where the runtime allows), else the pure-JS CPU backend.
// Everything is loaded through `require` so this module, face-api's node builds and any other
// model share ONE CommonJS copy of @tensorflow/tfjs (two copies = two engines = broken models).

export type TfModule = typeof Tf;
export type TfBackendName = 'tensorflow' | 'wasm' | 'cpu';

const require = createRequire(import.meta.url);

let ready: Promise<TfModule> | undefined;
let chosen: TfBackendName | undefined;
/** What the WASM backend could use here: 'simd', 'threads', both, or 'plain'. */
let wasmFeatures: string | undefined;

/** The shared TF.js module with a backend set; resolves once. */
export function loadTf(): Promise<TfModule> {
  ready ??= pickBackend().catch((error: unknown) => {
    ready = undefined; // let a later call retry instead of caching the failure
    throw error;
  });
  return ready;
}

/** The backend in use ('tensorflow' | 'wasm' | 'cpu'); 'none' before loadTf() resolved. */
export function tfBackend(): string {
  return chosen ?? 'none';
}

/** The WASM backend's features ('simd', 'simd+threads', 'plain'); undefined on other backends. */
export function tfWasmFeatures(): string | undefined {
  return chosen === 'wasm' ? wasmFeatures : undefined;
}

/** True when the native tfjs-node binding loaded (face-api then uses its node build). */
export function usesNativeTf(): boolean {
  return chosen === 'tensorflow';
}

async function pickBackend(): Promise<TfModule> {
  if (process.env.VERITY_TF_BACKEND !== 'wasm' && process.env.VERITY_TF_BACKEND !== 'cpu') {
    try {
      // Optional: its install downloads libtensorflow, which fails offline. Never import statically.
      const specifier = '@tensorflow/tfjs-node';
      await import(specifier);
      const tf = require('@tensorflow/tfjs') as TfModule;
      if (await tf.setBackend('tensorflow')) {
        await tf.ready();
        chosen = 'tensorflow';
        return tf;
      }
    } catch {
      // not installed or its binary is missing: fall through to WASM
    }
  }
  const tf = require('@tensorflow/tfjs') as TfModule;
  if (process.env.VERITY_TF_BACKEND !== 'cpu') {
    try {
      const wasm = require('@tensorflow/tfjs-backend-wasm') as typeof import('@tensorflow/tfjs-backend-wasm');
      // The backend looks for its .wasm files next to the page in browsers; in Node give the dir.
      const wasmDir = join(dirname(require.resolve('@tensorflow/tfjs-backend-wasm')), '/');
      wasm.setWasmPaths(wasmDir.endsWith('/') ? wasmDir : `${wasmDir}/`);
      if (await tf.setBackend('wasm')) {
        await tf.ready();
        chosen = 'wasm';
        const simd = (await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT')) === true;
        const threads = (await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT')) === true;
        wasmFeatures = [simd && 'simd', threads && 'threads'].filter(Boolean).join('+') || 'plain';
        return tf;
      }
    } catch {
      // WASM failed to initialise (e.g. no SIMD): fall back to CPU below
    }
  }
  await tf.setBackend('cpu');
  await tf.ready();
  chosen = 'cpu';
  return tf;
}
