import { OPERATIONS } from './generated/operations.js';
import type {
  ListOperationId,
  OperationId,
  Page,
  PageItem,
  ParamsArgs,
  QueryParams,
  RequestBody,
  ResponseData,
} from './operations.js';
import type { AbortSignalLike, Fetch } from './runtime-types.js';
import { type Answer, type Params, type RequestOptions, send, sleep, type TransportSettings } from './transport.js';

export type CreateSessionBody = RequestBody<'postSession'>;
export type CreatedSession = ResponseData<'postSession'>;
export type Session = ResponseData<'getSessionById'>;
export type SessionStatus = Session['status'];
export type SessionDecision = ResponseData<'getSessionByIdDecision'>;
export type ListSessionsQuery = QueryParams<'getSession'>;
export type ReviewBody = RequestBody<'patchSessionByIdStatus'>;
/** What every standalone check answers: `{ session_id, status, check }` (`livemode: false` with a test key). */
export type CheckResult = ResponseData<'postFaceMatch'>;

export interface VerityClientOptions {
  /** Where the service is, e.g. `https://verity.example.com` (a path prefix is kept). */
  baseUrl: string;
  /** The project's API key (`vk_live_...` or `vk_test_...`), sent as `X-API-Key` to the operations that take it. */
  apiKey?: string;
  /** The organisation roster API's credentials (`X-Client-Id`, `X-Client-Secret`). */
  clientId?: string;
  clientSecret?: string;
  /** Another fetch (a proxy agent, a test double). Default: the global fetch. */
  fetch?: Fetch;
  /** Per attempt, in milliseconds. Default 120 000 (a KYC check runs several models). */
  timeoutMs?: number;
  /** Retries after 429, 503 or (where safe) a failed connection. Default 2. */
  maxRetries?: number;
  /**
   * Send a fresh `Idempotency-Key` (a random UUID, the same for every retry of one call) on each
   * call of an operation that honours it and was given none, so that a retry after a failed
   * connection cannot create or charge twice. Default false.
   */
  autoIdempotencyKey?: boolean;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
}

function unwrap(payload: unknown): unknown {
  const envelope = payload as { success?: unknown; data?: unknown } | null;
  return typeof envelope === 'object' && envelope !== null && envelope.success === true && 'data' in envelope
    ? envelope.data
    : payload;
}

export class VerityClient {
  private readonly settings: TransportSettings;

  constructor(options: VerityClientOptions) {
    if (!options.baseUrl) throw new TypeError('VerityClient: baseUrl is required');
    const fetchImpl = options.fetch ?? (globalThis as { fetch?: Fetch }).fetch;
    if (!fetchImpl) throw new TypeError('VerityClient: no global fetch (Node 18+), pass options.fetch');
    this.settings = {
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      fetch: fetchImpl,
      timeoutMs: options.timeoutMs ?? 120_000,
      maxRetries: options.maxRetries ?? 2,
      autoIdempotencyKey: options.autoIdempotencyKey ?? false,
      headers: options.headers ?? {},
    };
  }

  private send(
    operationId: OperationId,
    params: Params | undefined,
    options: RequestOptions | undefined,
  ): Promise<Answer> {
    const entry = OPERATIONS[operationId];
    if (!entry) throw new TypeError(`unknown operation ${String(operationId)}`);
    return send(this.settings, entry, params ?? {}, options);
  }

  /**
   * Any operation of the REST API by its operationId (the reference at /docs lists them), typed
   * from the OpenAPI document: `request('getSessionById', { path: { id } })`. Answers the
   * envelope's `data` (an unenveloped route's JSON, text or bytes as they are).
   */
  async request<K extends OperationId>(
    operationId: K,
    ...[params, options]: ParamsArgs<K, RequestOptions>
  ): Promise<ResponseData<K>> {
    const answer = await this.send(operationId, params as Params | undefined, options);
    return unwrap(answer.payload) as ResponseData<K>;
  }

