import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationProblems } from '../scripts/redocly-reference.js';
import { ANNOUNCED_STATUSES } from '../src/rest/routes/webhooks.js';
import { GUIDES, GUIDES_DIR, readGuides } from '../src/rest/reference-guides.js';
import { addFormats, inlineRefs } from './helpers/contract.js';
import { startTestService, type TestService } from './helpers/service.js';

// The reference as an integrator reads it (issue #49 item 2): the served document explains every
// operation (a description and an example: the same rule `npm run openapi:lint` applies through
// scripts/redocly-reference.js), declares the webhooks with their bodies as sent, the headers
// where they apply, the sections in an integrator's order, and the guides of docs/guides.

// biome-ignore lint/suspicious/noExplicitAny: the served document is read as plain JSON
type Json = Record<string, any>;
let service: TestService;
let document: Json;
let testKey: string;

/** Every operation of the document, paths and webhooks, with where it is. */
function operations(doc: Json): { where: string; operation: Json }[] {
  const found: { where: string; operation: Json }[] = [];
  for (const [section, entries] of [
    ['paths', doc.paths],
    ['webhooks', doc.webhooks ?? {}],
  ] as const) {
    for (const [path, item] of Object.entries(entries as Json))
      for (const [method, operation] of Object.entries(item as Json))
        found.push({ where: `${section} ${method.toUpperCase()} ${path}`, operation: operation as Json });
  }
  return found;
}

beforeAll(async () => {
  service = await startTestService({ runJobs: true, allowInsecureCallbacks: true });
  document = (await service.http.get('/api/v2/openapi.json').expect(200)).body;
  testKey = (await service.core.tenancy.createApiKey({ projectId: service.demo.project_id, mode: 'test' })).key;
}, 120_000);
afterAll(async () => {
  await service?.close();
});

describe('every operation explains itself', () => {
  it('has a description and an example, webhooks included (the lint rule, on the served document)', () => {
    const all = operations(document);
    expect(all.length).toBeGreaterThan(60);
    expect(
      all.flatMap(({ where, operation }) => operationProblems(operation).map((problem) => `${where} ${problem}`)),
    ).toEqual([]);
  });

  it('the rule names an operation without a description, and one without any example', () => {
    expect(
      operationProblems({
        operationId: 'x',
        responses: { '200': { description: 'ok', content: { 'application/json': { example: {} } } } },
      }),
    ).toEqual(['has no description (at least 40 characters saying what it is for and how to use it)']);
    expect(
      operationProblems({
        description: 'A description long enough to say what this is for.',
        requestBody: { content: { 'application/json': { schema: {} } } },
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: {} } } } },
      }),
    ).toEqual(['its application/json request body has no example', 'shows no example of a request or an answer']);
  });

  it('every error status shows an example of each code it lists, as the route sends it', () => {
    for (const { where, operation } of operations(document)) {
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        const json = response.content?.['application/json'];
        if (Number(status) < 400 || !json) continue; // a browser route's error is an HTML page
        expect(Object.keys(json.examples), `${where} ${status}`).toEqual((response.description as string).split(', '));
      }
    }
  });
});

describe('credentials and statuses', () => {
  it('declares 401 on every route behind a credential: the credential states providers and the face unlink too', () => {
    for (const { where, operation } of operations(document)) {
      if (!operation.security?.length) continue;
      expect(operation.responses['401'], where).toBeDefined();
    }
    expect(document.paths['/api/v2/credential/states/{state}/providers'].get.responses['401'].description).toContain(
      'invalid_api_key',
    );
    expect(document.paths['/api/v2/face-uniqueness/{face_id}'].delete.responses['401'].description).toContain(
      'invalid_api_key',
    );
  });

  it('answers those 401s as declared (service.http checks every answer against the document)', async () => {
    const providers = await service.http.get('/api/v2/credential/states/CA/providers').expect(401);
    expect(providers.body.error.code).toBe('invalid_api_key');
    const unlink = await service.http
      .delete('/api/v2/face-uniqueness/fce_unknown')
      .set('X-API-Key', 'vk_live_wrong')
      .expect(401);
    expect(unlink.body.error.code).toBe('invalid_api_key');
  });
});

describe('headers', () => {
  const billable = () =>
    Object.entries(document.paths as Json)
      .filter(
        ([path, item]) =>
          item.post &&
          /^\/api\/v2\/(session|id-verification|liveness|face-match|age-verification|location|credential-verification|kyc-credential|antispoof|antispoof\/identity|face-uniqueness)$/.test(
            path,
          ),
      )
      .map(([path, item]) => ({ path, operation: item.post as Json }));

  it('Idempotency-Key and Verity-Test-Outcome on every billable POST, and Idempotent-Replayed on its success', () => {
    expect(billable().length).toBe(11);
    for (const { path, operation } of billable()) {
      const names = (operation.parameters as Json[])
        .filter((parameter) => parameter.in === 'header')
        .map((parameter) => parameter.name);
      expect(names, path).toEqual(['Idempotency-Key', 'Verity-Test-Outcome']);
      const success = Object.entries(operation.responses as Json).find(([status]) => status.startsWith('2'))![1];
      expect(Object.keys(success.headers), path).toContain('Idempotent-Replayed');
    }
  });

  it('X-Request-Id on every answer, Retry-After on every 429 and 503', () => {
    for (const { where, operation } of operations(document)) {
      if (where.startsWith('webhooks')) continue;
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        if (operation.deprecated && status === '200') continue; // a removed route's placeholder, never sent
        expect(response.headers?.['X-Request-Id'], `${where} ${status}`).toEqual({
          $ref: '#/components/headers/XRequestId',
        });
        if (status === '429' || status === '503')
          expect(response.headers['Retry-After'], `${where} ${status}`).toEqual({
            $ref: '#/components/headers/RetryAfter',
          });
      }
    }
  });

  it('a 503 says Retry-After, as declared (a test key forcing engine_unreachable)', async () => {
    const res = await service.http
      .post('/api/v2/liveness')
      .set('X-API-Key', testKey)
      .set('Verity-Test-Outcome', 'engine_unreachable')
      .send({})
      .expect(503);
    expect(res.headers['retry-after']).toBe('2');
    expect(res.headers['x-request-id']).toMatch(/.+/);
  });
});

