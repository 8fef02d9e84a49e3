import type { z } from 'zod';
import type { CheckStatus, CheckType } from './entities.js';
import type { AccountService } from '../accounts/service.js';
import type { BillingService, Reservation } from '../billing/service.js';
import type { CheckRecordRow } from '../billing/wallet-store.js';
import { type Begin, fingerprint, type IdempotencyService } from '../billing/idempotency.js';
import type { Clock } from '../clock.js';
import type { Orm } from '../db/orm.js';
import type { ServiceMetrics } from '../metrics.js';
import { DomainError } from '../errors.js';
import { newId } from '../secrets.js';
import type { SandboxAllowance } from '../billing/sandbox-quota.js';
import { forcedOutcome, idempotencyOperation, sandboxOutcome, spendsSandboxQuota } from './sandbox.js';
import { parseInput } from '../validation.js';
import { accountRefOf, type AccountRef, type CheckContext, type CheckOutcome, type CombinedOutcome } from './types.js';

export interface Caller {
  projectId: string;
  apiKeyId: string;
  /** False for a test key: no wallet, and the record is marked test. */
  livemode: boolean;
}

/** The answer of a billable call, as stored for idempotent replay and shaped by a front. */
export type CallResult =
  | { ok: true; status: number; data: unknown }
  | { ok: false; status: number; error: { code: string; message: string }; data?: unknown; retryAfterSeconds?: number };

/**
 * A standalone check in two steps: `prepare` validates the input (bad input is answered before
 * any charge) and `execute` does the work that is paid for.
 */
export interface StandaloneCheck<Input, Prepared> {
  type: CheckType;
  /** The body's schema; images arrive as Buffers (fronts decode base64, data URLs and files). */
  input: z.ZodType<Input>;
  prepare(input: Input, context: CheckContext): Promise<Prepared>;
  execute(prepared: Prepared, context: CheckContext): Promise<CheckOutcome | CombinedOutcome>;
}

export function errorResult(error: unknown): CallResult | undefined {
  if (!(error instanceof DomainError)) return undefined;
  return {
    ok: false,
    status: error.status,
    error: { code: error.code, message: error.message },
    ...(error.data !== undefined ? { data: error.data } : {}),
    ...(error.retryAfterSeconds !== undefined ? { retryAfterSeconds: error.retryAfterSeconds } : {}),
  };
}

/**
 * Every standalone check goes through here: idempotency, the account-mode switch, validation,
 * the wallet, the work, the stored record. Fronts only parse the wire format into `input`.
 */
export class CheckPipeline {
  constructor(
    private readonly deps: {
      orm: Orm;
      clock: Clock;
      billing: BillingService;
      idempotency: IdempotencyService;
      accounts: AccountService;
      sandboxQuota: SandboxAllowance;
      metrics?: ServiceMetrics;
    },
  ) {}

  async run<Input extends AccountRef, Prepared>(
    caller: Caller,
    check: StandaloneCheck<Input, Prepared>,
    rawInput: unknown,
    options: { idempotencyKey?: string; testOutcome?: string } = {},
  ): Promise<CallResult & { replayed?: boolean }> {
    const { idempotencyKey, testOutcome } = options;
    if (idempotencyKey !== undefined) {
      let begun: Begin;
      try {
        begun = await this.deps.idempotency.begin(
          caller.projectId,
          idempotencyKey,
          fingerprint(idempotencyOperation(caller.livemode, `check:${check.type}`, testOutcome), rawInput),
        );
      } catch (error) {
        const result = errorResult(error);
        if (result) return result;
        throw error;
      }
      if (begun.kind === 'replay') return { ...(begun.response.body as CallResult), replayed: true };
    }
    let result: CallResult;
    try {
      const forced = forcedOutcome(caller, testOutcome);
      if (forced?.kind === 'error') throw forced.error;
      const input = parseInput(check.input, rawInput ?? {});
      result = await this.execute(
        caller,
        check,
        input,
        forced && {
          check: { type: check.type, status: forced.status, data: { test_outcome: forced.verdict }, error: null },
          reason: forced.status === 'passed' ? undefined : 'test_outcome',
        },
        idempotencyKey,
      );
      // The record's statement stored the answer with it.
      if (idempotencyKey !== undefined) return result;
    } catch (error) {
      const known = errorResult(error);
      if (!known) {
        if (idempotencyKey !== undefined)
          await this.deps.idempotency.finish(caller.projectId, idempotencyKey, { status: 500, body: null });
        throw error;
      }
      result = known;
    }
    if (idempotencyKey !== undefined)
      await this.deps.idempotency.finish(caller.projectId, idempotencyKey, { status: result.status, body: result });
    return result;
  }

