import { faceDistance, MATCH_DISTANCE } from '../../ml/faces/match.js';
import { nonRigidResidual, poseOf, type FacePose, type Point } from './landmarks.js';

// Active evidence from a burst of 3 to 8 frames of one face. A live person cannot hold perfectly
// still: the face deforms a little (micro-motion), blinks, turns. A photo or a frozen screen held
// to the camera only moves rigidly: identical frames, or frames that differ by a shift, a scale,
// an in-plane turn or a slight tilt, which an affine map explains. See landmarks.ts.

export const GESTURES = ['turn_left', 'turn_right', 'look_up', 'blink', 'smile'] as const;
export type Gesture = (typeof GESTURES)[number];

/**
 * Thresholds in eye distances (or ratios). Set from the real models on the shared photos: frames
 * made from one photo shifted and scaled leave an affine residual of at most about 0.01 (landmark
 * jitter of the detector), see test/face-engine.test.ts and scripts/eval-liveness.ts.
 */
export const BURST_THRESHOLDS = {
  /** affine residual between some frame and the first above which the face deformed */
  microMotion: 0.03,
  /** nose shift across the eye line for a head turn (about 10 degrees) */
  turn: 0.08,
  /** nose shift towards the eyes for looking up */
  lookUp: 0.06,
  /** lowest EAR at or below this share of the highest (with open eyes seen) is a blink */
  blinkRatio: 0.7,
  /** eyes count as open somewhere in the burst at or above this EAR */
  openEyes: 0.18,
  /** the mouth widening by this share of its first width is a smile */
  smile: 0.1,
};

export interface BurstFace {
  landmarks: Point[];
  descriptor: Float32Array;
}

export interface BurstEvidence { name: string; value: number; passed: boolean; detail: string }

export interface BurstAnalysis {
  /** Some evidence of a live, moving face (micro-motion, a blink or a pose change). */
  motion: boolean;
  /** 0..1: how clearly the burst moved like a live face. */
  motionStrength: number;
  samePerson: boolean;
  gestures: Record<Gesture, boolean>;
  evidence: BurstEvidence[];
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** The largest increase of `values` from an earlier frame to a later one (0 when it only falls). */
function largestRise(values: number[], map: (rise: number) => number = (rise) => rise): number {
  let lowest = values[0]!;
  let best = 0;
  for (const value of values) {
    best = Math.max(best, value - lowest);
    lowest = Math.min(lowest, value);
  }
  return map(best);
}

/** Analyses the largest face of each frame (in order); `identicalBytes` when every frame is the same file. */
export function analyseBurst(faces: BurstFace[], identicalBytes: boolean): BurstAnalysis {
  const T = BURST_THRESHOLDS;
  const first = faces[0]!;
  const poses: FacePose[] = faces.map((f) => poseOf(f.landmarks));
  const nonRigid = identicalBytes ? 0 : Math.max(...faces.slice(1).map((f) => nonRigidResidual(first.landmarks, f.landmarks)));
  const maxDistance = Math.max(...faces.slice(1).map((f) => faceDistance(first.descriptor, f.descriptor)));
  const ears = poses.map((p) => p.ear);
  const earMax = Math.max(...ears);
  const earMin = Math.min(...ears);
  // A gesture is a move in its direction from any earlier frame: the person may have been a
  // little turned, or already moving, when the burst began.
  const smile = largestRise(poses.map((p) => Math.log(Math.max(p.mouthWidth, 1e-6))), (rise) => Math.exp(rise) - 1);
  const turnLeft = largestRise(poses.map((p) => p.yaw));
  const turnRight = largestRise(poses.map((p) => -p.yaw));
  const lookUp = largestRise(poses.map((p) => -p.pitch));
  const lookDown = largestRise(poses.map((p) => p.pitch));
  const blink = earMax >= T.openEyes && earMin <= T.blinkRatio * earMax;

  const gestures: Record<Gesture, boolean> = {
    turn_left: turnLeft >= T.turn,
    turn_right: turnRight >= T.turn,
    look_up: lookUp >= T.lookUp,
    blink,
    smile: smile >= T.smile,
  };
  const poseChange = Math.max(turnLeft, turnRight) >= T.turn || Math.max(lookUp, lookDown) >= T.lookUp;
  const deformed = nonRigid >= T.microMotion;
  const motion = deformed || blink || poseChange;
  const motionStrength = Math.min(1, Math.max(nonRigid / (2 * T.microMotion), Math.max(turnLeft, turnRight) / (2 * T.turn), blink ? 1 : 0));
  const samePerson = maxDistance <= MATCH_DISTANCE;

  const evidence: BurstEvidence[] = [
    {
      name: 'same_person',
      value: round(maxDistance),
      passed: samePerson,
      detail: `largest descriptor distance from the first frame ${maxDistance.toFixed(3)}; above ${MATCH_DISTANCE} the frames show different people`,
    },
    {
      name: 'non_rigid_motion',
      value: round(nonRigid),
      passed: deformed,
      detail: identicalBytes
        ? 'every frame is the same image'
        : `landmark motion not explained by shifting, scaling or tilting a flat picture: ${nonRigid.toFixed(3)} eye distances (live at >= ${T.microMotion})`,
    },
    {
      name: 'blink',
      value: round(earMax > 0 ? earMin / earMax : 1),
      passed: blink,
      detail: `eye aspect ratio from ${earMin.toFixed(3)} to ${earMax.toFixed(3)}; a blink drops it to ${T.blinkRatio} of the open value`,
    },
    {
      name: 'pose_change',
      value: round(Math.max(turnLeft, turnRight, lookUp)),
      passed: poseChange,
      detail: `head turn ${Math.max(turnLeft, turnRight).toFixed(3)} (>= ${T.turn}), look up ${lookUp.toFixed(3)} (>= ${T.lookUp}) eye distances between frames`,
    },
  ];
  return { motion, motionStrength, samePerson, gestures, evidence };
}
