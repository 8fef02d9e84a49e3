import { describe, expect, it } from 'vitest';
import { DomainError } from '../src/core/errors.js';
import { forcedOutcome } from '../src/core/sandbox.js';

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
    for (const value of ['approve', 'decline', 'review', 'insufficient_balance', 'nonsense']) expect(forcedOutcome(live, value)).toBeNull();
  });
});