describe('webhooks', () => {
  it('one per event a session move announces, each with its body and the signature headers', () => {
    expect(Object.keys(document.webhooks)).toEqual([
      'verification.approved',
      'verification.declined',
      'verification.in_review',
      'verification.expired',
      'verification.abandoned',
    ]);
    expect(ANNOUNCED_STATUSES.map((status) => `verification.${status.toLowerCase()}`).sort()).toEqual(
      Object.keys(document.webhooks).sort(),
    );
    for (const [type, item] of Object.entries(document.webhooks as Json)) {
      const headers = (item.post.parameters as Json[]).map(
        (parameter) => `${parameter.name}${parameter.required ? '' : '?'}`,
      );
      expect(headers, type).toEqual([
        'X-Svc-Timestamp',
        'X-Svc-Signature',
        'X-Svc-Event-Id',
        'X-Svc-Signature-Previous?',
      ]);
      const body = item.post.requestBody.content['application/json'];
      expect(body.schema.properties.type.const, type).toBe(type);
      expect(body.schema.required, type).toEqual([
        'event_id',
        'type',
        'session_id',
        'status',
        'vendor_data',
        'decision',
        'occurred_at',
        'livemode',
      ]);
    }
  });

  it('a real delivery is what the document declares: its body fits the schema exactly and the headers are there', async () => {
    const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
    const receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const callback = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      await service.core.tenancy.approveCallback({ projectId: service.demo.project_id, url: callback });
      const created = await service.http
        .post('/api/v2/session')
        .set('X-API-Key', service.demo.api_key)
        .send({ workflow_id: service.demo.workflows.location, callback })
        .expect(201);
      await service.http
        .post('/api/hosted/session/steps/location')
        .set('X-Session-Token', created.body.data.session_token)
        .send({ latitude: 37.7793, longitude: -122.4193, accuracy: 12 })
        .expect(200);
      for (let waited = 0; received.length === 0 && waited < 20_000; waited += 50)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(received).toHaveLength(1);
      const [delivery] = received;
      const event = JSON.parse(delivery!.body);
      expect(event.type).toBe('verification.approved');
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      addFormats(ajv);
      const validate = ajv.compile(
        inlineRefs(
          document.webhooks['verification.approved'].post.requestBody.content['application/json'].schema,
          document.components.schemas,
        ) as Json,
      );
      expect(validate(event) ? [] : validate.errors).toEqual([]);
      for (const header of ['x-svc-timestamp', 'x-svc-signature', 'x-svc-event-id'])
        expect(delivery!.headers[header], header).toMatch(/.+/);
      expect(delivery!.headers['x-svc-event-id']).toBe(event.event_id);
    } finally {
      await new Promise((resolve) => {
        receiver.close(resolve);
        receiver.closeAllConnections();
      });
    }
  }, 60_000);
});

describe('sections and guides', () => {
  it("orders the sections on an integrator's path: sessions, checks, webhooks, login, roster, admin; system and legacy last", () => {
    const names = (document.tags as Json[]).map((tag) => tag.name as string);
    const at = (name: string) => names.indexOf(name);
    const path = ['sessions', 'checks', 'webhooks', 'login', 'roster', 'admin'];
    expect(path.map(at).every((index, i, all) => index >= 0 && (i === 0 || index > all[i - 1]!))).toBe(true);
    expect(names.slice(-2)).toEqual(['system', 'legacy']);
    // Redoc shows only grouped tags: every tag is in exactly one group, in the same order.
    expect((document['x-tagGroups'] as Json[]).flatMap((group) => group.tags)).toEqual(names);
    // Every operation's tag is a declared section.
    for (const { where, operation } of operations(document)) expect(names, where).toContain(operation.tags[0]);
  });

  it('shows every guide of docs/guides first, its markdown as the section (nothing there is left out)', () => {
    expect(
      readdirSync(GUIDES_DIR)
        .filter((file) => file.endsWith('.md'))
        .map((file) => file.slice(0, -3))
        .sort(),
    ).toEqual([...GUIDES].sort());
    const guides = readGuides();
    const shown = (document.tags as Json[]).slice(0, guides.length);
    expect(shown.map((tag) => [tag.name, tag['x-displayName'], tag['x-traitTag']])).toEqual(
      guides.map((guide) => [guide.name, guide.title, true]),
    );
    expect(shown.map((tag) => tag.description)).toEqual(guides.map((guide) => guide.body));
    expect(guides.map((guide) => guide.title)).toEqual([
      'Quickstart',
      'Hosted flow',
      'Receiving webhooks',
      'Sandbox',
      'Verifiable credentials',
      'AI agents (MCP)',
      'Errors',
    ]);
  });
});
