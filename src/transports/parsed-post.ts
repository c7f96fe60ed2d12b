import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo, McpHttpHandler } from '@modelcontextprotocol/server';

/**
 * A POST whose JSON body body.ts has already read, handed to the SDK's web-standard handler
 * (`createMcpHandler`), and the Response it gives written back. The SDK's own adapter
 * (`toNodeHandler`) does the same for any request; for this one it would build more than the SDK
 * reads. Its web Request would carry the body again (the parsed value stringified, then counted),
 * though the SDK reads `parsedBody` and never the stream; and a signal of its own, which undici
 * ties to the one given through a WeakRef and a FinalizationRegistry entry: that cost about as much
 * as the rest of the Request, and the ties made garbage collection slower (issue 31: scavenges took
 * about 15% less time per call without them, in most A/B runs; docs/performance.md). So the Request
 * here has neither, and its `signal` is the client's departure itself, which the SDK watches as it
 * watches any Request's: a client gone before its answer closes the call's exchange, and so
 * cancels what the call was waiting for upstream (test/http/departure.test.ts).
 */

/** Headers the Request does not get: they described the body it does not carry. */
const BODY_HEADERS = new Set(['content-length', 'content-encoding', 'transfer-encoding']);

export async function serveParsedPost(
  handler: McpHttpHandler,
  req: IncomingMessage & { auth?: AuthInfo },
  res: ServerResponse,
  body: unknown,
  onerror: (error: Error) => void,
): Promise<void> {
  const departure = new AbortController();
  let answered = false;
  res.once('close', () => answered || departure.abort());
  let response: Response;
  try {
    const request = new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, { method: 'POST', headers: requestHeaders(req) });
    Object.defineProperty(request, 'signal', { value: departure.signal });
    response = await handler.fetch(request, { parsedBody: body, ...(req.auth !== undefined ? { authInfo: req.auth } : {}) });
  } catch (error) {
    onerror(error instanceof Error ? error : new Error(String(error)));
    response = Response.json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: echoableId(body) }, { status: 500 });
  }
  await write(response, res, departure.signal);
  answered = true;
  res.end();
}

function requestHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || BODY_HEADERS.has(name)) continue;
    if (Array.isArray(value)) for (const each of value) headers.append(name, each);
    else headers.set(name, value);
  }
  return headers;
}

/** The Response's status, headers and body, waiting whenever the socket is full; stops when the client leaves. */
async function write(response: Response, res: ServerResponse, departed: AbortSignal): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  res.writeHead(response.status, headers);
  if (response.body === null) return;
  const reader = response.body.getReader();
  try {
    while (!departed.aborted) {
      const { done, value } = await reader.read();
      if (done) return;
      if (!res.write(value)) await drained(res, departed);
    }
    await reader.cancel();
  } catch {
    // The stream failed or the client left: what was written stands, and the answer ends here.
  }
}

function drained(res: ServerResponse, departed: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      departed.removeEventListener('abort', done);
      resolve();
    };
    res.once('drain', done);
    departed.addEventListener('abort', done, { once: true });
  });
}

/** The id an error answer may echo: a single request's string or number id, else null. */
function echoableId(body: unknown): string | number | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const { method, id } = body as { method?: unknown; id?: unknown };
  return typeof method === 'string' && (typeof id === 'string' || typeof id === 'number') ? id : null;
}
