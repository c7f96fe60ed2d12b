import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUpstream } from '../api/upstream.js';
import { docFigures } from '../docs/markdown.js';
import { BIN, cleanEnv } from '../process.js';
import { CLIENT_KIND, SERVER_KIND, startReceiver, type ExportedSpan, type Receiver } from './otlp-receiver.js';

/**
 * The built server on stdio (--sandbox), with and without the OTEL_* environment: what it exports
 * when its client closes stdin, and that without the environment no OpenTelemetry module loads.
 */

const PRELOAD = fileURLToPath(new URL('./fixtures/report-otel-modules.cjs', import.meta.url));
/** docs/operations.md: on exit the exporters flush, waiting at most this many seconds. */
const [FLUSH_BOUND_S] = docFigures('docs/operations.md', /On exit \(stdin closed, SIGTERM\) and after an HTTP drain the exporters flush, waiting at most (\d+) s/) as [number];
/**
 * What an exit may take beyond the flush bound, on top of what this machine took for an ordinary
 * exit in the same run (measured, so a busy machine does not fail it): the process's own teardown.
 * Without the bound the exporters' own 10 s timeout would hold the exit.
 */
const EXIT_SLACK_MS = 1_000;

interface Session {
  /** Every JSON-RPC answer, by id. */
  answers: Map<number, Record<string, unknown>>;
  stderr: string;
  code: number | null;
  /** What the preload saw loaded at exit. */
  otelModules: string[];
  /** From closing stdin to the exit, in ms. */
  exitMs: number;
}

/** This environment without OTEL_* (nor APPMGMT_*), so a developer's own settings never decide a test. */
function envWithoutOtel(): Record<string, string> {
  return Object.fromEntries(Object.entries(cleanEnv()).filter(([name]) => !name.startsWith('OTEL_')));
}

/**
 * Runs one stdio session: initialize, then `requests` one after another (each waits for its answer),
 * then closes stdin and waits for the exit.
 */
