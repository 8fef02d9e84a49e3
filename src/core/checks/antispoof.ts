import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { AccountService } from '../accounts/service.js';
import { DomainError } from '../errors.js';
import type { FaceEngine, LivenessAssessment } from '../face-engine.js';
import { analyseBurst, type BurstAnalysis, type BurstFace, type Gesture } from '../faces/burst.js';
import { DEFAULT_FACE_MATCH_THRESHOLD, faceSimilarity } from '../../ml/faces/match.js';
import type { DecodedImage } from '../../ml/image.js';
import { gestureVerdict, type ChallengeService } from './challenge.js';
import { imageBytes, intakeImage } from './images.js';
import type { StandaloneCheck } from './pipeline.js';
import type { Check, CheckContext, CheckOutcome } from './types.js';

/** Frames per burst (spec: 3 to 8). */
export const MIN_FRAMES = 3;
export const MAX_FRAMES = 8;

export const antispoofInput = z.object({
  image: imageBytes.optional(),
  frames: z.array(imageBytes).optional(),
  challengeId: z.string().min(1).max(60).optional(),
  svc_access_token: z.string().min(1).max(200).optional(),
  svc_id: z.string().min(1).max(40).optional(),
});
export type AntispoofInput = z.infer<typeof antispoofInput>;

export interface AntispoofPrepared {
  frames: DecodedImage[];
  burst: boolean;
  challenge: { id: string; gesture: Gesture } | null;
  /** The account's face reference in account mode. */
  reference: Float32Array | null;
}

/** A finished anti-spoof run: the Check and the descriptor of the face it judged. */
export interface AntispoofRun {
  check: Check;
  descriptor: Float32Array;
  reason?: string;
}

/** Validates an anti-spoof body: one image or a 3-8 frame burst, an open challenge, the account's reference. */
export async function prepareAntispoof(input: AntispoofInput, context: CheckContext, deps: { challenges: ChallengeService; accounts: AccountService }): Promise<AntispoofPrepared> {
  if (input.image && input.frames) throw new DomainError('validation_error', 'send either image (one selfie) or frames (a burst), not both', { data: { errors: { frames: 'not with image' } } });
  if (!input.image && !input.frames) throw new DomainError('validation_error', 'image (one selfie) or frames (a burst of 3 to 8) is required', { data: { errors: { image: 'required unless frames are sent' } } });
  if (input.frames && input.frames.length < MIN_FRAMES) throw new DomainError('invalid_frames', `a burst needs at least ${MIN_FRAMES} frames (got ${input.frames.length}); send one selfie as image for single mode`);
  if (input.frames && input.frames.length > MAX_FRAMES) throw new DomainError('too_many_frames', `at most ${MAX_FRAMES} frames (got ${input.frames.length})`);
  if (input.challengeId && !input.frames) throw new DomainError('frames_required', 'a gesture challenge is answered with a burst of 3 to 8 frames');
  const reference = context.mode === 'account' ? await deps.accounts.faceReference(context.svcId!) : null;
  if (context.mode === 'account' && !reference) throw new DomainError('face_not_enrolled');
  const challenge = input.challengeId ? await deps.challenges.open(context.projectId, input.challengeId) : null;
  const frames = input.frames
    ? await Promise.all(input.frames.map((bytes, i) => intakeImage(`frames[${i}]`, bytes)))
    : [await intakeImage('image', input.image!)];
  return { frames, burst: Boolean(input.frames), challenge, reference };
}

/** 0..1 and >= 0.5 exactly when live: the verdict's half, placed within it by the models' confidence. */
function humanScore(live: boolean, confidence: number[]): number {
  const q = confidence.reduce((sum, x) => sum + x, 0) / confidence.length;
  return Math.round((live ? 0.5 + 0.5 * q : 0.5 * q) * 1000) / 1000;
}

const noFace = (field: string) => new DomainError('no_face', `no usable face in ${field}: send a sharp, well-lit, front-facing photo`);

/**
 * Anti-spoof of one selfie (passive evidence only) or of a burst (passive evidence on the middle
 * frame plus the burst's motion, and the challenge's gesture when one was sent). Live needs every
 * part to agree; `error` names what did not.
 */
