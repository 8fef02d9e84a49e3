import { describe, expect, it } from 'vitest';
import { VerityClient, VerityConnectionError, VerityError } from '../../packages/sdk/src/index.js';
import { backoffMs, MAX_RETRY_WAIT_MS, retryAfterMs } from '../../packages/sdk/src/transport.js';

// The SDK's client rules against a scripted fetch: what it sends (URL, headers, body encoding),
// when it retries, and what it throws. No service: test/sdk.test.ts and sdk-package.test.ts run
// it against a real one.

interface Sent {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: unknown;
}

type Script = (sent: Sent, index: number) => Response | Promise<Response>;

function scripted(script: Script): { fetch: typeof fetch; sent: Sent[] } {
  const sent: Sent[] = [];
  const fake = async (input: string | URL | Request, init: RequestInit = {}) => {
    const request: Sent = {
      url: String(input),
      method: init.method ?? 'GET',
      headers: init.headers as Record<string, string>,
      body: init.body,
    };
    sent.push(request);
    if (init.signal?.aborted) throw init.signal.reason;
    return await new Promise<Response>((resolve, reject) => {
      init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
      Promise.resolve(script(request, sent.length - 1)).then(resolve, reject);
    });
  };
  return { fetch: fake as typeof fetch, sent };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', 'x-request-id': `req-${status}`, ...headers },
  });
const ok = (data: unknown, headers: Record<string, string> = {}) =>
  json(200, { success: true, data, error: null }, headers);
const failure = (status: number, code: string, message: string, headers: Record<string, string> = {}, data?: unknown) =>
  json(status, { success: false, data, error: { code, message } }, headers);

const client = (fetchImpl: typeof fetch, options: Partial<ConstructorParameters<typeof VerityClient>[0]> = {}) =>
  new VerityClient({ baseUrl: 'https://verity.example/prefix/', apiKey: 'vk_test_key', fetch: fetchImpl, ...options });

describe('what the client sends', () => {
  it('fills the path, the query and the credential of the operation, and unwraps the envelope', async () => {
    const { fetch, sent } = scripted(() => ok({ session_id: 'ses 1/2' }));
    const verity = client(fetch);
    expect(await verity.getSession('ses 1/2')).toEqual({ session_id: 'ses 1/2' });
    await verity.listSessions({ status: 'APPROVED', limit: 5, vendor_data: undefined });
    expect(sent.map((s) => `${s.method} ${s.url}`)).toEqual([
      'GET https://verity.example/prefix/api/v2/session/ses%201%2F2',
      'GET https://verity.example/prefix/api/v2/session?status=APPROVED&limit=5',
    ]);
    expect(sent[0]!.headers).toMatchObject({ 'x-api-key': 'vk_test_key', accept: 'application/json' });
    // The API key goes only to the operations that take it.
    await verity.request('getHealthz');
    expect(sent[2]!.headers['x-api-key']).toBeUndefined();
    const roster = client(fetch, { clientId: 'cid', clientSecret: 'csecret' });
    await roster.request('getSdkBilling');
    expect(sent[3]!.headers).toMatchObject({ 'x-client-id': 'cid', 'x-client-secret': 'csecret' });
    expect(sent[3]!.headers['x-api-key']).toBeUndefined();
  });

  it('sends the per-request headers: Idempotency-Key, Verity-Test-Outcome and any other', async () => {
    const { fetch, sent } = scripted(() => json(201, { success: true, data: { session_id: 's' }, error: null }));
    await client(fetch).createSession(
      { workflow_id: 'wf' },
      { idempotencyKey: 'order-42', testOutcome: 'approve', headers: { 'x-trace': 't' } },
    );
    expect(sent[0]!.headers).toMatchObject({
      'idempotency-key': 'order-42',
      'verity-test-outcome': 'approve',
      'x-trace': 't',
      'content-type': 'application/json',
    });
    expect(JSON.parse(sent[0]!.body as string)).toEqual({ workflow_id: 'wf' });
  });

  it('generates an Idempotency-Key only when asked, only where it is honoured, and keeps it across retries', async () => {
    const flaky = () =>
      scripted((_, index) =>
        index === 0
          ? failure(503, 'engine_unreachable', 'down', { 'retry-after': '0' })
          : json(201, { success: true, data: {}, error: null }),
      );
    const plain = flaky();
    await client(plain.fetch).createSession({ workflow_id: 'wf' });
    expect(plain.sent.map((s) => s.headers['idempotency-key'])).toEqual([undefined, undefined]);
    const auto = flaky();
    await client(auto.fetch, { autoIdempotencyKey: true }).createSession({ workflow_id: 'wf' });
    const [first, retry] = auto.sent.map((s) => s.headers['idempotency-key']);
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(retry).toBe(first);
    // PATCH .../status does not honour it: none is made up.
    const review = flaky();
    await client(review.fetch, { autoIdempotencyKey: true }).reviewSession('s', { status: 'DECLINED' });
    expect(review.sent[0]!.headers['idempotency-key']).toBeUndefined();
  });

  it('sends a check with bytes as multipart/form-data (files under their field names, lists repeated), and without bytes as JSON', async () => {
    const { fetch, sent } = scripted(() => ok({ status: 'passed' }));
    const verity = client(fetch);
    const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0]);
    await verity.faceMatch({
      image1: jpeg,
      image2: { data: new Blob([jpeg], { type: 'image/jpeg' }), filename: 'selfie.jpg' },
      threshold: 0.9,
    });
    const form = sent[0]!.body as FormData;
    expect(form).toBeInstanceOf(FormData);
    expect(sent[0]!.headers['content-type']).toBeUndefined(); // fetch writes the multipart boundary
    const image1 = form.get('image1') as File;
    expect([image1.name, new Uint8Array(await image1.arrayBuffer())]).toEqual(['image1', jpeg]);
    expect([(form.get('image2') as File).name, (form.get('image2') as File).type]).toEqual([
      'selfie.jpg',
      'image/jpeg',
    ]);
    expect(form.get('threshold')).toBe('0.9');
    await verity.antispoof({ frames: [jpeg, jpeg.buffer as ArrayBuffer, jpeg], captured_ms: [0, 100, 200] });
    const burst = sent[1]!.body as FormData;
    expect((burst.getAll('frames') as File[]).map((file) => file.name)).toEqual(['frames-1', 'frames-2', 'frames-3']);
    expect(burst.getAll('captured_ms')).toEqual(['0', '100', '200']);
    await verity.faceMatch({ image1: 'data:image/jpeg;base64,/9j/', image2: '/9j/' });
    expect(JSON.parse(sent[2]!.body as string)).toEqual({ image1: 'data:image/jpeg;base64,/9j/', image2: '/9j/' });
  });
});

