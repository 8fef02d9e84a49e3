import type { DecodedImage } from '../image.js';
import { cropFaceJpeg } from '../faces/crop.js';
import type { DescribeOptions, DetectOptions, FaceModels } from '../faces/index.js';
import { faceRuntime } from '../faces/runtime.js';
import { faceWork, type FaceWork } from '../faces/work.js';
import { type LivenessModels, type LivenessWork, livenessWork } from '../liveness/index.js';
import { livenessGraphs } from '../liveness/models.js';
import { SerialQueue } from '../queue.js';
import { tfWasmFeatures } from '../tf.js';
import { FaceWorkerPool } from './pool.js';

// Where the face and liveness nets run in this process: on the inference worker threads (pool.ts,
// worker.ts), which host both, or in-process with VERITY_FACE_WORKERS=0. faces/ and liveness/ hold
// the work itself and know nothing of threads; this folder puts them on threads and hands out the
// handles the service loads (loadFaceModels, loadLivenessModels).

/** The process's face inference: a worker pool, or in-process with VERITY_FACE_WORKERS=0. Started once. */
let engine: Promise<FaceWork & { backend: string; wasm: string | undefined }> | undefined;

function sharedEngine(): Promise<FaceWork & { backend: string; wasm: string | undefined }> {
  engine ??= (async () => {
    if (process.env.VERITY_FACE_WORKERS === '0') {
      const rt = await faceRuntime();
      const work = faceWork(rt);
      const queue = new SerialQueue(); // one TF.js backend: one inference at a time
      return {
        backend: rt.backend,
        wasm: tfWasmFeatures(),
        detectFaces: (image: DecodedImage, options?: DetectOptions) =>
          queue.run(() => work.detectFaces(image, options)),
        describeLargestFace: (image: DecodedImage, options?: DescribeOptions) =>
          queue.run(() => work.describeLargestFace(image, options)),
      };
    }
    return FaceWorkerPool.start();
  })().catch((error: unknown) => {
    engine = undefined;
    throw error;
  });
  return engine;
}

/**
 * The face worker pool the process runs (liveness runs on it too), or null when face inference is in-process
 * (VERITY_FACE_WORKERS=0).
 */
export async function faceWorkerPool(): Promise<FaceWorkerPool | null> {
  const work = await sharedEngine();
  return work instanceof FaceWorkerPool ? work : null;
}

/**
 * One handle's share of the shared work: `guard` runs a task unless the handle is closed, and
 * `close` refuses new tasks and waits for those the handle started (the shared nets stay loaded).
 */
function handleWork(name: string): { guard: <T>(task: () => Promise<T>) => Promise<T>; close: () => Promise<void> } {
  let closed = false;
  const running = new Set<Promise<unknown>>();
  return {
    guard: <T>(task: () => Promise<T>): Promise<T> => {
      if (closed) return Promise.reject(new Error(`${name} models handle is closed`));
      const result = task();
      running.add(result);
      const forget = () => running.delete(result);
      result.then(forget, forget);
      return result;
    },
    close: async () => {
      closed = true;
      await Promise.allSettled([...running]);
    },
  };
}

/**
 * Loads the SSD MobileNet v1 detector, 68-point landmarks, the recognition and age nets once per
 * process (on worker threads, see pool.ts; later calls reuse them), warmed. Each call returns a
 * handle; close() waits for the handle's own work and refuses new work (the shared models stay
 * loaded for other handles).
 */
export async function loadFaceModels(): Promise<FaceModels> {
  const work = await sharedEngine();
  const { guard, close } = handleWork('face');
  return {
    backend: work.backend,
    wasm: work.wasm,
    detectFaces: (image, options) => guard(() => work.detectFaces(image, options)),
    describeLargestFace: (image, options) => guard(() => work.describeLargestFace(image, options)),
    cropFace: (image, box, options) => cropFaceJpeg(image, box, options),
    close,
  };
}

/**
 * Where liveness runs: on the face worker threads, beside the face nets (TF.js holds the thread it
 * runs on, so on the main thread every other request waited for a burst's frames), or in-process
 * with VERITY_FACE_WORKERS=0, one request at a time. Started once.
 */
let shared: Promise<LivenessWork> | undefined;

function sharedLiveness(): Promise<LivenessWork> {
  shared ??= (async (): Promise<LivenessWork> => {
    const pool = await faceWorkerPool();
    if (pool) {
      await pool.warmLiveness();
      return {
        assess: (image, frames) => pool.assess(image, frames),
        headPose: (image, box) => pool.headPose(image, box),
      };
    }
    const work = livenessWork(await livenessGraphs(), (await loadFaceModels()).detectFaces);
    const inference = new SerialQueue();
    return {
      assess: (image, frames) => inference.run(() => work.assess(image, frames)),
      headPose: (image, box) => inference.run(() => work.headPose(image, box)),
    };
  })().catch((error: unknown) => {
    shared = undefined;
    throw error;
  });
  return shared;
}

/** Loads the face detector and both liveness graphs once per process, warmed; each call returns a handle. */
export async function loadLivenessModels(): Promise<LivenessModels> {
  const work = await sharedLiveness();
  const { guard, close } = handleWork('liveness');
  return {
    assess: (image, options) => guard(() => work.assess(image, options?.frames ?? [])),
    headPose: (image, face) => guard(() => work.headPose(image, face.box)),
    close,
  };
}
