import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Histogram, type Span, type TextMapPropagator, type Tracer } from '@opentelemetry/api';
import type { JSONRPCMessage, McpServer, MessageExtraInfo, Transport } from '@modelcontextprotocol/server';
import type { OwnNames } from './telemetry.js';

/**
 * The server side of the OpenTelemetry semantic conventions for MCP
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/): a SERVER span per request or
 * notification a client sends, named `{mcp.method.name} {target}`, the client's trace continued from
 * `params._meta` (traceparent), and the mcp.server.operation.duration histogram. It sits on the
 * transport, so it sees every message whatever the protocol era or transport. Argument values and
 * result text are never recorded, and no string a client chose is exported as it was sent: a method,
 * tool, prompt or protocol version outside the server's own sets is `_OTHER` (as the convention
 * directs for unknown methods), a request id only when short and plain, and tracestate, baggage and
 * headers not at all (issue 25: 20,000 made-up method names were 20,000 series, and 16 MB exports).
 */

/** The convention's error.type for a CallToolResult with isError. */
export const TOOL_ERROR = 'tool_error';
/** What stands for a value outside the server's own set, in attributes and span names. */
export const OTHER = '_OTHER';
/** Where 2026-07-28 requests carry their protocol version (the SDK's PROTOCOL_VERSION_META_KEY). */
const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';
/** The MCP methods a client sends a server, requests and notifications, in every era this server speaks. */
export const MCP_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'ping',
  'server/discover',
  'subscriptions/listen',
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'resources/subscribe',
  'resources/unsubscribe',
  'completion/complete',
  'logging/setLevel',
  'tasks/get',
  'tasks/list',
  'tasks/result',
  'tasks/cancel',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/roots/list_changed',
  'notifications/tasks/status',
]);
/** A request id is recorded only in this shape: a counter, a UUID, a short token; anything else a client sent stays out. */
const PLAIN_ID = /^[A-Za-z0-9_.:-]{1,64}$/;
/** A traceparent is 55 characters (version 00); a longer one is not read. */
const MAX_TRACEPARENT_CHARS = 64;

export interface McpSpanDeps {
  tracer: Tracer;
  duration: Histogram;
  propagator: TextMapPropagator;
  transport: 'pipe' | 'tcp';
  /** Tool calls in flight, for the gauge. */
  active: { calls: number };
  own: OwnNames;
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
    const method = MCP_METHODS.has(message.method) ? message.method : OTHER;
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
    if (version !== undefined) attributes['mcp.protocol.version'] = own(deps.own.protocolVersions, version);
    // Only a session the transport itself made; a client's Mcp-Session-Id header is never read.
    if (transport.sessionId !== undefined) attributes['mcp.session.id'] = transport.sessionId;
    const name = stringOf(params.name);
    if (method === 'tools/call') {
      attributes['gen_ai.operation.name'] = 'execute_tool';
      if (name !== undefined) attributes['gen_ai.tool.name'] = own(deps.own.tools, name);
    }
    if (method === 'prompts/get' && name !== undefined) attributes['gen_ai.prompt.name'] = own(deps.own.prompts, name);
    return attributes;
  }

  function answered(message: Message): void {
    const key = requestKey(message.id);
    if (key === undefined || typeof message.method === 'string') return; // a request or notification of our own
    const entry = open.get(key);
    if (!entry) return;
    const result = (typeof message.result === 'object' && message.result !== null ? message.result : undefined) as Record<string, unknown> | undefined;
    const answeredVersion = stringOf(result?.protocolVersion);
    if (entry.attributes['mcp.method.name'] === 'initialize' && answeredVersion !== undefined) {
      const version = own(deps.own.protocolVersions, answeredVersion);
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

/** jsonrpc.request.id, when the message has one that is short and plain (a whole number, or PLAIN_ID). */
export function requestIdOf(id: unknown): string | undefined {
  if (typeof id === 'number') return Number.isSafeInteger(id) ? String(id) : undefined;
  return typeof id === 'string' && PLAIN_ID.test(id) ? id : undefined;
}

/** `value` when the server has it among `names`, else _OTHER. */
function own(names: ReadonlySet<string>, value: string): string {
  return names.has(value) ? value : OTHER;
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Reads only traceparent from params._meta (unprefixed, as SEP-414 writes it). tracestate and
 * baggage are a client's free text: the span would carry and export tracestate as sent, and nothing
 * here uses baggage.
 */
const metaGetter = {
  keys: (carrier: Record<string, unknown>) => (typeof carrier.traceparent === 'string' ? ['traceparent'] : []),
  get: (carrier: Record<string, unknown>, key: string) => {
    const value = key === 'traceparent' ? carrier.traceparent : undefined;
    return typeof value === 'string' && value.length <= MAX_TRACEPARENT_CHARS ? value : undefined;
  },
};
