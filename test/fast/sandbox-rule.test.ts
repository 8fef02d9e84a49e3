import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/core/errors.js';
import { nextUtcDay } from '../../src/core/billing/sandbox-quota.js';
import { forcedOutcome, sandboxCheck, sandboxOutcome, spendsSandboxQuota } from '../../src/core/checks/sandbox.js';

// The forcing rule alone (fast tier): only test keys force; words map to verdicts, codes to catalog errors.
const test = { livemode: false };
const live = { livemode: true };

describe('forcedOutcome', () => {
  it('maps the three words to check verdicts for a test key', () => {
    expect(forcedOutcome(test, 'approve')).toEqual({ kind: 'verdict', verdict: 'approve', status: 'passed' });
    expect(forcedOutcome(test, ' Decline ')).toEqual({ kind: 'verdict', verdict: 'decline', status: 'failed' });
    expect(forcedOutcome(test, 'review')).toEqual({ kind: 'verdict', verdict: 'review', status: 'review' });
  });

  it('turns a catalog code into that DomainError, with Retry-After for rate_limited', () => {
    const forced = forcedOutcome(test, 'insufficient_balance');
    expect(forced?.kind).toBe('error');
    const error = (forced as { error: DomainError }).error;
    expect(error).toBeInstanceOf(DomainError);
    expect([error.code, error.status]).toEqual(['insufficient_balance', 402]);
    expect((forcedOutcome(test, 'rate_limited') as { error: DomainError }).error.retryAfterSeconds).toBe(1);
  });

  it('runs normally without a value, and refuses an unknown one', () => {
    expect(forcedOutcome(test, undefined)).toBeNull();
    expect(forcedOutcome(test, '')).toBeNull();
    expect(() => forcedOutcome(test, 'approved')).toThrow(expect.objectContaining({ code: 'validation_error' }));
  });

  it('ignores the value for a live key, even an unknown one', () => {
    for (const value of ['approve', 'decline', 'review', 'insufficient_balance', 'nonsense'])
      expect(forcedOutcome(live, value)).toBeNull();
  });
});

describe('what a test key sees of a model check', () => {
  it('keeps the verdict, reasons and plain data; drops scores, thresholds and evidence at any depth, and figures in the error', () => {
    const check = {
      type: 'antispoof' as const,
      status: 'failed' as const,
      score: 0.31,
      data: {
        human_score: 0.31,
        live_score: 0,
        result: 'spoof',
        passive: { live_score: 0, scores: { minifasnet: 0.2 }, evidence: ['moire'] },
        face_match: { similarity: 0.41, threshold: 0.5 },
        frames: 3,
      },
      error: "not the account's face (similarity 0.41)",
    };
    expect(sandboxCheck(check)).toEqual({
      type: 'antispoof',
      status: 'failed',
      data: { live_score: 0, result: 'spoof', passive: { live_score: 0 }, face_match: {}, frames: 3 },
      error: "not the account's face",
    });
  });

  it('leaves checks without models alone: a location keeps its distance, an age its age', () => {
    const location = {
      type: 'location' as const,
      status: 'passed' as const,
      score: 12.5,
      data: { distance_m: 12.5 },
      error: null,
    };
    expect(sandboxCheck(location)).toBe(location);
    expect(spendsSandboxQuota('location')).toBe(false);
    expect(spendsSandboxQuota('age')).toBe(false);
    expect(spendsSandboxQuota('face_match')).toBe(true);
  });

  it('applies to every check of a combined outcome', () => {
    const outcome = sandboxOutcome({
      type: 'kyc_credential' as const,
      status: 'passed' as const,
      identity: {},
      checks: [
        {
          type: 'id_verification' as const,
          status: 'passed' as const,
          score: 0.9,
          data: { authenticity: { score: 0.9 } },
          error: null,
        },
      ],
    });
    expect(outcome.checks[0]).toEqual({ type: 'id_verification', status: 'passed', data: {}, error: null });
  });

  it('the quota is whole again at the next UTC midnight', () => {
    expect(nextUtcDay(new Date('2026-12-31T23:59:59Z')).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(nextUtcDay(new Date('2026-12-02T00:00:00Z')).toISOString()).toBe('2026-12-03T00:00:00.000Z');
  });
});