describe('errors', () => {
  it("carry the status, the catalog code, the service's message, the request id and the data", async () => {
    const { fetch } = scripted(() =>
      failure(
        400,
        'validation_error',
        'workflow_id: expected string',
        {},
        { errors: { workflow_id: 'expected string' } },
      ),
    );
    const error = (await client(fetch)
      .createSession({ workflow_id: 'wf' })
      .catch((e: unknown) => e)) as VerityError;
    expect(error).toBeInstanceOf(VerityError);
    expect(error).toMatchObject({
      name: 'VerityError',
      status: 400,
      code: 'validation_error',
      message: 'workflow_id: expected string',
      requestId: 'req-400',
      data: { errors: { workflow_id: 'expected string' } },
    });
  });

  it("read an OAuth error's fields, and name an answer that is no envelope", async () => {
    const oauth = scripted(() => json(400, { error: 'invalid_grant', error_description: 'the code was used' }));
    expect(
      await client(oauth.fetch)
        .request('postAuthOidcToken', { body: { grant_type: 'authorization_code' } })
        .catch((e: unknown) => e),
    ).toMatchObject({ code: 'invalid_grant', message: 'the code was used' });
    const proxy = scripted(
      () => new Response('<html>bad gateway</html>', { status: 502, headers: { 'content-type': 'text/html' } }),
    );
    expect(
      await client(proxy.fetch)
        .getSession('s')
        .catch((e: unknown) => e),
    ).toMatchObject({ status: 502, code: 'unexpected_response', body: '<html>bad gateway</html>', requestId: null });
  });
});

