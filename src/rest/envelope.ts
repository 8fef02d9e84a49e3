import type { Response } from 'express';
import { DomainError, errorCatalog, type ErrorCode } from '../core/errors.js';

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

/** The status a front uses for a code when it has no DomainError at hand. */
export function statusOf(code: ErrorCode): number {
  return errorCatalog[code].status;
}
