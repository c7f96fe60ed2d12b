import { fillTemplateVariables, parseBlock } from '@continuedev/config-yaml';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import type { HttpProcess } from '../http/harness.js';
import { runNode } from '../process.js';
import {
  CLONE,
  credentialHeaders,
  docBlock,
  expand,
  fill,
  only,
  PLACEHOLDER,
  recordingProxy,
  sessionOverHttp,
  sessionOverStdio,
  startDocumentedHttp,
  type RecordingProxy,
} from './terminal.js';

// The configuration files docs/clients.md gives for Windsurf, Zed, Cline and Continue, which do not
// run here. Each is read as its client reads it: Continue's with Continue's own parser and template
// function (@continuedev/config-yaml), the others against their documented format restated below.
// Its placeholders are filled in as a user would, its variables resolved as that client resolves
// them, and then what it describes is started or connected to by an MCP client, as the editor would.

const Env = z.record(z.string(), z.string());
const Args = z.array(z.string());

/** Windsurf's mcp_config.json: Claude Desktop's format, a remote server at `serverUrl` (docs.windsurf.com/windsurf/cascade/mcp). */
const Windsurf = z.strictObject({
  mcpServers: z.record(
    z.string(),
    z.union([
      z.strictObject({ command: z.string(), args: Args.optional(), env: Env.optional() }),
      z.strictObject({ serverUrl: z.url(), headers: Env.optional() }),
    ]),
  ),
});

/** Zed's settings.json: `context_servers`, run by command or reached at a url (zed.dev/docs/ai/mcp). */
const Zed = z.strictObject({
  context_servers: z.record(
    z.string(),
    z.union([z.strictObject({ command: z.string(), args: Args.optional(), env: Env.optional() }), z.strictObject({ url: z.url(), headers: Env.optional() })]),
  ),
});

/**
 * Cline's cline_mcp_settings.json as its ServerConfigSchema reads it: the first branch that parses
 * wins, so an entry with a url and no type is SSE, and only `"type": "streamableHttp"` makes it
 * Streamable HTTP.
 */
const ClineBase = { autoApprove: z.array(z.string()).optional(), disabled: z.boolean().optional(), timeout: z.number().optional() };
const ClineServer = z.union([
  z.object({ ...ClineBase, type: z.literal('stdio').default('stdio'), command: z.string(), args: Args.optional(), env: Env.optional() }),
  z.object({ ...ClineBase, type: z.literal('sse').default('sse'), url: z.url(), headers: Env.optional() }),
  z.object({ ...ClineBase, type: z.literal('streamableHttp').default('streamableHttp'), url: z.url(), headers: Env.optional() }),
]);
const Cline = z.strictObject({ mcpServers: z.record(z.string(), ClineServer) });

/** Continue's block as its parser returns one MCP server of it. */
interface ContinueServer {
  name: string;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  type?: string;
  url?: string;
  requestOptions?: { headers?: Record<string, string> };
}

/** A Continue block file with its `${{ secrets.NAME }}` filled from `secrets` by Continue's own function, parsed by Continue's parser. */
function continueServer(text: string, secrets: Record<string, string>): ContinueServer {
  const data = Object.fromEntries(Object.entries(secrets).map(([name, value]) => [`secrets.${name}`, value]));
  const block = parseBlock(fillTemplateVariables(text, data)) as { mcpServers?: ContinueServer[] };
  expect(block.mcpServers).toHaveLength(1);
  return block.mcpServers![0]!;
}

