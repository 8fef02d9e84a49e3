import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { outageError, outageReason } from '../core/db/unavailable.js';
import { DomainError } from '../core/errors.js';
import { sendError } from '../http/envelope.js';

interface BodyParserError extends Error {
  type?: string;
  status?: number;
}

/** What a thrown value means on the wire. Anything unexpected is a 500 without details. */
export function toDomainError(error: unknown): DomainError | undefined {
  if (error instanceof DomainError) return error;
  // Core's database guard (`refuseNul`) throws from inside the ORM, which wraps it: the rule is the cause.
  if ((error as { cause?: unknown })?.cause instanceof DomainError) return (error as { cause: DomainError }).cause;
  const parserError = error as BodyParserError;
  switch (parserError?.type) {
    case 'entity.parse.failed':
      return new DomainError('validation_error', 'malformed JSON body');
    case 'entity.too.large':
      return new DomainError('payload_too_large', 'request body is too large');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new DomainError('validation_error', 'unsupported body encoding or charset');
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return new DomainError('validation_error', 'the request body could not be read');
    default:
      break;
  }
  // The router's undecodable path parameters (`%E0%A4%A`) and body-parser's failures without a
  // type (a Content-Encoding whose bytes do not inflate) are the caller's fault: http-errors 4xx.
  const status = (error as { status?: unknown })?.status;
  if (error instanceof URIError && status === 400)
    return new DomainError('validation_error', 'the path is not valid percent-encoded UTF-8');
  if (typeof status === 'number' && status >= 400 && status < 500 && (error as { expose?: unknown }).expose === true) {
    return status === 413
      ? new DomainError('payload_too_large')
      : new DomainError('validation_error', 'the request body could not be read');
  }
  return undefined;
}

/** The last middleware: every error leaves as an envelope; stack traces go to the log only. */
export function errorHandler(logger: Logger) {
  return (error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const known = toDomainError(error);
    if (res.headersSent) {
      logger.error({ req_id: res.locals.requestId, err: error }, 'error after the response started');
      return;
    }
    if (known) {
      sendError(res, known);
      return;
    }
    const outage = outageError(error);
    if (outage) {
      // A restart or failover of PostgreSQL: the caller retries; no stack, it is not our bug.
      logger.warn({ req_id: res.locals.requestId, database: outageReason(error) }, 'database unavailable');
      sendError(res, outage);
      return;
    }
    logger.error({ req_id: res.locals.requestId, err: error }, 'unhandled error');
    sendError(res, new DomainError('internal_error'));
  };
}
