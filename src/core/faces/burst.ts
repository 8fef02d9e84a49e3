import { faceDistance, MATCH_DISTANCE } from '../../ml/faces/match.js';
import type { HeadPose } from '../../ml/liveness/pose.js';
import { expressionOf, nonRigidResidual, type Point } from './landmarks.js';

// Active evidence from a burst of 3 to 8 frames of one face. A live person cannot hold perfectly
// still: the face deforms a little (micro-motion), blinks, turns. A photo or a frozen screen held
// to the camera only moves rigidly: identical frames, or frames that differ by a shift, a scale,
// an in-plane turn or a slight tilt, which an affine map explains. See landmarks.ts.
// Head turns and looking up are read from the face mesh's head pose, in degrees (an absolute
// angle, so a turn one way and back is not also a turn the other way).

export const GESTURES = ['turn_left', 'turn_right', 'look_up', 'blink', 'smile'] as const;
export type Gesture = (typeof GESTURES)[number];

/**
 * Thresholds in eye distances, ratios or degrees. Set from the real models on the shared photos:
 * frames made from one photo shifted and scaled leave an affine residual of at most about 0.01
 * (landmark jitter of the detector) and move the mesh yaw by a few degrees, see
 * test/face-engine.test.ts; near-frontal portraits there have a mesh yaw within about 8 degrees.
 * A photo held up in a room and moved by hand, its face small in the frame (50 to 100 px), left
 * up to 0.032 (npm run eval:bursts, moved_photo); live bursts of the shared video 0.078 and up.
 */
export const BURST_THRESHOLDS = {
  /** affine residual between some frame and the first above which the face deformed */
  microMotion: 0.04,
  /** degrees the yaw must change, from an earlier frame to a later one, for a head turn */
  turn: 12,
  /** degrees from facing the camera that the turned frame must reach on the asked side */
  turnReach: 8,
  /** degrees the pitch must rise above the burst's first frame for looking up */
  lookUp: 10,
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
  /** From the face mesh; null when the mesh could not pose this frame's face. */
  pose: HeadPose | null;
}

export interface BurstEvidence {
  name: string;
  value: number;
  passed: boolean;
  detail: string;
}

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
  let lowest = values[0] ?? 0;
  let best = 0;
  for (const value of values) {
    best = Math.max(best, value - lowest);
    lowest = Math.min(lowest, value);
  }
  return map(best);
}

const range = (values: number[]) => (values.length ? Math.max(...values) - Math.min(...values) : 0);