describe('retries', () => {
  it('retry 429 and 503 after Retry-After, up to maxRetries, then throw the last answer', async () => {
    const { fetch, sent } = scripted(() => failure(429, 'rate_limited', 'slow down', { 'retry-after': '1' }));
    const started = Date.now();
    const error = (await client(fetch, { maxRetries: 1 })
      .getSession('s')
      .catch((e: unknown) => e)) as VerityError;
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
    expect(sent).toHaveLength(2);
    expect(error).toMatchObject({ status: 429, code: 'rate_limited', retryAfterMs: 1000 });
    const flaky = scripted((_, index) =>
      index < 2 ? failure(503, 'engine_unreachable', 'busy', { 'retry-after': '0' }) : ok({ status: 'passed' }),
    );
    expect(await client(flaky.fetch).location({ latitude: 1, longitude: 2 })).toEqual({ status: 'passed' });
    expect(flaky.sent).toHaveLength(3);
  });

  it('do not wait for a Retry-After beyond a minute (the sandbox quota resets at midnight), nor retry other errors', async () => {
    const quota = scripted(() =>
      failure(429, 'rate_limited', 'sandbox quota', { 'retry-after': String(MAX_RETRY_WAIT_MS / 1000 + 1) }),
    );
    expect(
      await client(quota.fetch)
        .getSession('s')
        .catch((e: unknown) => e),
    ).toMatchObject({ code: 'rate_limited', retryAfterMs: MAX_RETRY_WAIT_MS + 1000 });
    expect(quota.sent).toHaveLength(1);
    const server = scripted(() => failure(500, 'internal_error', 'boom'));
    await expect(client(server.fetch).getSession('s')).rejects.toMatchObject({ code: 'internal_error' });
    expect(server.sent).toHaveLength(1);
  });

  it('repeat a failed connection for GET, or for a POST with an Idempotency-Key, but never for a POST without one', async () => {
    const down = () =>
      scripted((_, index) => (index === 0 ? Promise.reject(new TypeError('fetch failed')) : ok({ status: 'passed' })));
    const get = down();
    expect(await client(get.fetch).getSession('s')).toEqual({ status: 'passed' });
    expect(get.sent).toHaveLength(2);
    const keyed = down();
    expect(await client(keyed.fetch).location({ latitude: 1, longitude: 2 }, { idempotencyKey: 'k1' })).toEqual({
      status: 'passed',
    });
    expect(keyed.sent).toHaveLength(2);
    const bare = down();
    const error = await client(bare.fetch)
      .location({ latitude: 1, longitude: 2 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VerityConnectionError);
    expect(error).toMatchObject({ timedOut: false, cause: new TypeError('fetch failed') });
    expect(bare.sent).toHaveLength(1);
  });

  it('give up an attempt after timeoutMs, and stop at once when the caller aborts, also between retries', async () => {
    const hanging = scripted(() => new Promise<Response>(() => {}));
    const timedOut = await client(hanging.fetch, { maxRetries: 0 })
      .getSession('s', { timeoutMs: 50 })
      .catch((e: unknown) => e);
    expect(timedOut).toMatchObject({ name: 'VerityConnectionError', timedOut: true });
    const controller = new AbortController();
    const limited = scripted(() => failure(429, 'rate_limited', 'slow down', { 'retry-after': '30' }));
    const waiting = client(limited.fetch).getSession('s', { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('user left')), 50);
    const started = Date.now();
    await expect(waiting).rejects.toThrow('user left');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(limited.sent).toHaveLength(1);
  });

  it('read Retry-After as seconds or a date, and back off exponentially with jitter otherwise', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs('Wed, 21 Oct 2015 07:28:10 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(10_000);
    expect(retryAfterMs('soon')).toBeNull();
    expect(retryAfterMs(null)).toBeNull();
    expect([backoffMs(0, 0), backoffMs(0, 1), backoffMs(1, 0), backoffMs(3, 1), backoffMs(10, 1)]).toEqual([
      250, 500, 500, 4000, 8000,
    ]);
  });
});

describe('pagination', () => {
  it('follows X-Next-Cursor page after page, keeping the query', async () => {
    const pages: Record<string, { items: { session_id: string }[]; next?: string }> = {
      '': { items: [{ session_id: 'a' }, { session_id: 'b' }], next: 'c1' },
      c1: { items: [{ session_id: 'c' }], next: 'c2' },
      c2: { items: [{ session_id: 'd' }] },
    };
    const { fetch, sent } = scripted((request) => {
      const page = pages[new URL(request.url).searchParams.get('cursor') ?? '']!;
      return ok(page.items, page.next ? { 'x-next-cursor': page.next } : {});
    });
    const verity = client(fetch);
    const ids: string[] = [];
    for await (const session of verity.iterateSessions({ status: 'APPROVED', limit: 2 })) ids.push(session.session_id);
    expect(ids).toEqual(['a', 'b', 'c', 'd']);
    expect(sent.map((s) => new URL(s.url).search)).toEqual([
      '?status=APPROVED&limit=2',
      '?status=APPROVED&limit=2&cursor=c1',
      '?status=APPROVED&limit=2&cursor=c2',
    ]);
    expect(await verity.listSessions({ cursor: 'c2' })).toEqual({ items: [{ session_id: 'd' }], nextCursor: null });
  });

  it("reads a roster page's members out of its data", async () => {
    const { fetch } = scripted((request) =>
      new URL(request.url).searchParams.get('cursor')
        ? ok({ members: [{ member_id: 'mem_2' }] })
        : ok({ members: [{ member_id: 'mem_1' }] }, { 'x-next-cursor': 'n' }),
    );
    const members = [];
    for await (const member of client(fetch, { clientId: 'c', clientSecret: 's' }).paginate('getSdkMembers'))
      members.push(member.member_id);
    expect(members).toEqual(['mem_1', 'mem_2']);
  });
});
