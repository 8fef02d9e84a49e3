import { context, propagation, trace } from '@opentelemetry/api';

export interface Tracing {
  /** Sends the spans still buffered and unregisters the SDK. */
  shutdown(): Promise<void>;
}

/**
 * Registers the OpenTelemetry SDK, exporting spans over OTLP/HTTP (JSON bodies) to `tracesUrl`
 * in batches. Loaded only when an endpoint is configured: without one the SDK is never imported.
 * The exporter still reads the standard OTEL_EXPORTER_OTLP_HEADERS / _TIMEOUT, and the sampler
 * OTEL_TRACES_SAMPLER / _ARG.
 */
export async function startTracing(options: { tracesUrl: string; serviceName: string }): Promise<Tracing> {
  const [{ NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: options.tracesUrl }))],
  });
  // The global tracer, AsyncLocalStorage context (spans nest across awaits) and W3C trace context.
  provider.register();
  return {
    async shutdown() {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
