import { randomInt } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Orm } from '../db/orm.js';
import { DomainError } from '../errors.js';
import { FaceChallenge } from '../faces/entities.js';
import { GESTURES, type BurstAnalysis, type Gesture } from '../faces/burst.js';
import { newId } from '../secrets.js';

/** How long a challenge may be answered (spec: single use, 60 s). */
export const CHALLENGE_TTL_MS = 60_000;

export interface ChallengeView {
  challenge_id: string;
  gesture: Gesture;
  expires_at: string;
}

/**
 * Gesture challenges for anti-spoof bursts (POST /api/v2/antispoof/challenge). A challenge names
 * one gesture the person performs while the burst is taken; the run that sends its `challengeId`
 * consumes it, whatever the verdict. Unknown, used or another project's: `invalid_challenge`;
 * past its 60 s: `challenge_expired`.
 */
export class ChallengeService {
  /** `gestures`: the ones asked for (default all); an operator may leave out what some people cannot do. */
  constructor(private readonly deps: { orm: Orm; clock: Clock; gestures?: readonly Gesture[] }) {}

  private get gestures(): readonly Gesture[] {
    return this.deps.gestures?.length ? this.deps.gestures : GESTURES;
  }

  async create(projectId: string): Promise<ChallengeView> {
    const now = this.deps.clock.now();
    const em = this.deps.orm.em.fork();
    const challenge = em.create(FaceChallenge, {
      id: newId('chl'),
      projectId,
      gesture: this.gestures[randomInt(this.gestures.length)]!,
      createdAt: now,
      expiresAt: new Date(now.getTime() + CHALLENGE_TTL_MS),
      usedAt: null,
    });
    await em.flush();
    return { challenge_id: challenge.id, gesture: challenge.gesture as Gesture, expires_at: challenge.expiresAt.toISOString() };
  }

  /** The challenge's gesture when it can still be answered by this project; nothing is consumed. */
  async open(projectId: string, challengeId: string): Promise<{ id: string; gesture: Gesture }> {
    const challenge = await this.deps.orm.em.fork().findOne(FaceChallenge, { id: challengeId, projectId });
    if (!challenge || challenge.usedAt) throw new DomainError('invalid_challenge', 'unknown or already used challengeId: create a new challenge');
    if (challenge.expiresAt.getTime() < this.deps.clock.now().getTime()) throw new DomainError('challenge_expired', 'the challenge expired (valid 60 s): create a new one');
    return { id: challenge.id, gesture: challenge.gesture as Gesture };
  }

  /** Marks the challenge used; exactly one concurrent caller wins, the others get the error `open` would give. */
  async consume(projectId: string, challengeId: string): Promise<void> {
    const used = await this.deps.orm.em.fork().nativeUpdate(
      FaceChallenge,
      { id: challengeId, projectId, usedAt: null, expiresAt: { $gte: this.deps.clock.now() } },
      { usedAt: this.deps.clock.now() },
    );
    if (used === 0) await this.open(projectId, challengeId); // throws the reason
    if (used === 0) throw new DomainError('invalid_challenge');
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
export function gestureVerdict(gesture: Gesture, analysis: BurstAnalysis): { performed: boolean; error: string | null } {
  const performed = analysis.gestures[gesture];
  return { performed, error: performed ? null : `the challenge asked to ${GESTURE_WORDS[gesture]}, which the frames do not show` };
}
