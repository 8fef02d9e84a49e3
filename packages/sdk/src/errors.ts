/**
 * The service answered with an error. `code` is its catalog code (`not_found`, `rate_limited`,
 * ...; for the OAuth endpoints the OAuth `error`), `message` the service's own message,
 * `requestId` its `X-Request-Id` (quote it to the operator), `data` the envelope's `data`
 * (e.g. `errors` naming each bad field).
 */
export class VerityError extends Error {
  readonly status: number;
  readonly code: string;
  readonly requestId: string | null;
  readonly data: unknown;
  /** How long `Retry-After` asked to wait, in milliseconds (429 and 503), else null. */
  readonly retryAfterMs: number | null;
  /** The parsed body as it arrived. */
  readonly body: unknown;

  constructor(init: {
    status: number;
    code: string;
    message: string;
    requestId: string | null;
    data?: unknown;
    retryAfterMs?: number | null;
    body?: unknown;
  }) {
    super(init.message);
    this.name = 'VerityError';
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.data = init.data;
    this.retryAfterMs = init.retryAfterMs ?? null;
    this.body = init.body;
  }
}

/** No answer came: the connection failed, or the attempt outlived `timeoutMs` (`timedOut`). */
export class VerityConnectionError extends Error {
  readonly timedOut: boolean;

  constructor(message: string, options: { timedOut: boolean; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = 'VerityConnectionError';
    this.timedOut = options.timedOut;
  }
}

/** The error of a non-2xx answer, from its body (the envelope, an OAuth error, or anything else). */
export function errorOfAnswer(
  status: number,
  body: unknown,
  requestId: string | null,
  retryAfterMs: number | null,
): VerityError {
  const envelope = body as { error?: unknown; error_description?: unknown; data?: unknown } | null;
  const inner =
    envelope && typeof envelope.error === 'object' && envelope.error !== null
      ? (envelope.error as { code?: unknown; message?: unknown })
      : null;
  if (inner && typeof inner.code === 'string') {
    return new VerityError({
      status,
      code: inner.code,
      message: typeof inner.message === 'string' ? inner.message : inner.code,
      requestId,
      data: envelope?.data,
      retryAfterMs,
      body,
    });
  }
  if (envelope && typeof envelope.error === 'string') {
    const description = typeof envelope.error_description === 'string' ? envelope.error_description : envelope.error;
    return new VerityError({ status, code: envelope.error, message: description, requestId, retryAfterMs, body });
  }
  return new VerityError({
    status,
    code: 'unexpected_response',
    message: `verity answered ${status} without an error envelope`,
    requestId,
    retryAfterMs,
    body,
  });
}
