import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkedFetch, servedDocument } from './helpers/contract.js';
import { freshDatabase } from './helpers/processes.js';
import { VerityProcess, verityEnv } from './helpers/verity-process.js';

// What ops see of one real `verity serve` after a flow (sessions, an error answer, a webhook
// delivered by the job queue, a check running the face models):
// - traces: with OTEL_EXPORTER_OTLP_ENDPOINT set it sends its spans (OTLP/HTTP, JSON) to a
//   receiver in this test: HTTP requests named by route template, database queries nested under
//   them, model inference and webhook delivery. No attribute carries a secret or identity data.
// - metrics: /metrics then holds a sample of every family the dashboard and alerts use.
// A real process on PostgreSQL: runs when TEST_DATABASE_URL is set, as in CI.

const server = process.env.TEST_DATABASE_URL;
if (!server) console.info('skipping the traced and measured flow: they need TEST_DATABASE_URL (a PostgreSQL server)');

interface ExportedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  kind: number;
  status?: { code?: number };
  attributes: Record<string, string | number | boolean>;
}

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
const plain = (value: OtlpValue) =>
  value.stringValue ??
  (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
  value.boolValue ??
  value.doubleValue ??
  JSON.stringify(value);
const attributesOf = (list: { key: string; value: OtlpValue }[] = []) =>
  Object.fromEntries(list.map(({ key, value }) => [key, plain(value)]));

const METRICS_TOKEN = 'scrape-token-observability';
const spans: ExportedSpan[] = [];
const resources: Record<string, unknown>[] = [];
const exportRequests: { path: string; contentType: string }[] = [];
let collector: http.Server;
let receiver: http.Server;
let hookUrl: string;
const hooks: string[] = [];
let database: { url: string; drop: () => Promise<void> };
let verity: VerityProcess;
let demo: Awaited<ReturnType<VerityProcess['demo']>>;
/** fetch whose JSON answers are checked against the OpenAPI document (helpers/contract.ts). */
let checked: typeof fetch;

const listen = async (handler: http.RequestListener) => {
  const s = http.createServer(handler);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return { server: s, base: `http://127.0.0.1:${(s.address() as AddressInfo).port}` };
};
const readBody = (req: http.IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => resolve(body));
  });

