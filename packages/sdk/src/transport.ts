// One operation over fetch: the URL from its path template, the credential it wants, the body in
// the encoding it takes, and retries: 429 and 503 again after `Retry-After` (or a backoff), and
// a failed connection again only where repeating cannot do the work twice.
import { errorOfAnswer, VerityConnectionError } from './errors.js';
import type { OperationEntry } from './operation-entry.js';
import type { AbortSignalLike, Fetch } from './runtime-types.js';
import { carriesFiles, multipartBody } from './uploads.js';

/** Per-request options; the client's options give the defaults. */
export interface RequestOptions {
  /** `Idempotency-Key`: a retry with the same key and body answers the first result, charged once (24 hours). */
  idempotencyKey?: string;
  /** `Verity-Test-Outcome` (test keys only): `approve`, `decline`, `review`, or a catalog error code to answer. */
  testOutcome?: 'approve' | 'decline' | 'review' | (string & {});
  /** Give up on one attempt after this long (it counts as a failed connection). */
  timeoutMs?: number;
  /** Retries after 429, 503 or (where safe) a failed connection. */
  maxRetries?: number;
  /** Aborts the request and any wait between retries; the promise rejects with the signal's reason. */
  signal?: AbortSignalLike;
  /** More request headers, e.g. `Authorization: Bearer <access token>` for the account endpoints. */
  headers?: Record<string, string>;
}

export interface TransportSettings {
  baseUrl: string;
  apiKey?: string;
  clientId?: string;
  clientSecret?: string;
  fetch: Fetch;
  timeoutMs: number;
  maxRetries: number;
  autoIdempotencyKey: boolean;
  headers: Record<string, string>;
}

export interface Params {
  path?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: unknown;
}

/** A 2xx answer: its parsed payload (JSON, text or bytes) and headers. */
export interface Answer {
  status: number;
  payload: unknown;
  headers: { get(name: string): string | null };
}

/** Methods that do the same thing however often they are sent (RFC 9110 9.2.2). */
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
const RETRIED_STATUSES = new Set([429, 503]);
/**
 * A `Retry-After` longer than this (e.g. the sandbox's daily quota: until midnight) is not waited for: the error is
 * thrown at once.
 */
export const MAX_RETRY_WAIT_MS = 60_000;
const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 8_000;

/** Milliseconds `Retry-After` asks for (seconds or an HTTP date), or null without a usable one. */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** Exponential backoff with jitter before retry `attempt` (0-based): 250-500 ms, 500-1000 ms, ... up to 8 s. */
export function backoffMs(attempt: number, random = Math.random()): number {
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** attempt);
  return Math.round(ceiling * (0.5 + random / 2));
}

function pathOf(entry: OperationEntry, values: Record<string, unknown> = {}): string {
  return entry.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined || value === null || value === '')
      throw new TypeError(`${entry.method} ${entry.path}: path parameter ${name} is missing`);
    return encodeURIComponent(String(value));
  });
}

function queryOf(query: Record<string, unknown> = {}): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) search.append(name, String(item));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

function credentialHeaders(settings: TransportSettings, entry: OperationEntry): Record<string, string> {
  if (entry.auth === 'apiKey' && settings.apiKey) return { 'x-api-key': settings.apiKey };
  if (entry.auth === 'orgClient' && settings.clientId && settings.clientSecret)
    return { 'x-client-id': settings.clientId, 'x-client-secret': settings.clientSecret };
  return {};
}

async function encodeBody(entry: OperationEntry, body: unknown): Promise<{ body?: string | FormData; type?: string }> {
  if (body === undefined || entry.body === null) return {};
  if (entry.uploads && carriesFiles(body)) return { body: await multipartBody(body as Record<string, unknown>) };
  if (entry.body === 'form') {
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries(body as Record<string, unknown>))
      if (value !== undefined && value !== null) form.append(name, String(value));
    return { body: form.toString(), type: 'application/x-www-form-urlencoded' };
  }
  return { body: JSON.stringify(body), type: 'application/json' };
}

