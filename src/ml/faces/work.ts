import type { DecodedImage } from '../image.js';
import { describe } from './describe.js';
import { detectionPixels, findFaces, type RawFace } from './detect.js';
import { findUprightFaceQuickly } from './quick.js';
import type { DescribeOptions, DetectedFace, DetectOptions, FaceDescription } from './index.js';
import type { FaceRuntime } from './runtime.js';

// The two inferences a face-models handle offers, on one runtime: run in-process or inside a
// worker thread (../inference/pool.ts), the same code either way.

export interface FaceWork {
  detectFaces(image: DecodedImage, options?: DetectOptions): Promise<DetectedFace[]>;
  describeLargestFace(image: DecodedImage, options?: DescribeOptions): Promise<FaceDescription | null>;
}

export function faceWork(rt: FaceRuntime): FaceWork {
  const detect = async (image: DecodedImage, options: DetectOptions = {}): Promise<RawFace[]> => {
    const { rgb, scale } = await detectionPixels(image);
    return findFaces(rt, rgb, scale, options.upright === undefined ? undefined : [options.upright]);
  };
  return {
    detectFaces: async (image, options) => (await detect(image, options)).map(publicFace),
    describeLargestFace: async (image, options = {}) => {
      const largest = await largestFace(rt, image, options);
      if (!largest) return null;
      const described = await describe(rt, image, largest);
      if (!described) return null;
      return {
        ...publicFace(largest),
        landmarks: described.landmarks,
        rollDegrees: described.rollDegrees,
        descriptor: described.descriptor,
        quality: described.quality,
        estimatedAge: described.estimatedAge,
      };
    },
  };
}

/**
 * The largest face of an image, found the quick way when asked and plainly upright, else by the full search; undefined
 * when there is none.
 */
export async function largestFace(
  rt: FaceRuntime,
  image: DecodedImage,
  options: DescribeOptions = {},
): Promise<RawFace | undefined> {
  const { rgb, scale } = await detectionPixels(image);
  const quick = options.quick ? await findUprightFaceQuickly(rt, rgb, scale) : null;
  return quick ?? (await findFaces(rt, rgb, scale))[0];
}

export function publicFace(face: RawFace): DetectedFace {
  return { box: { ...face.box }, score: face.score, landmarks: face.landmarks, rollDegrees: face.rollDegrees };
}