export async function runAntispoof(engine: FaceEngine, prepared: AntispoofPrepared, context: CheckContext, challenges: ChallengeService): Promise<AntispoofRun> {
  const faces: BurstFace[] = [];
  for (const [i, frame] of prepared.frames.entries()) {
    const face = await engine.describeLargestFace(frame);
    if (!face) throw noFace(prepared.burst ? `frames[${i}]` : 'image');
    // Head pose only matters between frames: a single selfie is judged without it.
    faces.push({ ...face, pose: prepared.burst ? await engine.headPose(frame, face) : null });
  }
  const middle = Math.floor((prepared.frames.length - 1) / 2);
  const passive: LivenessAssessment = await engine.assessLiveness(prepared.frames[middle]!);
  if (passive.liveScore === -1) throw noFace(prepared.burst ? `frames[${middle}]` : 'image');

  const problems: { reason: string; text: string }[] = [];
  if (passive.liveScore !== 1) {
    problems.push({ reason: 'spoof', text: `looks like a photo of a photo or a screen: ${passive.evidence.filter((e) => !e.passed).map((e) => e.name).join(', ')}` });
  }
  const confidence = [passive.scores.antispoof ?? 0, passive.scores.liveness ?? 0];
  const data: Record<string, unknown> = {
    mode: prepared.burst ? 'burst' : 'single',
    frames: prepared.frames.length,
    passive: { live_score: passive.liveScore, scores: passive.scores, evidence: passive.evidence },
  };

  let burst: BurstAnalysis | undefined;
  if (prepared.burst) {
    const digests = new Set(prepared.frames.map((frame) => createHash('sha256').update(frame.bytes).digest('hex')));
    burst = analyseBurst(faces, digests.size === 1);
    confidence.push(burst.motionStrength);
    data.burst = { evidence: burst.evidence, gestures: burst.gestures };
    if (!burst.samePerson) problems.push({ reason: 'different_people', text: 'the frames show different people' });
    if (!burst.motion) problems.push({ reason: 'spoof', text: 'no natural motion between the frames (identical, or only shifted/scaled like a photo held up): blink or move the head slightly' });
  }
  if (prepared.challenge && burst) {
    // Consumed after the frames were read, so an unreadable burst does not burn the challenge.
    await challenges.consume(context.projectId, prepared.challenge.id);
    const verdict = gestureVerdict(prepared.challenge.gesture, burst);
    data.challenge = { challenge_id: prepared.challenge.id, gesture: prepared.challenge.gesture, performed: verdict.performed };
    if (verdict.error) problems.push({ reason: 'gesture_not_performed', text: verdict.error });
  }
  const descriptor = faces[middle]!.descriptor;
  if (prepared.reference) {
    const similarity = Math.round(faceSimilarity(prepared.reference, descriptor) * 10_000) / 10_000;
    data.face_match = { similarity, threshold: DEFAULT_FACE_MATCH_THRESHOLD };
    if (similarity < DEFAULT_FACE_MATCH_THRESHOLD) problems.push({ reason: 'face_mismatch', text: `not the account's face (similarity ${similarity})` });
  }

  const live = !problems.some((p) => p.reason === 'spoof' || p.reason === 'different_people');
  const humanScoreValue = humanScore(live, confidence);
  const several = passive.faceCount > 1 ? `${passive.faceCount} faces in the image; the largest was judged` : null;
  const passed = problems.length === 0;
  const check: Check = {
    type: 'antispoof',
    status: passed ? 'passed' : 'failed',
    score: humanScoreValue,
    data: { human_score: humanScoreValue, live_score: live ? 1 : 0, result: live ? 'live' : 'spoof', ...data },
    error: [...problems.map((p) => p.text), ...(several ? [several] : [])].join('; ') || null,
  };
  return { check, descriptor, reason: problems[0]?.reason };
}

/**
 * POST /api/v2/antispoof: one `image` or a burst of 3 to 8 `frames`, optional `challengeId`.
 * Also run by the hosted session page through prepare/execute with a CheckContext.
 */
export function antispoofCheck(deps: { engine: FaceEngine; challenges: ChallengeService; accounts: AccountService }): StandaloneCheck<AntispoofInput, AntispoofPrepared> {
  return {
    type: 'antispoof',
    input: antispoofInput,
    prepare: (input, context) => prepareAntispoof(input, context, deps),
    async execute(prepared, context): Promise<CheckOutcome> {
      const run = await runAntispoof(deps.engine, prepared, context, deps.challenges);
      return { check: run.check, reason: run.reason };
    },
  };
}
