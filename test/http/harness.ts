import { spawn, type ChildProcess } from 'node:child_process';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttpTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdioTransport } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as LegacyHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { silentLog } from '../../src/log.js';
import type { ServerFactory } from '../../src/server.js';
import { serveHttp, type HttpOptions, type HttpServer } from '../../src/transports/http.js';
import { BIN, cleanEnv } from '../process.js';

/**
 * The built server as a child process (its `http` command, or stdio), and clients of every
 * protocol era speaking to it: the v1 SDK client (2025-06-18, 2025-11-25) and the v2 SDK client
 * (2026-07-28).
 */

export interface HttpProcess {
  child: ChildProcess;
  /** http://127.0.0.1:PORT */
  url: string;
  mcp: URL;
  stderr(): string;
  exited: Promise<number | null>;
  /** Sends `signal` (SIGTERM by default) and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `app-management-mcp http --port PORT …args` (a free port by default) and waits until it says where it listens. */
export async function startHttp(args: string[] = [], env: Record<string, string> = {}, port = 0): Promise<HttpProcess> {
  const child = spawn(process.execPath, [BIN, 'http', '--port', String(port), ...args], { env: { ...cleanEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk;
      const found = /serving MCP on (http:\/\/[^/\s]+)\/mcp/.exec(stderr);
      if (found) resolve(found[1]!);
    });
    void exited.then((code) => reject(new Error(`the http server exited (${code}) before listening:\n${stderr}`)));
  });
  return {
    child,
    url,
    mcp: new URL(`${url}/mcp`),
    stderr: () => stderr,
    exited,
    stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** A campaign in the sandbox's demo app, named `name`: each name is a distinct set of arguments for the gate. */
export const campaign = (name: string) => ({
  app_id: 'app_demo',
  campaign_name: name,
  campaign_type: 'SMART',
  daily_budget_micros: 5_000_000,
  landing_page: 'https://demo-planner.sandbox.test/',
});

export type Era = '2025-06-18' | '2025-11-25' | '2026-07-28';
export const ERAS: Era[] = ['2025-06-18', '2025-11-25', '2026-07-28'];

export interface AnyClient {
  era: Era;
  callTool(name: string, args?: Record<string, unknown>): Promise<CallOutcome>;
  listTools(): Promise<Array<{ name: string; _meta?: Record<string, unknown> }>>;
  /** The client's own SDK, for what the helpers above do not cover (resources, raw results, capabilities). */
  sdk: GenericClient;
  /** Answers approval forms (elicitation) with `answer`; records each message. */
  answerForms(answer: (message: string) => { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> }): string[];
  close(): Promise<void>;
}

export interface CallOutcome {
  text: string;
  isError: boolean;
  structured?: Record<string, unknown>;
}

/**
 * Connects a client of `era` to `mcp` sending `headers` with every request. The v1 client always
 * asks for 2025-11-25 at initialize; for 2025-06-18 its first message is rewritten to ask for that
 * version, which the server then uses (the v1 client accepts it).
 */
export async function connectHttp(
  mcp: URL,
  era: Era,
  options: { headers?: Record<string, string>; capabilities?: ClientCapabilities; fetch?: typeof fetch } = {},
): Promise<AnyClient> {
  const requestInit = { headers: options.headers ?? {} };
  const capabilities = options.capabilities ?? {};
  if (era === '2026-07-28') {
    // The two SDKs type capabilities slightly differently; the value is the same JSON.
    const client = new ModernClient({ name: 'test-modern', version: '1.0.0' }, { capabilities: capabilities as never, versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new ModernHttpTransport(mcp, { requestInit, ...(options.fetch ? { fetch: options.fetch } : {}) }));
    return wrap(era, client as unknown as GenericClient, (handler) =>
      client.setRequestHandler('elicitation/create', async (request) => handler(request.params.message) as never),
    );
  }
  const client = new LegacyClient({ name: 'test-legacy', version: '1.0.0' }, { capabilities });
  const transport = new LegacyHttpTransport(mcp, { requestInit, ...(options.fetch ? { fetch: options.fetch } : {}) });
  await client.connect(era === '2025-06-18' ? askingFor(transport, era) : transport);
  return wrap(era, client as unknown as GenericClient, (handler) => {
    client.setRequestHandler(legacyTypes.ElicitRequestSchema, async (request) => handler(request.params.message));
  });
}

/** Connects a client of `era` to the built server over stdio, started with `args` and `env`. */
export async function connectStdio(era: Era, options: { args?: string[]; env?: Record<string, string>; capabilities?: ClientCapabilities } = {}): Promise<AnyClient> {
  const server = { command: process.execPath, args: [BIN, ...(options.args ?? [])], env: { ...cleanEnv(), ...options.env }, stderr: 'pipe' as const };
  const capabilities = options.capabilities ?? {};
  if (era === '2026-07-28') {
    const client = new ModernClient({ name: 'test-modern', version: '1.0.0' }, { capabilities: capabilities as never, versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new ModernStdioTransport(server));
    return wrap(era, client as unknown as GenericClient, (handler) =>
      client.setRequestHandler('elicitation/create', async (request) => handler(request.params.message) as never),
    );
  }
  const client = new LegacyClient({ name: 'test-legacy', version: '1.0.0' }, { capabilities });
  const transport = new LegacyStdioTransport(server);
  await client.connect(era === '2025-06-18' ? askingFor(transport, era) : transport);
  return wrap(era, client as unknown as GenericClient, (handler) => {
    client.setRequestHandler(legacyTypes.ElicitRequestSchema, async (request) => handler(request.params.message));
  });
}

const legacyTypes = await import('@modelcontextprotocol/sdk/types.js');

/** A v1 transport whose initialize request asks for `version` instead of the client's latest. */
export function askingFor<T extends Transport>(transport: T, version: string): T {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if ('method' in message && message.method === 'initialize') {
      message = { ...message, params: { ...message.params, protocolVersion: version } };
    }
    return send(message, options);
  };
  return transport;
}

export interface GenericClient {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<{ content?: unknown; isError?: boolean; structuredContent?: unknown; _meta?: Record<string, unknown> }>;
  listTools(): Promise<{ tools: Array<{ name: string; _meta?: Record<string, unknown> }> }>;
  listResources(): Promise<{ resources: Array<{ uri: string; mimeType?: string }> }>;
  readResource(params: { uri: string }): Promise<{ contents: Array<{ uri: string; mimeType?: string; text?: string }> }>;
  listPrompts(): Promise<{ prompts: Array<{ name: string }> }>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<{ messages: Array<{ role: string; content: { type: string; text?: string } }> }>;
  getServerCapabilities(): Record<string, unknown> | undefined;
  close(): Promise<void>;
}

function wrap(
  era: Era,
  client: GenericClient,
  onForm: (handler: (message: string) => { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> }) => void,
): AnyClient {
  return {
    era,
    async callTool(name, args = {}) {
      const result = await client.callTool({ name, arguments: args });
      const content = (result.content ?? []) as Array<{ type: string; text?: string }>;
      return {
        text: content.map((part) => part.text ?? '').join('\n'),
        isError: result.isError === true,
        ...(result.structuredContent ? { structured: result.structuredContent as Record<string, unknown> } : {}),
      };
    },
    listTools: async () => (await client.listTools()).tools,
    sdk: client,
    answerForms(answer) {
      const asked: string[] = [];
      onForm((message) => {
        asked.push(message);
        return answer(message);
      });
      return asked;
    },
    close: () => client.close(),
  };
}

/**
 * `factory` served over HTTP in this process on a free loopback port, as runHttp serves it: no
 * extra hosts or origins, a 1 MiB body limit, a store that is always ready, a silent log. `options`
 * adds or replaces any of those.
 */
export function serveInProcess(factory: ServerFactory, shutdown: AbortController, options: Partial<HttpOptions> = {}): Promise<HttpServer> {
  return serveHttp({
    factory,
    host: '127.0.0.1',
    port: 0,
    allowedHosts: [],
    allowedOrigins: [],
    maxBodyBytes: 1024 * 1024,
    ready: async () => undefined,
    log: silentLog,
    shutdown,
    ...options,
  });
}
