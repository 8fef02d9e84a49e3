import type * as Tf from '@tensorflow/tfjs';
import { faceCrop } from './crop.js';
import type { Box, Rgb } from './evidence.js';
import type { LivenessGraphs } from './models.js';

// Head pose from human's face mesh (468 3-D points of MediaPipe's topology). The mesh model sees
// a square crop around the detector's box, as human feeds it, and returns its points in crop
// pixels with depth on about the same scale; the pose is the rotation of the frame spanned by
// the forehead-chin and cheek-cheek axes of the mesh (human's calculateFaceAngle, on raw crop
// coordinates so the three axes share one unit).

export interface HeadPose {
  /** Degrees; positive when the subject turns to their own left (in unmirrored frames). */
  yaw: number;
  /** Degrees; positive when the subject looks up. */
  pitch: number;
  /** Degrees; in-plane tilt, positive when the chin moves to the image's right (the head leans to the image's left). */
  roll: number;
  /** The mesh model's probability that the crop holds a face. */
  confidence: number;
}

const MESH_INPUT = 192;
/** The crop around the detector box, as human's detector.scale (1.4) makes it. */
const MESH_CROP_SCALE = 1.4;
/** Below this mesh confidence the crop is not a face the mesh can pose. */
export const MIN_MESH_CONFIDENCE = 0.5;

// MediaPipe face-mesh indices.
const FOREHEAD = 10;
const CHIN = 152;
const CHEEK_IMAGE_LEFT = 234; // the subject's right cheek in an unmirrored frame
const CHEEK_IMAGE_RIGHT = 454;

type Vec = [number, number, number];
const sub = (a: Vec, b: Vec): Vec => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const cross = (a: Vec, b: Vec): Vec => [
  a[1] * b[2] - a[2] * b[1],
  a[2] * b[0] - a[0] * b[2],
  a[0] * b[1] - a[1] * b[0],
];
const unit = (v: Vec): Vec => {
  const n = Math.hypot(v[0], v[1], v[2]) || 1;
  return [v[0] / n, v[1] / n, v[2] / n];
};
const degrees = (radians: number) => (radians * 180) / Math.PI;

/** Yaw, pitch and roll in degrees from 468 mesh points (x right, y down, z away from the camera). */
export function poseFromMesh(mesh: readonly Vec[]): Omit<HeadPose, 'confidence'> {
  const down = unit(sub(mesh[CHIN]!, mesh[FOREHEAD]!));
  const across = unit(sub(mesh[CHEEK_IMAGE_RIGHT]!, mesh[CHEEK_IMAGE_LEFT]!));
  const out = unit(cross(across, down)); // from the face towards the camera (z negative)
  const x = cross(down, out); // re-orthogonalised cheek axis
  // Rows x, down, out form the face's rotation; Euler angles in YZX order as human reads them.
  const yaw = Math.atan2(-out[0], x[0]);
  const pitch = Math.atan2(-down[2], down[1]);
  const roll = Math.atan2(down[0], Math.hypot(x[0], out[0]));
  return { yaw: degrees(yaw), pitch: degrees(pitch), roll: degrees(roll) };
}

/** Runs the face mesh on human's square crop around `box` (analysis pixels); null when it sees no face there. */
export function headPoseAt(graphs: LivenessGraphs, rgb: Rgb, box: Box): HeadPose | null {
  const { tf } = graphs;
  const outputs = tf.tidy(
    () => graphs.facemesh.execute(faceCrop(tf, rgb, box, MESH_CROP_SCALE, MESH_INPUT)) as Tf.Tensor[],
  );
  try {
    const flag = outputs.find((t) => t.shape[t.shape.length - 1] === 1)!;
    const points = outputs.find((t) => t.shape[t.shape.length - 1] === 1404)!;
    const confidence = flag.dataSync()[0]!;
    if (!(confidence >= MIN_MESH_CONFIDENCE)) return null;
    const raw = points.dataSync();
    const mesh: Vec[] = [];
    for (let i = 0; i < 468; i++) mesh.push([raw[3 * i]!, raw[3 * i + 1]!, raw[3 * i + 2]!]);
    return { ...poseFromMesh(mesh), confidence };
  } finally {
    tf.dispose(outputs);
  }
}
