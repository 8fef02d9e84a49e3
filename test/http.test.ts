import express from 'express';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { requireAccessToken } from '../src/rest/auth.js';
import { errorHandler } from '../src/rest/errors.js';
import { createHttpApp } from '../src/rest/app.js';
import { startTestService, type TestService } from './helpers/service.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service?.close();
});

describe('envelope and request ids', () => {
  it('echoes a sane X-Request-Id and makes one up otherwise', async () => {
    const given = await service.http.get('/healthz').set('X-Request-Id', 'abc-123');
    expect(given.headers['x-request-id']).toBe('abc-123');
    const fresh = await service.http.get('/healthz');
    expect(fresh.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const hostile = await service.http.get('/healthz').set('X-Request-Id', 'a b"}{x'.repeat(3));
    expect(hostile.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers unknown routes 404 not_found in the envelope', async () => {
    const res = await service.http.get('/no/such/thing');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, data: null, error: { code: 'not_found', message: expect.any(String) } });
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('answers a wrong method on a known path 405 method_not_allowed with Allow, in the envelope; unknown paths stay 404', async () => {
    const key = { 'X-API-Key': service.demo.api_key };
    const org = { 'X-Client-Id': service.demo.org.client_id, 'X-Client-Secret': service.demo.org.client_secret };
    const cases: [string, string, Record<string, string>, string][] = [
      ['DELETE', '/api/v2/session', key, 'GET, HEAD, POST'],
      ['POST', '/api/v2/session/ses_x/decision', key, 'GET, HEAD'],
      ['PUT', '/api/v2/session/ses_x/status', key, 'PATCH'],
      ['GET', '/api/v2/id-verification', key, 'POST'],
      ['PUT', '/api/sdk/billing', org, 'GET, HEAD'],
      ['GET', '/api/sdk/members/mem_x/deactivate', org, 'PATCH'],
      ['DELETE', '/api/auth/oidc/jwks.json', {}, 'GET, HEAD'],
      ['PATCH', '/api/auth/oidc/token', {}, 'POST'],
      ['POST', '/healthz', {}, 'GET, HEAD'],
    ];
    for (const [method, path, headers, allow] of cases) {
      const res = await service.http[method.toLowerCase() as 'get'](path).set(headers);
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.allow, `${method} ${path}`).toBe(allow);
      expect(res.body).toEqual({
        success: false,
        data: null,
        error: { code: 'method_not_allowed', message: expect.stringContaining(allow) },
      });
      expect(res.headers['x-request-id']).toBeTruthy();
    }
    for (const [method, path, headers] of [
      ['POST', '/api/v2/no-such-check', key],
      ['DELETE', '/api/sdk/nothing', org],
      ['PUT', '/no/such/thing', {}],
    ] as const) {
      const res = await service.http[method.toLowerCase() as 'get'](path).set(headers);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.headers.allow).toBeUndefined();
    }
  });

  it('answers malformed JSON with 400 validation_error', async () => {
    const res = await service.http
      .post('/api/v2/session')
      .set('X-API-Key', service.demo.api_key)
      .set('Content-Type', 'application/json')
      .send('{"workflow_id": ');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.success).toBe(false);
  });

  it('answers a string with a lone UTF-16 surrogate 400 validation_error on every JSON reader, never a 500', async () => {
    const lone = '"x\\udc00y"';
    const key = { 'X-API-Key': service.demo.api_key, 'Content-Type': 'application/json' };
    for (const [path, body] of [
      ['/api/v2/session', `{"workflow_id":"wf_x","vendor_data":${lone}}`],
      ['/api/v2/age-verification', `{"vendor_data":${lone},"date_of_birth":"1990-01-01"}`],
      ['/api/v2/session', `{${lone}:1}`],
    ]) {
      const res = await service.http.post(path).set(key).send(body);
      expect(res.status, path).toBe(400);
      expect(res.body.error.code, path).toBe('validation_error');
    }
    const graph = await service.http
      .post('/graphql')
      .set('Content-Type', 'application/json')
      .send(`{"query":"{ __typename }","variables":{"a":${lone}}}`);
    expect(graph.status).toBe(400);
  });

  it('answers a body over the limit with 413 in the envelope', async () => {
    const big = JSON.stringify({ padding: 'x'.repeat(2 * 1024 * 1024) });
    const res = await service.http
      .post('/api/v2/anything')
      .set('X-API-Key', service.demo.api_key)
      .set('Content-Type', 'application/json')
      .send(big);
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
  });

  it('never leaks a stack trace or an internal message', async () => {
    const { app } = createHttpApp({
      core: service.core,
      logger: pino({ level: 'silent' }),
      baseUrl: 'http://verity.test',
      mounts: [
        {
          path: '/boom',
          handlers: [
            () => {
              throw new Error('db password is hunter2');
            },
          ],
        },
      ],
    });
    const res = await supertest(app).get('/boom');
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('internal_error');
    expect(JSON.stringify(res.body)).not.toMatch(/hunter2|at .*\.ts/);
  });
});

