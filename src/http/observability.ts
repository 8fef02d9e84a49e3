import { randomUUID } from 'node:crypto';
import type { Express, NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  context,
  isSpanContextValid,
  propagation,
  trace,
} from '@opentelemetry/api';
import { tracer } from '../core/tracing.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's X-Request-Id when it is a sane token (it goes into logs), else a new one. */
export function requestId(req: Request, res: Response, next: NextFunction): void {
  const given = req.get('x-request-id');
  const id = given && REQUEST_ID.test(given) ? given : randomUUID();
  res.locals.requestId = id;
  res.setHeader('X-Request-Id', id);
  next();
}

export interface HttpMetrics {
  registry: Registry;
  requests: Counter<'method' | 'route' | 'status'>;
  duration: Histogram<'method' | 'route' | 'status'>;
}

/**
 * HTTP metrics on `registry` (the core's, so /metrics shows both), with Node's process metrics.
 * A second app over the same core (tests, a second listener) shares the families already there.
 */
export function createMetrics(registry: Registry = new Registry()): HttpMetrics {
  const existing = registry.getSingleMetric('verity_http_requests_total');
  if (existing) {
    return {
      registry,
      requests: existing as HttpMetrics['requests'],
      duration: registry.getSingleMetric('verity_http_request_duration_seconds') as HttpMetrics['duration'],
    };
  }
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    requests: new Counter({
      name: 'verity_http_requests_total',
      help: 'HTTP requests by route template and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'verity_http_request_duration_seconds',
      help: 'HTTP request latency by route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 90],
      registers: [registry],
    }),
  };
}

/**
 * The route template a request matched (`/api/v2/session/:id`), never the raw path: raw paths
 * carry ids and would explode the label set. Mounted sub-apps label themselves (`labelRoute`).
 */
function routeLabel(req: Request, res: Response): string {
  if (typeof res.locals.matchedRoute === 'string') return res.locals.matchedRoute;
  return typeof res.locals.routeLabel === 'string' ? res.locals.routeLabel : 'unmatched';
}

const MATCHED_ROUTE = Symbol('route');

/**
 * Records the full template of the route a request matches, at the moment the router matches it
 * (it sets `req.route`). Read later, `req.baseUrl` has been reset by every router the request
 * left, which is where an error travels to the app's error handler: an error answer of
 * `/api/v2/session` was labelled `/session`. An accessor on the app's request prototype, set
 * once: defining it on each request cost every request.
 */
export function recordMatchedRoutes(app: Express): void {
  Object.defineProperty(app.request, 'route', {
    configurable: true,
    enumerable: true,
    get(this: Request & { [MATCHED_ROUTE]?: unknown }) {
      return this[MATCHED_ROUTE];
    },
    set(this: Request & { [MATCHED_ROUTE]?: unknown }, value: { path?: unknown } | undefined) {
      this[MATCHED_ROUTE] = value;
      if (typeof value?.path === 'string' && this.res) this.res.locals.matchedRoute = `${this.baseUrl}${value.path}`;
    },
  });
}

/**
 * One SERVER span per request, named by method and route template (`POST /api/v2/session`) once
 * the answer is sent, so an error answer carries its route too. A caller's W3C `traceparent`
 * continues its trace id; whether the request is sampled is our sampler's choice (`samplesSpan`). Only the method,
 * route, status and request id are recorded: paths carry
 * ids and tokens, queries and headers carry secrets.
 */
export function traceRequests(req: Request, res: Response, next: NextFunction): void {
  const parent = propagation.extract(ROOT_CONTEXT, req.headers);
  const span = tracer.startSpan(
    req.method,
    { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method } },
    parent,
  );
  // No tracing SDK registered (no OTLP endpoint): the span is a no-op with nothing to carry, and
  // binding the request's streams to it cost every request a tenth of its time.
  if (!isSpanContextValid(span.spanContext())) {
    next();
    return;
  }
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    const route = routeLabel(req, res);
    span.updateName(`${req.method} ${route}`);
    span.setAttributes({ 'http.route': route, 'http.response.status_code': res.statusCode });
    if (typeof res.locals.requestId === 'string') span.setAttribute('verity.request_id', res.locals.requestId);
    if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    // A caller that hung up before the answer: the span still ends, marked as such.
    if (!res.writableFinished) span.setAttribute('verity.aborted', true);
    span.end();
  };
  res.on('finish', end);
  res.on('close', end);
  const active = trace.setSpan(parent, span);
  // Body parsers continue in the request stream's callbacks, which would otherwise lose the span.
  context.bind(active, req);
  context.bind(active, res);
  context.with(active, next);
}

/** Names the metrics/log route of everything under a mount point (GraphQL, tRPC, legacy SSO). */
export function labelRoute(label: string) {
  return (_req: Request, res: Response, next: NextFunction): void => {
    res.locals.routeLabel = label;
    next();
  };
}

const ERROR_CODE = /^[a-z][a-z0-9_.]{0,63}$/;

/**
 * The code of an error answer's JSON body: the envelope's `error.code` (the catalog's) or an
 * OAuth answer's `error`. Never the message: it may quote what the caller sent (a name, an email).
 */
export function errorCodeOf(body: unknown): string | undefined {
  const error = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : error;
  return typeof code === 'string' && ERROR_CODE.test(code) ? code : undefined;
}

/**
 * One JSON log line per request: id, method, route, status, duration, and an error answer's code
 * (`err_code`). Never the query string, headers, body or error message: they may carry tokens,
 * secrets or identity data.
 */
export function accessLog(logger: Logger, metrics: HttpMetrics) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    // Every JSON answer passes here, whichever route or error handler sends it: its code is kept for the line.
    const json = res.json.bind(res);
    res.json = (body?: unknown) => {
      res.locals.errorCode = errorCodeOf(body);
      return json(body);
    };
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = routeLabel(req, res);
      const labels = { method: req.method, route, status: String(res.statusCode) };
      metrics.requests.inc(labels);
      metrics.duration.observe(labels, seconds);
      const errCode = res.statusCode >= 400 ? res.locals.errorCode : undefined;
      logger.info(
        {
          req_id: res.locals.requestId,
          method: req.method,
          route,
          status: res.statusCode,
          ...(errCode ? { err_code: errCode } : {}),
          ms: Math.round(seconds * 1e4) / 10,
        },
        'request',
      );
    });
    next();
  };
}
