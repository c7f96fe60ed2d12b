import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import { connectHttp, startHttp, type HttpProcess } from '../http/harness.js';
import { CLIENT_KIND, SERVER_KIND, STATUS_ERROR, startReceiver, type ExportedSpan, type Receiver } from './otlp-receiver.js';

/**
 * The built server over Streamable HTTP with the standard OTEL_* environment pointing at a real
 * OTLP/HTTP receiver in this test: what it exports after a short session and a SIGTERM drain.
 */

/** The client's trace this session continues (W3C traceparent sent in params._meta). */
const CLIENT_TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN_ID = '00f067aa0ba902b7';
/** Credentials that must never reach an exported byte: one set in the environment, one sent by a caller and refused upstream. */
const ENV_TOKEN = 'pat_env_secret_7Qx93kLmZ';
const WRONG_TOKEN = 'pat_wrong_secret_Vb20pQwe8';
const WRONG_KEY = 'key_wrong_secret_Hn71sTgk4';
/** An argument value that must not be exported either. */
const ARGUMENT_VALUE = 'campaign-name-arg-Zy81';

let sandbox: Sandbox;
let receiver: Receiver;
let server: HttpProcess;
let spans: ExportedSpan[];

interface Answer {
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/**
 * Strings a client chose, each sent once below, none of which may be exported: an unknown tool and
 * prompt, a request id that is not plain, a long one, an Mcp-Session-Id header and a tracestate.
 * (A protocol version the server does not speak never gets past the SDK over HTTP; mcp-spans.test.ts
 * sends one where it does.)
 */
const CLIENT_STRINGS = {
  tool: 'no_such_tool_Zq9',
  prompt: 'no_such_prompt_Zq9',
  id: 'id with "quotes" Zq9',
  longId: `long_id_Zq9_${'a'.repeat(80)}`,
  session: 'session-Zq9-client',
  tracestate: 'vendor=tracestate-Zq9',
};

/** One stateless 2025-06-18 request, answered as JSON or as one SSE event. */
async function rpc(
  id: number | string,
  method: string,
  params: Record<string, unknown>,
  credentials: { token: string; key: string },
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(server.mcp, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      authorization: `Bearer ${credentials.token}`,
      'x-appmgmt-api-key': credentials.key,
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  });
  const text = await response.text();
  const json = response.headers.get('content-type')?.includes('text/event-stream') ? /^data: (.*)$/m.exec(text)?.[1] : text;
  return JSON.parse(json ?? 'null') as Answer;
}

const byName = (name: string) => spans.filter((span) => span.name === name);
const childrenOf = (parent: ExportedSpan) => spans.filter((span) => span.parentSpanId === parent.spanId && span.traceId === parent.traceId);

beforeAll(async () => {
  sandbox = await startSandbox({ control: true });
  receiver = await startReceiver();
  const demo = { token: sandbox.simulation.credentials.accessToken, key: sandbox.simulation.credentials.apiKey };
  server = await startHttp([], {
    APPMGMT_BASE_URL: sandbox.url,
    APPMGMT_MONITORING_URL: sandbox.url,
    APPMGMT_ACCESS_TOKEN: ENV_TOKEN,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_SERVICE_NAME: 'otel-test-service',
  });
  await rpc(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'otel-test', version: '1' } }, demo);
  // The health check answers 503 once (retry at once), then 200: two attempts, one retry.
  sandbox.script({ method: 'GET', path: '/api/v1/monitoring/health', status: 503, headers: { 'retry-after': '0' }, body: { detail: 'busy' } });
  const traceparent = `00-${CLIENT_TRACE_ID}-${CLIENT_SPAN_ID}-01`;
  await rpc(2, 'tools/call', { name: 'check_connection', arguments: {}, _meta: { traceparent, tracestate: CLIENT_STRINGS.tracestate } }, demo);
  await rpc(3, 'tools/call', { name: 'list_ad_campaigns', arguments: { app_id: 'app_demo' } }, demo, { 'mcp-session-id': CLIENT_STRINGS.session });
  // Refused upstream: the tool answers isError.
  await rpc(4, 'tools/call', { name: 'list_ad_campaigns', arguments: { app_id: 'app_demo' } }, { token: WRONG_TOKEN, key: WRONG_KEY });
  // A warning only (nothing spent): its argument values must not be exported.
  await rpc(5, 'tools/call', { name: 'create_ad_campaign', arguments: { app_id: 'app_demo', campaign_name: ARGUMENT_VALUE, campaign_type: 'SMART', daily_budget_micros: 5_000_000, landing_page: 'https://demo-planner.sandbox.test/' } }, demo);
  await rpc(6, 'no/such_method', {}, demo);
  // A method no MCP name looks like (here with an argument value in it) must not name a span.
  await rpc(7, `tools/call ${ARGUMENT_VALUE}`, {}, demo);
  // Names and ids a client chose, outside the server's own sets: none may be exported as sent.
  await rpc(8, 'tools/call', { name: CLIENT_STRINGS.tool, arguments: {} }, demo);
  await rpc(9, 'prompts/get', { name: CLIENT_STRINGS.prompt }, demo);
  await rpc(CLIENT_STRINGS.id, 'ping', {}, demo);
  await rpc(CLIENT_STRINGS.longId, 'ping', {}, demo);
  // A 2026-07-28 client: the version travels in each request's envelope.
  const modern = await connectHttp(server.mcp, '2026-07-28', { headers: { authorization: `Bearer ${demo.token}`, 'x-appmgmt-api-key': demo.key } });
  expect((await modern.callTool('list_group_shares', { app_id: 'app_demo' })).isError).toBe(false);
  await modern.close();
  // The drain flushes the exporters before the process exits.
  expect(await server.stop('SIGTERM')).toBe(0);
  spans = receiver.spans();
}, 60_000);

