import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { describeQuery, samplesSpan, tracer } from '../src/core/tracing.js';
import { startTestService, type TestService } from './helpers/service.js';

// Fast tier of tracing: where spans go, what a query span may say, and that nothing records
// without an endpoint. The exported spans themselves: test/observability.test.ts.

describe('the OTLP traces URL', () => {
  it('is the base endpoint + /v1/traces, or the traces endpoint as given; nothing without either or when disabled', () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).otlpTracesUrl).toBe(
      'http://collector:4318/v1/traces',
    );
    expect(
      loadConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://b/otlp/traces',
      }).otlpTracesUrl,
    ).toBe('https://b/otlp/traces');
    expect(loadConfig({}).otlpTracesUrl).toBeUndefined();
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).otlpTracesUrl,
    ).toBeUndefined();
    expect(loadConfig({ OTEL_SERVICE_NAME: 'verity-eu' }).otelServiceName).toBe('verity-eu');
    expect(loadConfig({}).otelServiceName).toBe('verity');
  });

  it('refuses an endpoint that is not an http(s) URL with one line naming the variable', () => {
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4317' })).toThrow(
      'OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL (OTLP over HTTP)',
    );
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'not a url' })).toThrow(
      'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is not a URL',
    );
  });
});

describe('a query span', () => {
  it('names the verb and the first table, never a value (MikroORM inlines them into the SQL)', () => {
    expect(describeQuery(`insert into "account" ("email", "name") values ('alice@example.com', 'Alice')`)).toEqual({
      operation: 'INSERT',
      table: 'account',
    });
    expect(describeQuery(`select "w0".* from "webhook_event" as "w0" where "w0"."id" = 'evt_1' limit 1`)).toEqual({
      operation: 'SELECT',
      table: 'webhook_event',
    });
    expect(describeQuery(`update webhook_event set state = 'sending' where id = 'evt_1'`)).toEqual({
      operation: 'UPDATE',
      table: 'webhook_event',
    });
    expect(describeQuery(`delete from "rate_limit" where "expire" < now()`)).toEqual({
      operation: 'DELETE',
      table: 'rate_limit',
    });
    expect(describeQuery(`select name, count(*) from pgboss.job group by name`)).toEqual({
      operation: 'SELECT',
      table: 'job',
    });
    expect(describeQuery('select 1')).toEqual({ operation: 'SELECT', table: undefined });
    expect(describeQuery(`  (select 1) union (select 2 from "project")`)).toEqual({
      operation: 'SELECT',
      table: 'project',
    });
    // rows from array parameters (a statement written for many calls at once) are no table
    expect(
      describeQuery(
        `with input as (select * from unnest($1::varchar[]) as i(id)), logged as (insert into webhook_attempt (id) select id from input) select 1`,
      ),
    ).toEqual({
      operation: 'WITH',
      table: 'webhook_attempt',
    });
  });
});

describe('without OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => {
    await service?.close();
  });

  it('registers no SDK: the spans at our seams record nothing', async () => {
    expect(service.config.otlpTracesUrl).toBeUndefined();
    expect((await service.http.get('/healthz')).status).toBe(200);
    const span = tracer.startSpan('probe');
    expect(span.isRecording()).toBe(false);
    span.end();
  });
});

describe('sampling (samplesSpan)', () => {
  const untrusted = { ratio: 0.25, trustParent: false };
  it("decides a caller's trace by our own draw: its sampled flag neither forces nor stops a trace", () => {
    const caller = (sampled: boolean) => ({ sampled, remote: true });
    expect(samplesSpan(caller(true), untrusted, 0.5)).toBe(false);
    expect(samplesSpan(caller(true), untrusted, 0.1)).toBe(true);
    expect(samplesSpan(caller(false), untrusted, 0.1)).toBe(true);
    expect(samplesSpan(caller(true), { ratio: 0, trustParent: false }, 0)).toBe(false);
  });

  it("follows a caller's flag only when trusted (VERITY_TRACE_TRUST_PARENT)", () => {
    const trusted = { ratio: 0.25, trustParent: true };
    expect(samplesSpan({ sampled: true, remote: true }, trusted, 0.9)).toBe(true);
    expect(samplesSpan({ sampled: false, remote: true }, trusted, 0.1)).toBe(false);
  });

  it('keeps our own traces whole: a span under one of ours follows it; a new trace is drawn', () => {
    expect(samplesSpan({ sampled: true, remote: false }, { ratio: 0, trustParent: false }, 0.9)).toBe(true);
    expect(samplesSpan({ sampled: false, remote: false }, { ratio: 1, trustParent: false }, 0)).toBe(false);
    expect(samplesSpan(undefined, untrusted, 0.2)).toBe(true);
    expect(samplesSpan(undefined, untrusted, 0.3)).toBe(false);
  });

  it('reads the ratio from OTEL_TRACES_SAMPLER and _ARG, trusts no caller unless VERITY_TRACE_TRUST_PARENT', () => {
    expect(loadConfig({}).traceSampling).toEqual({ ratio: 1, trustParent: false });
    expect(
      loadConfig({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' }).traceSampling,
    ).toEqual({ ratio: 0.1, trustParent: false });
    expect(loadConfig({ OTEL_TRACES_SAMPLER: 'always_off', VERITY_TRACE_TRUST_PARENT: '1' }).traceSampling).toEqual({
      ratio: 0,
      trustParent: true,
    });
    expect(loadConfig({ OTEL_TRACES_SAMPLER: 'traceidratio' }).traceSampling.ratio).toBe(1);
    expect(() => loadConfig({ OTEL_TRACES_SAMPLER: 'jaeger_remote' })).toThrow(
      'OTEL_TRACES_SAMPLER: "jaeger_remote" is not supported',
    );
    expect(() => loadConfig({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' })).toThrow(
      'OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1',
    );
  });
});
