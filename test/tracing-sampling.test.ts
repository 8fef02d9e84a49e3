import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ROOT_CONTEXT, TraceFlags, trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tracer } from '../src/core/tracing.js';
import { startTracing, type Tracing } from '../src/tracing.js';
import { startTestService, type TestService } from './helpers/service.js';

// A caller's W3C `traceparent` with the sampled flag used to force its request to be traced
// whatever the configured ratio: anyone could have every request of theirs recorded and exported
// at our cost (issue #46, item 15). With the ratio at 0, nothing a caller sends is traced, while
// a span under a sampled span of our own still is (the exporter works). Its own file: the SDK is
// registered once per process.

const exportedTraceIds: string[] = [];
let collector: http.Server;
let tracing: Tracing | undefined;
let service: TestService;

beforeAll(async () => {
  collector = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const decoded = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: { traceId: string }[] }[] }[] };
      for (const resource of decoded.resourceSpans)
        for (const scope of resource.scopeSpans) for (const span of scope.spans) exportedTraceIds.push(span.traceId);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  const tracesUrl = `http://127.0.0.1:${(collector.address() as AddressInfo).port}/v1/traces`;
  tracing = await startTracing({
    tracesUrl,
    serviceName: 'verity-sampling-test',
    sampling: { ratio: 0, trustParent: false },
  });
  service = await startTestService();
}, 120_000);

afterAll(async () => {
  await tracing?.shutdown();
  await service?.close();
  collector?.close();
});

describe("a caller's traceparent", () => {
  it('does not force its request to be traced: our ratio decides', async () => {
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    for (const path of ['/api/v2/session/ses_doesnotexist', '/healthz']) {
      const answer = await service.http
        .get(path)
        .set('X-API-Key', service.demo.api_key)
        .set('traceparent', `00-${callerTrace}-00f067aa0ba902b7-01`);
      expect(answer.status).toBeLessThan(500);
    }
    // The control: a span under a sampled span of ours is recorded and exported.
    const ourTrace = 'a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5';
    tracer
      .startSpan(
        'control',
        {},
        trace.setSpanContext(ROOT_CONTEXT, {
          traceId: ourTrace,
          spanId: '1a2b3c4d5e6f7a8b',
          traceFlags: TraceFlags.SAMPLED,
          isRemote: false,
        }),
      )
      .end();
    await tracing!.shutdown(); // flushes what was recorded
    tracing = undefined;
    expect(exportedTraceIds).toContain(ourTrace);
    expect(exportedTraceIds).not.toContain(callerTrace);
  });
});
