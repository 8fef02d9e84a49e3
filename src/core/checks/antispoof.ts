import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { AccountService } from '../accounts/service.js';
import { DomainError } from '../errors.js';
import type { FaceEngine, LivenessAssessment } from '../face-engine.js';
import { analyseBurst, type BurstAnalysis, type BurstFace } from '../faces/burst.js';
import { judgeContinuity, type CaptureFrame } from '../faces/continuity.js';
import { DEFAULT_FACE_MATCH_THRESHOLD, faceSimilarity } from '../../ml/faces/match.js';
import type { DecodedImage } from '../../ml/image.js';
import { sceneOf } from '../../ml/liveness/scene.js';
import { captureTimesProblem, gestureVerdict, type ChallengeService, type OpenChallenge } from './challenge.js';
import { imageBytes, intakeImage, withinPixelBudget } from './images.js';
import { livenessAssurance } from './liveness.js';
import type { StandaloneCheck } from './pipeline.js';
import type { Check, CheckContext, CheckOutcome } from './types.js';

/** Frames per burst (spec: 3 to 8). */
export const MIN_FRAMES = 3;
export const MAX_FRAMES = 8;
/**
 * Pixels of all the frames of one burst together. A burst is a few frames of a camera stream
 * (a 1080p frame is 2 MP); eight 60 MP frames would take gigabytes to decode. Checked on the
 * headers, before any frame is decoded.
 */
export const MAX_BURST_PIXELS = 40_000_000;

const challengeIdField = z.string().min(1).max(60);
export const antispoofInput = z.object({
  image: imageBytes.optional().describe('one selfie (single mode); or send frames'),
  frames: z.array(imageBytes).optional().describe('a burst of 3 to 8 frames, in order (multipart: repeat the field)'),
  /** The spec's name; `challenge_id` (the name the challenge route answers with) is accepted too. */
  challengeId: challengeIdField
    .optional()
    .describe('from POST /api/v2/antispoof/challenge; the burst must show its gesture'),
  challenge_id: challengeIdField
    .optional()
    .describe('the same as challengeId (the name the challenge route also answers with)'),
  /** Per frame, milliseconds after the challenge was received (see challenge.ts). */
  captured_ms: z
    .array(z.coerce.number().finite())
    .optional()
    .describe(
      'per frame, milliseconds between receiving the challenge and taking the frame; frames before the challenge or spread over more than 4 s are refused',
    ),
  svc_access_token: z.string().min(1).max(200).optional(),
  svc_id: z.string().min(1).max(40).optional(),
});
export type AntispoofInput = z.infer<typeof antispoofInput>;

export interface AntispoofPrepared {
  frames: DecodedImage[];
  burst: boolean;
  challenge: OpenChallenge | null;
  /** The frames' capture times were checked against the challenge. */
  captureTimes: boolean;
  /** The account's face reference in account mode. */
  reference: Float32Array | null;
}

/** A finished anti-spoof run: the Check and the descriptor of the face it judged. */
export interface AntispoofRun {
  check: Check;
  descriptor: Float32Array;
  reason?: string;
}

/** The challenge id under either accepted name; two different ids are refused. */
function challengeIdOf(input: AntispoofInput): string | undefined {
  if (new Set([input.challengeId, input.challenge_id].filter(Boolean)).size > 1) {
    throw new DomainError('validation_error', 'challengeId and challenge_id name different challenges: send one', {
      data: { errors: { challenge_id: 'differs from challengeId' } },
    });
  }
  return input.challengeId ?? input.challenge_id;
}

/** A burst's frames from their headers: one size, no frame twice, within the pixel budget. Nothing is decoded yet. */
async function inspectBurst(frames: Buffer[]): Promise<void> {
  const seen = new Map<string, number>();
  frames.forEach((bytes, i) => {
    const digest = createHash('sha256').update(bytes).digest('hex');
    const earlier = seen.get(digest);
    if (earlier !== undefined)
      throw new DomainError(
        'invalid_frames',
        `frames[${i}] is the same image as frames[${earlier}]: send frames of one continuous capture`,
      );
    seen.set(digest, i);
  });
  const headers = await withinPixelBudget(
    frames.map((bytes, i) => [`frames[${i}]`, bytes]),
    MAX_BURST_PIXELS,
  );
  const first = headers[0]!;
  const odd = headers.findIndex((h) => h.width !== first.width || h.height !== first.height);
  if (odd > 0)
    throw new DomainError(
      'invalid_frames',
      `frames[${odd}] is ${headers[odd]!.width}x${headers[odd]!.height} but frames[0] is ${first.width}x${first.height}: the frames of a burst come from one camera stream, at one size`,
    );
}

