import { DomainError } from '../errors.js';

// Telling "the database cannot be reached right now" (a restart, a failover, a full pool) from
// our own bugs: the first is a 503 the caller retries, the second a 500.

/** Socket errors of the connection to PostgreSQL. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

/**
 * SQLSTATEs of a server that is going away or not there yet: class 08 (connection exception),
 * 57P01-57P03 (admin shutdown, crash shutdown, cannot connect now), 53300 (too many connections).
 */
const UNAVAILABLE_STATES = /^(08...|57P0[123]|53300)$/;

/**
 * What node-postgres and knex say when the socket dies under them or no connection comes (knex
 * answers "Transaction query already complete" to the next query of a transaction whose
 * connection was cut).
 */
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'Transaction query already complete',
  'connection error and is not queryable',
  'Client was closed and is not queryable',
  'Timeout acquiring a connection',
  'timeout exceeded when trying to connect',
];

/** True when `error` (or what caused it) says PostgreSQL is unreachable, not that a query was wrong. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (
    let current = error, depth = 0;
    current && depth < 5;
    current = (current as { cause?: unknown }).cause, depth += 1
  ) {
    if (!(current instanceof Error)) return false;
    const { code, name } = current as Error & { code?: unknown };
    if (typeof code === 'string' && (SOCKET_CODES.has(code) || UNAVAILABLE_STATES.test(code))) return true;
    if (name === 'KnexTimeoutError' || name === 'ConnectionException') return true;
    if (UNAVAILABLE_MESSAGES.some((message) => current instanceof Error && current.message.includes(message)))
      return true;
  }
  return false;
}

/**
 * What to log of an outage: the driver's part of the message only (knex prefixes the query and
 * its values, which may hold identity data).
 */
export function outageReason(error: unknown): { type: string; code: unknown; reason: string | undefined } {
  const { name, code, message } = error as Error & { code?: unknown };
  return { type: name, code, reason: message.split(' - ').pop() };
}

/** service_unavailable (503, retry) for an outage, else undefined: every front answers one alike. */
export function outageError(error: unknown): DomainError | undefined {
  return isDatabaseUnavailable(error) ? new DomainError('service_unavailable') : undefined;
}
