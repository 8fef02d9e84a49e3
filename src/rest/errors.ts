import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { DomainError } from '../core/errors.js';
import { sendError } from './envelope.js';

interface BodyParserError extends Error {
  type?: string;
  status?: number;
}

/** What a thrown value means on the wire. Anything unexpected is a 500 without details. */
export function toDomainError(error: unknown): DomainError | undefined {
  if (error instanceof DomainError) return error;
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
      return undefined;
  }
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
    logger.error({ req_id: res.locals.requestId, err: error }, 'unhandled error');
    sendError(res, new DomainError('internal_error'));
  };
}
