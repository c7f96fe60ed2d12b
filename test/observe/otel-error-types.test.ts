import { readFileSync } from 'node:fs';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { context, SpanStatusCode, type Histogram } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { silentLog } from '../../src/log.js';
import { watchServer } from '../../src/observe/mcp-spans.js';
import type { Telemetry } from '../../src/observe/telemetry.js';
import { observeUpstream } from '../../src/observe/upstream.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import { createServer } from '../../src/server.js';
import { ROOT } from '../docs/markdown.js';
import { sandboxConfig } from '../helpers.js';

/**
 * Every `error.type` docs/operations.md promises, read from its tables, each made to happen: on the
 * CLIENT span of an upstream attempt (a deadline, a dropped connection, a cancellation, an answer
 * that is not what the operation returns, one over the size limit), and on the SERVER span of an
 * MCP request the client cancelled or never got an answer to because the connection closed.
 */

const OPERATIONS = readFileSync(`${ROOT}docs/operations.md`, 'utf8');
/** The backticked values of the table row whose first cell is `error.type`…, after `marker`. */
function documentedErrorTypes(marker: string): string[] {
  const row = OPERATIONS.split('\n').find((line) => line.startsWith('| `error.type`') && line.includes(marker));
  if (!row) throw new Error(`docs/operations.md has no error.type row with "${marker}"`);
  const values = row.slice(row.indexOf(marker));
  return [...values.matchAll(/`([a-z_]+)`/g)].map((match) => match[1]!);
}
/** CLIENT spans: "the status for a 4xx or 5xx, else `timeout`, `network`, …". */
const UPSTREAM_TYPES = documentedErrorTypes('else');
/** SERVER spans: "`cancelled` for a request the client cancelled; `connection_closed` for one never answered". */
const REQUEST_TYPES = documentedErrorTypes('for a JSON-RPC error;');

const job = { job_id: 'job_1', status: 'running', phase: 'prepare', result: null, error: null };
/** Waits for `done`, at most 5 s, so a span that never ends fails the assertions after it rather than the test's timeout. */
const untilTrue = async (done: () => boolean) => {
  const giveUp = performance.now() + 5_000;
  while (!done() && performance.now() < giveUp) await new Promise((resolve) => setTimeout(resolve, 1));
};

