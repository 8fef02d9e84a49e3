import { z } from 'zod';
import { DomainError } from '../errors.js';
import type { FaceEngine } from '../face-engine.js';
import type { DecodedImage } from '../../ml/image.js';
import { imageBytes, intakeImage } from './images.js';
import type { StandaloneCheck } from './pipeline.js';
import type { Check, CheckOutcome } from './types.js';

export const livenessInput = z.object({
  image: imageBytes.optional(),
  svc_access_token: z.string().min(1).max(200).optional(),
  svc_id: z.string().min(1).max(40).optional(),
});
export type LivenessInput = z.infer<typeof livenessInput>;

/**
 * How much a liveness answer can prove, from what it judged, lowest first:
 * - `single_image`: one uploaded still (POST /api/v2/liveness, the anti-spoof `image`, the
 *   kyc-credential selfie). Passive models find print and screen artefacts; nothing tells a still
 *   injected in the upload, a generated face or a photo taken earlier from a selfie taken now.
 * - `burst`: 3 to 8 uploaded frames: motion and one continuous capture between them, but the frames
 *   are the client's, and without a challenge a recording can be sent again.
 * - `challenge_burst`: a burst showing the gesture of a single-use challenge issued seconds before
 *   (and the capture times after it, when sent): no recording made earlier answers it.
 * - `hosted_capture`: the session's own page took the burst from the camera, with the challenge,
 *   the capture times and the continuity all required.
 */
export const LIVENESS_ASSURANCES = ['single_image', 'burst', 'challenge_burst', 'hosted_capture'] as const;
export type LivenessAssurance = (typeof LIVENESS_ASSURANCES)[number];

/** Something a level of assurance cannot rule out: a code and a sentence for integrators. */
export interface AssuranceLimit {
  code: string;
  detail: string;
}

const LIMITS = {
  injected_image:
    'an uploaded still need not come from a camera: an image injected into the upload is judged as a selfie would be',
  synthetic_face:
    'a generated (synthetic) face image shows no print or screen artefacts for the passive models to find',
  earlier_photo: 'a photo of the person taken earlier cannot be told from a selfie taken now',
  injected_frames:
    'the frames are uploaded by the client: a recorded or generated video fed in place of the camera is judged as a capture would be',
  replayed_capture: 'without a challenge, a burst recorded earlier can be sent again',
  capture_times_unchecked:
    'no capture times were sent, so when the frames were taken after the challenge was not checked',
  real_time_face_swap:
    'a real-time face swap or a virtual camera performing the gesture is not ruled out: no camera attestation',
} as const satisfies Record<string, string>;

const limitsOf = (...codes: Array<keyof typeof LIMITS>): AssuranceLimit[] =>
  codes.map((code) => ({ code, detail: LIMITS[code] }));

/**
 * The assurance a liveness answer carries, and what it cannot rule out, from how it was captured:
 * a still, an uploaded burst, a burst answering a challenge (with capture times or without), or
 * the hosted page's capture.
 */
export function livenessAssurance(capture: {
  frames: number;
  challenge: boolean;
  captureTimes: boolean;
  hosted: boolean;
}): { assurance: LivenessAssurance; limits: AssuranceLimit[] } {
  if (capture.hosted) return { assurance: 'hosted_capture', limits: limitsOf('real_time_face_swap') };
  if (capture.frames <= 1)
    return { assurance: 'single_image', limits: limitsOf('injected_image', 'synthetic_face', 'earlier_photo') };
  if (!capture.challenge) return { assurance: 'burst', limits: limitsOf('injected_frames', 'replayed_capture') };
  return {
    assurance: 'challenge_burst',
    limits: limitsOf(
      ...(capture.captureTimes ? [] : (['capture_times_unchecked'] as const)),
      'injected_frames',
      'real_time_face_swap',
    ),
  };
}

/** Passive liveness of one selfie as a Check: `live_score` 1 live, 0 spoof, below 0 no face. */
export async function livenessOf(engine: FaceEngine, selfie: DecodedImage): Promise<Check> {
  const assessment = await engine.assessLiveness(selfie);
  const several =
    assessment.faceCount > 1 ? ` ${assessment.faceCount} faces in the image; the largest was judged.` : '';
  const error =
    assessment.liveScore === 1
      ? several.trim() || null
      : assessment.liveScore === 0
        ? `the selfie looks like a photo of a photo or a screen: ${assessment.evidence
            .filter((item) => !item.passed)
            .map((item) => item.name)
            .join(', ')}.${several}`
        : 'no usable face in the selfie';
  return {
    type: 'liveness',
    status: assessment.liveScore === 1 ? 'passed' : 'failed',
    score: assessment.liveScore,
    data: {
      live_score: assessment.liveScore,
      result: assessment.result,
      ...livenessAssurance({ frames: 1, challenge: false, captureTimes: false, hosted: false }),
      scores: assessment.scores,
      evidence: assessment.evidence,
    },
    error,
  };
}

/** POST /api/v2/liveness: passive, no user action; passes only when `live_score` is 1. */
export function livenessCheck(engine: FaceEngine): StandaloneCheck<LivenessInput, DecodedImage> {
  return {
    type: 'liveness',
    input: livenessInput,
    async prepare(input) {
      if (!input.image)
        throw new DomainError('validation_error', 'image (the selfie) is required', {
          data: { errors: { image: 'required' } },
        });
      return intakeImage('image', input.image);
    },
    async execute(selfie): Promise<CheckOutcome> {
      const check = await livenessOf(engine, selfie);
      if (check.data.live_score === -1)
        throw new DomainError('no_face', 'no usable face in the selfie: send a sharp, well-lit, front-facing photo');
      return { check, reason: check.status === 'passed' ? undefined : 'spoof' };
    },
  };
}
