import { SpanKind, SpanStatusCode, context, trace, type Attributes, type Span } from '@opentelemetry/api';

// Spans at our own seams (HTTP requests, database queries, model inference, webhook delivery),
// made through the OpenTelemetry API. Until `startTracing` registers an SDK (only when
// OTEL_EXPORTER_OTLP_ENDPOINT is set) the API hands out spans that record nothing.
//
// Attributes name routes, tables, models, hosts and ids, never values: SQL text is not recorded
// (MikroORM inlines parameters into it), nor paths, queries, headers, bodies or error messages.

export const tracer = trace.getTracer('verity');

/** Which traces are recorded (`OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG`, `VERITY_TRACE_TRUST_PARENT`). */
export interface TraceSampling {
  /** The share of traces recorded, 0 to 1. */
  ratio: number;
  /**
   * Follow a caller's `traceparent` sampled flag instead of deciding: only behind a gateway that sets the header
   * itself.
   */
  trustParent: boolean;
}

/** A span's parent as sampling sees it: whether it was sampled, and whether it came from a caller (`traceparent`). */
export interface SamplingParent {
  sampled: boolean;
  remote: boolean;
}

/**
 * Whether a new span is recorded. A span of ours under one of ours follows its parent (a trace is
 * whole or absent). Anything else is decided here, by `draw` (uniform in [0, 1)) against the
 * ratio: a caller's sampled flag, unless trusted, would let anyone have every request of theirs
 * traced, a cost we pay. Not by the trace id either: a caller chooses that too. The caller's trace
 * id is kept whatever the decision, for correlation.
 */
export function samplesSpan(parent: SamplingParent | undefined, sampling: TraceSampling, draw: number): boolean {
  if (parent && (!parent.remote || sampling.trustParent)) return parent.sampled;
  return draw < sampling.ratio;
}

/** Marks a span failed by the error's type only: a message may carry identity data or a URL's token. */
export function recordFailure(span: Span, error: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
}

/** Runs `work` as the active span `name` (its queries nest under it), ending the span however it ends. */
export function inSpan<T>(
  name: string,
  options: { kind?: SpanKind; attributes?: Attributes },
  work: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(name, options, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      recordFailure(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * The statement's verb and first table (`SELECT webhook_event`), read from its start; never its values. `unnest(...)`
 * (rows from array parameters) is no table.
 */
export function describeQuery(sql: string): { operation: string; table?: string } {
  const operation = /^\s*\(?\s*([a-z]+)/i.exec(sql)?.[1]?.toUpperCase() ?? 'QUERY';
  const table =
    /\b(?:from|into|update|join)\s+(?!unnest\s*\()"?([a-z_][a-z0-9_]*)"?(?:\."?([a-z_][a-z0-9_]*)"?)?/i.exec(sql);
  return { operation, table: table ? (table[2] ?? table[1])!.toLowerCase() : undefined };
}

/** A query span's attributes: the database, the verb and the table, never values. */
const queryAttributes = (operation: string, table: string | undefined): Attributes => ({
  'db.system.name': 'postgresql',
  'db.operation.name': operation,
  ...(table ? { 'db.collection.name': table } : {}),
});

/**
 * One CLIENT span for a statement sent past knex (named statements on a pool of their own),
 * named and described like traceQueries' spans; outside any span nothing is traced.
 */
export function traceStatement<T>(sql: string, run: () => Promise<T>): Promise<T> {
  if (!trace.getSpan(context.active())) return run();
  const { operation, table } = describeQuery(sql);
  return inSpan(
    table ? `${operation} ${table}` : operation,
    { kind: SpanKind.CLIENT, attributes: queryAttributes(operation, table) },
    run,
  );
}

interface KnexQueryEvents {
  on(event: 'query', listener: (query: { __knexQueryUid?: string; sql?: string }) => void): unknown;
  on(event: 'query-response', listener: (response: unknown, query: { __knexQueryUid?: string }) => void): unknown;
  on(event: 'query-error', listener: (error: unknown, query: { __knexQueryUid?: string }) => void): unknown;
}

/** Spans still open: a query whose answer never came (a dropped connection) must not keep its span forever. */
const MAX_OPEN_QUERY_SPANS = 1000;

/**
 * One CLIENT span per database query, from knex's own query events (MikroORM runs every query
 * through knex). The `query` event fires in the caller's async context, so the span nests under
 * the request or delivery that made it; queries outside any span (housekeeping) are not traced,
 * or each would be a trace of its own.
 */
export function traceQueries(knex: KnexQueryEvents): void {
  const open = new Map<string, Span>();
  knex.on('query', (query) => {
    if (!query.__knexQueryUid || !query.sql || !trace.getSpan(context.active())) return;
    const { operation, table } = describeQuery(query.sql);
    const span = tracer.startSpan(table ? `${operation} ${table}` : operation, {
      kind: SpanKind.CLIENT,
      attributes: queryAttributes(operation, table),
    });
    if (open.size >= MAX_OPEN_QUERY_SPANS) {
      const [oldest, stale] = open.entries().next().value!;
      stale.end();
      open.delete(oldest);
    }
    open.set(query.__knexQueryUid, span);
  });
  const finish = (query: { __knexQueryUid?: string }, error?: unknown) => {
    const span = query.__knexQueryUid ? open.get(query.__knexQueryUid) : undefined;
    if (!span) return;
    open.delete(query.__knexQueryUid!);
    if (error !== undefined) {
      const code = (error as { code?: unknown }).code;
      if (typeof code === 'string') span.setAttribute('db.response.status_code', code);
      recordFailure(span, error);
    }
    span.end();
  };
  knex.on('query-response', (_response, query) => finish(query));
  knex.on('query-error', (error, query) => finish(query, error));
}
