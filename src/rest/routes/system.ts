import { createHash, timingSafeEqual } from 'node:crypto';
import { Gauge } from 'prom-client';
import { z } from 'zod';
import type { Core } from '../../core/index.js';
import type { HttpMetrics } from '../../http/observability.js';
import type { ApiDocs } from '../../http/openapi.js';
import { caseSensitiveRouter } from '../../http/router.js';

export interface ReadinessProbe {
  /** Extra parts that must be ready (models arrive with the face engine); name -> ready. */
  parts?: () => Record<string, boolean | string>;
  /** Not ready until every part is (when models are warmed at start). */
  requireParts?: boolean;
}

/** Who may read `/metrics`: the holder of `token`; without one, anyone only when `public` is set. */
export interface MetricsAccess {
  token?: string;
  public?: boolean;
}

/** Whether an Authorization header carries `Bearer <token>` (compared in constant time). */
function bearerMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer (.+)$/i.exec(header ?? '')?.[1] ?? '';
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(token));
}

/**
 * Whether a scrape with this Authorization header may read the metrics (balances, traffic, queue
 * depth): with a token configured only its holder, even when `public` is also set; without one,
 * nobody unless the operator opened them explicitly.
 */
export function mayReadMetrics(authorization: string | undefined, access: MetricsAccess): boolean {
  if (access.token) return bearerMatches(authorization, access.token);
  return access.public === true;
}

/**
 * Liveness, readiness, metrics and the OpenAPI document: top-level JSON; metrics behind a bearer token unless opened.
 */
export function systemRouter(
  core: Core,
  metrics: HttpMetrics,
  docs: ApiDocs,
  serverUrl: string,
  probe: ReadinessProbe = {},
  metricsAccess: MetricsAccess = {},
) {
  const router = caseSensitiveRouter();

  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  /** What /readyz answers, and the `verity_ready` gauge reports at each scrape. */
  const readiness = async () => {
    const store = await core.readiness();
    const parts = probe.parts?.() ?? {};
    const ready =
      store.database &&
      store.migrations &&
      (!probe.requireParts || Object.values(parts).every((value) => value !== false));
    return { ready, body: { status: ready ? 'ready' : 'not_ready', ...store, ...parts } };
  };
  if (!metrics.registry.getSingleMetric('verity_ready')) {
    new Gauge({
      name: 'verity_ready',
      help: '1 when this instance is ready to serve (what /readyz says), else 0',
      registers: [metrics.registry],
      async collect() {
        this.set((await readiness()).ready ? 1 : 0);
      },
    });
  }

  router.get('/readyz', async (_req, res) => {
    const { ready, body } = await readiness();
    res.status(ready ? 200 : 503).json(body);
  });

  router.get('/metrics', async (req, res) => {
    if (!mayReadMetrics(req.get('authorization'), metricsAccess)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
      const description = metricsAccess.token
        ? 'metrics need Authorization: Bearer <VERITY_METRICS_TOKEN>'
        : 'metrics are closed: set VERITY_METRICS_TOKEN and scrape with Authorization: Bearer <token>, or open them with VERITY_METRICS_PUBLIC=1';
      res.status(401).json({ error: 'invalid_token', error_description: description });
      return;
    }
    res.setHeader('Content-Type', metrics.registry.contentType);
    res.send(await metrics.registry.metrics());
  });

  router.get('/api/v2/openapi.json', (_req, res) => {
    res.json(docs.document(serverUrl));
  });

  docs.add(
    {
      method: 'get',
      path: '/healthz',
      summary: 'Liveness probe',
      description:
        "Answers 200 while the process runs, whatever its dependencies: a load balancer's or orchestrator's liveness probe (restart on failure). It touches nothing, so a database outage does not fail it; use `/readyz` to take traffic away.",
      tag: 'system',
      security: 'none',
      bare: true,
      response: z.object({ status: z.literal('ok') }),
      examples: { response: { status: 'ok' } },
    },
    {
      method: 'get',
      path: '/readyz',
      summary: 'Readiness probe',
      description:
        '200 `ready` when the database answers and its migrations are applied (and, when models are warmed at start, the models are loaded); 503 `not_ready` otherwise, with the part that is not. Route traffic to an instance only while it is ready.',
      tag: 'system',
      security: 'none',
      bare: true,
      response: z.object({
        status: z.enum(['ready', 'not_ready']),
        database: z.boolean(),
        migrations: z.boolean(),
        ocr: z.boolean().optional(),
        faces: z.boolean().optional(),
        liveness: z.boolean().optional(),
        tf_backend: z.enum(['tensorflow', 'wasm', 'cpu', 'not loaded']).optional(),
        tf_wasm: z.string().optional().describe("the WASM backend's features: simd, simd+threads or plain"),
      }),
      examples: {
        response: {
          status: 'ready',
          database: true,
          migrations: true,
          ocr: true,
          faces: true,
          liveness: true,
          tf_backend: 'tensorflow',
        },
      },
    },
    {
      method: 'get',
      path: '/metrics',
      summary: 'Prometheus metrics',
      description:
        'Request counts and latency by route template and status, check verdicts, webhook deliveries, queue depth, wallet and process metrics, in Prometheus text format. Closed by default: scrape with `Authorization: Bearer <VERITY_METRICS_TOKEN>` (401 `invalid_token` without it), or open it with `VERITY_METRICS_PUBLIC=1` when no token is set.',
      tag: 'system',
      security: 'none',
      bare: true,
      rawSuccess: { type: 'text/plain', description: 'Prometheus text exposition format 0.0.4' },
      errors: ['invalid_token'],
      examples: {
        raw: '# HELP verity_http_requests_total HTTP requests by route template and status\n# TYPE verity_http_requests_total counter\nverity_http_requests_total{method="POST",route="/api/v2/session",status="201"} 42\n',
      },
    },
    {
      method: 'get',
      path: '/api/v2/openapi.json',
      summary: 'This OpenAPI document',
      description:
        'The OpenAPI 3.1 document of the REST API, generated from the routes themselves (their zod schemas, examples and errors), with the webhooks Verity sends. Feed it to a code generator or an API client; `/docs` renders it.',
      tag: 'system',
      security: 'none',
      bare: true,
      response: z
        .looseObject({
          openapi: z.literal('3.1.0'),
          info: z.looseObject({ title: z.string(), version: z.string() }),
          paths: z.record(z.string(), z.unknown()),
        })
        .describe('an OpenAPI 3.1 document'),
      examples: {
        response: {
          openapi: '3.1.0',
          info: { title: 'Verity', version: '2.0.0' },
          paths: { '/healthz': { get: { operationId: 'getHealthz', summary: 'The process is up' } } },
        },
      },
    },
  );
  return router;
}
