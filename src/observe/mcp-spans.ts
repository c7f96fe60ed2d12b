import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Histogram, type Span, type TextMapPropagator, type Tracer } from '@opentelemetry/api';
import type { JSONRPCMessage, McpServer, MessageExtraInfo, Transport } from '@modelcontextprotocol/server';

/**
 * The server side of the OpenTelemetry semantic conventions for MCP
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/): a SERVER span per request or
 * notification a client sends, named `{mcp.method.name} {target}`, the client's trace continued from
 * `params._meta` (traceparent, tracestate), and the mcp.server.operation.duration histogram. It sits
 * on the transport, so it sees every message whatever the protocol era or transport. Argument values
 * and result text are never recorded: only method, tool or prompt name, ids and outcome.
 */

/** The convention's error.type for a CallToolResult with isError. */
export const TOOL_ERROR = 'tool_error';
/** Where 2026-07-28 requests carry their protocol version (the SDK's PROTOCOL_VERSION_META_KEY). */
const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';
/** A tool or prompt name as MCP allows it (1-128 of A-Z a-z 0-9 _ - .); anything else is not a low-cardinality target. */
const NAME = /^[A-Za-z0-9_.-]{1,128}$/;
/** A method name as MCP spells them; a client's other strings are recorded as _OTHER (they name the span). */
const METHOD = /^[A-Za-z0-9_./-]{1,128}$/;
/** A request id longer than this is not recorded: ours are short counters or UUIDs. */
const MAX_ID_CHARS = 128;

export interface McpSpanDeps {
  tracer: Tracer;
  duration: Histogram;
  propagator: TextMapPropagator;
  transport: 'pipe' | 'tcp';
  /** Tool calls in flight, for the gauge. */
  active: { calls: number };
}

type Message = JSONRPCMessage & { id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: unknown };

interface Open {
  span: Span;
  started: number;
  attributes: Attributes;
  toolCall: boolean;
}

/** The same server; every transport it connects to is watched. */
export function watchServer(server: McpServer, deps: McpSpanDeps): McpServer {
  const inner = server.server;
  const connect = inner.connect.bind(inner);
  inner.connect = (transport: Transport) => connect(watchTransport(transport, deps));
  return server;
}

/**
 * Wraps a transport before the SDK connects to it: the SDK installs its dispatcher as `onmessage`
 * and then calls `start`, which is where the dispatcher gets wrapped to run inside the request's span
 * (so upstream calls made by the handler become its children). Answers leave through `send`.
 */