afterAll(async () => {
  await server?.stop('SIGKILL');
  await receiver?.close();
  await sandbox?.close();
});

describe('OpenTelemetry over HTTP (OTLP/HTTP JSON to a real receiver)', () => {
  it('exports a SERVER span per MCP request, named by method and tool', () => {
    const names = spans.filter((span) => span.kind === SERVER_KIND).map((span) => span.name);
    expect(names).toEqual(expect.arrayContaining(['initialize', 'tools/call check_connection', 'tools/call list_ad_campaigns', 'tools/call create_ad_campaign', '_OTHER']));
    expect(byName('tools/call list_ad_campaigns')).toHaveLength(2);
    expect(spans.every((span) => span.service === 'otel-test-service')).toBe(true);
  });

  it("records the convention's attributes on a tool call", () => {
    const [call] = byName('tools/call check_connection');
    expect(call?.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'check_connection',
      'gen_ai.operation.name': 'execute_tool',
      'jsonrpc.request.id': '2',
      'mcp.protocol.version': '2025-06-18',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
    });
    expect(call?.attributes['error.type']).toBeUndefined();
    expect(call?.status?.code).not.toBe(STATUS_ERROR);
  });

  it('continues the trace the client sent in params._meta', () => {
    const [call] = byName('tools/call check_connection');
    expect(call?.traceId).toBe(CLIENT_TRACE_ID);
    expect(call?.parentSpanId).toBe(CLIENT_SPAN_ID);
    // A request without traceparent starts its own trace.
    expect(byName('initialize')[0]?.traceId).not.toBe(CLIENT_TRACE_ID);
  });

  it('marks a tool result with isError as error.type tool_error, so failing tools do not look healthy', () => {
    const [ok, refused] = byName('tools/call list_ad_campaigns').sort((a, b) => Number(a.attributes['jsonrpc.request.id']) - Number(b.attributes['jsonrpc.request.id']));
    expect(ok?.attributes['error.type']).toBeUndefined();
    expect(refused?.attributes['error.type']).toBe('tool_error');
    expect(refused?.status?.code).toBe(STATUS_ERROR);
  });

  it("records a 2026-07-28 request's protocol version from its envelope, with its upstream child", () => {
    const [call] = byName('tools/call list_group_shares');
    expect(call?.attributes).toMatchObject({ 'mcp.protocol.version': '2026-07-28', 'gen_ai.tool.name': 'list_group_shares' });
    expect(childrenOf(call!).map((span) => [span.name, span.attributes['http.response.status_code']])).toEqual([['GET /api/apps/{id}/group-shares', 200]]);
  });

  it('marks a JSON-RPC error with its code', () => {
    const unknown = byName('_OTHER').find((span) => span.attributes['jsonrpc.request.id'] === '6');
    expect(unknown?.attributes).toMatchObject({ 'error.type': '-32601', 'rpc.response.status_code': '-32601' });
    expect(unknown?.status?.code).toBe(STATUS_ERROR);
  });

  it('names a span _OTHER for any method outside MCP, whatever it looks like', () => {
    const others = byName('_OTHER').map((span) => span.attributes);
    expect(others).toEqual([
      expect.objectContaining({ 'mcp.method.name': '_OTHER', 'jsonrpc.request.id': '6', 'error.type': '-32601' }),
      expect.objectContaining({ 'mcp.method.name': '_OTHER', 'jsonrpc.request.id': '7', 'error.type': '-32601' }),
    ]);
  });

  it("records a tool or prompt outside the server's own as _OTHER, a request id only when short and plain, and no session a client named", () => {
    expect(byName('tools/call _OTHER')[0]?.attributes).toMatchObject({ 'gen_ai.tool.name': '_OTHER', 'jsonrpc.request.id': '8' });
    expect(byName('prompts/get _OTHER')[0]?.attributes).toMatchObject({ 'gen_ai.prompt.name': '_OTHER', 'jsonrpc.request.id': '9' });
    const pings = byName('ping');
    expect(pings).toHaveLength(2);
    for (const ping of pings) expect(ping.attributes['jsonrpc.request.id']).toBeUndefined();
    for (const span of spans) expect(span.attributes['mcp.session.id']).toBeUndefined();
  });

  it('exports a CLIENT child span per upstream attempt, with status, template, host and retry count', () => {
    const [call] = byName('tools/call check_connection');
    const attempts = childrenOf(call!).filter((span) => span.kind === CLIENT_KIND);
    expect(attempts.map((span) => span.name)).toEqual(['GET /api/v1/monitoring/health', 'GET /api/v1/monitoring/health']);
    const [first, retry] = attempts.sort((a, b) => Number(a.attributes['http.request.resend_count'] ?? 0) - Number(b.attributes['http.request.resend_count'] ?? 0));
    expect(first?.attributes).toMatchObject({ 'http.request.method': 'GET', 'http.response.status_code': 503, 'error.type': '503', 'server.address': '127.0.0.1' });
    expect(first?.attributes['http.request.resend_count']).toBeUndefined();
    expect(retry?.attributes).toMatchObject({ 'http.response.status_code': 200, 'http.request.resend_count': 1 });
    expect(retry?.attributes['error.type']).toBeUndefined();

    const [ok, refused] = byName('tools/call list_ad_campaigns').sort((a, b) => Number(a.attributes['jsonrpc.request.id']) - Number(b.attributes['jsonrpc.request.id']));
    expect(childrenOf(ok!).map((span) => [span.name, span.attributes['url.template'], span.attributes['http.response.status_code']])).toEqual([
      ['GET /api/apps/{id}/adnet-ads/campaigns', '/api/apps/{id}/adnet-ads/campaigns', 200],
    ]);
    expect(childrenOf(refused!).map((span) => span.attributes['http.response.status_code'])).toEqual([401]);
  });

  it('exports the mcp.server.operation.duration histogram in seconds, with the convention attributes', () => {
    const histograms = receiver.metrics().filter((metric) => metric.name === 'mcp.server.operation.duration');
    expect(histograms.length).toBeGreaterThan(0);
    expect(histograms[0]?.unit).toBe('s');
    const points = histograms.flatMap((metric) => metric.histogram?.dataPoints ?? []);
    const keys = points.map((point) => Object.fromEntries(point.attributes.map(({ key, value }) => [key, value.stringValue])));
    expect(keys).toContainEqual(expect.objectContaining({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'list_ad_campaigns', 'error.type': 'tool_error' }));
    expect(points[0]?.explicitBounds).toEqual([0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]);
    // Per-request ids would make a series per request.
    expect(keys.some((attributes) => 'jsonrpc.request.id' in attributes)).toBe(false);
  });

  it('exports the gauges an operator watches: tool calls in flight and gate store reachability', () => {
    const names = receiver.metrics().map((metric) => metric.name);
    expect(names).toEqual(expect.arrayContaining(['app_management_mcp.tool_calls.active', 'app_management_mcp.gate.pending_warnings', 'app_management_mcp.gate.store.reachable']));
    const pending = receiver.metrics().find((metric) => metric.name === 'app_management_mcp.gate.pending_warnings');
    // The create_ad_campaign warning above is still pending.
    expect(Number(pending?.gauge?.dataPoints[0]?.asInt ?? pending?.gauge?.dataPoints[0]?.asDouble)).toBe(1);
  });

  it('exports no credential, no argument value and no string a client chose, in any byte received', () => {
    expect(receiver.received.length).toBeGreaterThan(0);
    const secrets = [ENV_TOKEN, WRONG_TOKEN, WRONG_KEY, sandbox.simulation.credentials.accessToken, sandbox.simulation.credentials.apiKey, ARGUMENT_VALUE, 'Zq9', 'no/such_method'];
    for (const { body } of receiver.received) {
      const raw = body.toString('latin1');
      for (const secret of secrets) expect(raw.includes(secret), `${secret} in an export`).toBe(false);
    }
    // The received bodies are really the decoded OTLP JSON (not, say, empty): the check above read something.
    expect(receiver.received.every((entry) => entry.contentType.startsWith('application/json'))).toBe(true);
  });
});
