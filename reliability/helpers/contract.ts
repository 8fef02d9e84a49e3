import { errorCatalog, isErrorCode } from '../../src/core/errors.js';
import type { RawResponse } from './raw-http.js';

// What every answer must look like, whatever was sent: never a 5xx, always an X-Request-Id, and
// the shape the README gives the route: the envelope with a catalog code and its catalog status,
// or top-level JSON on success where the spec says (OIDC token, userinfo, discovery), the
// GraphQL and tRPC error shapes (with the catalog code in extensions.code / data.domainCode),
// or, for the pages a person sees, HTML or a redirect.

// 'oauth' is the token endpoint: top-level tokens on success; errors as RFC 6749 section 5.2
// (`{ error, error_description }` with a catalog code) to a form-encoded request, the envelope to JSON.
export type Shape = 'envelope' | 'bare' | 'page' | 'graphql' | 'trpc' | 'text' | 'oauth';

const INVALID = Symbol('invalid JSON');

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return INVALID;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function statusAllowed(code: string, status: number): boolean {
  const entry = errorCatalog[code as keyof typeof errorCatalog] as { status: number; also?: readonly number[] };
  return entry.status === status || (entry.also ?? []).includes(status);
}

/** Why an envelope body is not one, or null. */
export function envelopeViolation(body: unknown, status: number): string | null {
  if (!isObject(body) || typeof body.success !== 'boolean') return 'not the envelope';
  if (body.success)
    return status < 300 && body.error === null && 'data' in body
      ? null
      : 'success envelope with an error or a non-2xx status';
  const error = body.error;
  if (!isObject(error) || typeof error.code !== 'string' || typeof error.message !== 'string')
    return 'error envelope without { code, message }';
  if (!isErrorCode(error.code)) return `code ${error.code} is not in the catalog`;
  if (!statusAllowed(error.code, status)) return `status ${status} is not the catalog's for ${error.code}`;
  return null;
}

/** Why an RFC 6749 section 5.2 error body is not one (with a catalog code and its status), or null. */
function oauthErrorViolation(body: unknown, status: number): string | null {
  if (!isObject(body) || typeof body.error !== 'string') return 'neither the envelope nor an RFC 6749 error';
  if (body.error_description !== undefined && typeof body.error_description !== 'string')
    return 'error_description is not a string';
  if (!isErrorCode(body.error)) return `code ${body.error} is not in the catalog`;
  return statusAllowed(body.error, status) ? null : `status ${status} is not the catalog's for ${body.error}`;
}

function graphqlViolation(body: unknown): string | null {
  if (!isObject(body)) return 'not a GraphQL response';
  if (!('errors' in body)) return 'data' in body ? null : 'neither data nor errors';
  if (!Array.isArray(body.errors) || body.errors.length === 0) return 'errors is not a non-empty list';
  for (const error of body.errors) {
    const code = isObject(error) && isObject(error.extensions) ? error.extensions.code : undefined;
    if (typeof code !== 'string' || !isErrorCode(code))
      return `GraphQL error code ${String(code)} is not in the catalog`;
  }
  return null;
}

function trpcViolation(body: unknown): string | null {
  if (Array.isArray(body)) return body.map(trpcViolation).find(Boolean) ?? null;
  if (!isObject(body)) return 'not a tRPC response';
  if ('result' in body) return null;
  const data = isObject(body.error) ? body.error.data : undefined;
  if (!isObject(data) || typeof data.domainCode !== 'string' || !isErrorCode(data.domainCode))
    return 'tRPC error without a catalog domainCode';
  return null;
}

/** Node's own limit on a request's line and headers: past it Node answers 431 before any route runs. */
export const MAX_HEAD_BYTES = 16 * 1024;

/** Why `response` breaks the contract of a route of this shape, or null when it keeps it. */
export function contractViolation(shape: Shape, response: RawResponse, requestHeadBytes = 0): string | null {
  const { status } = response;
  if (status >= 500) return `status ${status}`;
  if (status === 431 && requestHeadBytes > MAX_HEAD_BYTES - 1_024) return null;
  if (!response.headers['x-request-id']) return 'no X-Request-Id';
  const type = String(response.headers['content-type'] ?? '');
  // tRPC answers a path it cannot decode with its JSON error shape, labelled text/plain.
  if (shape === 'trpc' && type.startsWith('text/plain') && response.text.startsWith('{'))
    return trpcViolation(safeJson(response.text));
  if (status >= 300 && status < 400)
    return shape === 'page' && response.headers.location ? null : `redirect ${status} from a ${shape} route`;
  if (type.startsWith('text/html')) return shape === 'page' ? null : `HTML from a ${shape} route`;
  if (!type.startsWith('application/json'))
    return shape === 'text' && status === 200 ? null : `content-type "${type}" from a ${shape} route`;
  const body = safeJson(response.text);
  if (body === INVALID) return 'invalid JSON';
  // Bodies that never reach the GraphQL or tRPC handler (malformed JSON, too large) get the envelope.
  if (isObject(body) && 'success' in body) return envelopeViolation(body, status);
  if (shape === 'graphql') return graphqlViolation(body);
  if (shape === 'trpc') return trpcViolation(body);
  if ((shape === 'bare' || shape === 'text' || shape === 'oauth') && status < 300) return null;
  if (shape === 'oauth') return oauthErrorViolation(body, status);
  return `JSON from a ${shape} route is not the envelope`;
}
