import type { DecodedImage } from '../image.js';
import { cropFaceJpeg } from './crop.js';
import type { FaceQuality } from './quality.js';
import type { QuarterTurns } from './raster.js';
import { SerialQueue } from '../queue.js';
import { tfWasmFeatures } from '../tf.js';
import { faceRuntime } from './runtime.js';
import { FaceWorkerPool } from './pool.js';
import { faceWork, type FaceWork } from './work.js';

export type { FaceQuality } from './quality.js';
export type { QuarterTurns } from './raster.js';

export { DEFAULT_FACE_MATCH_THRESHOLD, faceDistance, faceSimilarity, MATCH_DISTANCE } from './match.js';

export interface FaceBox {
  x: number;
  y: number;
  width: number;
  height: number;
} // upright original-image pixels
export interface DetectedFace {
  box: FaceBox;
  score: number; // detector confidence 0..1
  landmarks: { x: number; y: number }[]; // 68 points, original-image pixels
  rollDegrees: number; // in-plane rotation estimated from the eyes
}
export interface FaceDescription extends DetectedFace {
  descriptor: Float32Array; // 512-d unit vector (FACE_DESCRIPTOR_KIND)
  /**
   * How far the descriptor can be trusted (blur, drawing, cut by the frame); absent from engines that do not measure
   * it.
   */
  quality?: FaceQuality;
  /** Age in years estimated from the face (face-api's age net); absent from engines that do not estimate it. */
  estimatedAge?: number;
}

export interface DetectOptions {
  /**
   * Clockwise quarter turns that stand the image upright, when the caller knows them (a document
   * read upright at that rotation, its portrait upright with it): faces are looked for at that
   * orientation only, instead of at every one in turn.
   */
  upright?: QuarterTurns;
}

export interface DescribeOptions {
  /**
   * The caller needs the descriptor, landmarks and quality only (a face match), not the SSD's own
   * box: a plainly upright face may then be found the quick way (quick.ts), its box derived from
   * its landmarks. Bursts leave it off: their boxes are compared frame to frame.
   */
  quick?: boolean;
}

export interface FaceModels {
  backend: string; // 'tensorflow' | 'wasm' | 'cpu'
  /** On the WASM backend, the features the nets run with (simd, threads). */
  wasm: string | undefined;
  /** Every face, largest first. Detection runs on a downscaled copy (long side ~640) for speed, boxes mapped back. */
  detectFaces(image: DecodedImage, options?: DetectOptions): Promise<DetectedFace[]>;
  /**
   * The largest face with its descriptor, computed on an aligned crop taken from the FULL-resolution image; null when
   * there is no usable face.
   */
  describeLargestFace(image: DecodedImage, options?: DescribeOptions): Promise<FaceDescription | null>;
  /** A tight JPEG crop (with margin) of a face, for a document portrait. */
  cropFace(image: DecodedImage, box: FaceBox, options?: { margin?: number; maxSide?: number }): Promise<Buffer>;
  close(): Promise<void>;
}

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
 * Loads the SSD MobileNet v1 detector, 68-point landmarks, the recognition and age nets once per
 * process (on worker threads, see pool.ts; later calls reuse them), warmed. Each call returns a
 * handle; close() waits for the handle's own work and refuses new work (the shared models stay
 * loaded for other handles).
 */
export async function loadFaceModels(): Promise<FaceModels> {
  const work = await sharedEngine();
  let closed = false;
  const running = new Set<Promise<unknown>>();
  const guard = <T>(task: () => Promise<T>): Promise<T> => {
    if (closed) return Promise.reject(new Error('face models handle is closed'));
    const result = task();
    running.add(result);
    const forget = () => running.delete(result);
    result.then(forget, forget);
    return result;
  };
  return {
    backend: work.backend,
    wasm: work.wasm,
    detectFaces: (image, options) => guard(() => work.detectFaces(image, options)),
    describeLargestFace: (image, options) => guard(() => work.describeLargestFace(image, options)),
    cropFace: (image, box, options) => cropFaceJpeg(image, box, options),
    close: async () => {
      closed = true;
      await Promise.allSettled([...running]); // drain what this handle started before close
    },
  };
}