/** Validates an anti-spoof body: one image or a 3-8 frame burst, an open challenge, the account's reference. */
export async function prepareAntispoof(
  input: AntispoofInput,
  context: CheckContext,
  deps: { challenges: ChallengeService; accounts: AccountService },
): Promise<AntispoofPrepared> {
  if (input.image && input.frames)
    throw new DomainError('validation_error', 'send either image (one selfie) or frames (a burst), not both', {
      data: { errors: { frames: 'not with image' } },
    });
  if (!input.image && !input.frames)
    throw new DomainError('validation_error', 'image (one selfie) or frames (a burst of 3 to 8) is required', {
      data: { errors: { image: 'required unless frames are sent' } },
    });
  if (input.frames && input.frames.length < MIN_FRAMES)
    throw new DomainError(
      'invalid_frames',
      `a burst needs at least ${MIN_FRAMES} frames (got ${input.frames.length}); send one selfie as image for single mode`,
    );
  if (input.frames && input.frames.length > MAX_FRAMES)
    throw new DomainError('too_many_frames', `at most ${MAX_FRAMES} frames (got ${input.frames.length})`);
  const challengeId = challengeIdOf(input);
  if (challengeId && !input.frames)
    throw new DomainError('frames_required', 'a gesture challenge is answered with a burst of 3 to 8 frames');
  if (input.captured_ms && !input.frames)
    throw new DomainError('validation_error', 'captured_ms goes with frames', {
      data: { errors: { captured_ms: 'only with frames' } },
    });
  if (input.captured_ms && input.captured_ms.length !== input.frames!.length) {
    throw new DomainError(
      'validation_error',
      `captured_ms needs one time per frame (got ${input.captured_ms.length} for ${input.frames!.length} frames)`,
      { data: { errors: { captured_ms: 'one per frame' } } },
    );
  }
  if (input.frames) await inspectBurst(input.frames);
  const reference =
    context.mode === 'account' ? await deps.accounts.stateFor(context).requireFaceReference(context.svcId!) : null;
  const challenge = challengeId ? await deps.challenges.open(context.projectId, challengeId) : null;
  if (challenge && input.captured_ms) {
    const problem = captureTimesProblem(challenge, input.captured_ms, deps.challenges.now());
    if (problem) throw new DomainError('invalid_frames', problem);
  }
  // One frame decoded at a time: the burst's memory is one frame's, not eight.
  const frames: DecodedImage[] = [];
  if (input.frames)
    for (const [i, bytes] of input.frames.entries()) frames.push(await intakeImage(`frames[${i}]`, bytes));
  else frames.push(await intakeImage('image', input.image!));
  return {
    frames,
    burst: Boolean(input.frames),
    challenge,
    captureTimes: Boolean(challenge && input.captured_ms),
    reference,
  };
}

/** 0..1 and >= 0.5 exactly when live: the verdict's half, placed within it by the models' confidence. */
function humanScore(live: boolean, confidence: number[]): number {
  const q = confidence.reduce((sum, x) => sum + x, 0) / confidence.length;
  return Math.round((live ? 0.5 + 0.5 * q : 0.5 * q) * 1000) / 1000;
}

const noFace = (field: string) =>
  new DomainError('no_face', `no usable face in ${field}: send a sharp, well-lit, front-facing photo`);

/**
 * Anti-spoof of one selfie (passive evidence only) or of a burst (passive evidence on the middle
 * frame plus the burst's motion, and the challenge's gesture when one was sent). Live needs every
 * part to agree; `error` names what did not.
 */
