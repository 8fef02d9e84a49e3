/** One REST operation as the client needs it at run time (its types come from generated/openapi.ts). */
export interface OperationEntry {
  method: string;
  /** The OpenAPI path template, e.g. `/api/v2/session/{id}`. */
  path: string;
  /**
   * Which credential the client sends: the API key, the organisation's client id and secret, an access token (given per
   * request), or none.
   */
  auth: 'apiKey' | 'orgClient' | 'accessToken' | 'none';
  /** How a body is sent: JSON, form-encoded (the OAuth endpoints that take only that), or none. */
  body: 'json' | 'form' | null;
  /** The body has image fields, which also take bytes: then it is sent as multipart/form-data. */
  uploads: boolean;
  /** The operation honours `Idempotency-Key` (declared as a header, or it can answer `idempotency_key_reused`). */
  idempotencyKey: boolean;
  /**
   * A list operation (it takes a `cursor`; the next page's is in `X-Next-Cursor`): where a page's items are in `data`
   * (null: `data` is the array).
   */
  pagination: { items: string | null } | null;
}
