import type { IncomingMessage } from 'node:http';
import type { NodeIncomingMessageLike } from '@modelcontextprotocol/node';

/**
 * A POST's body, read here and handed to the SDK parsed: given only the stream, the SDK builds a web
 * Request around it and copies that Request to read the body a second time, which cost a tenth of
 * answering a tool call (issue 31). A body that is not JSON goes to the SDK as it came, for the SDK
 * to answer as it always does.
 */

/** The SDK adapter's words when a body is over its limit (the 413 it answers is the same). */
export const tooLargeMessage = (maxBytes: number) => `Payload Too Large: Request body must not exceed ${maxBytes} bytes`;

/**
 * The body's bytes, or undefined once they pass `maxBytes` (reading stops there, as the SDK's does).
 * Read through the request's events: its async iterator costs an end-of-stream watcher and a
 * promise per chunk, for a body that is one chunk (issue 31).
 * @throws what ended the body early (the client left).
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  if (Number(req.headers['content-length']) > maxBytes) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (error?: Error | null, body?: Buffer) => {
      req.off('data', data).off('end', end).off('error', settle).off('close', closed);
      if (error) reject(error);
      else resolve(body);
    };
    const data = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      settle(); // the rest is not read
      req.pause();
    };
    const end = () => settle(null, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    const closed = () => settle(req.complete ? null : Object.assign(new Error('the client left before its request was whole'), { code: 'ECONNRESET' }));
    req.on('data', data).once('end', end).once('error', settle).once('close', closed);
  });
}

/** The body as JSON, or undefined when it is not JSON (a byte order mark included: the SDK's own reading drops it). */
export function parsedJson(bytes: Buffer): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(bytes.toString('utf8')) };
  } catch {
    return undefined;
  }
}

/** The request with its body given again from `bytes`, for the SDK to read itself. */
export function replayed(req: IncomingMessage & { auth?: NodeIncomingMessageLike['auth'] }, bytes: Buffer): NodeIncomingMessageLike {
  return {
    ...(req.method !== undefined ? { method: req.method } : {}),
    ...(req.url !== undefined ? { url: req.url } : {}),
    headers: req.headers,
    ...(req.auth !== undefined ? { auth: req.auth } : {}),
    async *[Symbol.asyncIterator]() {
      if (bytes.length > 0) yield bytes;
    },
  };
}