  private async fetchPage<K extends ListOperationId>(
    operationId: K,
    params: Params,
    options: RequestOptions | undefined,
  ): Promise<Page<PageItem<K>>> {
    const answer = await this.send(operationId, params, options);
    const data = unwrap(answer.payload);
    const field = OPERATIONS[operationId].pagination.items;
    const items = (field === null ? data : (data as Record<string, unknown>)[field]) as PageItem<K>[];
    return { items, nextCursor: answer.headers.get('x-next-cursor') || null };
  }

  /** One page of a list operation, with the cursor of the next (null on the last page). */
  page<K extends ListOperationId>(
    operationId: K,
    ...[params, options]: ParamsArgs<K, RequestOptions>
  ): Promise<Page<PageItem<K>>> {
    return this.fetchPage(operationId, (params ?? {}) as Params, options);
  }

  /** Every item of a list operation, page after page (`limit` per page), as an async iterator. */
  async *paginate<K extends ListOperationId>(
    operationId: K,
    ...[params, options]: ParamsArgs<K, RequestOptions>
  ): AsyncGenerator<PageItem<K>, void, undefined> {
    const base = (params ?? {}) as Params;
    let cursor = base.query?.cursor;
    do {
      const page = await this.fetchPage(operationId, { ...base, query: { ...base.query, cursor } }, options);
      yield* page.items;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }

  // Sessions

  /** POST /api/v2/session: a verification session; send its `url` to the user. */
  createSession(body: CreateSessionBody, options?: RequestOptions): Promise<CreatedSession> {
    return this.request('postSession', { body }, options);
  }

  getSession(id: string, options?: RequestOptions): Promise<Session> {
    return this.request('getSessionById', { path: { id } }, options);
  }

  /** One page of sessions, newest first (`limit` 1-100, default 20). */
  listSessions(query: ListSessionsQuery = {}, options?: RequestOptions): Promise<Page<Session>> {
    return this.page('getSession', { query }, options);
  }

  /**
   * Every session matching the query, newest first, following the cursor: `for await (const s of
   * verity.iterateSessions({ status: 'IN_REVIEW' }))`.
   */
  iterateSessions(query: ListSessionsQuery = {}, options?: RequestOptions): AsyncGenerator<Session, void, undefined> {
    return this.paginate('getSession', { query }, options);
  }

  /** GET /api/v2/session/{id}/decision: the outcome with each check's result. */
  getSessionDecision(id: string, options?: RequestOptions): Promise<SessionDecision> {
    return this.request('getSessionByIdDecision', { path: { id } }, options);
  }

  /** PATCH /api/v2/session/{id}/status: a reviewer's decision on a session IN_REVIEW. */
  reviewSession(
    id: string,
    body: ReviewBody,
    options?: RequestOptions,
  ): Promise<ResponseData<'patchSessionByIdStatus'>> {
    return this.request('patchSessionByIdStatus', { path: { id }, body }, options);
  }

  /** DELETE /api/v2/session/{id}/data: erase the session's personal data now (status and decision stay). */
  eraseSessionData(id: string, options?: RequestOptions): Promise<ResponseData<'deleteSessionByIdData'>> {
    return this.request('deleteSessionByIdData', { path: { id } }, options);
  }

  /** Polls the session with backoff until it reaches a terminal status (or `until` holds). */
  waitForSession(id: string, options?: WaitOptions): Promise<Session> {
    return waitForSession(this, id, options);
  }

  // Standalone checks: image fields take bytes (sent as multipart files) or base64 / data-URL strings.

  idVerification(
    body: RequestBody<'postIdVerification'>,
    options?: RequestOptions,
  ): Promise<ResponseData<'postIdVerification'>> {
    return this.request('postIdVerification', { body }, options);
  }

  faceMatch(body: RequestBody<'postFaceMatch'>, options?: RequestOptions): Promise<ResponseData<'postFaceMatch'>> {
    return this.request('postFaceMatch', { body }, options);
  }

  liveness(body: RequestBody<'postLiveness'>, options?: RequestOptions): Promise<ResponseData<'postLiveness'>> {
    return this.request('postLiveness', { body }, options);
  }

  kycCredential(
    body: RequestBody<'postKycCredential'>,
    options?: RequestOptions,
  ): Promise<ResponseData<'postKycCredential'>> {
    return this.request('postKycCredential', { body }, options);
  }

  antispoof(body: RequestBody<'postAntispoof'>, options?: RequestOptions): Promise<ResponseData<'postAntispoof'>> {
    return this.request('postAntispoof', { body }, options);
  }

  antispoofIdentity(
    body: RequestBody<'postAntispoofIdentity'>,
    options?: RequestOptions,
  ): Promise<ResponseData<'postAntispoofIdentity'>> {
    return this.request('postAntispoofIdentity', { body }, options);
  }

  /** A single-use 60 s gesture challenge for a burst sent to `antispoof`. */
  antispoofChallenge(options?: RequestOptions): Promise<ResponseData<'postAntispoofChallenge'>> {
    return this.request('postAntispoofChallenge', {}, options);
  }

  faceUniqueness(
    body: RequestBody<'postFaceUniqueness'>,
    options?: RequestOptions,
  ): Promise<ResponseData<'postFaceUniqueness'>> {
    return this.request('postFaceUniqueness', { body }, options);
  }

  /** DELETE /api/v2/face-uniqueness/{face_id}: unlink an enrolled face. */
  unlinkFace(faceId: string, options?: RequestOptions): Promise<ResponseData<'deleteFaceUniquenessByFaceId'>> {
    return this.request('deleteFaceUniquenessByFaceId', { path: { face_id: faceId } }, options);
  }

  ageVerification(
    body: RequestBody<'postAgeVerification'>,
    options?: RequestOptions,
  ): Promise<ResponseData<'postAgeVerification'>> {
    return this.request('postAgeVerification', { body }, options);
  }

  location(body: RequestBody<'postLocation'>, options?: RequestOptions): Promise<ResponseData<'postLocation'>> {
    return this.request('postLocation', { body }, options);
  }

  credentialVerification(
    body: RequestBody<'postCredentialVerification'>,
    options?: RequestOptions,
  ): Promise<ResponseData<'postCredentialVerification'>> {
    return this.request('postCredentialVerification', { body }, options);
  }

  /**
   * Checks an SD-JWT VC presentation a person's wallet gave you, against the nonce and audience
   * you gave the wallet: the disclosed claims, issuer, status and expiry (proofs only).
   */
  credentialPresentation(
    body: RequestBody<'postCredentialPresentation'>,
    options?: RequestOptions,
  ): Promise<ResponseData<'postCredentialPresentation'>> {
    return this.request('postCredentialPresentation', { body }, options);
  }

  credentialStates(options?: RequestOptions): Promise<ResponseData<'getCredentialStates'>> {
    return this.request('getCredentialStates', {}, options);
  }

  credentialProviders(
    state: string,
    options?: RequestOptions,
  ): Promise<ResponseData<'getCredentialStatesByStateProviders'>> {
    return this.request('getCredentialStatesByStateProviders', { path: { state } }, options);
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
  signal?: AbortSignalLike;
}

const TERMINAL: SessionStatus[] = ['APPROVED', 'DECLINED', 'IN_REVIEW', 'EXPIRED', 'ABANDONED'];

/** Polls GET /api/v2/session/{id} with exponential backoff until `until` holds. */
export async function waitForSession(client: VerityClient, id: string, options: WaitOptions = {}): Promise<Session> {
  const until = options.until ?? ((s: Session) => TERMINAL.includes(s.status));
  const deadline = Date.now() + (options.timeoutMs ?? 600_000);
  let delay = options.intervalMs ?? 1000;
  for (;;) {
    const session = await client.getSession(id, { signal: options.signal });
    if (until(session)) return session;
    if (Date.now() + delay > deadline)
      throw new Error(`session ${id} did not reach the awaited state in time (last status ${session.status})`);
    await sleep(delay, options.signal);
    delay = Math.min(delay * 2, options.maxIntervalMs ?? 15_000);
  }
}