async function until<T>(find: () => T | undefined, what: string, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = find();
    if (found) return found;
    if (Date.now() > deadline)
      throw new Error(`no ${what} after ${ms} ms; spans: ${spans.map((s) => s.name).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
const named = (name: string | RegExp) => () =>
  spans.find((span) => (typeof name === 'string' ? span.name === name : name.test(span.name)));
const json = (response: Response): Promise<any> => response.json();
const api = (route: string, init: RequestInit = {}) =>
  checked(`${verity.url}${route}`, {
    ...init,
    headers: { 'X-API-Key': demo.api_key, 'content-type': 'application/json', ...(init.headers ?? {}) },
  });

describe.skipIf(!server)('a served flow, traced (OTEL_EXPORTER_OTLP_ENDPOINT set) and measured', () => {
  beforeAll(async () => {
    const otlp = await listen(async (req, res) => {
      const body = await readBody(req);
      exportRequests.push({ path: req.url ?? '', contentType: String(req.headers['content-type']) });
      const decoded = JSON.parse(body) as {
        resourceSpans: {
          resource?: { attributes?: { key: string; value: OtlpValue }[] };
          scopeSpans: {
            spans: (Omit<ExportedSpan, 'attributes'> & { attributes?: { key: string; value: OtlpValue }[] })[];
          }[];
        }[];
      };
      for (const resourceSpans of decoded.resourceSpans) {
        resources.push(attributesOf(resourceSpans.resource?.attributes));
        for (const scope of resourceSpans.scopeSpans)
          for (const span of scope.spans) spans.push({ ...span, attributes: attributesOf(span.attributes) });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    collector = otlp.server;
    const hooksServer = await listen(async (req, res) => {
      hooks.push(await readBody(req));
      res.writeHead(200).end();
    });
    receiver = hooksServer.server;
    // A path and query that must never reach a span: integrators put tokens there.
    hookUrl = `${hooksServer.base}/hooks/receiver-path-secret?token=hook-query-secret`;

    database = await freshDatabase(server!, 'verity_trace');
    verity = await VerityProcess.start(
      verityEnv(database.url, {
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.base,
        OTEL_BSP_SCHEDULE_DELAY: '100',
        VERITY_METRICS_TOKEN: METRICS_TOKEN,
      }),
    );
    demo = await verity.demo();
    checked = checkedFetch(await servedDocument(verity.url));
    await verity.admin('callback', 'approve', hookUrl);
  }, 180_000);

  afterAll(async () => {
    await verity?.destroy();
    collector?.close();
    receiver?.close();
    await database?.drop();
  });

  it('names each request span by method and route template, with its queries nested under it', async () => {
    const created = await api('/api/v2/session', {
      method: 'POST',
      body: JSON.stringify({
        workflow_id: demo.workflows.location,
        callback: hookUrl,
        vendor_data: 'alice.liddell@example.com',
      }),
    });
    expect(created.status).toBe(201);
    const request = await until(named('POST /api/v2/session'), 'session creation span');
    expect(request.kind).toBe(2); // SERVER
    expect(request.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/api/v2/session',
      'http.response.status_code': 201,
    });
    // The session, its first timeline entry and its charge's statements: the session's is one
    // named statement (a WITH that inserts the session and appends its timeline).
    const insert = await until(
      () => spans.find((span) => span.name === 'WITH verification_session' && span.traceId === request.traceId),
      'session insert span',
    );
    expect(insert.kind).toBe(3); // CLIENT
    expect(insert.attributes).toMatchObject({
      'db.system.name': 'postgresql',
      'db.operation.name': 'WITH',
      'db.collection.name': 'verification_session',
    });
    // Nested: the insert's parent chain reaches the request span.
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    let ancestor: ExportedSpan | undefined = insert;
    while (ancestor && ancestor.spanId !== request.spanId)
      ancestor = ancestor.parentSpanId ? byId.get(ancestor.parentSpanId) : undefined;
    expect(ancestor).toBe(request);
    expect(resources[0]).toMatchObject({ 'service.name': 'verity' });
    expect(exportRequests[0]).toEqual({ path: '/v1/traces', contentType: 'application/json' });
  });

  it("labels an error answer with its route template and continues a caller's trace", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const missing = await api('/api/v2/session/ses_doesnotexist', {
      headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    });
    expect(missing.status).toBe(404);
    const span = await until(named('GET /api/v2/session/:id'), 'error answer span');
    expect(span.attributes['http.response.status_code']).toBe(404);
    expect(span.traceId).toBe(traceId);
    expect(span.parentSpanId).toBe('00f067aa0ba902b7');
  });

  it('traces a webhook delivery with its destination host, attempt and outcome', async () => {
    const created = await json(
      await api('/api/v2/session', {
        method: 'POST',
        body: JSON.stringify({ workflow_id: demo.workflows.location, callback: hookUrl }),
      }),
    );
    const step = await checked(`${verity.url}/api/hosted/session/steps/location`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Session-Token': created.data.session_token },
      body: JSON.stringify({ latitude: 48.8584, longitude: 2.2945, accuracy: 5 }),
    });
    expect((await json(step)).data.status).toBe('APPROVED');
    const stepSpan = await until(named('POST /api/hosted/session/steps/:step'), 'hosted step span');
    expect(stepSpan.attributes['http.route']).toBe('/api/hosted/session/steps/:step');
    const delivered = await until(
      () =>
        spans.find(
          (span) => span.name === 'webhook deliver' && span.attributes['verity.webhook.outcome'] === 'delivered',
        ),
      'delivery span',
    );
    expect(hooks.length).toBeGreaterThan(0);
    expect(delivered.kind).toBe(3); // CLIENT
    expect(delivered.attributes).toMatchObject({
      'server.address': '127.0.0.1',
      'server.port': Number(new URL(hookUrl).port),
      'verity.webhook.attempt': 1,
      'http.response.status_code': 200,
    });
    expect(String(delivered.attributes['verity.webhook.event_id'])).toMatch(/^evt_/);
    // The delivery's own statement (its attempt row and the event's new state) nests under it; the
    // dispatcher claims due events in batches, before any one delivery starts.
    expect(spans.some((span) => span.parentSpanId === delivered.spanId && span.name === 'WITH webhook_attempt')).toBe(
      true,
    );
  });

  it('traces model inference under the check that ran it', async () => {
    // Noise, not a face: the face models still run on it.
    const noise = () =>
      sharp(Buffer.from(Array.from({ length: 320 * 320 * 3 }, (_, i) => (i * 7919) % 251)), {
        raw: { width: 320, height: 320, channels: 3 },
      })
        .png()
        .toBuffer();
    const form = new FormData();
    form.append('image1', new Blob([await noise()], { type: 'image/png' }), 'a.png');
    form.append('image2', new Blob([await noise()], { type: 'image/png' }), 'b.png');
    const answer = await checked(`${verity.url}/api/v2/face-match`, {
      method: 'POST',
      headers: { 'X-API-Key': demo.api_key },
      body: form,
    });
    expect(answer.status).toBeLessThan(500);
    const check = await until(named('POST /api/v2/face-match'), 'face-match span', 90_000);
    const inference = await until(
      () => spans.find((span) => /^inference face_/.test(span.name) && span.traceId === check.traceId),
      'inference span',
    );
    expect(inference.attributes['verity.model']).toBe(inference.name.replace('inference ', ''));
  }, 120_000);

  it('records no secret, token, SQL text, path, query or identity data in any span', async () => {
    const creations = () => spans.filter((span) => span.name === 'POST /api/v2/session').length;
    const before = creations();
    const session = (
      await json(
        await api('/api/v2/session', {
          method: 'POST',
          body: JSON.stringify({ workflow_id: demo.workflows.location }),
        }),
      )
    ).data;
    await until(() => (creations() > before ? true : undefined), "span of this session's creation");
    const everything = JSON.stringify([spans.map((span) => [span.name, span.attributes, span.status]), resources]);
    for (const secret of [
      demo.api_key,
      demo.webhook_signing_secret,
      demo.admin_token,
      session.session_token,
      'alice.liddell@example.com',
      'receiver-path-secret',
      'hook-query-secret',
      '48.8584',
      'ses_doesnotexist',
    ]) {
      expect(everything, secret).not.toContain(secret);
    }
    const keys = new Set(spans.flatMap((span) => Object.keys(span.attributes)));
    for (const key of ['db.statement', 'db.query.text', 'url.full', 'url.path', 'url.query', 'http.url', 'http.target'])
      expect(keys.has(key), key).toBe(false);
  });

  it('after the flow, /metrics holds a sample of every family', async () => {
    const exported = await (
      await fetch(`${verity.url}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text();
    const sample = (family: string, labels = '') =>
      new RegExp(`^${family}${labels ? `\\{[^}]*${labels}[^}]*\\}` : '(\\{[^}]*\\})?'} [0-9.e+-]+$`, 'm');
    const expected: [string, string?][] = [
      ['verity_http_requests_total', 'route="/api/v2/session/:id",status="404"'],
      ['verity_http_request_duration_seconds_count', 'route="/api/v2/face-match"'],
      ['verity_check_verdicts_total', 'type="face_match"'],
      ['verity_model_inference_seconds_count', 'model="face_describe"'],
      ['verity_webhook_attempts_total', 'outcome="delivered"'],
      ['verity_webhook_delivery_seconds_count'],
      ['verity_job_queue_depth', 'queue="webhook.deliver"'],
      ['verity_job_queue_oldest_seconds', 'queue="webhook.deliver"'],
      ['verity_sessions', 'status="APPROVED"'],
      ['verity_wallet_balance_minor'],
      ['verity_db_pool_connections', 'state="in_use"'],
      ['verity_ready'],
    ];
    const missing = expected
      .filter(([family, labels]) => !sample(family, labels).test(exported))
      .map(([family, labels]) => `${family}{${labels ?? ''}}`);
    expect(missing).toEqual([]);
    // Counted, not just declared.
    expect(exported).toMatch(/^verity_webhook_attempts_total\{outcome="delivered"\} [1-9]/m);
    expect(exported).toMatch(/^verity_model_inference_seconds_count\{model="face_describe"\} [1-9]/m);
    // A healthy receiver: no destination is unhealthy. No project id is a label value (VERITY_METRICS_PROJECT_LABELS is
    // off).
    expect(exported).toMatch(/^verity_webhook_destination_unhealthy 0$/m);
    expect(exported).not.toContain(demo.project_id);
  });
});
