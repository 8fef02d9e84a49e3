import express from 'express';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caseSensitiveRouter } from '../src/http/router.js';
import { startTestService, type TestService } from './helpers/service.js';

// Paths match with their case, on every router: `/API/v2/...` is no path of ours. Before, it
// reached the route past the middlewares that compare paths (no `Cache-Control: no-store` on a
// check's answer) and each spelling added a metrics `route` series (issue #46, item 10).

let service: TestService;
let http: ReturnType<typeof supertest>;

beforeAll(async () => {
  service = await startTestService();
  http = supertest(service.app);
}, 120_000);
afterAll(async () => {
  await service?.close();
});

/** The `route` label values of the HTTP request counter. */
async function routeSeries(): Promise<Set<string>> {
  const text = (await http.get('/metrics')).text;
  return new Set([...text.matchAll(/^verity_http_requests_total\{[^}]*route="([^"]*)"/gm)].map((match) => match[1]!));
}

/** Every letter of the path in the other case: `/api/v2/session` -> `/API/V2/SESSION`. */
const otherCase = (path: string) =>
  [...path].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');

describe('caseSensitiveRouter', () => {
  it('matches its routes and mounts only as spelled', async () => {
    const inner = caseSensitiveRouter();
    inner.get('/session/:id', (_req, res) => void res.send('route'));
    const outer = caseSensitiveRouter();
    outer.use('/api/v2', inner);
    const app = express().use(outer);
    expect((await supertest(app).get('/api/v2/session/Ses_A')).text).toBe('route');
    for (const path of ['/API/v2/session/x', '/api/v2/Session/x'])
      expect((await supertest(app).get(path)).status, path).toBe(404);
  });
});

describe('a path spelled in another case', () => {
  it('/API/v2/... is a 404 with no-store, as /api/v2/... always has no-store', async () => {
    const canonical = await http
      .post('/api/v2/age-verification')
      .set('X-API-Key', service.demo.api_key)
      .send({ dob: '1990-01-01' });
    expect(canonical.status).toBe(200);
    expect(canonical.headers['cache-control']).toBe('no-store');
    for (const path of ['/API/v2/age-verification', '/api/V2/age-verification', '/api/v2/Age-Verification']) {
      const variant = await http.post(path).set('X-API-Key', service.demo.api_key).send({ dob: '1990-01-01' });
      expect(variant.status, path).toBe(404);
      expect(variant.body.error.code, path).toBe('not_found');
      expect(variant.headers['cache-control'], path).toBe('no-store');
    }
  });

  it('every documented path, page and mount answers 404 in another case, and adds no metrics route series', async () => {
    const document = (await http.get('/api/v2/openapi.json')).body as {
      paths: Record<string, Record<string, unknown>>;
    };
    await routeSeries(); // its own series (/metrics) is counted once it has answered
    const before = await routeSeries();
    const asked: [string, string][] = Object.entries(document.paths).flatMap(([template, operations]) =>
      Object.keys(operations).map((method): [string, string] => [
        method,
        template.replace(/\{[^}]+\}/g, 'ses_0a1b2c3d4e5f6a7b8c9d0e1f'),
      ]),
    );
    for (const path of [
      '/verify/ses_0a1b2c3d4e5f6a7b8c9d0e1f',
      '/admin',
      '/graphql',
      '/trpc/projects.list',
      '/assets/x.js',
      '/metrics',
      '/api/hosted/session',
    ])
      asked.push(['get', path]);
    expect(asked.length).toBeGreaterThan(50);
    for (const [method, path] of asked) {
      for (const variant of [otherCase(path), path.replace(/^\/[^/]+/, (first) => first.toUpperCase())]) {
        if (variant === path) continue;
        const answer = await (http as unknown as Record<string, (url: string) => supertest.Test>)[method]!(variant)
          .set('X-API-Key', service.demo.api_key)
          .set('X-Session-Token', 'sst_x');
        expect(answer.status, `${method.toUpperCase()} ${variant}`).toBe(404);
        if (/^\/api\//i.test(variant)) expect(answer.headers['cache-control'], variant).toBe('no-store');
      }
    }
    const added = [...(await routeSeries())].filter((route) => !before.has(route));
    expect(added.filter((route) => route !== 'unmatched')).toEqual([]);
  });
});
