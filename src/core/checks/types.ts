import type { CheckStatus, CheckType } from './entities.js';

/** The spec's Check object. */
export interface Check {
  type: CheckType;
  status: CheckStatus;
  score?: number;
  data: Record<string, unknown>;
  error: string | null;
}

/** What a check produced, plus what the pipeline records about it. */
export interface CheckOutcome {
  check: Check;
  /** Short machine reason for the stored record when not passed (never raw data). */
  reason?: string;
}

/** What a combined check (KYC + licence) produced: several checks and the identity they rest on. */
export interface CombinedOutcome {
  type: CheckType;
  status: CheckStatus;
  identity: Record<string, unknown>;
  checks: Check[];
  reason?: string;
}

/** Who is asking, and about whom (account mode). */
export interface CheckContext {
  projectId: string;
  /** False for a test key's check or session: it reads and writes no live account state and only test-mode faces. */
  livemode: boolean;
  mode: 'fresh' | 'account';
  svcId: string | null;
  today: Date;
}

/** A field that names the account in account mode. */
export interface AccountRef {
  svc_access_token?: string;
  svc_id?: string;
}

export function accountRefOf(input: AccountRef): { svcAccessToken?: string; svcId?: string } | null {
  if (input.svc_access_token !== undefined) return { svcAccessToken: input.svc_access_token };
  if (input.svc_id !== undefined) return { svcId: input.svc_id };
  return null;
}
