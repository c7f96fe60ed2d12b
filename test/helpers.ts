import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { createApiClient } from '../src/api/client.js';
import type { Send } from '../src/api/transport.js';
import { secretsOf, type Config } from '../src/config.js';
import { redactor } from '../src/text.js';
import { silentLog, type Log } from '../src/log.js';
import { startSandbox, type Sandbox } from '../src/sandbox/http.js';
import { createServer } from '../src/server.js';
import type { Clock } from '../src/tools/define.js';

export interface CallOutcome {
  text: string;
  isError: boolean;
  structured?: Record<string, unknown>;
}

export interface Harness {
  client: Client;
  sandbox: Sandbox;
  config: Config;
  call(name: string, args?: Record<string, unknown>): Promise<CallOutcome>;
  close(): Promise<void>;
}

/** Config pointing at a sandbox with its demo credentials. */
export function sandboxConfig(sandbox: Sandbox, overrides: Partial<Config> = {}): Config {
  const { accessToken, apiKey, monitoringApiKey } = sandbox.simulation.credentials;
  return offlineConfig({ baseUrl: sandbox.url, monitoringUrl: sandbox.url, accessToken, apiKey, monitoringApiKey, ...overrides });
}

/** The tests' settings with no credentials and an upstream nothing can reach, as a request without credentials sees them. */
export function offlineConfig(overrides: Partial<Config> = {}): Config {
  return {
    baseUrl: 'http://upstream.invalid',
    monitoringUrl: 'http://upstream.invalid',
    timeoutMs: 5_000,
    resolveTimeoutMs: 10_000,
    readOnly: false,
    requireHumanConfirmation: false,
    approvalTimeoutMs: 120_000,
    allowInsecureHttp: true,
    logLevel: 'error',
    http: { allowedHosts: [], allowedOrigins: [], maxBodyBytes: 1024 * 1024 },
    sandbox: false,
    ...overrides,
  };
}

/**
 * A real MCP client connected over InMemoryTransport to a server whose API is a sandbox on
 * 127.0.0.1. Retries back off by 0 ms so tests never wait.
 */
export async function connect(
  options: {
    config?: Partial<Config>;
    sandbox?: Sandbox;
    clock?: Clock;
    log?: Log;
    capabilities?: ClientCapabilities;
    /** What the API client fetches with; node:http (src/api/transport.ts) by default. */
    fetch?: typeof fetch;
    /** What the API client sends with, when a test watches the server's own transport. */
    send?: Send;
  } = {},
): Promise<Harness> {
  const sandbox = options.sandbox ?? (await startSandbox({ control: true }));
  const config = sandboxConfig(sandbox, options.config);
  const log = options.log ?? silentLog;
  const api = createApiClient({ config, log, retryDelayMs: () => 0, redact: redactor(secretsOf(config)), ...(options.fetch ? { fetch: options.fetch } : {}), ...(options.send ? { send: options.send } : {}) });
  const server = createServer({ config, log, api, ...(options.clock ? { clock: options.clock } : {}) });
  const client = new Client({ name: 'test-client', version: '1.0.0' }, { capabilities: options.capabilities ?? {} });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  return {
    client,
    sandbox,
    config,
    async call(name, args = {}) {
      const result = await client.callTool({ name, arguments: args });
      const content = result.content as Array<{ type: string; text?: string }>;
      return {
        text: content.map((part) => part.text ?? '').join('\n'),
        isError: result.isError === true,
        ...(result.structuredContent ? { structured: result.structuredContent as Record<string, unknown> } : {}),
      };
    },
    async close() {
      await client.close();
      await server.close();
      if (!options.sandbox) await sandbox.close();
    },
  };
}
