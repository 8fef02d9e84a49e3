import type { FaceBox } from '../../ml/faces/index.js';
import type { HeadPose } from '../../ml/liveness/pose.js';
import { sceneChange, type FrameScene, type SceneChange } from '../../ml/liveness/scene.js';
import type { BurstEvidence } from './burst.js';

// A burst must be one continuous capture of one person in one place. Consecutive frames of one
// camera stream, a few hundred milliseconds apart, differ by a little: the face moves and turns
// somewhat, the camera shifts a little, the light, the sensor noise and the focus stay what they
// were. Different photos of the person (even resized to one size), or a cut between two shots,
// jump in at least one of these. Every measure compares NEIGHBOURING frames, so a slow drift over
// the burst (a head turn, a step back) is allowed; the worst neighbouring pair is reported.

/**
 * Limits for one step between neighbouring frames. Chosen on the real video in the shared data
 * (shot C, a medium shot of one person on a stage with a panning camera, frames 100 to 400 ms
 * apart: the largest step seen is given beside each limit) with a margin for phone cameras,
 * and checked against bursts of different photos of one person (npm run eval:liveness).
 */
export const CONTINUITY_THRESHOLDS = {
  /** face box centre moved by this many face widths (seen: 0.93 at 400 ms, behind a panning camera) */
  faceJump: 1.0,
  /** face box size ratio (seen: 1.29) */
  faceScale: 1.4,
  /** degrees of yaw, pitch and roll (seen: 29, 23, 9) */
  yawStep: 35,
  pitchStep: 30,
  rollStep: 20,
  /** mean absolute background difference at the best camera shift, grey levels (seen: 12.4) */
  background: 20,
  /** ratio of the brighter to the darker face (seen: 1.14) */
  faceLight: 1.3,
  /** change of the face's chroma, (r-g, b-g) over luma (seen: 0.04) */
  faceColour: 0.1,
  /** ratio of the noisier frame's sensor noise to the cleaner's (seen: 1.14) */
  noise: 1.5,
  /** ratio of the sharper face to the softer (seen: 2.7; motion blur of a quick turn) */
  sharpness: 4,
};

export interface CaptureFrame {
  box: FaceBox;
  pose: HeadPose | null;
  scene: FrameScene;
}

export interface ContinuityVerdict {
  /** Every neighbouring pair of frames looks like one camera stream. */
  oneCapture: boolean;
  evidence: BurstEvidence[];
}

interface Step {
  faceJump: number;
  faceScale: number;
  yaw: number | null;
  pitch: number | null;
  roll: number | null;
  scene: SceneChange;
}

function stepBetween(a: CaptureFrame, b: CaptureFrame): Step {
  const width = (a.box.width + b.box.width) / 2;
  const centre = (box: FaceBox) => ({ x: box.x + box.width / 2, y: box.y + box.height / 2 });
  const ca = centre(a.box),
    cb = centre(b.box);
  const posed = a.pose && b.pose ? ([a.pose, b.pose] as const) : null;
  return {
    faceJump: Math.hypot(ca.x - cb.x, ca.y - cb.y) / Math.max(width, 1),
    faceScale: Math.max(a.box.width, b.box.width) / Math.max(Math.min(a.box.width, b.box.width), 1),
    yaw: posed ? Math.abs(posed[0].yaw - posed[1].yaw) : null,
    pitch: posed ? Math.abs(posed[0].pitch - posed[1].pitch) : null,
    roll: posed ? Math.abs(posed[0].roll - posed[1].roll) : null,
    scene: sceneChange(a.scene, b.scene),
  };
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** The largest value of `measure` over the steps, with the step (1-based: frames i-1 to i) where it is. */
function worst(steps: Step[], measure: (step: Step) => number | null): { value: number | null; at: number } {
  let value: number | null = null;
  let at = 0;
  steps.forEach((step, i) => {
    const v = measure(step);
    if (v !== null && (value === null || v > value)) {
      value = v;
      at = i + 1;
    }
  });
  return { value, at };
}

/** Judges whether `frames` (in capture order, one size) are one continuous capture. */
export function judgeContinuity(frames: CaptureFrame[]): ContinuityVerdict {
  const T = CONTINUITY_THRESHOLDS;
  const steps = frames.slice(1).map((frame, i) => stepBetween(frames[i]!, frame));
  const evidence: BurstEvidence[] = [];
  const rule = (name: string, measure: (step: Step) => number | null, limit: number, what: string, why: string) => {
    const { value, at } = worst(steps, measure);
    const passed = value === null || value <= limit;
    evidence.push({
      name,
      value: value === null ? 0 : round(value),
      passed,
      detail:
        value === null
          ? `${what}: not measurable on these frames`
          : `largest ${what} between neighbouring frames ${value.toFixed(2)} (frames ${at - 1} to ${at}); above ${limit} ${why}`,
    });
  };
  rule(
    'face_track',
    (s) => s.faceJump,
    T.faceJump,
    'move of the face, in face widths',
    'the face jumped: not one capture',
  );
  rule(
    'face_scale_track',
    (s) => s.faceScale,
    T.faceScale,
    'change of the face size (ratio)',
    'the face jumped in size: not one capture',
  );
  rule(
    'pose_track',
    (s) =>
      s.yaw === null ? null : Math.max(s.yaw / T.yawStep, (s.pitch ?? 0) / T.pitchStep, (s.roll ?? 0) / T.rollStep),
    1,
    `head pose step, as a share of the limits (yaw ${T.yawStep}, pitch ${T.pitchStep}, roll ${T.rollStep} degrees)`,
    'the head pose jumped: not one capture',
  );
  rule(
    'background',
    (s) => s.scene.background,
    T.background,
    'background difference at the best camera shift, grey levels',
    'the scene behind the person changed: different photos or a cut',
  );
  rule(
    'illumination',
    (s) => Math.max(s.scene.faceLight / T.faceLight, s.scene.faceColour / T.faceColour),
    1,
    `change of the light on the face, as a share of the limits (brightness ratio ${T.faceLight}, colour ${T.faceColour})`,
    'the light on the face changed: different photos',
  );
  rule(
    'image_quality',
    (s) => Math.max(s.scene.noise / T.noise, s.scene.sharpness / T.sharpness),
    1,
    `change of sensor noise or sharpness, as a share of the limits (noise ratio ${T.noise}, sharpness ratio ${T.sharpness})`,
    'the frames come from different cameras or files',
  );
  const background = evidence.find((e) => e.name === 'background')!;
  if (steps.some((s) => s.scene.background === null)) {
    // Without background the scene cannot be compared: a face filling the frame is how a print or
    // a screen is held to a camera, and how a burst of face crops looks. Ask for a step back.
    background.passed = false;
    background.detail =
      "the face fills the frame: too little background around the head to confirm one capture (hold the camera at arm's length)";
  }
  return { oneCapture: evidence.every((e) => e.passed), evidence };
}
