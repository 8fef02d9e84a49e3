import { randomInt } from 'node:crypto';
import type { Clock } from '../clock.js';
import { DomainError } from '../errors.js';
import { GESTURES, type BurstAnalysis, type Gesture } from '../faces/burst.js';
import { newId } from '../secrets.js';
import type { ChallengeStore } from './challenge-store.js';
import type { ChallengeView } from './views.js';

export type { ChallengeView };

/** How long a challenge may be answered (spec: single use, 60 s). */
export const CHALLENGE_TTL_MS = 60_000;
/** The frames of one burst are taken within this many milliseconds (the hosted page takes 2 s). */
export const MAX_BURST_SPAN_MS = 4_000;
/** Allowance for the page's timer against ours when comparing capture times with the challenge's age. */
const CAPTURE_CLOCK_SLACK_MS = 1_000;

/** A challenge that can still be answered. */
export interface OpenChallenge {
  id: string;
  gesture: Gesture;
  createdAt: Date;
}

/**
 * Gesture challenges for anti-spoof bursts (POST /api/v2/antispoof/challenge). A challenge names
 * one gesture the person performs while the burst is taken; the run that sends its `challengeId`
 * consumes it, whatever the verdict. Unknown, used or another project's: `invalid_challenge`;
 * past its 60 s: `challenge_expired`.
 */
export class ChallengeService {
  /** `gestures`: the ones asked for (default all); an operator may leave out what some people cannot do. */
  constructor(private readonly deps: { store: ChallengeStore; clock: Clock; gestures?: readonly Gesture[] }) {}

  private get gestures(): readonly Gesture[] {
    return this.deps.gestures?.length ? this.deps.gestures : GESTURES;
  }

  async create(projectId: string): Promise<ChallengeView> {
    const now = this.deps.clock.now();
    const challenge = {
      id: newId('chl'),
      projectId,
      gesture: this.gestures[randomInt(this.gestures.length)]!,
      createdAt: now,
      expiresAt: new Date(now.getTime() + CHALLENGE_TTL_MS),
      usedAt: null,
    };
    await this.deps.store.add(challenge);
    return {
      challenge_id: challenge.id,
      challengeId: challenge.id,
      gesture: challenge.gesture,
      expires_at: challenge.expiresAt.toISOString(),
    };
  }

  now(): Date {
    return this.deps.clock.now();
  }

  /** The challenge's gesture when it can still be answered by this project; nothing is consumed. */
  async open(projectId: string, challengeId: string): Promise<OpenChallenge> {
    const challenge = await this.deps.store.find(projectId, challengeId);
    if (!challenge || challenge.usedAt)
      throw new DomainError('invalid_challenge', 'unknown or already used challengeId: create a new challenge');
    if (challenge.expiresAt.getTime() < this.deps.clock.now().getTime())
      throw new DomainError('challenge_expired', 'the challenge expired (valid 60 s): create a new one');
    return { id: challenge.id, gesture: challenge.gesture as Gesture, createdAt: challenge.createdAt };
  }

  /** Marks the challenge used; exactly one concurrent caller wins, the others get the error `open` would give. */
  async consume(projectId: string, challengeId: string): Promise<void> {
    if (await this.deps.store.consume(projectId, challengeId, this.deps.clock.now())) return;
    await this.open(projectId, challengeId); // throws the reason
    throw new DomainError('invalid_challenge');
  }
}

const GESTURE_WORDS: Record<Gesture, string> = {
  turn_left: 'turn the head to the left',
  turn_right: 'turn the head to the right',
  look_up: 'look up',
  blink: 'blink',
  smile: 'smile',
};

/** Whether the burst shows the challenge's gesture, with a sentence for the check's `error`. */
export function gestureVerdict(
  gesture: Gesture,
  analysis: BurstAnalysis,
): { performed: boolean; error: string | null } {
  const performed = analysis.gestures[gesture];
  return {
    performed,
    error: performed ? null : `the challenge asked to ${GESTURE_WORDS[gesture]}, which the frames do not show`,
  };
}

/**
 * Why a burst's capture times do not fit its challenge, or null when they do. `capturedMs` holds,
 * per frame, the milliseconds between the caller receiving the challenge and taking the frame
 * (measured on the caller's own timer, so no clock has to agree with ours): frames taken before
 * the challenge existed were not taken for it, frames spread over more than MAX_BURST_SPAN_MS are
 * not one burst, and a frame cannot be taken later than the challenge is old.
 */
export function captureTimesProblem(challenge: OpenChallenge, capturedMs: readonly number[], now: Date): string | null {
  const age = now.getTime() - challenge.createdAt.getTime();
  if (capturedMs.some((t) => t < 0))
    return 'a frame was taken before the challenge was received: take the burst after asking for the challenge';
  if (capturedMs.some((t, i) => i > 0 && t < capturedMs[i - 1]!))
    return 'captured_ms must not go back in time: send the frames in the order they were taken';
  if (capturedMs.some((t) => t > age + CAPTURE_CLOCK_SLACK_MS))
    return `a frame's capture time is ${Math.round(Math.max(...capturedMs) / 1000)} s after the challenge, but the challenge is only ${Math.round(age / 1000)} s old`;
  const span = capturedMs[capturedMs.length - 1]! - capturedMs[0]!;
  if (span > MAX_BURST_SPAN_MS)
    return `the frames were taken over ${(span / 1000).toFixed(1)} s; one burst is taken within ${MAX_BURST_SPAN_MS / 1000} s`;
  return null;
}
