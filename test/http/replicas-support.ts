import type { HttpProcess } from './harness.js';

/**
 * Helpers for running several replicas of the http server side by side: a fetch that spreads a
 * client's requests over them, and a raw 2026-07-28 tools/call to hand-craft approval rounds.
 */

/** One HTTP request a routing fetch sent: to which replica, what it carried, what came back. */
export interface Routed {
  replica: string;
  method: string;
  /** The JSON-RPC method, or undefined for a non-JSON body. */
  rpc?: string;
  /** Whether a tools/call carried a requestState (an approval retry). */
  retry: boolean;
  /** The answer's resultType, when it was a JSON result. */
  resultType?: string;
}

/**
 * A fetch that sends the n-th HTTP request to `replicas[n % replicas.length]` (rewriting the /mcp
 * URL's port), and records each request in `routed`.
 */
export function alternatingFetch(replicas: Record<string, HttpProcess>): { fetch: typeof fetch; routed: Routed[] } {
  const names = Object.keys(replicas);
  const routed: Routed[] = [];
  let next = 0;
  const routing: typeof fetch = async (input, init) => {
    const replica = names[next++ % names.length]!;
    const url = new URL(input instanceof Request ? input.url : String(input));
    url.port = replicas[replica]!.mcp.port;
    const body = typeof init?.body === 'string' ? tryJson(init.body) : undefined;
    const entry: Routed = {
      replica,
      method: init?.method ?? 'GET',
      ...(typeof body?.method === 'string' ? { rpc: body.method } : {}),
      retry: typeof (body?.params as Record<string, unknown> | undefined)?.requestState === 'string',
    };
    routed.push(entry);
    const response = await fetch(url, init);
    const answer = parseRpcBody(await response.clone().text());
    const resultType = (answer?.result as Record<string, unknown> | undefined)?.resultType;
    if (typeof resultType === 'string') entry.resultType = resultType;
    return response;
  };
  return { fetch: routing, routed };
}

export interface RpcAnswer {
  status: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

export const CLIENT_INFO = { name: 'raw-2026', version: '1.0.0' };

/**
 * A 2026-07-28 tools/call POSTed by hand to `mcp`, as the v2 SDK client sends it (same headers and
 * envelope), declaring form elicitation. `extra` adds params such as requestState and inputResponses.
 */
export async function rawToolCall(
  mcp: URL,
  headers: Record<string, string>,
  name: string,
  args: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Promise<RpcAnswer> {
  const body = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name,
      arguments: args,
      ...extra,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
        'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
      },
    },
  };
  const response = await fetch(mcp, {
    method: 'POST',
    headers: {
      ...headers,
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const answer = parseRpcBody(text);
  if (!answer) throw new Error(`not a JSON-RPC answer (HTTP ${response.status}): ${text.slice(0, 500)}`);
  return { status: response.status, ...(answer as Omit<RpcAnswer, 'status'>) };
}

/** A JSON-RPC answer from a JSON body or the last `data:` line of an SSE stream that holds one. */
export function parseRpcBody(text: string): Record<string, unknown> | undefined {
  const direct = tryJson(text);
  if (direct) return direct;
  const events = text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => tryJson(line.slice(5).trim()))
    .filter((message) => message && ('result' in message || 'error' in message));
  return events.at(-1);
}

function tryJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The signed requestState `v1.<payload>.<signature>` with its payload changed and the signature kept. */
export function forgedPayload(state: string, change: (payload: Record<string, unknown>) => void): string {
  const [version, payload, signature] = state.split('.');
  const decoded = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as Record<string, unknown>;
  change(decoded);
  return `${version}.${Buffer.from(JSON.stringify(decoded)).toString('base64url')}.${signature}`;
}

/** The signed requestState with the first character of its signature changed (all of its bits count). */
export function forgedSignature(state: string): string {
  const [version, payload, signature] = state.split('.');
  const first = signature![0] === 'A' ? 'B' : 'A';
  return `${version}.${payload}.${first}${signature!.slice(1)}`;
}

/** The decoded payload of a signed requestState. */
export function statePayload(state: string): unknown {
  return JSON.parse(Buffer.from(state.split('.')[1]!, 'base64url').toString('utf8'));
}

/** GET /readyz status of each replica. */
export async function readiness(...replicas: HttpProcess[]): Promise<number[]> {
  return Promise.all(replicas.map(async (replica) => (await fetch(`${replica.url}/readyz`)).status));
}

/** Polls /readyz of every replica until all answer `status`, for at most `timeoutMs`; resolves with the last statuses. */
export async function pollReadiness(replicas: HttpProcess[], status: number, timeoutMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const statuses = await readiness(...replicas);
    if (statuses.every((each) => each === status) || Date.now() > deadline) return statuses;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
