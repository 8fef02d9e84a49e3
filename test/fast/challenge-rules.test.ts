// Gesture challenges' rules on a fake store, in milliseconds: single use, 60 s, one project's,
// and only the gestures the operator asks for. The SQL behind the store is exercised through
// POST /api/v2/antispoof/challenge and the bursts in antispoof.test.ts and sessions.test.ts.
import { describe, expect, it } from 'vitest';
import { FakeChallengeStore } from '../fakes/challenge-store.js';
import { CHALLENGE_TTL_MS, ChallengeService } from '../../src/core/checks/challenge.js';
import { ManualClock } from '../../src/core/clock.js';
import { DomainError } from '../../src/core/errors.js';

/** The challenges in memory, with the SQL's rule: consumed once, by its project, before it expires. */

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'no error',
    (error: unknown) => (error instanceof DomainError ? error.code : String(error)),
  );

describe('gesture challenges on a fake store', () => {
  const setUp = (gestures?: ('smile' | 'blink')[]) => {
    const clock = new ManualClock(new Date('2026-11-28T12:00:00Z'));
    return { clock, challenges: new ChallengeService({ store: new FakeChallengeStore(), clock, gestures }) };
  };

  it('is consumed once, by its own project; a second run gets invalid_challenge', async () => {
    const { challenges } = setUp();
    const { challenge_id: id, expires_at } = await challenges.create('prj_a');
    expect(expires_at).toBe(new Date(Date.parse('2026-11-28T12:00:00Z') + CHALLENGE_TTL_MS).toISOString());
    expect(await codeOf(challenges.consume('prj_b', id))).toBe('invalid_challenge');
    expect(await codeOf(challenges.open('prj_a', id))).toBe('no error');
    expect(await codeOf(challenges.consume('prj_a', id))).toBe('no error');
    expect(await codeOf(challenges.consume('prj_a', id))).toBe('invalid_challenge');
    expect(await codeOf(challenges.open('prj_a', 'chl_unknown'))).toBe('invalid_challenge');
  });

  it('expires after 60 s', async () => {
    const { challenges, clock } = setUp();
    const { challenge_id: id } = await challenges.create('prj_a');
    clock.advance(CHALLENGE_TTL_MS + 1);
    expect(await codeOf(challenges.open('prj_a', id))).toBe('challenge_expired');
    expect(await codeOf(challenges.consume('prj_a', id))).toBe('challenge_expired');
  });

  it('asks only for the gestures the operator allows', async () => {
    const { challenges } = setUp(['smile']);
    const asked = new Set(
      await Promise.all(Array.from({ length: 20 }, async () => (await challenges.create('prj_a')).gesture)),
    );
    expect([...asked]).toEqual(['smile']);
  });
});
