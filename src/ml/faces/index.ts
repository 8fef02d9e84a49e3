import type { DecodedImage } from '../image.js';
import type { FaceQuality } from './quality.js';
import type { QuarterTurns } from './raster.js';

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
