import { z } from 'zod';
import type { CheckStatus } from './checks/entities.js';
import { DomainError, isErrorCode } from './errors.js';

// The sandbox: a test API key (`vk_test_...`) may force a check's or session's outcome with the
// `Verity-Test-Outcome` header, so integrators can reach every branch without models or a wallet.

/** The request header that carries a forced outcome (lower case, as Express reads headers). */
export const TEST_OUTCOME_HEADER = 'verity-test-outcome';

/** What a forceable outcome word becomes on a check. */
const VERDICTS = { approve: 'passed', decline: 'failed', review: 'review' } as const satisfies Record<string, CheckStatus>;
export type ForcedVerdict = keyof typeof VERDICTS;

export type ForcedOutcome = { kind: 'verdict'; verdict: ForcedVerdict; status: CheckStatus } | { kind: 'error'; error: DomainError };

/**
 * The outcome a request forces, or null to run normally. Only test keys may force: a live key's
 * header is ignored (a stray header in production must never change a verdict). A test key's
 * value is `approve`, `decline`, `review` or any catalog error code; anything else is a
 * `validation_error`, so a typo does not silently run the real pipeline.
 */
export function forcedOutcome(caller: { livemode: boolean }, requested: string | undefined): ForcedOutcome | null {
  if (caller.livemode || requested === undefined || requested.trim() === '') return null;
  const value = requested.trim().toLowerCase();
  if (value in VERDICTS) return { kind: 'verdict', verdict: value as ForcedVerdict, status: VERDICTS[value as ForcedVerdict] };
  if (isErrorCode(value)) return { kind: 'error', error: new DomainError(value, `forced by the ${TEST_OUTCOME_HEADER} header`, value === 'rate_limited' ? { retryAfterSeconds: 1 } : {}) };
  throw new DomainError('validation_error', `${TEST_OUTCOME_HEADER} must be approve, decline, review or an error code`);
}

/** The wire field that marks test-mode data (checks, sessions, decisions, webhooks); absent on live data. */
export const livemodeField = z.literal(false).optional().describe('false on data made with a test key (vk_test_...); absent on live data');

/**
 * The operation name an idempotency record is fingerprinted with: test calls get their own (with
 * the forced outcome), so an `Idempotency-Key` reused across modes, or with another forced outcome,
 * is refused (422) instead of replaying another answer.
 */
export const idempotencyOperation = (livemode: boolean, operation: string, testOutcome?: string) => (livemode ? operation : `test:${testOutcome?.trim().toLowerCase() ?? ''}:${operation}`);
