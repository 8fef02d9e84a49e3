import type { Response } from 'express';
import { errorResult, type CallResult } from '../core/checks/pipeline.js';
import type { DomainError } from '../core/errors.js';

/** `{ success, data, error }`: the response shape of every enveloped route. */
export function sendData(res: Response, data: unknown, status = 200): void {
  res.status(status).json({ success: true, data, error: null });
}

export function sendError(res: Response, error: DomainError): void {
  sendResult(res, errorResult(error)!);
}

/**
 * A 503 (the store or an engine away) is retried after a short pause: long enough for a failover to finish, short
 * enough not to stall.
 */
const UNAVAILABLE_RETRY_SECONDS = 2;

/**
 * `Retry-After` of an error answer: what the rule that refused it said (a rate limit's window, the
 * sandbox quota's midnight), else 1 s for a 429 and a short pause for a 503; none otherwise.
 */
export function retryAfterSeconds(result: {
  status: number;
  error: { code: string };
  retryAfterSeconds?: number;
}): number | undefined {
  if (result.retryAfterSeconds !== undefined) return result.retryAfterSeconds;
  if (result.status === 429) return 1;
  if (result.status === 503) return UNAVAILABLE_RETRY_SECONDS;
  return undefined;
}

/** Sends a core call result (as stored for idempotent replay) in the envelope. */
export function sendResult(res: Response, result: CallResult & { replayed?: boolean }): void {
  if (result.replayed) res.setHeader('Idempotent-Replayed', 'true');
  if (result.ok) {
    sendData(res, result.data, result.status);
    return;
  }
  const retryAfter = retryAfterSeconds(result);
  if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
  res.status(result.status).json({ success: false, data: result.data ?? null, error: result.error });
}
