import type { DecodedImage } from '../image.js';
import { cropFaceJpeg } from './crop.js';
import { describe } from './describe.js';
import { detectionPixels, findFaces, type RawFace } from './detect.js';
import type { Box } from './geometry.js';
import type { FaceQuality } from './quality.js';
import type { QuarterTurns } from './raster.js';
import { SerialQueue } from './queue.js';
import { faceRuntime } from './runtime.js';

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
  descriptor: Float32Array; // 128-d
  /** How far the descriptor can be trusted (blur, drawing, cut by the frame); absent from engines that do not measure it. */
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

export interface FaceModels {
  backend: string; // 'tensorflow' | 'wasm' | 'cpu'
  /** Every face, largest first. Detection runs on a downscaled copy (long side ~640) for speed, boxes mapped back. */
  detectFaces(image: DecodedImage, options?: DetectOptions): Promise<DetectedFace[]>;
  /** The largest face with its descriptor, computed on an aligned crop taken from the FULL-resolution image; null when there is no usable face. */
  describeLargestFace(image: DecodedImage): Promise<FaceDescription | null>;
  /** A tight JPEG crop (with margin) of a face, for a document portrait. */
  cropFace(image: DecodedImage, box: FaceBox, options?: { margin?: number; maxSide?: number }): Promise<Buffer>;
  close(): Promise<void>;
}

/** One queue for the process: every inference, from every handle, runs one at a time. */
const inference = new SerialQueue();

/**
 * Loads the SSD MobileNet v1 detector, 68-point landmarks and the recognition net once per
 * process (later calls reuse them), warmed up. Each call returns a handle; close() waits for the
 * handle's queued work and refuses new work (the shared models stay loaded for other handles).
 */
export async function loadFaceModels(): Promise<FaceModels> {
  const rt = await faceRuntime();
  let closed = false;
  const guard = <T>(task: () => Promise<T>): Promise<T> => {
    if (closed) return Promise.reject(new Error('face models handle is closed'));
    return inference.run(task);
  };
  const detect = async (image: DecodedImage, options: DetectOptions = {}): Promise<RawFace[]> => {
    const { rgb, scale } = await detectionPixels(image);
    return findFaces(rt, rgb, scale, options.upright === undefined ? undefined : [options.upright]);
  };
  return {
    backend: rt.backend,
    detectFaces: (image, options) => guard(async () => (await detect(image, options)).map(publicFace)),
    describeLargestFace: (image) =>
      guard(async () => {
        const largest = (await detect(image))[0];
        if (!largest) return null;
        const described = await describe(rt, image, largest);
        if (!described) return null;
        return { ...publicFace(largest), landmarks: described.landmarks, rollDegrees: described.rollDegrees, descriptor: described.descriptor, quality: described.quality, estimatedAge: described.estimatedAge };
      }),
    cropFace: (image, box, options) => cropFaceJpeg(image, box, options),
    close: async () => {
      closed = true;
      await inference.run(async () => undefined); // drain what was queued before close
    },
  };
}

function publicFace(face: RawFace): DetectedFace {
  const box: Box = face.box;
  return { box: { ...box }, score: face.score, landmarks: face.landmarks, rollDegrees: face.rollDegrees };
}
