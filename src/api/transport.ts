import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { readStream } from '../read-stream.js';

/**
 * How one request goes out and its answer comes back. The API client sends through node:http over
 * keep-alive connections: per request it costs about half of what fetch does (fetch builds a
 * Request, a Response and web streams around each one; issue 31 measured 0.6 against 0.3 ms per
 * request), and upstream calls are most of a tool call. A caller may still give a fetch instead
 * (tests do); fetchSend adapts it to the same shape.
 */

export interface Outgoing {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** Ends the request and the reading of its answer. */
  signal: AbortSignal;
}

/** An answer whose body is read at most once, or discarded. */
export interface Answer {
  status: number;
  /** One header's value, when present. */
  header(name: string): string | undefined;
  /**
   * Reads the body, already decompressed as fetch would (gzip, deflate or br), handing it to `take`
   * chunk by chunk; `take` returning false stops the reading and frees the connection. Resolves at
   * the body's end or that stop; rejects with what ended it early (an abort, a dropped connection).
   */
  read(take: (chunk: Uint8Array) => boolean): Promise<void>;
  /** Frees the connection of an answer whose body will not be read. */
  discard(): void;
}

export type Send = (request: Outgoing) => Promise<Answer>;

/** What fetch asks for, so an upstream answers as it did before. */
const ACCEPT_ENCODING = 'gzip, deflate, br';

/**
 * node:http and node:https over keep-alive connections (one pool per process); redirects are not
 * followed. The requests made in one turn of the event loop are written together when it ends, as
 * fetch's are: under load, the API then wakes once for several (issue 31 counted the sandbox's
 * waits for work: about one per request when each was written at once, one per five together).
 */
export function nodeSend(): Send {
  const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
  let queued: (() => void)[] = [];
  const flush = () => {
    const ends = queued;
    queued = [];
    for (const end of ends) end();
  };
  return (outgoing) =>
    new Promise<Answer>((resolve, reject) => {
      const secure = outgoing.url.startsWith('https:');
      const headers: Record<string, string> = { 'accept-encoding': ACCEPT_ENCODING, ...outgoing.headers };
      if (outgoing.body !== undefined) headers['content-length'] = String(Buffer.byteLength(outgoing.body));
      else if (outgoing.method !== 'get') headers['content-length'] = '0';
      const options = { method: outgoing.method.toUpperCase(), headers, agent: secure ? agents.https : agents.http, signal: outgoing.signal };
      const request = (secure ? httpsRequest : httpRequest)(outgoing.url, options, (response) => resolve(answerOf(response)));
      request.on('error', reject); // an abort or a dropped connection after the answer began ends its body too
      // One that ended meanwhile (cancelled, past its deadline) is not written.
      if (queued.push(() => request.destroyed || request.end(outgoing.body)) === 1) setImmediate(flush);
    });
}

function answerOf(response: IncomingMessage): Answer {
  const encoding = response.headers['content-encoding']?.trim().toLowerCase();
  const decoder = encoding === 'gzip' || encoding === 'x-gzip' ? createGunzip() : encoding === 'deflate' ? createInflate() : encoding === 'br' ? createBrotliDecompress() : undefined;
  if (decoder) {
    // The response's errors (an abort, a dropped connection) end the decoded stream too.
    response.once('error', (error) => decoder.destroy(error));
    decoder.once('close', () => response.destroy());
    response.pipe(decoder);
  }
  const body = decoder ?? response;
  return {
    status: response.statusCode ?? 0,
    header: (name) => {
      const value = response.headers[name.toLowerCase()];
      return Array.isArray(value) ? value.join(', ') : value;
    },
    read: async (take) => {
      // Stopped by `take`: the rest is not read, and the connection is freed.
      if (!(await readStream(body, take))) body.destroy();
    },
    discard: () => void body.destroy(),
  };
}

/** A fetch (a test's, say) as a Send: no redirect followed, as before. */
export function fetchSend(fetch: typeof globalThis.fetch): Send {
  return async (outgoing) => {
    const response = await fetch(outgoing.url, {
      method: outgoing.method.toUpperCase(),
      headers: outgoing.headers,
      ...(outgoing.body !== undefined ? { body: outgoing.body } : {}),
      signal: outgoing.signal,
      redirect: 'manual',
    });
    // One reader, taken on the first read, so discarding cancels through it once the body is locked.
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    const body = response.body;
    return {
      status: response.status,
      header: (name) => response.headers.get(name) ?? undefined,
      read: async (take) => {
        if (!body) return;
        reader ??= body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          if (!take(value)) return void reader.cancel().catch(() => undefined);
        }
      },
      // Not awaited: cancelling a stream whose source is stalled may never settle.
      discard: () => void (reader ?? body)?.cancel().catch(() => undefined),
    };
  };
}
