import { context, diag, DiagLogLevel, type DiagLogger } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { sanitize } from '../text.js';
import { SERVER_VERSION } from '../version.js';
import { registerGauges } from './gauges.js';
import { watchServer } from './mcp-spans.js';
import { DEFAULT_SERVICE_NAME, type Signals, type Telemetry, type TelemetryOptions } from './telemetry.js';
import { observeUpstream } from './upstream.js';

/**
 * OpenTelemetry for the server: the SDK, OTLP/HTTP (JSON) exporters configured by the standard
 * OTEL_EXPORTER_OTLP_* variables (the exporters read endpoint, headers, timeout and compression
 * themselves), W3C trace context, and the MCP spans and metrics. Built into its own file in dist/
 * and loaded only when telemetry.ts finds the environment asking for it.
 */

/** The convention's advised bucket boundaries for mcp.server.operation.duration, in seconds. */
export const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
/** OTEL_BSP_SCHEDULE_DELAY's default in the specification: spans go out in batches at most this often. */
const SPAN_DELAY_MS = 5_000;
/** OTEL_METRIC_EXPORT_INTERVAL's default in the specification. */
const METRIC_INTERVAL_MS = 60_000;
/** OTEL_METRIC_EXPORT_TIMEOUT's default in the specification. */
const METRIC_TIMEOUT_MS = 30_000;
/**
 * Series each instrument keeps at most; beyond it the SDK folds new ones into one overflow series.
 * Every attribute value is one of the server's own (methods, tools, prompts, versions, error codes,
 * else _OTHER): a deployment has a few dozen series, and no request can add one past this.
 */
export const MAX_SERIES_PER_INSTRUMENT = 1_000;
/** Exit waits this long for the last export: a collector that does not answer must not hold a client's session open (the exporters' own timeout is 10 s). */
export const SHUTDOWN_MS = 3_000;
/** A diagnostic from the SDK (an export that failed) is cut to this in the log. */
const MAX_DIAG_CHARS = 300;
const SCOPE = { name: 'app-management-mcp', version: SERVER_VERSION };

type Env = Record<string, string | undefined>;

export function createTelemetry(env: Env, signals: Signals, options: TelemetryOptions): Telemetry {
  const { log } = options;
  diag.setLogger(diagnostics(log), DiagLogLevel.WARN);
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_METRICS_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL;
  if (protocol !== undefined && protocol.trim() !== 'http/json') {
    log.warn(`OTEL_EXPORTER_OTLP_PROTOCOL is ${sanitize(protocol, 40)}; this server exports OTLP over HTTP as JSON (http/json), which OTLP/HTTP receivers accept on the same endpoint`);
  }
  // The handler's upstream calls find their MCP span through the async context.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const resource = resourceFromAttributes({ 'service.name': DEFAULT_SERVICE_NAME, 'service.version': SERVER_VERSION }).merge(detectResources({ detectors: [envDetector] }));

  const tracerProvider = new TracerProvider({ resource, spanProcessors: signals.traces ? [new BatchSpanProcessor({ exporter: new OTLPTraceExporter(), scheduledDelayMillis: positive(env.OTEL_BSP_SCHEDULE_DELAY) ?? SPAN_DELAY_MS })] : [] });
  const meterProvider = new MeterProvider({
    resource,
    readers: signals.metrics
      ? [
          new PeriodicExportingMetricReader({
            exporter: new OTLPMetricExporter(),
            exportIntervalMillis: positive(env.OTEL_METRIC_EXPORT_INTERVAL) ?? METRIC_INTERVAL_MS,
            exportTimeoutMillis: Math.min(positive(env.OTEL_METRIC_EXPORT_TIMEOUT) ?? METRIC_TIMEOUT_MS, positive(env.OTEL_METRIC_EXPORT_INTERVAL) ?? METRIC_INTERVAL_MS),
            cardinalityLimits: { default: MAX_SERIES_PER_INSTRUMENT },
          }),
        ]
      : [],
  });
  const tracer = tracerProvider.getTracer(SCOPE.name, SCOPE.version);
  const meter = meterProvider.getMeter(SCOPE.name, SCOPE.version);
  const duration = meter.createHistogram('mcp.server.operation.duration', {
    description: 'MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent.',
    unit: 's',
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });
  const active = { calls: 0 };
  registerGauges(meter, active, options.store);
  // traceparent only: mcp-spans.ts reads no tracestate or baggage from a client.
  const propagator = new W3CTraceContextPropagator();
  log.debug(`OpenTelemetry on: ${[signals.traces && 'traces', signals.metrics && 'metrics'].filter(Boolean).join(' and ')} over OTLP/HTTP`);

  let stopped: Promise<void> | undefined;
  return {
    watch: (server, own) => watchServer(server, { tracer, duration, propagator, transport: options.transport, active, own }),
    upstream: observeUpstream(tracer),
    shutdown: () => (stopped ??= flushWithin(SHUTDOWN_MS, [tracerProvider.shutdown(), meterProvider.shutdown()], log)),
  };
}

/** Waits for the exporters' last export, at most `ms`; what is not out by then is dropped, with a warning. */
async function flushWithin(ms: number, exports: Array<Promise<void>>, log: { warn(message: string): void }): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  const outcomes = await Promise.race([Promise.allSettled(exports), late]);
  clearTimeout(timer);
  if (outcomes === 'late') return log.warn(`OpenTelemetry: the last export did not finish within ${ms / 1000} s; exiting without it`);
  for (const outcome of outcomes) if (outcome.status === 'rejected') log.warn(`OpenTelemetry: the last export failed: ${reason(outcome.reason)}`);
}

function positive(text: string | undefined): number | undefined {
  const value = Number(text);
  return text !== undefined && Number.isFinite(value) && value > 0 ? value : undefined;
}

function reason(error: unknown): string {
  return sanitize(error instanceof Error ? error.message : String(error), MAX_DIAG_CHARS);
}

/** The SDK's warnings and errors (a collector that does not answer) go to our log, never to stdout. */
function diagnostics(log: { warn(message: string): void }): DiagLogger {
  const warn = (message: string, ...args: unknown[]) => log.warn(`OpenTelemetry: ${sanitize([message, ...args.map(reason)].join(' '), MAX_DIAG_CHARS)}`);
  const ignore = () => undefined;
  return { error: warn, warn, info: ignore, debug: ignore, verbose: ignore };
}
