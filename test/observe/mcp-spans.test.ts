import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/server';
import type { Attributes, Histogram } from '@opentelemetry/api';
import { beforeAll, describe, expect, it } from 'vitest';
import { silentLog } from '../../src/log.js';
import { requestIdOf, watchServer } from '../../src/observe/mcp-spans.js';
import type { Telemetry } from '../../src/observe/telemetry.js';
import { createServer } from '../../src/server.js';
import { offlineConfig } from '../helpers.js';

/**
 * Issue 25, item 5: the spans and metrics carry only values from the server's own sets. A client's
 * method, tool, prompt and protocol version outside them are `_OTHER`, a request id is kept only
 * when short and plain, and tracestate is not read. Every string a client chose here holds `Zq9`;
 * none may reach a span or a metric.
 */

const MARK = 'Zq9';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

const config = offlineConfig();

describe('the MCP spans and metrics', () => {
  const exporter = new InMemorySpanExporter();
  const recorded: Attributes[] = [];

  beforeAll(async () => {
    const tracer = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }).getTracer('test');
    const duration = { record: (_value: number, attributes: Attributes = {}) => void recorded.push(attributes) } as Histogram;
    const telemetry: Telemetry = {
      watch: (server, own) => watchServer(server, { tracer, duration, propagator: new W3CTraceContextPropagator(), transport: 'pipe', active: { calls: 0 }, own }),
      upstream: (_call, run) => run((fetch) => fetch),
      shutdown: async () => undefined,
    };
    const server = createServer({ config, log: silentLog, telemetry });
    const [client, transport] = InMemoryTransport.createLinkedPair();
    const answers = new Map<unknown, JSONRPCMessage>();
    await server.connect(transport);
    await client.start();
    const messages: Array<Record<string, unknown>> = [
      { id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'spans', version: '1' } } },
      { method: 'notifications/initialized' },
      { id: `id with "quotes" ${MARK}`, method: 'tools/call', params: { name: `no_such_tool_${MARK}`, arguments: {} } },
      { id: 3, method: 'prompts/get', params: { name: `no_such_prompt_${MARK}` } },
      { id: 4, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': `version-${MARK}`, 'io.modelcontextprotocol/clientCapabilities': {} } } },
      { id: 5, method: `made/up_${MARK}` },
      { id: 6, method: 'tools/call', params: { name: 'list_ad_campaigns', arguments: {}, _meta: { traceparent: TRACEPARENT, tracestate: `vendor=${MARK}` } } },
      { id: `id_${MARK}_${'a'.repeat(80)}`, method: 'ping' },
    ];
    const expected = messages.filter((message) => 'id' in message).length;
    const all = new Promise<void>((resolve) => {
      client.onmessage = (message) => {
        answers.set((message as { id?: unknown }).id, message);
        if (answers.size === expected) resolve();
      };
    });
    for (const message of messages) await client.send({ jsonrpc: '2.0', ...message } as JSONRPCMessage);
    await all;
    await server.close();
  });

  const spans = () => exporter.getFinishedSpans();
  const spanOf = (id: string) => spans().find((span) => span.attributes['jsonrpc.request.id'] === id);

  it("names a method, tool or prompt outside the server's own _OTHER", () => {
    expect(spans().map((span) => span.name)).toEqual(
      expect.arrayContaining(['initialize', 'notifications/initialized', 'tools/call _OTHER', 'prompts/get _OTHER', 'tools/list', '_OTHER', 'tools/call list_ad_campaigns', 'ping']),
    );
    expect(spanOf('3')?.attributes['gen_ai.prompt.name']).toBe('_OTHER');
    expect(spanOf('5')?.attributes['mcp.method.name']).toBe('_OTHER');
    expect(spans().find((span) => span.name === 'tools/call _OTHER')?.attributes['gen_ai.tool.name']).toBe('_OTHER');
  });

  it("records a protocol version outside the server's own as _OTHER, and its own as they are", () => {
    expect(spanOf('4')?.attributes['mcp.protocol.version']).toBe('_OTHER');
    expect(spanOf('1')?.attributes['mcp.protocol.version']).toBe('2025-06-18');
  });

  it('keeps a request id only when it is short and plain', () => {
    const ids = spans().map((span) => span.attributes['jsonrpc.request.id']);
    expect(ids.filter((id) => id !== undefined).sort()).toEqual(['1', '3', '4', '5', '6']);
    expect([requestIdOf(7), requestIdOf(2 ** 60), requestIdOf(1.5), requestIdOf('7f3c-uuid_like.1:2'), requestIdOf('a b'), requestIdOf('x'.repeat(65))]).toEqual([
      '7',
      undefined,
      undefined,
      '7f3c-uuid_like.1:2',
      undefined,
      undefined,
    ]);
  });

  it("continues the client's trace from traceparent, and takes no tracestate", () => {
    const call = spanOf('6');
    expect(call?.spanContext().traceId).toBe(TRACE_ID);
    expect(call?.parentSpanContext?.traceState).toBeUndefined();
    expect(call?.spanContext().traceState).toBeUndefined();
  });

  it('puts no string a client chose in any span or metric', () => {
    const exported = JSON.stringify([
      spans().map((span) => ({ name: span.name, attributes: span.attributes, events: span.events, links: span.links, parent: span.parentSpanContext, context: span.spanContext() })),
      recorded,
    ]);
    expect(recorded.length).toBe(spans().length);
    expect(exported).not.toContain(MARK);
  });
});
