import type { DecodedImage } from '../ml/image.js';
import type { DescribeOptions, DetectedFace, DetectOptions, FaceBox, FaceDescription } from '../ml/faces/index.js';
import type { HeadPose, LivenessAssessment } from '../ml/liveness/index.js';
import type { Models } from './models.js';

export type { DetectedFace, FaceBox, FaceDescription, HeadPose, LivenessAssessment };

/**
 * What core asks of faces. Checks (liveness, face match, anti-spoof, uniqueness, KYC, the document
 * portrait) call this and never src/ml directly, so core and HTTP tests can run on a small
 * deterministic engine (test/helpers/face-engine.ts) when a test is not about the models.
 *
 * Coordinates are upright original-image pixels; `landmarks` are the 68 iBUG/dlib points.
 */
export interface FaceEngine {
  /** Every face, largest first (landmarks as found by the detector). */
  detectFaces(image: DecodedImage, options?: DetectOptions): Promise<DetectedFace[]>;
  /** The largest usable face with its 512-d descriptor and refined landmarks; null when none. */
  describeLargestFace(image: DecodedImage, options?: DescribeOptions): Promise<FaceDescription | null>;
  /** A JPEG crop of a face (a document portrait). */
  cropFace(image: DecodedImage, box: FaceBox, options?: { margin?: number; maxSide?: number }): Promise<Buffer>;
  /**
   * Passive liveness: learned models plus explained pixel evidence; with the other frames of a burst (and their faces),
   * the model's score is the median over all.
   */
  assessLiveness(image: DecodedImage, others?: { image: DecodedImage; face: FaceBox }[]): Promise<LivenessAssessment>;
  /** Head pose (yaw, pitch, roll in degrees) of a face found in `image`; null when it cannot be posed. */
  headPose(image: DecodedImage, face: DetectedFace): Promise<HeadPose | null>;
}

/** The real engine: face-api and human's models from src/ml, loaded on first use and shared. */
export function modelFaceEngine(models: Models): FaceEngine {
  return {
    detectFaces: async (image, options) => (await models.faces()).detectFaces(image, options),
    describeLargestFace: async (image, options) => (await models.faces()).describeLargestFace(image, options),
    cropFace: async (image, box, options) => (await models.faces()).cropFace(image, box, options),
    assessLiveness: async (image, others) =>
      (await models.liveness()).assess(image, {
        frames: others?.map((other) => ({ image: other.image, box: other.face })),
      }),
    headPose: async (image, face) => (await models.liveness()).headPose(image, face),
  };
}