describe('the editor configurations of docs/clients.md', () => {
  let sandbox: Sandbox;
  let http: HttpProcess;
  let proxy: RecordingProxy;

  beforeAll(async () => {
    [sandbox, http] = await Promise.all([startSandbox(), startDocumentedHttp()]);
  });

  afterAll(async () => {
    await Promise.all([sandbox?.close(), http?.stop()]);
  });

  beforeEach(async () => {
    proxy = await recordingProxy(http.url);
  });

  afterEach(async () => {
    await proxy.close();
  });

  /** The real-API placeholders filled with the in-process sandbox and its demo owner. */
  function realApi(): Array<[string, string]> {
    const { accessToken, apiKey } = sandbox.simulation.credentials;
    return [
      [PLACEHOLDER.clone, CLONE],
      [PLACEHOLDER.baseUrl, sandbox.url],
      [PLACEHOLDER.token, accessToken!],
      [PLACEHOLDER.apiKey, apiKey!],
    ];
  }

  /** The team placeholders: the recording proxy in front of the local server, and a demo admin's credentials. */
  const teamFilled = (): Array<[string, string]> => [
    [PLACEHOLDER.team, proxy.url],
    [PLACEHOLDER.token, 'pat_demo_admin'],
    [PLACEHOLDER.apiKey, 'key_demo_admin'],
  ];
  const ADMIN_HEADERS = { authorization: ['Bearer pat_demo_admin'], 'x-appmgmt-api-key': ['key_demo_admin'] };

  /** What check_connection says of a server started with the real-API settings. */
  const liveWithBothCredentials = () => ({ healthy: true, mode: 'live', base_url: sandbox.url, credentials: { access_token: true, api_key: true } });

  /** The user's environment for `${env:NAME}`: the sandbox's demo owner. */
  const owner = () => ({ APPMGMT_ACCESS_TOKEN: sandbox.simulation.credentials.accessToken!, APPMGMT_API_KEY: sandbox.simulation.credentials.apiKey! });

  describe('Windsurf', () => {
    it('starts the stdio entry with the secrets read from ${env:NAME}', async () => {
      const config = Windsurf.parse(JSON.parse(fill(docBlock('Windsurf', 'json', '"command"').text, [[PLACEHOLDER.clone, CLONE], [PLACEHOLDER.baseUrl, sandbox.url]])));
      const [, server] = only(config.mcpServers);
      if (!('command' in server)) throw new Error('not a stdio entry');
      expect(server.command).toBe('node');
      const environment: Record<string, string> = owner();
      const session = await sessionOverStdio(process.execPath, server.args ?? [], expand(server.env ?? {}, 'env', (name) => environment[name]));
      expect(session.connection).toMatchObject(liveWithBothCredentials());
    });

    it('connects to serverUrl, sending both headers from ${env:NAME}', async () => {
      const config = Windsurf.parse(JSON.parse(fill(docBlock('Windsurf', 'json', '"serverUrl"').text, [[PLACEHOLDER.team, proxy.url]])));
      const [, server] = only(config.mcpServers);
      if (!('serverUrl' in server)) throw new Error('not a remote entry');
      const environment: Record<string, string> = { APPMGMT_ACCESS_TOKEN: 'pat_demo_admin', APPMGMT_API_KEY: 'key_demo_admin' };
      const session = await sessionOverHttp(server.serverUrl, expand(server.headers ?? {}, 'env', (name) => environment[name]));
      expect(session.tools).toContain('check_connection');
      expect(credentialHeaders(proxy.requests)).toEqual(ADMIN_HEADERS);
    });

    it('stops the server, naming the setting and the variable, when a value still holds ${env:NAME}', async () => {
      const config = Windsurf.parse(JSON.parse(fill(docBlock('Windsurf', 'json', '"command"').text, [[PLACEHOLDER.clone, CLONE], [PLACEHOLDER.baseUrl, sandbox.url]])));
      const [, server] = only(config.mcpServers);
      if (!('command' in server)) throw new Error('not a stdio entry');
      const exit = await runNode(server.args ?? [], { env: { ...server.env, PATH: process.env.PATH ?? '' } });
      expect(exit.code).toBe(2);
      expect(exit.stderr).toContain(
        'app-management-mcp: APPMGMT_ACCESS_TOKEN is still ${env:APPMGMT_ACCESS_TOKEN}: the MCP client did not fill it, so APPMGMT_ACCESS_TOKEN is not set where the client starts',
      );
    });
  });

  describe('Zed', () => {
    it('starts the context server with the settings in env', async () => {
      const config = Zed.parse(JSON.parse(fill(docBlock('Zed', 'json', '"command"').text, realApi())));
      const [, server] = only(config.context_servers);
      if (!('command' in server)) throw new Error('not a command entry');
      expect(server.command).toBe('node');
      const session = await sessionOverStdio(process.execPath, server.args ?? [], server.env ?? {});
      expect(session.connection).toMatchObject(liveWithBothCredentials());
    });

    it('connects to the url with both headers', async () => {
      const config = Zed.parse(JSON.parse(fill(docBlock('Zed', 'json', '"url"').text, teamFilled())));
      const [, server] = only(config.context_servers);
      if (!('url' in server)) throw new Error('not a url entry');
      const session = await sessionOverHttp(server.url, server.headers ?? {});
      expect(session.tools).toContain('check_connection');
      expect(credentialHeaders(proxy.requests)).toEqual(ADMIN_HEADERS);
    });
  });

  describe('Cline', () => {
    it('starts the stdio entry with the settings in env', async () => {
      const config = Cline.parse(JSON.parse(fill(docBlock('Cline', 'json', '"command"').text, realApi())));
      const [, server] = only(config.mcpServers);
      if (server.type !== 'stdio') throw new Error(`read as ${server.type}`);
      expect(server).toMatchObject({ command: 'node', disabled: false, autoApprove: [] });
      const session = await sessionOverStdio(process.execPath, server.args ?? [], server.env ?? {});
      expect(session.connection).toMatchObject(liveWithBothCredentials());
    });

    it('reads the remote entry as Streamable HTTP only with its type, and connects with both headers', async () => {
      const json = JSON.parse(fill(docBlock('Cline', 'json', '"streamableHttp"').text, teamFilled())) as { mcpServers: Record<string, Record<string, unknown>> };
      const [, server] = only(Cline.parse(json).mcpServers);
      if (server.type !== 'streamableHttp') throw new Error(`read as ${server.type}`);
      // The same entry without its type is read as the older SSE transport, as the doc warns.
      const [name, entry] = Object.entries(json.mcpServers)[0]!;
      const { type: _, ...untyped } = entry;
      expect(Cline.parse({ mcpServers: { [name]: untyped } }).mcpServers[name]?.type).toBe('sse');

      const session = await sessionOverHttp(server.url, server.headers ?? {});
      expect(session.tools).toContain('check_connection');
      expect(credentialHeaders(proxy.requests)).toEqual(ADMIN_HEADERS);
    });
  });

  describe('Continue', () => {
    it("starts the block's stdio server with the secrets filled from .env", async () => {
      const text = fill(docBlock('Continue', 'yaml', 'command: node').text, [[PLACEHOLDER.clone, CLONE], [PLACEHOLDER.baseUrl, sandbox.url]]);
      const server = continueServer(text, owner());
      expect(server).toMatchObject({ name: 'App Management', command: 'node' });
      const session = await sessionOverStdio(process.execPath, server.args ?? [], server.env ?? {});
      expect(session.connection).toMatchObject(liveWithBothCredentials());
    });

    it('connects to the streamable-http server with both headers filled from .env', async () => {
      const text = fill(docBlock('Continue', 'yaml', 'streamable-http').text, [[PLACEHOLDER.team, proxy.url]]);
      const server = continueServer(text, { APPMGMT_ACCESS_TOKEN: 'pat_demo_admin', APPMGMT_API_KEY: 'key_demo_admin' });
      expect(server).toMatchObject({ type: 'streamable-http', url: `${proxy.url}/mcp` });
      const session = await sessionOverHttp(server.url!, server.requestOptions?.headers ?? {});
      expect(session.tools).toContain('check_connection');
      expect(credentialHeaders(proxy.requests)).toEqual(ADMIN_HEADERS);
    });

    it('leaves a secret it cannot fill as written, which stops the server naming the setting and the secret', async () => {
      const text = fill(docBlock('Continue', 'yaml', 'command: node').text, [[PLACEHOLDER.clone, CLONE], [PLACEHOLDER.baseUrl, sandbox.url]]);
      const server = continueServer(text, {});
      expect(server.env?.APPMGMT_ACCESS_TOKEN).toBe('${{ secrets.APPMGMT_ACCESS_TOKEN }}');
      const exit = await runNode(server.args ?? [], { env: { ...server.env, PATH: process.env.PATH ?? '' } });
      expect(exit.code).toBe(2);
      expect(exit.stderr).toContain('app-management-mcp: APPMGMT_ACCESS_TOKEN is still ${{ secrets.APPMGMT_ACCESS_TOKEN }}: the MCP client did not fill it');
    });
  });
});
