import type { AccountService } from '../../accounts/service.js';
import type { StandaloneCheck } from '../../checks/pipeline.js';
import type { CheckContext, CheckOutcome, CombinedOutcome } from '../../checks/types.js';
import { parseInput } from '../../validation.js';
import type { EvidenceKind } from '../entities.js';
import type { SessionRecord } from '../store.js';

// What every step of the hosted flow is: a function from the session, the step's fields and what
// earlier steps left, to its checks' outcomes, what it leaves, and the images kept for the review.
// SessionService runs the one the page submitted, then records and decides (its `commit`).

/** The steps of the hosted flow, each with the workflow features that ask for it. */
export const STEPS = {
  document: ['id_verification', 'age', 'face_match'],
  selfie: ['liveness', 'face_match'],
  location: ['location'],
  licence: ['credential'],
} as const;
export type StepName = keyof typeof STEPS;

/** What one step leaves for a later one; sealed on the session and wiped when it closes. */
export interface SessionWork {
  /** Steps already submitted: each runs once (no fishing for a pass by retrying). */
  stepsDone?: StepName[];
  /** Selfie bursts judged not live so far (retakes are allowed up to SELFIE_ATTEMPTS). */
  failedSelfies?: number;
  /** Tries of each step that failed for a reason the person can fix (see FIXABLE_REASONS). */
  fixableTries?: Partial<Record<StepName, number>>;
  portrait?: string;
  fullName?: string;
  firstName?: string;
  lastName?: string;
  dateOfBirth?: string;
  documentNumber?: string;
  documentExpiry?: string;
  /** The document's nationality (MRZ) or country, as read. */
  country?: string;
}

/** What a hosted step produced: its checks, what it leaves for later steps, and the images kept for review. */
export interface StepResult {
  outcomes: CheckOutcome[];
  work: SessionWork;
  images?: { kind: EvidenceKind; bytes: Buffer }[];
}

export interface SessionChecks {
  idVerification: StandaloneCheck<any, any>;
  age: StandaloneCheck<any, any>;
  antispoof: StandaloneCheck<any, any>;
  faceMatch: StandaloneCheck<any, any>;
  location: StandaloneCheck<any, any>;
  credential: StandaloneCheck<any, any>;
}

/** What a step may use of the session service: the checks, the accounts, and the service's own rules it shares. */
export interface StepPorts {
  checks: SessionChecks;
  accounts: AccountService;
  /** The context a check of this session runs in (fresh, or from the bound account). */
  contextOf(session: SessionRecord, mode?: 'fresh' | 'account'): CheckContext;
  /** The age the workflow asks the person to prove (metadata `min_age`, else 18). */
  minAgeOf(session: SessionRecord): number;
  /** Counts a selfie judged not live under the session's lock; returns the failures so far. */
  countFailedSelfie(session: SessionRecord, reason: string, frame: Buffer | null): Promise<number>;
}

/** One step of the hosted flow (steps/<name>.ts). */
export type HostedStep = (
  session: SessionRecord,
  input: Record<string, unknown>,
  work: SessionWork,
  ports: StepPorts,
) => Promise<StepResult>;

/** Runs a standalone check's steps (validate, prepare, execute) without the wallet or the standalone record. */
export async function runCheck<I, P>(
  check: StandaloneCheck<I, P>,
  raw: Record<string, unknown>,
  context: CheckContext,
): Promise<CheckOutcome> {
  const outcome: CheckOutcome | CombinedOutcome = await check.execute(
    await check.prepare(parseInput(check.input, raw), context),
    context,
  );
  if (!('check' in outcome)) throw new Error(`${check.type} returned a combined outcome inside a session`);
  return outcome;
}