/** Analyses the largest face of each frame (in order; no two frames are the same file). */
export function analyseBurst(faces: BurstFace[]): BurstAnalysis {
  const T = BURST_THRESHOLDS;
  const first = faces[0]!;
  const expressions = faces.map((f) => expressionOf(f.landmarks));
  const poses = faces.flatMap((f) => (f.pose ? [f.pose] : []));
  const nonRigid = Math.max(...faces.slice(1).map((f) => nonRigidResidual(first.landmarks, f.landmarks)));
  const linkDistance = identityLink(faces.map((f) => f.descriptor));
  const ears = expressions.map((p) => p.ear);
  const earMax = Math.max(...ears);
  const earMin = Math.min(...ears);
  // A move counts from any earlier frame (the person may already be moving when the burst
  // begins); a head turn must also end up turned to the asked side, so turning one way and back
  // is not the other turn. Looking up is measured from the first frame, since "straight ahead"
  // depends on where the phone is held.
  const smile = largestRise(
    expressions.map((p) => Math.log(Math.max(p.mouthWidth, 1e-6))),
    (rise) => Math.exp(rise) - 1,
  );
  const yaws = poses.map((p) => p.yaw);
  const pitches = poses.map((p) => p.pitch);
  const towardsLeft = largestRise(yaws);
  const towardsRight = largestRise(yaws.map((y) => -y));
  const furthestLeft = Math.max(0, ...yaws);
  const furthestRight = Math.max(0, ...yaws.map((y) => -y));
  const lookUp = pitches.length ? Math.max(...pitches) - pitches[0]! : 0;
  const blink = earMax >= T.openEyes && earMin <= T.blinkRatio * earMax;

  const yawRange = range(yaws);
  const pitchRange = range(pitches);
  // The movement asked for must be the main one: a video of the person turning, who also lifts
  // the chin a little on the way, does not answer "look up", nor a nod a turn; and someone asked
  // to blink or smile keeps the head still (a replay of them turning while they talk does not
  // answer "smile").
  const headStill = yawRange < T.turn && pitchRange < T.lookUp;
  const gestures: Record<Gesture, boolean> = {
    turn_left: towardsLeft >= T.turn && furthestLeft >= T.turnReach && towardsLeft >= pitchRange,
    turn_right: towardsRight >= T.turn && furthestRight >= T.turnReach && towardsRight >= pitchRange,
    look_up: lookUp >= T.lookUp && lookUp >= yawRange,
    blink: blink && headStill,
    smile: smile >= T.smile && headStill,
  };
  const poseChange = yawRange >= T.turn || pitchRange >= T.lookUp;
  const deformed = nonRigid >= T.microMotion;
  const motion = deformed || blink || poseChange;
  const motionStrength = Math.min(
    1,
    Math.max(nonRigid / (2 * T.microMotion), yawRange / (2 * T.turn), pitchRange / (2 * T.lookUp), blink ? 1 : 0),
  );
  const samePerson = linkDistance <= MATCH_DISTANCE;
  const unposed = faces.length - poses.length;

  const evidence: BurstEvidence[] = [
    {
      name: 'same_person',
      value: round(linkDistance),
      passed: samePerson,
      detail: `every frame is linked to the others through frames face match calls the same person; the weakest link needed is a descriptor distance of ${linkDistance.toFixed(3)}; above ${MATCH_DISTANCE.toFixed(3)} the frames show different people`,
    },
    {
      name: 'non_rigid_motion',
      value: round(nonRigid),
      passed: deformed,
      detail: `landmark motion not explained by shifting, scaling or tilting a flat picture: ${nonRigid.toFixed(3)} eye distances (live at >= ${T.microMotion})`,
    },
    {
      name: 'blink',
      value: round(earMax > 0 ? earMin / earMax : 1),
      passed: blink,
      detail: `eye aspect ratio from ${earMin.toFixed(3)} to ${earMax.toFixed(3)}; a blink drops it to ${T.blinkRatio} of the open value`,
    },
    {
      name: 'smile',
      value: round(smile),
      passed: smile >= T.smile,
      detail: `the mouth widened by ${(100 * smile).toFixed(1)}% of its width; a smile widens it ${100 * T.smile}% (as a gesture, with the head held still)`,
    },
    {
      name: 'pose_change',
      value: round(Math.max(yawRange, pitchRange)),
      passed: poseChange,
      detail:
        `head pose from the face mesh: yaw ${describeRange(yaws)} (a turn moves it >= ${T.turn}), pitch ${describeRange(pitches)} (>= ${T.lookUp}) degrees` +
        (unposed ? `; ${unposed} frame(s) could not be posed` : ''),
    },
  ];
  return { motion, motionStrength, samePerson, gestures, evidence };
}

/**
 * The largest descriptor distance needed to link every frame into one identity (the bottleneck
 * of the minimum spanning tree over all pairs). A head turning through the burst changes the
 * descriptor gradually: its two ends may be far apart while each frame stays close to some other;
 * two people in one burst stay apart however the frames are linked.
 */
export function identityLink(descriptors: Float32Array[]): number {
  const linked = [0];
  const rest = new Set(descriptors.keys());
  rest.delete(0);
  let bottleneck = 0;
  while (rest.size) {
    let best = Infinity;
    let next = -1;
    for (const i of rest) {
      for (const j of linked) {
        const d = faceDistance(descriptors[i]!, descriptors[j]!);
        if (d < best) [best, next] = [d, i];
      }
    }
    linked.push(next);
    rest.delete(next);
    bottleneck = Math.max(bottleneck, best);
  }
  return bottleneck;
}

function describeRange(values: number[]): string {
  if (!values.length) return 'unknown';
  return `${Math.min(...values).toFixed(1)} to ${Math.max(...values).toFixed(1)}`;
}