describe('authentication', () => {
  it('rejects verification calls without a key, with a wrong key, and accepts X-API-Key or Bearer', async () => {
    const missing = await service.http.get('/api/v2/session');
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe('invalid_api_key');
    const wrong = await service.http.get('/api/v2/session').set('X-API-Key', 'vk_live_wrong');
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('invalid_api_key');
    // With a good key the request gets past authentication (here to the 404 of an unknown route).
    const header = await service.http.get('/api/v2/unknown-route').set('X-API-Key', service.demo.api_key);
    expect(header.status).toBe(404);
    const asBearer = await service.http
      .get('/api/v2/unknown-route')
      .set('Authorization', `Bearer ${service.demo.api_key}`);
    expect(asBearer.status).toBe(404);
  });

  it('stops a revoked key at once', async () => {
    const { apiKey, key } = await service.core.tenancy.createApiKey({
      projectId: service.demo.project_id,
      name: 'temp',
    });
    expect((await service.http.get('/api/v2/x').set('X-API-Key', key)).status).toBe(404);
    await service.core.tenancy.revokeApiKey({ projectId: service.demo.project_id, apiKeyId: apiKey.id });
    const res = await service.http.get('/api/v2/x').set('X-API-Key', key);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_api_key');
  });

  it('guards the roster API with client credentials (401 invalid_client)', async () => {
    const none = await service.http.get('/api/sdk/members');
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('invalid_client');
    const wrongSecret = await service.http
      .get('/api/sdk/members')
      .set('X-Client-Id', service.demo.org.client_id)
      .set('X-Client-Secret', 'ocs_wrong');
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.body.error.code).toBe('invalid_client');
    const good = await service.http
      .get('/api/sdk/unknown')
      .set('X-Client-Id', service.demo.org.client_id)
      .set('X-Client-Secret', service.demo.org.client_secret);
    expect(good.status).toBe(404);
  });

  it('checks bearer access tokens: unknown, expired and valid (401 invalid_token)', async () => {
    const app = express();
    app.get('/me', requireAccessToken(service.core), (_req, res) => {
      res.json(res.locals.token);
    });
    app.use(errorHandler(pino({ level: 'silent' })));
    const http = supertest(app);
    const none = await http.get('/me');
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('invalid_token');
    const { token } = await service.core.accessTokens.issue(service.demo.account.svc_id, service.demo.oidc.client_id, [
      'openid',
      'profile',
    ]);
    const ok = await http.get('/me').set('Authorization', `Bearer ${token}`);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({
      svcId: service.demo.account.svc_id,
      clientId: service.demo.oidc.client_id,
      scopes: ['openid', 'profile'],
    });
    const { token: stale } = await service.core.accessTokens.issue(
      service.demo.account.svc_id,
      service.demo.oidc.client_id,
      ['openid'],
      -1,
    );
    const expired = await http.get('/me').set('Authorization', `Bearer ${stale}`);
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe('invalid_token');
  });
});

describe('legacy single sign-on', () => {
  it.each([
    ['post', '/api/auth/tpsso/token'],
    ['get', '/api/auth/tpsso/userinfo'],
    ['get', '/api/auth/tpsso/licenses'],
    ['post', '/api/auth/tpsso/refresh'],
    ['delete', '/api/auth/tpsso/anything/deeper'],
    ['get', '/api/auth/tpsso'],
  ] as const)('%s %s answers 410 endpoint_removed naming the OIDC endpoints', async (method, path) => {
    const res = await service.http[method](path);
    expect(res.status).toBe(410);
    expect(res.body.error.code).toBe('endpoint_removed');
    expect(res.body.error.message).toContain('/api/auth/oidc/');
  });
});

