import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { nodeSend, type Send } from '../../src/api/transport.js';
import { loadConfig, type Config } from '../../src/config.js';

/** A small misbehaving upstream on 127.0.0.1: each test sets how it answers. */

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface Upstream {
  url: string;
  /** Every request received since the last reset, in order. */
  requests: Array<{ method: string; url: string; headers: IncomingMessage['headers'] }>;
  handle(handler: Handler): void;
  /** Answers in order; the last one repeats. */
  answer(...answers: Answer[]): void;
  /** Forgets requests and the handler (open connections stay: the client's keep-alive pool reuses them). */
  reset(): void;
  close(): Promise<void>;
}

export const credentials = { accessToken: 'token-1', apiKey: 'key-1', monitoringApiKey: 'mon-1' };

export async function startUpstream(): Promise<Upstream> {
  let handler: Handler = (_req, res) => send(res, { status: 404 });
  const requests: Upstream['requests'] = [];
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers });
    req.resume();
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    handle: (next) => void (handler = next),
    answer(...answers) {
      let index = 0;
      handler = (_req, res) => send(res, answers[Math.min(index++, answers.length - 1)]!);
    },
    reset() {
      requests.length = 0;
      handler = (_req, res) => send(res, { status: 404 });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function send(res: ServerResponse, answer: Answer): void {
  const text = answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
  res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
  res.end(text);
}

/** Config pointing at an upstream, with test credentials, read the way the server reads its own. */
export function upstreamConfig(upstream: Upstream, overrides: Partial<Config> = {}): Config {
  const config = loadConfig({
    APPMGMT_BASE_URL: upstream.url,
    APPMGMT_ACCESS_TOKEN: credentials.accessToken,
    APPMGMT_API_KEY: credentials.apiKey,
    APPMGMT_MONITORING_API_KEY: credentials.monitoringApiKey,
  });
  return { ...config, timeoutMs: 5_000, resolveTimeoutMs: 10_000, ...overrides };
}

export const job = { job_id: 'job_1', status: 'running', phase: 'prepare', result: null, error: null };

/** The error a promise rejects with (fails the test if it resolves). */
export async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a failure, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

/**
 * The server's own transport (node:http, its own pool), counting the bytes of every answer body as
 * it hands them on: after gzip, deflate or br was undone, as the client reads them. `inflated` is
 * what a compressed answer cost to decode.
 */
export function countingSend(): { send: Send; inflated: number } {
  const send = nodeSend();
  const counter = {
    inflated: 0,
    send: (async (outgoing) => {
      const answer = await send(outgoing);
      return {
        ...answer,
        read: (take: (chunk: Uint8Array) => boolean) =>
          answer.read((chunk) => {
            counter.inflated += chunk.byteLength;
            return take(chunk);
          }),
      };
    }) as Send,
  };
  return counter;
}
