import { livenessAssurance } from '../../checks/liveness.js';
import type { Check, CheckOutcome } from '../../checks/types.js';
import { DomainError } from '../../errors.js';
import type { SessionRecord } from '../store.js';
import { type HostedStep, runCheck, type SessionWork, type StepPorts } from './step.js';

// The selfie step: a burst of frames taken while the person does a gesture, judged live (with its
// challenge) and matched with the document's portrait or the bound account's face reference.

/** Failed selfies a person may retake before the liveness check is recorded as failed. */
export const SELFIE_ATTEMPTS = 3;

export const selfieStep: HostedStep = async (session, input, work, ports) => {
  const has = (feature: string) => session.features.includes(feature);
  const frames = input.frames;
  if (!Array.isArray(frames) || frames.length === 0)
    throw new DomainError('validation_error', 'frames (a burst of 3 to 8 selfie images) are required', {
      data: { errors: { frames: 'required' } },
    });
  const outcomes: CheckOutcome[] = [];
  if (has('liveness'))
    outcomes.push(await livenessFromBurst(session, frames, input.challenge_id, input.captured_ms, ports));
  // The face match uses the burst's first frame: taken as the gesture starts, it is the one
  // facing the camera (the middle frame, which passive liveness judges and the review keeps,
  // is often mid-turn, and the 512-d descriptor refuses a turned face more often than
  // face-api's did). The burst's identity link ties every frame to one person.
  const selfie = reviewFrame(frames);
  if (has('face_match')) outcomes.push(await faceMatchInSession(session, frames[0] as Buffer, work, ports));
  return { outcomes, work: {}, images: selfie ? [{ kind: 'selfie', bytes: selfie }] : [] };
};

/** A liveness burst's challenge id, which the hosted selfie must name. */
export function requiredChallengeId(challengeId: unknown): string {
  if (typeof challengeId !== 'string' || !challengeId) {
    throw new DomainError(
      'validation_error',
      'challenge_id is required: ask for a challenge, then take the burst while doing its gesture',
      { data: { errors: { challenge_id: 'required' } } },
    );
  }
  return challengeId;
}

/** The burst frame kept for the review: the middle one, which liveness judged. */
function reviewFrame(frames: readonly unknown[]): Buffer | null {
  const middle = frames[Math.floor((frames.length - 1) / 2)];
  return Buffer.isBuffer(middle) ? middle : null;
}

/**
 * Liveness on the hosted page: the anti-spoof burst with its gesture challenge, as the
 * session's `liveness` check. A burst judged not live may be retaken (bad light and a slow turn
 * happen); the SELFIE_ATTEMPTS-th failure is recorded, which declines the session. The page
 * sends when it took each frame (`captured_ms`, after receiving the challenge), so frames taken
 * before the challenge, or over more than a few seconds, are refused.
 */
async function livenessFromBurst(
  session: SessionRecord,
  frames: unknown[],
  challengeId: unknown,
  capturedMs: unknown,
  ports: StepPorts,
): Promise<CheckOutcome> {
  requiredChallengeId(challengeId);
  if (!Array.isArray(capturedMs)) {
    throw new DomainError(
      'validation_error',
      'captured_ms is required: for each frame, the milliseconds between receiving the challenge and taking the frame',
      { data: { errors: { captured_ms: 'required' } } },
    );
  }
  const { check, reason } = await runCheck(
    ports.checks.antispoof,
    { frames, challengeId, captured_ms: capturedMs },
    ports.contextOf(session),
  );
  // Taken by the session's own page, with the challenge and capture times required above.
  const data = {
    ...check.data,
    ...livenessAssurance({ frames: frames.length, challenge: true, captureTimes: true, hosted: true }),
  };
  const liveness: Check = {
    type: 'liveness',
    status: check.status,
    score: check.data.live_score as number,
    data,
    error: check.error,
  };
  if (check.status !== 'passed') {
    const why = reason ?? 'not_live';
    const failures = await ports.countFailedSelfie(session, why, reviewFrame(frames));
    if (failures < SELFIE_ATTEMPTS) {
      // The reason code lets the page say, in the person's language, what to do differently.
      throw new DomainError(
        'face_rescan_required',
        `${check.error ?? 'the selfie could not be confirmed live'}. Try again (${SELFIE_ATTEMPTS - failures} left).`,
        {
          data: { step: 'selfie', reason: why, tries_left: SELFIE_ATTEMPTS - failures },
        },
      );
    }
  }
  return { check: liveness, reason };
}

/** Selfie against the document portrait, or against the bound account's face reference. */
async function faceMatchInSession(
  session: SessionRecord,
  selfie: Buffer,
  work: SessionWork,
  ports: StepPorts,
): Promise<CheckOutcome> {
  if (work.portrait)
    return runCheck(
      ports.checks.faceMatch,
      { image1: Buffer.from(work.portrait, 'base64'), image2: selfie },
      ports.contextOf(session),
    );
  if (session.svcId && (await ports.accounts.stateFor(session).faceReference(session.svcId))) {
    const outcome = await runCheck(ports.checks.faceMatch, { image2: selfie }, ports.contextOf(session, 'account'));
    outcome.check.data = { ...outcome.check.data, reused: true };
    return outcome;
  }
  if (!(work.stepsDone ?? []).includes('document'))
    throw new DomainError('conflict', 'take the photo of the document first: the selfie is compared with its portrait');
  return {
    check: {
      type: 'face_match',
      status: 'failed',
      data: { similarity: null },
      error: 'no face on the document to compare the selfie with',
    },
    reason: 'no_reference',
  };
}