describe('health, readiness, metrics, OpenAPI', () => {
  it('greets a person at / with links, not an error', async () => {
    const res = await service.http.get('/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.text).toContain('/api/v2/openapi.json');
  });

  it('reports health and readiness', async () => {
    expect((await service.http.get('/healthz')).body).toEqual({ status: 'ok' });
    const ready = await service.http.get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ready', database: true, migrations: true });
  });

  it('counts requests by route template and status', async () => {
    await service.http.get('/healthz');
    await service.http.get('/api/v2/unknown').set('X-API-Key', service.demo.api_key);
    await service.http.post('/graphql').send({ query: '{ projects { id } }' });
    // error answers carry the full template of the route they came from, not the router's tail
    await service.http.get('/api/v2/session/ses_000000000000000000000000').set('X-API-Key', service.demo.api_key);
    await service.http
      .post('/api/v2/age-verification')
      .set('X-API-Key', service.demo.api_key)
      .send({ dob: 'not a date' });
    const text = (await service.http.get('/metrics')).text;
    expect(text).toMatch(/verity_http_requests_total\{method="GET",route="\/healthz",status="200"\} \d+/);
    expect(text).toMatch(/verity_http_requests_total\{method="GET",route="unmatched",status="404"\} \d+/);
    expect(text).toMatch(/verity_http_requests_total\{method="POST",route="\/graphql",status="401"\} \d+/);
    expect(text).toMatch(/verity_http_requests_total\{method="GET",route="\/api\/v2\/session\/:id",status="404"\} \d+/);
    expect(text).toMatch(
      /verity_http_requests_total\{method="POST",route="\/api\/v2\/age-verification",status="400"\} \d+/,
    );
    expect(text).not.toMatch(/route="\/session/);
    // the core's families: verdicts (the refused dob above never got one: it is not a verdict), queue, sessions,
    // wallets, pool
    await service.http
      .post('/api/v2/age-verification')
      .set('X-API-Key', service.demo.api_key)
      .send({ dob: '1990-01-01', bands: ['is_21_plus'] });
    await service.http
      .post('/api/v2/age-verification')
      .set('X-API-Key', service.demo.api_key)
      .send({ dob: `${new Date().getUTCFullYear() - 10}-01-01` });
    const core = (await service.http.get('/metrics')).text;
    expect(core).toMatch(/verity_check_verdicts_total\{type="age",status="passed",reason="none"\} [1-9]/);
    expect(core).toMatch(/verity_check_verdicts_total\{type="age",status="failed",reason="under_age"\} [1-9]/);
    expect(core).toMatch(/^verity_wallet_balance_minor \d+/m); // no project ids unless VERITY_METRICS_PROJECT_LABELS (test/metrics-access.test.ts)
    expect(core).toMatch(/verity_db_pool_connections\{state="in_use"\} \d+/);
    for (const family of [
      'verity_job_queue_depth',
      'verity_job_queue_oldest_seconds',
      'verity_sessions',
      'verity_webhook_attempts_total',
      'verity_webhook_delivery_seconds',
    ])
      expect(core).toContain(`# TYPE ${family} `);
    expect(text).toContain('verity_http_request_duration_seconds_bucket');
  });

  it('ships a dashboard and alert rules that query only metrics the service exports', async () => {
    const { readFile } = await import('node:fs/promises');
    const rules = JSON.parse(await readFile(new URL('../ops/prometheus-rules.json', import.meta.url), 'utf8'));
    const dashboard = JSON.parse(await readFile(new URL('../ops/grafana-dashboard.json', import.meta.url), 'utf8'));
    const alerts = rules.groups.flatMap(
      (group: { rules: { alert: string; expr: string; for: string; labels: Record<string, string> }[] }) => group.rules,
    );
    expect(alerts.map((rule: { alert: string }) => rule.alert).sort()).toEqual([
      'VerityJobQueueStale',
      'VerityNotReady',
      'VerityServerErrors',
      'VerityWebhookDestinationUnhealthy',
      'VerityWebhookFailures',
    ]);
    for (const rule of alerts)
      expect(rule).toMatchObject({
        expr: expect.any(String),
        for: expect.stringMatching(/^\d+m$/),
        labels: { severity: expect.any(String) },
      });
    const expressions = [
      ...alerts.map((rule: { expr: string }) => rule.expr),
      ...dashboard.panels.flatMap((panel: { targets: { expr: string }[] }) =>
        panel.targets.map((target) => target.expr),
      ),
    ];
    const queried = new Set(
      expressions
        .flatMap((expr: string) => expr.match(/\bverity_[a-z_]+/g) ?? [])
        .map((name: string) => name.replace(/_(bucket|count|sum)$/, '')),
    );
    const exported = (await service.http.get('/metrics')).text;
    const missing = [...queried].filter((name) => !exported.includes(`# TYPE ${name} `));
    expect(missing).toEqual([]);
    expect(queried.size).toBeGreaterThanOrEqual(10);
    expect(exported).toMatch(/^verity_ready 1$/m);
  });

  it('serves an OpenAPI 3.1 document generated from the routes', async () => {
    const res = await service.http.get('/api/v2/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.info.version).toBe('2.0.0');
    expect(
      res.body.paths['/readyz'].get.responses['200'].content['application/json'].schema.properties.status.enum,
    ).toEqual(['ready', 'not_ready']);
    expect(res.body.paths['/api/auth/tpsso/token'].post.responses['410']).toBeDefined();
    expect(res.body.components.securitySchemes.ApiKeyHeader).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'X-API-Key',
    });
    // Every operation has an operationId, unique in the document (SDK generators name methods by it).
    const operations = Object.values(res.body.paths as Record<string, Record<string, { operationId: string }>>).flatMap(
      (ops) => Object.values(ops),
    );
    expect(operations.every((op) => /^[a-z]+[A-Za-z0-9]+$/.test(op.operationId))).toBe(true);
    expect(new Set(operations.map((op) => op.operationId)).size).toBe(operations.length);
    expect(res.body.paths['/api/v2/session/{id}/decision'].get.operationId).toBe('getSessionByIdDecision');
    // Browser routes: a page, a redirect, or an HTML error page, never JSON.
    expect(Object.keys(res.body.paths['/api/auth/oidc/authorize'].get.responses)).toEqual(['200', '303', '400']);
  });
});