function watchTransport(transport: Transport, deps: McpSpanDeps): Transport {
  const open = new Map<string, Open>();
  let negotiated: string | undefined; // a 2025-era connection's version, from its initialize answer
  const start = transport.start.bind(transport);
  transport.start = async () => {
    const dispatch = transport.onmessage;
    if (dispatch) transport.onmessage = (message, extra) => received(message as Message, extra, (ctx) => context.with(ctx, () => dispatch(message, extra)));
    return start();
  };
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    answered(message as Message);
    return send(message, options);
  };
  // Requests never answered (the connection closed, the client cancelled) still end their spans.
  const onclose = transport.onclose;
  transport.onclose = () => {
    for (const key of [...open.keys()]) finish(key, { 'error.type': 'connection_closed' });
    onclose?.();
  };
  return transport;

  function received(message: Message, extra: MessageExtraInfo | undefined, dispatch: (ctx: Context) => void): void {
    if (typeof message.method !== 'string') return dispatch(context.active());
    const params = (typeof message.params === 'object' && message.params !== null ? message.params : {}) as Record<string, unknown>;
    const meta = (typeof params._meta === 'object' && params._meta !== null ? params._meta : {}) as Record<string, unknown>;
    const method = METHOD.test(message.method) ? message.method : '_OTHER';
    const attributes = attributesOf(method, params, meta, extra);
    const parent = deps.propagator.extract(ROOT_CONTEXT, meta, metaGetter);
    const target = (attributes['gen_ai.tool.name'] ?? attributes['gen_ai.prompt.name']) as string | undefined;
    const span = deps.tracer.startSpan(target ? `${method} ${target}` : method, { kind: SpanKind.SERVER, attributes }, parent);
    const key = requestKey(message.id);
    if (key === undefined) {
      // A notification: nothing answers it, so its span covers its dispatch. A cancellation also ends
      // the span of the request it cancels: the SDK sends no answer for that one.
      if (method === 'notifications/cancelled') finish(requestKey(params.requestId), { 'error.type': 'cancelled' });
      dispatch(trace.setSpan(parent, span));
      end(span, performance.now(), attributes, {});
      return;
    }
    const id = requestIdOf(message.id);
    if (id !== undefined) span.setAttribute('jsonrpc.request.id', id);
    const toolCall = method === 'tools/call';
    if (toolCall) deps.active.calls += 1;
    open.set(key, { span, started: performance.now(), attributes, toolCall });
    dispatch(trace.setSpan(parent, span));
  }

  function attributesOf(method: string, params: Record<string, unknown>, meta: Record<string, unknown>, extra: MessageExtraInfo | undefined): Attributes {
    const attributes: Attributes = { 'mcp.method.name': method, 'network.transport': deps.transport };
    if (deps.transport === 'tcp') attributes['network.protocol.name'] = 'http';
    const version = stringOf(meta[PROTOCOL_VERSION_META_KEY]) ?? stringOf(extra?.request?.headers.get('mcp-protocol-version')) ?? negotiated;
    if (version !== undefined && NAME.test(version)) attributes['mcp.protocol.version'] = version;
    const session = transport.sessionId ?? stringOf(extra?.request?.headers.get('mcp-session-id'));
    if (session !== undefined && NAME.test(session)) attributes['mcp.session.id'] = session;
    const name = stringOf(params.name);
    if (method === 'tools/call') {
      attributes['gen_ai.operation.name'] = 'execute_tool';
      if (name !== undefined && NAME.test(name)) attributes['gen_ai.tool.name'] = name;
    }
    if (method === 'prompts/get' && name !== undefined && NAME.test(name)) attributes['gen_ai.prompt.name'] = name;
    return attributes;
  }

  function answered(message: Message): void {
    const key = requestKey(message.id);
    if (key === undefined || typeof message.method === 'string') return; // a request or notification of our own
    const entry = open.get(key);
    if (!entry) return;
    const result = (typeof message.result === 'object' && message.result !== null ? message.result : undefined) as Record<string, unknown> | undefined;
    const version = stringOf(result?.protocolVersion);
    if (entry.attributes['mcp.method.name'] === 'initialize' && version !== undefined && NAME.test(version)) {
      negotiated = version;
      entry.attributes['mcp.protocol.version'] = version;
      entry.span.setAttribute('mcp.protocol.version', version);
    }
    const code = (message.error as { code?: unknown } | undefined)?.code;
    if (typeof code === 'number') finish(key, { 'error.type': String(code), 'rpc.response.status_code': String(code) });
    else if (entry.toolCall && result?.isError === true) finish(key, { 'error.type': TOOL_ERROR });
    else finish(key, {});
  }

  function finish(key: string | undefined, outcome: Attributes): void {
    const entry = key === undefined ? undefined : open.get(key);
    if (key === undefined || !entry) return;
    open.delete(key);
    if (entry.toolCall) deps.active.calls -= 1;
    end(entry.span, entry.started, entry.attributes, outcome);
  }

  /** Ends a span with its outcome, and records its duration with the convention's metric attributes. */
  function end(span: Span, started: number, attributes: Attributes, outcome: Attributes): void {
    span.setAttributes(outcome);
    // The convention asks for the JSON-RPC error message as the description; ours can quote what a
    // client sent, so the status says only that it failed, and error.type says how.
    if (outcome['error.type'] !== undefined) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
    const { 'mcp.session.id': _, ...metric } = { ...attributes, ...outcome }; // per-session values would make a series per session
    deps.duration.record((performance.now() - started) / 1000, metric);
  }

  /** The key of a request id, recorded as jsonrpc.request.id; undefined for a notification (no id, or null). */
  function requestKey(id: unknown): string | undefined {
    if (typeof id !== 'string' && typeof id !== 'number') return undefined;
    return `${typeof id}:${String(id)}`;
  }
}

/** jsonrpc.request.id, when the message has one worth recording. */
export function requestIdOf(id: unknown): string | undefined {
  if (typeof id !== 'string' && typeof id !== 'number') return undefined;
  const text = String(id);
  return text.length <= MAX_ID_CHARS ? text : undefined;
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Reads traceparent, tracestate and baggage from params._meta, unprefixed as SEP-414 writes them. */
const metaGetter = {
  keys: (carrier: Record<string, unknown>) => Object.keys(carrier),
  get: (carrier: Record<string, unknown>, key: string) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
};
