import type { operations } from './generated/openapi.js';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
export type CreateSessionBody = Json<operations['postSession']['requestBody']>;
export type Session = Json<operations['getSessionById']['responses'][200]>['data'];
export type CreatedSession = Json<operations['postSession']['responses'][201]>['data'];
export type SessionStatus = Session['status'];

/** A non-2xx answer, carrying the service's catalog error code (src/core/errors.ts). */
export class VerityError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly body: unknown,
  ) {
    super(`verity answered ${status} ${code}`);
  }
}

export interface VerityClientOptions {
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
}

/** A file for a multipart check: bytes plus the name the service sees. */
export interface Upload {
  data: Buffer | Uint8Array | Blob;
  filename?: string;
  contentType?: string;
}

export class VerityClient {
  private readonly fetch: typeof fetch;
  constructor(private readonly options: VerityClientOptions) {
    this.fetch = options.fetch ?? fetch;
  }

  /** Sends one request and unwraps the `{ success, data, error }` envelope. */
  async request<T>(method: string, path: string, body?: FormData | object, signal?: AbortSignal): Promise<T> {
    const isForm = body instanceof FormData;
    const response = await this.fetch(new URL(path, this.options.baseUrl), {
      method,
      signal,
      headers: { 'x-api-key': this.options.apiKey, ...(body && !isForm ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : isForm ? body : JSON.stringify(body),
    });
    const envelope = (await response.json().catch(() => null)) as { data?: T; error?: { code?: string } } | null;
    if (!response.ok) throw new VerityError(response.status, envelope?.error?.code ?? 'unknown', envelope);
    return envelope?.data as T;
  }

  createSession(body: CreateSessionBody): Promise<CreatedSession> {
    return this.request('POST', '/api/v2/session', body);
  }

  getSession(id: string, signal?: AbortSignal): Promise<Session> {
    return this.request('GET', `/api/v2/session/${encodeURIComponent(id)}`, undefined, signal);
  }

  /**
   * Posts a standalone check as multipart/form-data (files sent as they are, never recompressed),
   * e.g. `uploadImages('/api/v2/face-match', { image1, image2 })`.
   */
  uploadImages<T = Record<string, unknown>>(path: string, files: Record<string, Upload>, fields: Record<string, string> = {}): Promise<T> {
    const form = new FormData();
    for (const [name, file] of Object.entries(files)) {
      const blob = file.data instanceof Blob ? file.data : new Blob([file.data], { type: file.contentType ?? 'application/octet-stream' });
      form.append(name, blob, file.filename ?? name);
    }
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    return this.request('POST', path, form);
  }
}

export interface WaitOptions {
  /** First delay between polls; doubles up to maxIntervalMs. Default 1000. */
  intervalMs?: number;
  maxIntervalMs?: number;
  /** Give up after this long. Default 10 minutes. */
  timeoutMs?: number;
  /** Stop when this holds; default: the session reached a terminal status. */
  until?: (session: Session) => boolean;
  signal?: AbortSignal;
}

const TERMINAL: SessionStatus[] = ['APPROVED', 'DECLINED', 'IN_REVIEW', 'EXPIRED', 'ABANDONED'];

/** Polls GET /api/v2/session/{id} with exponential backoff until `until` holds. */
export async function waitForSession(client: VerityClient, id: string, options: WaitOptions = {}): Promise<Session> {
  const until = options.until ?? ((s: Session) => TERMINAL.includes(s.status));
  const deadline = Date.now() + (options.timeoutMs ?? 600_000);
  let delay = options.intervalMs ?? 1000;
  for (;;) {
    const session = await client.getSession(id, options.signal);
    if (until(session)) return session;
    if (Date.now() + delay > deadline) throw new Error(`session ${id} did not reach the awaited state in time (last status ${session.status})`);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, delay);
      options.signal?.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(options.signal?.reason);
      });
    });
    options.signal?.throwIfAborted();
    delay = Math.min(delay * 2, options.maxIntervalMs ?? 15_000);
  }
}
