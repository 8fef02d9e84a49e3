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

/** Sends a core call result (as stored for idempotent replay) in the envelope. */
export function sendResult(res: Response, result: CallResult & { replayed?: boolean }): void {
  if (result.replayed) res.setHeader('Idempotent-Replayed', 'true');
  if (result.ok) {
    sendData(res, result.data, result.status);
    return;
  }
  const retryAfter = result.retryAfterSeconds ?? (result.error.code === 'rate_limited' ? 1 : undefined);
  if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
  res.status(result.status).json({ success: false, data: result.data ?? null, error: result.error });
}
