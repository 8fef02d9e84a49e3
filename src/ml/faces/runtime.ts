import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as FaceApi from '@vladmandic/face-api';
import { loadTf, tfBackend, usesNativeTf, type TfModule } from '../tf.js';

// One face-api instance per process: the backend, the three nets and a warm-up, behind a promise.

export type FaceApiModule = typeof FaceApi;

export interface FaceRuntime {
  tf: TfModule;
  faceapi: FaceApiModule;
  backend: string;
}

const require = createRequire(import.meta.url);
let loading: Promise<FaceRuntime> | undefined;

export function faceRuntime(): Promise<FaceRuntime> {
  loading ??= load().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

async function load(): Promise<FaceRuntime> {
  const tf = await loadTf();
  // face-api's node builds take @tensorflow/tfjs(-node) as external packages, so they share our engine.
  const build = usesNativeTf() ? '@vladmandic/face-api/dist/face-api.node.js' : '@vladmandic/face-api/dist/face-api.node-wasm.js';
  const faceapi = require(build) as FaceApiModule;
  // Weights ship in the package; read from disk (nothing is fetched).
  const modelDir = join(dirname(require.resolve('@vladmandic/face-api/package.json')), 'model');
  await faceapi.nets.ssdMobilenetv1.loadFromDisk(modelDir);
  await faceapi.nets.faceLandmark68Net.loadFromDisk(modelDir);
  await faceapi.nets.faceRecognitionNet.loadFromDisk(modelDir);
  await faceapi.nets.ageGenderNet.loadFromDisk(modelDir);
  await warmUp(tf, faceapi);
  return { tf, faceapi, backend: tfBackend() };
}

/** First inference compiles kernels and allocates buffers; pay that at start, not on a request. */
async function warmUp(tf: TfModule, faceapi: FaceApiModule): Promise<void> {
  const image = tf.zeros([160, 160, 3], 'int32') as unknown as FaceApi.TNetInput;
  try {
    await faceapi.detectAllFaces(image, new faceapi.SsdMobilenetv1Options({ minConfidence: 0.99 }));
    await faceapi.nets.faceLandmark68Net.detectLandmarks(image);
    await faceapi.nets.faceRecognitionNet.computeFaceDescriptor(image);
    await faceapi.nets.ageGenderNet.predictAgeAndGender(image);
  } finally {
    (image as unknown as { dispose(): void }).dispose();
  }
}
