import type { JSONRPCMessage, McpServer, Transport } from '@modelcontextprotocol/server';
import { limit } from '../text.js';

/**
 * What every message crosses on its way in and out, whatever the transport (issue 25): a request
 * holding more names and list items than any request to this server needs is refused before the
 * SDK reads it further (its own checks walk every name of a tool's arguments, twice, before anything
 * can look at credentials), and an error going out never echoes a client's long text back (the SDK
 * quotes an unknown resource URI, prompt name or protocol version in full, in the message and again
 * in `data`).
 */

/**
 * The names and list items a request's params may hold in all, at every depth. The largest valid
 * call, a Performance Max campaign with every list at its limit, holds about 500; a request of 60,000
 * names cost the SDK's own argument checks 150 ms of a shared event loop.
 */
export const MAX_REQUEST_ENTRIES = 2_000;
/** An error message, and each string in an error's data, is cut to this on its way out. */
export const MAX_ERROR_TEXT_CHARS = 500;

type Message = JSONRPCMessage & { id?: unknown; method?: unknown; params?: unknown; error?: { code: number; message: string; data?: unknown } };

/** The same server; every transport it connects to is guarded. */
export function guardServer(server: McpServer): McpServer {
  const inner = server.server;
  const connect = inner.connect.bind(inner);
  inner.connect = (transport: Transport) => connect(guardTransport(transport));
  return server;
}

/**
 * Wraps a transport before the SDK connects to it, as observe/mcp-spans.ts does: the dispatcher the
 * SDK installs as `onmessage` is wrapped when the SDK calls `start`, answers leave through `send`.
 */
function guardTransport(transport: Transport): Transport {
  const start = transport.start.bind(transport);
  const send = transport.send.bind(transport);
  transport.start = async () => {
    const dispatch = transport.onmessage;
    if (dispatch) {
      transport.onmessage = (message, extra) => {
        const { id, params } = message as Message;
        if (!overBudget(params)) return dispatch(message, extra);
        // A notification has no answer to give: it is dropped.
        if (typeof id === 'string' || typeof id === 'number') void send(tooLarge(id)).catch(() => undefined);
      };
    }
    return start();
  };
  transport.send = async (message, options) => send(bounded(message as Message), options);
  return transport;
}

/**
 * Whether `value` holds more than MAX_REQUEST_ENTRIES names and items. Counting stops there, the
 * items of a container are visited only once its size is known to fit (Object.values of 60,000
 * names costs four times Object.keys), and there is no recursion, so depth costs no stack.
 */
export function overBudget(value: unknown): boolean {
  const stack: unknown[] = [value];
  let entries = 0;
  while (stack.length > 0) {
    const next = stack.pop();
    if (typeof next !== 'object' || next === null) continue;
    const record = next as Record<string, unknown>;
    const keys = Array.isArray(next) ? undefined : Object.keys(record);
    entries += keys ? keys.length : (next as unknown[]).length;
    if (entries > MAX_REQUEST_ENTRIES) return true;
    for (const item of keys ? keys.map((key) => record[key]) : (next as unknown[])) if (typeof item === 'object' && item !== null) stack.push(item);
  }
  return false;
}

function tooLarge(id: string | number): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: -32602,
      message: `Invalid params: this request holds more than ${MAX_REQUEST_ENTRIES} names and list items, more than any request to this server needs; it was not read further, and nothing was run.`,
    },
  } as JSONRPCMessage;
}

/** An error answer with its message and the strings of its data cut to MAX_ERROR_TEXT_CHARS; any other message as it is. */
function bounded(message: Message): JSONRPCMessage {
  const error = message.error;
  if (typeof error !== 'object' || error === null) return message;
  const data = error.data;
  const cut = (value: unknown) => (typeof value === 'string' ? limit(value, MAX_ERROR_TEXT_CHARS) : value);
  return {
    ...message,
    error: {
      ...error,
      message: limit(String(error.message), MAX_ERROR_TEXT_CHARS),
      ...(typeof data === 'object' && data !== null && !Array.isArray(data) ? { data: Object.fromEntries(Object.entries(data).map(([key, value]) => [key, cut(value)])) } : {}),
      ...(typeof data === 'string' ? { data: cut(data) } : {}),
    },
  } as JSONRPCMessage;
}
