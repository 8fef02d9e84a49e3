import { type Context, context, isSpanContextValid, propagation, TraceFlags, trace } from '@opentelemetry/api';
import { samplesSpan, type TraceSampling } from './core/tracing.js';

export interface Tracing {
  /** Sends the spans still buffered and unregisters the SDK. */
  shutdown(): Promise<void>;
}

/**
 * Registers the OpenTelemetry SDK, exporting spans over OTLP/HTTP (JSON bodies) to `tracesUrl`
 * in batches. Loaded only when an endpoint is configured: without one the SDK is never imported.
 * The exporter still reads the standard OTEL_EXPORTER_OTLP_HEADERS / _TIMEOUT; sampling is ours
 * (`samplesSpan`), from the config.
 */
export async function startTracing(options: {
  tracesUrl: string;
  serviceName: string;
  sampling: TraceSampling;
}): Promise<Tracing> {
  const [
    { NodeTracerProvider, BatchSpanProcessor, SamplingDecision },
    { OTLPTraceExporter },
    { resourceFromAttributes },
  ] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const { sampling } = options;
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: options.tracesUrl }))],
    sampler: {
      shouldSample(parentContext: Context) {
        const parent = trace.getSpanContext(parentContext);
        const known =
          parent && isSpanContextValid(parent)
            ? { sampled: (parent.traceFlags & TraceFlags.SAMPLED) !== 0, remote: parent.isRemote === true }
            : undefined;
        return {
          decision: samplesSpan(known, sampling, Math.random())
            ? SamplingDecision.RECORD_AND_SAMPLED
            : SamplingDecision.NOT_RECORD,
        };
      },
      toString: () => `verity{ratio=${sampling.ratio}, trustParent=${sampling.trustParent}}`,
    },
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
