import { z } from 'zod';
import type { CheckStatus, CheckType } from './entities.js';
import type { CheckOutcome, CombinedOutcome } from './types.js';
import { DomainError, isErrorCode } from '../errors.js';

// The sandbox: a test API key (`vk_test_...`) may force a check's or session's outcome with the
// `Verity-Test-Outcome` header, so integrators can reach every branch without models or a wallet.

/** The request header that carries a forced outcome (lower case, as Express reads headers). */
export const TEST_OUTCOME_HEADER = 'verity-test-outcome';

/** What a forceable outcome word becomes on a check. */
const VERDICTS = { approve: 'passed', decline: 'failed', review: 'review' } as const satisfies Record<
  string,
  CheckStatus
>;
export type ForcedVerdict = keyof typeof VERDICTS;

export type ForcedOutcome =
  | { kind: 'verdict'; verdict: ForcedVerdict; status: CheckStatus }
  | { kind: 'error'; error: DomainError };

/**
 * The outcome a request forces, or null to run normally. Only test keys may force: a live key's
 * header is ignored (a stray header in production must never change a verdict). A test key's
 * value is `approve`, `decline`, `review` or any catalog error code; anything else is a
 * `validation_error`, so a typo does not silently run the real pipeline.
 */
export function forcedOutcome(caller: { livemode: boolean }, requested: string | undefined): ForcedOutcome | null {
  if (caller.livemode || requested === undefined || requested.trim() === '') return null;
  const value = requested.trim().toLowerCase();
  if (value in VERDICTS)
    return { kind: 'verdict', verdict: value as ForcedVerdict, status: VERDICTS[value as ForcedVerdict] };
  if (isErrorCode(value))
    return {
      kind: 'error',
      error: new DomainError(
        value,
        `forced by the ${TEST_OUTCOME_HEADER} header`,
        value === 'rate_limited' ? { retryAfterSeconds: 1 } : {},
      ),
    };
  throw new DomainError('validation_error', `${TEST_OUTCOME_HEADER} must be approve, decline, review or an error code`);
}

/** The wire field that marks test-mode data (checks, sessions, decisions, webhooks); absent on live data. */
export const livemodeField = z
  .literal(false)
  .optional()
  .describe('false on data made with a test key (vk_test_...); absent on live data');

/**
 * The operation name an idempotency record is fingerprinted with: test calls get their own (with
 * the forced outcome), so an `Idempotency-Key` reused across modes, or with another forced outcome,
 * is refused (422) instead of replaying another answer.
 */
export const idempotencyOperation = (livemode: boolean, operation: string, testOutcome?: string) =>
  livemode ? operation : `test:${testOutcome?.trim().toLowerCase() ?? ''}:${operation}`;

// What test mode is for: integrating, not verifying. Test calls that run the real models are
// limited to a small daily quota per project (forced outcomes are free and unlimited), and their
// answers carry verdicts and reasons but no scores, thresholds or model evidence: the sandbox is
// neither free production verification nor a tuning oracle for spoofers.

/** The checks whose test calls run real models and so spend the project's daily sandbox quota. */
const MODEL_CHECKS: ReadonlySet<CheckType> = new Set<CheckType>([
  'id_verification',
  'liveness',
  'face_match',
  'antispoof',
  'face_uniqueness',
  'kyc_credential',
]);

/** Whether a test call of this check (without a forced outcome) spends the daily sandbox quota. */
export const spendsSandboxQuota = (type: CheckType): boolean => MODEL_CHECKS.has(type);

/** Test calls with real models a project may make per UTC day, unless configured (`VERITY_SANDBOX_DAILY_CHECKS`). */
export const DEFAULT_SANDBOX_DAILY_CHECKS = 50;

/** The keys of a model check's data that would tell a spoofer how close they came. */
const SCORE_KEYS: ReadonlySet<string> = new Set([
  'score',
  'scores',
  'similarity',
  'threshold',
  'human_score',
  'evidence',
  'authenticity',
  'confidence',
]);

function withoutScoreKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutScoreKeys);
  if (value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !SCORE_KEYS.has(key))
      .map(([key, inner]) => [key, withoutScoreKeys(inner)]),
  );
}

/**
 * An error text without its figures in brackets ("the faces do not match (similarity 0.41 below 0.5)" keeps its words).
 */
const withoutFigures = (text: string) => text.replace(/\s*\([^()]*\d[^()]*\)/g, '');

/**
 * A check as a test key sees it: a model check keeps its status, reasons and non-score data, and
 * loses its score, thresholds and model evidence; other checks (age, location, licences) are unchanged.
 */
export function sandboxCheck<
  C extends { type: CheckType; score?: number | null; data: Record<string, unknown>; error: string | null },
>(check: C): C {
  if (!MODEL_CHECKS.has(check.type)) return check;
  const { score: _score, ...rest } = check;
  return {
    ...rest,
    data: withoutScoreKeys(check.data) as Record<string, unknown>,
    error: check.error === null ? null : withoutFigures(check.error),
  } as C;
}

/** A standalone outcome as a test key sees it (sandboxCheck on each of its checks). */
export function sandboxOutcome<O extends CheckOutcome | CombinedOutcome>(outcome: O): O {
  return 'check' in outcome
    ? { ...outcome, check: sandboxCheck(outcome.check) }
    : { ...outcome, checks: outcome.checks.map(sandboxCheck) };
}