  /**
   * `forced` (test keys only) stands in for the models' work; everything else runs as usual,
   * except that a test call with real models spends the sandbox's daily quota and answers
   * without scores (src/core/checks/sandbox.ts says why).
   */
  private async execute<Input extends AccountRef, Prepared>(
    caller: Caller,
    check: StandaloneCheck<Input, Prepared>,
    input: Input,
    forced: CheckOutcome | null,
    idempotencyKey: string | undefined,
  ): Promise<CallResult> {
    const started = Date.now();
    const ref = accountRefOf(input);
    const svcId = ref ? await this.deps.accounts.resolveForProject(caller.projectId, ref) : null;
    const context: CheckContext = {
      projectId: caller.projectId,
      livemode: caller.livemode,
      mode: svcId ? 'account' : 'fresh',
      svcId,
      today: this.deps.clock.now(),
    };
    const prepared = forced ? null : await check.prepare(input, context);
    if (!caller.livemode && !forced && spendsSandboxQuota(check.type))
      await this.deps.sandboxQuota.spend(caller.projectId);

    // Test keys never touch the wallet: they work with a zero balance and leave no charge.
    const reservation: Reservation | null = caller.livemode
      ? await this.deps.billing.reserve(caller.projectId, `check:${check.type}`)
      : null;
    let outcome: CheckOutcome | CombinedOutcome;
    let record: CheckRecordRow;
    let result: CallResult;
    try {
      outcome = forced ?? (await check.execute(prepared as Prepared, context));
      if (!caller.livemode) outcome = sandboxOutcome(outcome);
      const verdict =
        'check' in outcome
          ? { type: outcome.check.type, status: outcome.check.status }
          : { type: outcome.type, status: outcome.status };
      record = this.recordOf(caller, context, { ...verdict, reason: outcome.reason }, Date.now() - started);
      result = { ok: true, status: 200, data: answerData(caller, record, outcome) };
      const answer =
        idempotencyKey === undefined
          ? null
          : this.deps.idempotency.answerOf(idempotencyKey, { status: result.status, body: result });
      await this.deps.billing.recordCheck(record, reservation, answer);
      // A forced outcome is no verdict of the models: it stays out of the verdict metrics.
      if (!forced) this.deps.metrics?.recordVerdict(verdict.type, verdict.status, outcome.reason);
    } catch (error) {
      // No verdict, no charge: late-found bad input and our own failures are refunded (when the
      // database itself is gone, the maintenance sweep refunds it once it is back).
      if (reservation) await this.deps.billing.refund(reservation).catch(() => undefined);
      throw error;
    }
    return result;
  }

  /**
   * The stored record of a verdict (written with its charge in one statement: a check is never recorded unpaid, nor
   * paid unrecorded).
   */
  private recordOf(
    caller: Caller,
    context: CheckContext,
    verdict: { type: CheckType; status: CheckStatus; reason?: string },
    durationMs: number,
  ): CheckRecordRow {
    return {
      id: newId('chk'),
      projectId: caller.projectId,
      type: verdict.type,
      status: verdict.status,
      mode: context.mode,
      svcId: context.svcId,
      livemode: caller.livemode,
      reason: verdict.status === 'passed' ? null : (verdict.reason ?? null),
      durationMs,
      createdAt: this.deps.clock.now(),
    };
  }
}

/** What a check answers: its record's id as `session_id`, and the outcome (a test key's marked). */
function answerData(caller: Caller, record: CheckRecordRow, outcome: CheckOutcome | CombinedOutcome) {
  const mark = caller.livemode ? {} : { livemode: false };
  return 'check' in outcome
    ? { session_id: record.id, status: outcome.check.status, check: outcome.check, ...mark }
    : { session_id: record.id, status: outcome.status, identity: outcome.identity, checks: outcome.checks, ...mark };
}