export async function runAntispoof(
  engine: FaceEngine,
  prepared: AntispoofPrepared,
  context: CheckContext,
  challenges: ChallengeService,
): Promise<AntispoofRun> {
  const faces: BurstFace[] = [];
  const captured: CaptureFrame[] = [];
  // Every frame is described at once (the engine spreads them over the cores); reasons stay in frame order.
  const described = await Promise.allSettled(prepared.frames.map((frame) => engine.describeLargestFace(frame)));
  for (const [i, frame] of prepared.frames.entries()) {
    const result = described[i]!;
    if (result.status === 'rejected') throw result.reason;
    const face = result.value;
    if (!face) throw noFace(prepared.burst ? `frames[${i}]` : 'image');
    // Head pose and the scene only matter between frames: a single selfie is judged without them.
    if (!prepared.burst) {
      faces.push({ ...face, pose: null });
      continue;
    }
    const pose = await engine.headPose(frame, face);
    faces.push({ ...face, pose });
    captured.push({ box: face.box, pose, scene: await sceneOf(frame, face.box) });
  }
  const middle = Math.floor((prepared.frames.length - 1) / 2);
  const others = prepared.burst
    ? prepared.frames.flatMap((image, i) => (i === middle ? [] : [{ image, face: captured[i]!.box }]))
    : [];
  const passive: LivenessAssessment = await engine.assessLiveness(prepared.frames[middle]!, others);
  if (passive.liveScore === -1) throw noFace(prepared.burst ? `frames[${middle}]` : 'image');

  const problems: { reason: string; text: string }[] = [];
  if (passive.liveScore !== 1) {
    problems.push({
      reason: 'spoof',
      text: `looks like a photo of a photo or a screen: ${passive.evidence
        .filter((e) => !e.passed)
        .map((e) => e.name)
        .join(', ')}`,
    });
  }
  const confidence = [passive.scores.minifasnet ?? 0];
  const data: Record<string, unknown> = {
    mode: prepared.burst ? 'burst' : 'single',
    frames: prepared.frames.length,
    ...livenessAssurance({
      frames: prepared.frames.length,
      challenge: prepared.challenge !== null,
      captureTimes: prepared.captureTimes,
      hosted: false,
    }),
    passive: { live_score: passive.liveScore, scores: passive.scores, evidence: passive.evidence },
  };

  let burst: BurstAnalysis | undefined;
  if (prepared.burst) {
    burst = analyseBurst(faces);
    const continuity = judgeContinuity(captured);
    confidence.push(burst.motionStrength);
    data.burst = {
      evidence: [...burst.evidence, ...continuity.evidence],
      gestures: burst.gestures,
      one_capture: continuity.oneCapture,
    };
    if (!burst.samePerson) problems.push({ reason: 'different_people', text: 'the frames show different people' });
    if (!continuity.oneCapture) {
      const broken = continuity.evidence
        .filter((e) => !e.passed)
        .map((e) => e.name)
        .join(', ');
      problems.push({
        reason: 'spoof',
        text: `the frames are not one continuous capture (${broken}): take the burst in one go with the camera`,
      });
    }
    if (!burst.motion)
      problems.push({
        reason: 'spoof',
        text: 'no natural motion between the frames (identical, or only shifted/scaled like a photo held up): blink or move the head slightly',
      });
  }
  if (prepared.challenge && burst) {
    // Consumed after the frames were read, so an unreadable burst does not burn the challenge.
    await challenges.consume(context.projectId, prepared.challenge.id);
    const verdict = gestureVerdict(prepared.challenge.gesture, burst);
    data.challenge = {
      challenge_id: prepared.challenge.id,
      gesture: prepared.challenge.gesture,
      performed: verdict.performed,
    };
    if (verdict.error) problems.push({ reason: 'gesture_not_performed', text: verdict.error });
  }
  const descriptor = faces[middle]!.descriptor;
  if (prepared.reference) {
    const similarity = Math.round(faceSimilarity(prepared.reference, descriptor) * 10_000) / 10_000;
    data.face_match = { similarity, threshold: DEFAULT_FACE_MATCH_THRESHOLD };
    if (similarity < DEFAULT_FACE_MATCH_THRESHOLD)
      problems.push({ reason: 'face_mismatch', text: `not the account's face (similarity ${similarity})` });
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
export function antispoofCheck(deps: {
  engine: FaceEngine;
  challenges: ChallengeService;
  accounts: AccountService;
}): StandaloneCheck<AntispoofInput, AntispoofPrepared> {
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
