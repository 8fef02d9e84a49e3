// Measures on the 68 iBUG/dlib landmarks that say how a face moved between frames of a burst
// (head pose comes from the face mesh instead: see src/ml/liveness/pose.ts).
// Pure geometry: no pixels, no models, so the rules can be tested with any engine.
//
// A flat photo moved in front of a camera (shifted, scaled, turned in the image plane, tilted a
// little) changes its landmarks by an affine map, to a good approximation (weak perspective).
// A live face does not: the nose sticks out of the plane of the eyes and mouth, eyelids close,
// lips stretch. So every measure here is taken in an affine-invariant way:
// - `nonRigid`: what is left after the best affine fit from one frame's landmarks to another's;
// - the smile as the mouth-corner distance in the frame spanned by the eyes and the mouth (any
//   affine motion of a photo leaves it unchanged);
// - the eye aspect ratio (EAR) for blinks (Soukupova and Cech, 2016).

import { LEFT_EYE, mean, MOUTH, type Point, RIGHT_EYE } from '../../ml/faces/geometry.js';

export type { Point };

const MOUTH_LEFT = 48;
const MOUTH_RIGHT = 54;

const dist = (a: Point, b: Point): number => Math.hypot(a.x - b.x, a.y - b.y);

/** Distance between the eye centres: the unit every displacement is measured in. */
export function interocular(points: readonly Point[]): number {
  return dist(mean(points, LEFT_EYE), mean(points, RIGHT_EYE));
}

/** Eye aspect ratio, both eyes averaged: about 0.25-0.35 open, below about 0.15 closed. */
export function eyeAspectRatio(points: readonly Point[]): number {
  const ear = (e: readonly number[]): number => {
    const p = e.map((i) => points[i]!);
    return (dist(p[1]!, p[5]!) + dist(p[2]!, p[4]!)) / (2 * Math.max(dist(p[0]!, p[3]!), 1e-6));
  };
  return (ear(LEFT_EYE) + ear(RIGHT_EYE)) / 2;
}

/**
 * A point's coordinates in the face frame: origin between the eyes, u along the eye line (1 =
 * one eye distance, towards the image-right eye), v towards the mouth centre (1 = the mouth).
 */
function faceFrame(points: readonly Point[]): (p: Point) => { u: number; v: number } {
  const l = mean(points, LEFT_EYE);
  const r = mean(points, RIGHT_EYE);
  const m = mean(points, MOUTH);
  const o = { x: (l.x + r.x) / 2, y: (l.y + r.y) / 2 };
  const e1 = { x: r.x - l.x, y: r.y - l.y };
  const e2 = { x: m.x - o.x, y: m.y - o.y };
  const det = e1.x * e2.y - e1.y * e2.x || 1e-9;
  return (p) => {
    const dx = p.x - o.x;
    const dy = p.y - o.y;
    return { u: (dx * e2.y - dy * e2.x) / det, v: (e1.x * dy - e1.y * dx) / det };
  };
}

export interface FaceExpression {
  /** Mouth-corner distance in eye distances: grows with a smile. */
  mouthWidth: number;
  ear: number;
}

export function expressionOf(points: readonly Point[]): FaceExpression {
  const frame = faceFrame(points);
  return { mouthWidth: frame(points[MOUTH_RIGHT]!).u - frame(points[MOUTH_LEFT]!).u, ear: eyeAspectRatio(points) };
}

/** Solves the 3x3 system m·x = b (Cramer); null when singular. */
function solve3(m: number[][], b: number[]): number[] | null {
  const d = (a: number[][]) =>
    a[0]![0]! * (a[1]![1]! * a[2]![2]! - a[1]![2]! * a[2]![1]!) -
    a[0]![1]! * (a[1]![0]! * a[2]![2]! - a[1]![2]! * a[2]![0]!) +
    a[0]![2]! * (a[1]![0]! * a[2]![1]! - a[1]![1]! * a[2]![0]!);
  const det = d(m);
  if (Math.abs(det) < 1e-12) return null;
  return [0, 1, 2].map((c) => d(m.map((row, i) => row.map((v, j) => (j === c ? b[i]! : v)))) / det);
}

/**
 * Root-mean-square landmark displacement left after the best affine map from `from` to `to`,
 * in eye distances of `from`. Zero for a photo shifted, scaled, turned or slightly tilted.
 */
export function nonRigidResidual(from: readonly Point[], to: readonly Point[]): number {
  let sxx = 0,
    sxy = 0,
    syy = 0,
    sx = 0,
    sy = 0;
  const n = Math.min(from.length, to.length);
  for (let i = 0; i < n; i++) {
    const p = from[i]!;
    sxx += p.x * p.x;
    sxy += p.x * p.y;
    syy += p.y * p.y;
    sx += p.x;
    sy += p.y;
  }
  const normal = [
    [sxx, sxy, sx],
    [sxy, syy, sy],
    [sx, sy, n],
  ];
  const rhs = (pick: (q: Point) => number) => {
    let a = 0,
      b = 0,
      c = 0;
    for (let i = 0; i < n; i++) {
      const p = from[i]!;
      const v = pick(to[i]!);
      a += p.x * v;
      b += p.y * v;
      c += v;
    }
    return [a, b, c];
  };
  const ax = solve3(
    normal,
    rhs((q) => q.x),
  );
  const ay = solve3(
    normal,
    rhs((q) => q.y),
  );
  if (!ax || !ay) return 0;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const p = from[i]!;
    const q = to[i]!;
    const fx = ax[0]! * p.x + ax[1]! * p.y + ax[2]!;
    const fy = ay[0]! * p.x + ay[1]! * p.y + ay[2]!;
    sum += (q.x - fx) ** 2 + (q.y - fy) ** 2;
  }
  return Math.sqrt(sum / n) / Math.max(interocular(from), 1e-6);
}