describe('error.type on the spans', () => {
  let sandbox: Sandbox;
  const exporter = new InMemorySpanExporter();
  const tracer = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }).getTracer('test');
  const clientSpans = () => exporter.getFinishedSpans().filter((span) => span.attributes['http.request.method'] !== undefined);

  beforeAll(async () => {
    // As dist/otel.cjs does: an upstream attempt finds its MCP span through the async context.
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    sandbox = await startSandbox();
  });
  afterAll(async () => {
    context.disable();
    await sandbox.close();
  });
  beforeEach(() => {
    sandbox.reset();
    sandbox.release();
    exporter.reset();
  });

  it('documents the values this file makes happen', () => {
    expect(UPSTREAM_TYPES).toEqual(['timeout', 'network', 'cancelled', 'unexpected_answer', 'answer_too_large']);
    expect(REQUEST_TYPES).toEqual(['cancelled', 'connection_closed']);
  });

  /** Each way an upstream attempt fails without a status worth naming, and the value its span must carry. */
  const UPSTREAM_FAILURES: Record<string, (client: (overrides?: { timeoutMs?: number; maxAnswerBytes?: number }) => ReturnType<typeof createApiClient>) => Promise<unknown>> = {
    timeout: (client) => {
      sandbox.script({ status: 200, hang: true });
      return client({ timeoutMs: 50 }).getSchedulingJob('app_1', 'job_1');
    },
    network: (client) => {
      // More drops than attempts: undici may resend an idempotent GET on its own after a dropped keep-alive socket.
      sandbox.script({ status: 200, drop: true, times: 10 });
      return client().getSchedulingJob('app_1', 'job_1');
    },
    cancelled: async (client) => {
      sandbox.script({ status: 200, hang: true });
      const controller = new AbortController();
      const pending = client().getSchedulingJob('app_1', 'job_1', { signal: controller.signal });
      await untilTrue(() => sandbox.requests.length > 0);
      controller.abort();
      return pending;
    },
    unexpected_answer: (client) => {
      sandbox.script({ status: 200, body: 'a sentence, not a job' });
      return client().getSchedulingJob('app_1', 'job_1');
    },
    answer_too_large: (client) => {
      sandbox.script({ status: 200, body: { ...job, phase: 'p'.repeat(4_096) } });
      return client({ maxAnswerBytes: 1_024 }).getSchedulingJob('app_1', 'job_1');
    },
  };

  it.each(UPSTREAM_TYPES)('marks an upstream attempt that ended in %s with that error.type and status ERROR', async (type) => {
    const failure = UPSTREAM_FAILURES[type];
    expect(failure, `no way to make ${type} happen`).toBeDefined();
    const client = ({ timeoutMs, maxAnswerBytes }: { timeoutMs?: number; maxAnswerBytes?: number } = {}) =>
      createApiClient({
        config: sandboxConfig(sandbox, timeoutMs ? { timeoutMs } : {}),
        log: silentLog,
        retryDelayMs: () => 0,
        observe: observeUpstream(tracer),
        ...(maxAnswerBytes ? { maxAnswerBytes } : {}),
      });
    await expect(failure!(client)).rejects.toThrow();
    const spans = clientSpans();
    expect(spans.length).toBeGreaterThan(0);
    // A dropped connection is retried: every attempt is a span of its own, each with the same type.
    expect(spans.map((span) => span.attributes['error.type'])).toEqual(spans.map(() => type));
    expect(spans.every((span) => span.status.code === SpanStatusCode.ERROR)).toBe(true);
    // The type names how the attempt failed, not a status: the service sent none, or a 200.
    expect(spans.map((span) => span.attributes['http.response.status_code'] ?? 'none')).toEqual(spans.map(() => (type === 'unexpected_answer' || type === 'answer_too_large' ? 200 : 'none')));
  });

  it.each(REQUEST_TYPES)('marks a tools/call that ended %s with that error.type, and its upstream attempt as cancelled', async (type) => {
    const telemetry: Telemetry = {
      watch: (server, own) =>
        watchServer(server, {
          tracer,
          duration: { record: () => undefined } as unknown as Histogram,
          propagator: new W3CTraceContextPropagator(),
          transport: 'pipe',
          active: { calls: 0 },
          own,
        }),
      upstream: observeUpstream(tracer),
      shutdown: async () => undefined,
    };
    const server = createServer({ config: sandboxConfig(sandbox), log: silentLog, telemetry });
    const [client, transport] = InMemoryTransport.createLinkedPair();
    const answered = new Set<unknown>();
    client.onmessage = (message) => void answered.add((message as { id?: unknown }).id);
    await server.connect(transport);
    await client.start();
    const send = (message: Record<string, unknown>) => client.send({ jsonrpc: '2.0', ...message } as JSONRPCMessage);
    await send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'error-types', version: '1' } } });
    await untilTrue(() => answered.has(1));
    await send({ method: 'notifications/initialized' });

    sandbox.script({ status: 200, hang: true });
    await send({ id: 2, method: 'tools/call', params: { name: 'list_ad_campaigns', arguments: { app_id: 'app_demo' } } });
    await untilTrue(() => sandbox.requests.length > 0);
    if (type === 'cancelled') await send({ method: 'notifications/cancelled', params: { requestId: 2, reason: 'the person stopped it' } });
    else await server.close();
    const call = () => exporter.getFinishedSpans().find((span: ReadableSpan) => span.name === 'tools/call list_ad_campaigns');
    await untilTrue(() => call() !== undefined && clientSpans().length > 0);
    if (type === 'cancelled') await server.close();

    expect(call()?.attributes['error.type']).toBe(type);
    expect(call()!.status.code).toBe(SpanStatusCode.ERROR);
    expect(answered.has(2)).toBe(false);
    expect(clientSpans().map((span) => [span.parentSpanContext?.spanId, span.attributes['error.type']])).toEqual([[call()!.spanContext().spanId, 'cancelled']]);
  });
});