async function payloadOf(response: Response): Promise<unknown> {
  const type = response.headers.get('content-type') ?? '';
  if (/[/+]json\b/i.test(type)) {
    const text = await response.text();
    if (text === '') return undefined;
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  if (/^text\//i.test(type)) return response.text();
  const bytes = new Uint8Array(await response.arrayBuffer());
  return bytes.length === 0 && type === '' ? undefined : bytes;
}

function abortReason(signal: AbortSignalLike): unknown {
  return signal.reason ?? new Error('the request was aborted');
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignalLike): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

type Attempt = { response: Response; payload: unknown } | { failure: unknown; timedOut: boolean };

/** One attempt: the request and the whole answer read, within `timeoutMs`, abortable by the caller. */
async function attempt(
  settings: TransportSettings,
  url: string,
  init: RequestInit,
  timeoutMs: number,
  signal?: AbortSignalLike,
): Promise<Attempt> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onAbort = () => controller.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const response = await settings.fetch(url, { ...init, signal: controller.signal });
    return { response, payload: await payloadOf(response) };
  } catch (failure) {
    if (signal?.aborted) throw abortReason(signal);
    return { failure, timedOut };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

/** Sends one operation, retrying as the options allow; a non-2xx answer throws VerityError. */
export async function send(
  settings: TransportSettings,
  entry: OperationEntry,
  params: Params,
  options: RequestOptions = {},
): Promise<Answer> {
  const url = `${settings.baseUrl.replace(/\/+$/, '')}${pathOf(entry, params.path)}${queryOf(params.query)}`;
  const encoded = await encodeBody(entry, params.body);
  const idempotencyKey =
    options.idempotencyKey ?? (settings.autoIdempotencyKey && entry.idempotencyKey ? crypto.randomUUID() : undefined);
  const headers: Record<string, string> = {
    accept: 'application/json',
    ...settings.headers,
    ...credentialHeaders(settings, entry),
    ...(encoded.type ? { 'content-type': encoded.type } : {}),
    ...(idempotencyKey !== undefined ? { 'idempotency-key': idempotencyKey } : {}),
    ...(options.testOutcome !== undefined ? { 'verity-test-outcome': options.testOutcome } : {}),
    ...options.headers,
  };
  const init: RequestInit = { method: entry.method, headers, body: encoded.body };
  // A failed connection may have done the work: repeat only what cannot do it twice.
  const safeToRepeat = IDEMPOTENT_METHODS.has(entry.method) || (idempotencyKey !== undefined && entry.idempotencyKey);
  const maxRetries = Math.max(0, options.maxRetries ?? settings.maxRetries);
  const timeoutMs = options.timeoutMs ?? settings.timeoutMs;
  for (let retry = 0; ; retry++) {
    if (options.signal?.aborted) throw abortReason(options.signal);
    const result = await attempt(settings, url, init, timeoutMs, options.signal);
    if ('failure' in result) {
      if (safeToRepeat && retry < maxRetries) {
        await sleep(backoffMs(retry), options.signal);
        continue;
      }
      const what = result.timedOut ? `no answer within ${timeoutMs} ms` : 'the connection failed';
      throw new VerityConnectionError(`${entry.method} ${url}: ${what}`, {
        timedOut: result.timedOut,
        cause: result.failure,
      });
    }
    const { response, payload } = result;
    if (response.ok) return { status: response.status, payload, headers: response.headers };
    const wait = retryAfterMs(response.headers.get('retry-after'));
    if (RETRIED_STATUSES.has(response.status) && retry < maxRetries && (wait ?? 0) <= MAX_RETRY_WAIT_MS) {
      await sleep(wait ?? backoffMs(retry), options.signal);
      continue;
    }
    throw errorOfAnswer(response.status, payload, response.headers.get('x-request-id'), wait);
  }
}