async function session(env: Record<string, string>, requests: Array<{ method: string; params?: Record<string, unknown> }>, args = ['--sandbox']): Promise<Session> {
  const child = spawn(process.execPath, ['--require', PRELOAD, BIN, ...args], { env: { ...envWithoutOtel(), ...env } });
  const answers = new Map<number, Record<string, unknown>>();
  const waiting = new Map<number, () => void>();
  let buffer = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk;
    for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
      const message = JSON.parse(buffer.slice(0, end)) as Record<string, unknown>;
      buffer = buffer.slice(end + 1);
      if (typeof message.id === 'number') {
        answers.set(message.id, message);
        waiting.get(message.id)?.();
      }
    }
  });
  let exitedAt = 0;
  child.on('exit', () => (exitedAt = performance.now()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const send = (id: number | undefined, method: string, params?: Record<string, unknown>) =>
    new Promise<void>((resolve) => {
      if (id !== undefined) waiting.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...(id !== undefined ? { id } : {}), method, ...(params ? { params } : {}) })}\n`);
      if (id === undefined) resolve();
    });
  await send(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'otel-stdio', version: '1' } });
  await send(undefined, 'notifications/initialized');
  for (const [index, request] of requests.entries()) await send(index + 2, request.method, request.params);
  const closedAt = performance.now();
  child.stdin.end();
  const code = await exited;
  const otelModules = JSON.parse(/^otel-modules: (.*)$/m.exec(stderr)?.[1] ?? 'null') as string[];
  return { answers, stderr, code, otelModules, exitMs: exitedAt - closedAt };
}

const REQUESTS = [{ method: 'tools/list' }, { method: 'tools/call', params: { name: 'list_ad_campaigns', arguments: { app_id: 'app_demo' } } }];

describe('OpenTelemetry on stdio', () => {
  let receiver: Receiver;
  let on: Session;
  let spans: ExportedSpan[];

  beforeAll(async () => {
    receiver = await startReceiver();
    on = await session({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }, REQUESTS);
    spans = receiver.spans();
  }, 60_000);

  afterAll(async () => {
    await receiver?.close();
  });

  it('exports every request of the session when the client closes stdin, over a pipe', () => {
    expect(on.code).toBe(0);
    expect(spans.filter((span) => span.kind === SERVER_KIND).map((span) => span.name)).toEqual(['initialize', 'notifications/initialized', 'tools/list', 'tools/call list_ad_campaigns']);
    expect(spans.every((span) => span.kind !== SERVER_KIND || span.attributes['network.transport'] === 'pipe')).toBe(true);
    expect(spans.every((span) => span.service === 'app-management-mcp')).toBe(true);
  });

  it('gives later requests of a 2025-era session the protocol version negotiated at initialize', () => {
    const list = spans.find((span) => span.name === 'tools/list');
    expect(list?.attributes).toMatchObject({ 'mcp.method.name': 'tools/list', 'mcp.protocol.version': '2025-06-18', 'jsonrpc.request.id': '2' });
    // A notification has no id to record.
    expect(spans.find((span) => span.name === 'notifications/initialized')?.attributes['jsonrpc.request.id']).toBeUndefined();
  });

  it("puts the sandbox's upstream call under the tool call's span", () => {
    const call = spans.find((span) => span.name === 'tools/call list_ad_campaigns');
    const children = spans.filter((span) => span.parentSpanId === call?.spanId);
    expect(children.map((span) => [span.kind, span.name, span.attributes['http.response.status_code']])).toEqual([[CLIENT_KIND, 'GET /api/apps/{id}/adnet-ads/campaigns', 200]]);
  });

  it('loads the OpenTelemetry chunk when the environment asks for it (so the check below can fail)', () => {
    expect(on.otelModules.some((path) => path.endsWith('otel.cjs'))).toBe(true);
  });

  it('loads no OpenTelemetry module without the OTEL_* environment, and answers the same', async () => {
    const off = await session({}, REQUESTS);
    expect(off.code).toBe(0);
    expect(off.otelModules).toEqual([]);
    expect((off.answers.get(3)?.result as { isError?: boolean } | undefined)?.isError).toBeFalsy();
    expect(off.answers.get(3)?.result).toEqual(on.answers.get(3)?.result);
  }, 30_000);

  it(`gives a collector that never answers ${FLUSH_BOUND_S} s from stdin closing, then exits and says so`, async () => {
    // A collector that takes every export and never answers: the exporters' own timeout is 10 s.
    const hung = createServer(() => undefined);
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    try {
      const stuck = await session({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(hung.address() as AddressInfo).port}` }, REQUESTS.slice(0, 1));
      expect(stuck.code).toBe(0);
      // The flush waits the whole bound here; what the exit adds is what an ordinary exit took in this run, and a little.
      console.log(`exit ${Math.round(stuck.exitMs)} ms after stdin closed; an ordinary one took ${Math.round(on.exitMs)} ms`);
      expect(stuck.exitMs, `exit ${Math.round(stuck.exitMs)} ms after stdin closed; an ordinary one took ${Math.round(on.exitMs)} ms`).toBeLessThan(
        FLUSH_BOUND_S * 1_000 + on.exitMs + EXIT_SLACK_MS,
      );
      expect(stuck.stderr).toContain(`OpenTelemetry: the last export did not finish within ${FLUSH_BOUND_S} s; exiting without it`);
    } finally {
      hung.closeAllConnections();
      await new Promise<void>((resolve) => hung.close(() => resolve()));
    }
  }, 30_000);

  it('sends no traceparent upstream, though the call runs inside the trace the client sent', async () => {
    const upstream = await startUpstream();
    upstream.answer({ status: 200, body: { campaigns: [] } });
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    try {
      const traced = await session(
        { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, APPMGMT_BASE_URL: upstream.url, APPMGMT_ACCESS_TOKEN: 'token-traceparent', APPMGMT_API_KEY: 'key-traceparent', APPMGMT_LOG_LEVEL: 'error' },
        [{ method: 'tools/call', params: { name: 'list_ad_campaigns', arguments: { app_id: 'app_1' }, _meta: { traceparent: `00-${traceId}-00f067aa0ba902b7-01`, tracestate: 'vendor=x' } } }],
        [],
      );
      expect(traced.code).toBe(0);
      expect(upstream.requests).toHaveLength(1);
      expect(Object.keys(upstream.requests[0]!.headers).filter((name) => ['traceparent', 'tracestate', 'baggage'].includes(name))).toEqual([]);
      // The request did run inside the client's trace: its CLIENT span is a child of the call's.
      const call = receiver.spans().find((span) => span.name === 'tools/call list_ad_campaigns' && span.traceId === traceId);
      expect(receiver.spans().filter((span) => span.kind === CLIENT_KIND && span.parentSpanId === call?.spanId)).toHaveLength(1);
    } finally {
      await upstream.close();
    }
  }, 30_000);

  it('warns once about an OTEL_EXPORTER_OTLP_PROTOCOL it does not follow, and exports http/json all the same', async () => {
    const before = receiver.spans().length;
    const grpc = await session({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, REQUESTS.slice(0, 1));
    expect(grpc.code).toBe(0);
    expect(grpc.stderr.match(/OTEL_EXPORTER_OTLP_PROTOCOL is grpc; this server exports OTLP over HTTP as JSON \(http\/json\)/g)).toHaveLength(1);
    expect(receiver.spans().slice(before).map((span) => span.name)).toContain('tools/list');
    // The documented protocol gets no warning.
    const json = await session({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, []);
    expect(json.stderr).not.toContain('OTEL_EXPORTER_OTLP_PROTOCOL');
  }, 30_000);

  it('loads nothing when OTEL_SDK_DISABLED=true, even with an endpoint set', async () => {
    const disabled = await session({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }, []);
    expect(disabled.otelModules).toEqual([]);
  }, 30_000);
});
