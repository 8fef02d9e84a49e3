import type { Response } from 'express';
import type { CallResult } from '../core/checks/pipeline.js';
import type { DomainError } from '../core/errors.js';

/** `{ success, data, error }`: the response shape of every enveloped route. */
export function sendData(res: Response, data: unknown, status = 200): void {
  res.status(status).json({ success: true, data, error: null });
}

export function sendError(res: Response, error: DomainError): void {
  if (error.code === 'rate_limited') res.setHeader('Retry-After', String(error.retryAfterSeconds ?? 1));
  res.status(error.status).json({
    success: false,
    data: error.data ?? null,
    error: { code: error.code, message: error.message },
  });
}

/** Sends a core call result (as stored for idempotent replay) in the envelope. */
export function sendResult(res: Response, result: CallResult & { replayed?: boolean }): void {
  if (result.replayed) res.setHeader('Idempotent-Replayed', 'true');
  if (result.ok) {
    sendData(res, result.data, result.status);
    return;
  }
  if (result.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(result.retryAfterSeconds));
  res.status(result.status).json({ success: false, data: result.data ?? null, error: result.error });
}
