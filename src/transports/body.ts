import type { IncomingMessage } from 'node:http';
import type { NodeIncomingMessageLike } from '@modelcontextprotocol/node';
import { readStream } from '../read-stream.js';

/**
 * A POST's body, read here and handed to the SDK parsed: given only the stream, the SDK builds a web
 * Request around it and copies that Request to read the body a second time, which cost a tenth of
 * answering a tool call (issue 31). A body that is not JSON goes to the SDK as it came, for the SDK
 * to answer as it always does.
 */

/** The SDK adapter's words when a body is over its limit (the 413 it answers is the same). */
export const tooLargeMessage = (maxBytes: number) => `Payload Too Large: Request body must not exceed ${maxBytes} bytes`;

/**
 * The body's bytes, or undefined once they pass `maxBytes`: reading stops there, as the SDK's does,
 * and the request is left paused for the 413.
 * @throws what ended the body early (the client left).
 */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  if (Number(req.headers['content-length']) > maxBytes) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  const whole = await readStream(req, (chunk) => {
    size += chunk.length;
    if (size > maxBytes) return false;
    chunks.push(chunk);
    return true;
  });
  if (!whole) return undefined;
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
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
