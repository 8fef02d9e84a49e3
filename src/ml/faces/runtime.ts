import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as FaceApi from '@vladmandic/face-api';
import os from 'node:os';
import { loadTf, tfBackend, usesNativeTf, type TfModule } from '../tf.js';
import { onnxAge, type OnnxAge } from './age-onnx.js';
import { onnxLandmarks, type OnnxLandmarks } from './landmarks-onnx.js';
import { onnxDescriptor, type OnnxDescriptor } from './descriptor-onnx.js';
import { QUICK_SIDE } from './quick.js';
import { onnxSsd, type OnnxSsd } from './ssd-onnx.js';
import { onnxTinyDetector, type OnnxTinyDetector } from './tiny-onnx.js';

// One face-api instance per thread: the backend, the nets and a warm-up, behind a promise. The
// detectors (SSD, tiny), the landmark and age nets run on onnxruntime-node (ssd-onnx.ts,
// tiny-onnx.ts, landmarks-onnx.ts, age-onnx.ts) with face-api's own weights, which face-api (on
// TF.js) reads; the descriptor is its own ONNX model (descriptor-onnx.ts).

export type FaceApiModule = typeof FaceApi;

export interface FaceRuntime {
  tf: TfModule;
  faceapi: FaceApiModule;
  backend: string;
  /** face-api's SSD MobileNet v1, run natively. */
  ssd: OnnxSsd;
  /** face-api's tiny face detector, run natively: the quick first look of quick.ts. */
  tiny: OnnxTinyDetector;
  /** face-api's 68-point landmark net, run natively. */
  landmarks: OnnxLandmarks;
  /** The 512-d face descriptor (descriptor-onnx.ts). */
  descriptor: OnnxDescriptor;
  /** face-api's age net, run natively. */
  age: OnnxAge;
}

export interface FaceRuntimeOptions {
  /** Threads for the native detector; default one per core (a worker pool gives each worker its share). */
  threads?: number;
}

const require = createRequire(import.meta.url);
let loading: Promise<FaceRuntime> | undefined;

/** The thread's runtime, loaded on first call (`options` apply to that first load). */
export function faceRuntime(options: FaceRuntimeOptions = {}): Promise<FaceRuntime> {
  loading ??= load(options.threads ?? os.availableParallelism()).catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

async function load(threads: number): Promise<FaceRuntime> {
  const tf = await loadTf();
  // face-api's node builds take @tensorflow/tfjs(-node) as external packages, so they share our engine.
  const build = usesNativeTf()
    ? '@vladmandic/face-api/dist/face-api.node.js'
    : '@vladmandic/face-api/dist/face-api.node-wasm.js';
  const faceapi = require(build) as FaceApiModule;
  // Weights ship in the package; read from disk (nothing is fetched).
  const modelDir = faceApiModelDir();
  await faceapi.nets.ssdMobilenetv1.loadFromDisk(modelDir);
  await faceapi.nets.faceLandmark68Net.loadFromDisk(modelDir);
  await faceapi.nets.ageGenderNet.loadFromDisk(modelDir);
  await faceapi.nets.tinyFaceDetector.loadFromDisk(modelDir);
  const ssd = await onnxSsd({ faceapi }, threads);
  const tiny = await onnxTinyDetector({ faceapi }, threads, QUICK_SIDE);
  const landmarks = await onnxLandmarks({ faceapi }, threads);
  const descriptor = await onnxDescriptor(threads);
  const age = await onnxAge({ faceapi }, threads);
  const nets = { ssd, tiny, landmarks, descriptor, age };
  await warmUp(nets);
  return { tf, faceapi, backend: tfBackend(), ...nets };
}

/** face-api's weights, shipped in its package (nothing is fetched). */
export function faceApiModelDir(): string {
  return join(dirname(require.resolve('@vladmandic/face-api/package.json')), 'model');
}

/** First inference compiles kernels and allocates buffers; pay that at start, not on a request. */
async function warmUp({
  ssd,
  tiny,
  landmarks,
  descriptor,
  age,
}: Pick<FaceRuntime, 'ssd' | 'tiny' | 'landmarks' | 'descriptor' | 'age'>): Promise<void> {
  const image = { data: new Uint8Array(160 * 160 * 3), width: 160, height: 160 };
  await ssd.locateFaces(image, { minConfidence: 0.99, maxResults: 1 });
  await tiny.locateFaces(image, { scoreThreshold: 0.99 });
  await landmarks.detect({ rgb: image });
  await descriptor.describe({ data: new Uint8Array(112 * 112 * 3), width: 112, height: 112 });
  await age.estimate({ rgb: image });
}
