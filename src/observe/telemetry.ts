import type { McpServer } from '@modelcontextprotocol/server';
import type { Attempt } from '../api/exchange.js';
import type { GateStore } from '../gate/store.js';
import type { Log } from '../log.js';

/**
 * The one small interface the server and the API client call for OpenTelemetry. Nothing here
 * imports @opentelemetry: the SDK and its exporters load (src/observe/otel.ts, its own chunk in
 * dist/) only when the standard OTEL_* environment asks for them, so start-up and memory without it
 * do not change.
 */

/** The `service.name` resource attribute unless OTEL_SERVICE_NAME (or OTEL_RESOURCE_ATTRIBUTES) says otherwise. */
export const DEFAULT_SERVICE_NAME = 'app-management-mcp';

/** One attempt of an upstream HTTP request, as the API client sends it. */
export interface UpstreamCall {
  method: string;
  /** The encoded path, query excluded: the span keeps only its template. */
  path: string;
  /** The base URL plus path: the span keeps only its host and port. */
  url: string;
  /** 0 for the first attempt, n for the n-th retry. */
  resend: number;
}

/** Wraps one attempt: `run` gets a function it calls with the answer's status, so the span sees it. */
export type ObserveUpstream = <T>(call: UpstreamCall, run: (seen: (status: number) => void) => Promise<Attempt<T>>) => Promise<Attempt<T>>;

/** The names the server has (its tools, prompts and protocol versions): what its spans and metrics may name, anything else being _OTHER. */
export interface OwnNames {
  tools: ReadonlySet<string>;
  prompts: ReadonlySet<string>;
  protocolVersions: ReadonlySet<string>;
}

export interface Telemetry {
  /** The same server, answering each MCP request inside a SERVER span, timed into mcp.server.operation.duration. */
  watch(server: McpServer, own: OwnNames): McpServer;
  /** A CLIENT span per upstream HTTP attempt. */
  upstream: ObserveUpstream;
  /** Exports what is buffered and stops the exporters (on exit and after an HTTP drain). */
  shutdown(): Promise<void>;
}

export interface TelemetryOptions {
  log: Log;
  /** `pipe` for stdio, `tcp` for Streamable HTTP (the convention's network.transport). */
  transport: 'pipe' | 'tcp';
  /** The gate's store, for the gauges of pending warnings and reachability (when the server opened one). */
  store?: GateStore;
}

/** Which signals the environment asks for. */
export interface Signals {
  traces: boolean;
  metrics: boolean;
}

type Env = Record<string, string | undefined>;

const set = (value: string | undefined) => value !== undefined && value.trim() !== '';
const isNone = (value: string | undefined) => value?.trim().toLowerCase() === 'none';

/**
 * The signals the standard environment turns on: an OTLP endpoint (shared or per signal), unless
 * OTEL_SDK_DISABLED=true or OTEL_{TRACES,METRICS}_EXPORTER=none. Undefined when none is on.
 */
export function signalsWanted(env: Env): Signals | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const shared = set(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  const traces = (shared || set(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)) && !isNone(env.OTEL_TRACES_EXPORTER);
  const metrics = (shared || set(env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT)) && !isNone(env.OTEL_METRICS_EXPORTER);
  return traces || metrics ? { traces, metrics } : undefined;
}

/**
 * Starts OpenTelemetry when the environment asks for it, else resolves undefined without loading
 * anything. A chunk that fails to load leaves the server running without it, with one warning.
 */
export async function startTelemetry(env: Env, options: TelemetryOptions): Promise<Telemetry | undefined> {
  const signals = signalsWanted(env);
  if (!signals) return undefined;
  try {
    const { createTelemetry } = await import('./otel.js');
    return createTelemetry(env, signals, options);
  } catch (error) {
    options.log.warn(`OpenTelemetry is configured (OTEL_EXPORTER_OTLP_*) but could not start: ${error instanceof Error ? error.message : String(error)}; running without it`);
    return undefined;
  }
}
