import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import type { HttpProcess } from '../http/harness.js';
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
  type Resolve,
} from './terminal.js';

// The configuration files docs/clients.md gives for Claude Desktop, Cursor and VS Code, which do not
// run here: each is parsed against the format its client documents, its placeholders filled in as a
// user would, its variables resolved the way that client resolves them, and then what it describes
// is started (command, arguments, environment) or connected to (URL, headers) by an MCP client, as
// the application would.

const Env = z.record(z.string(), z.string());

/** Claude Desktop's claude_desktop_config.json, and Cursor's mcp.json for a stdio server. */
const StdioServers = z.strictObject({
  mcpServers: z.record(z.string(), z.strictObject({ command: z.string(), args: z.array(z.string()).optional(), env: Env.optional() })),
});

/** Cursor's mcp.json for a remote server. */
const CursorRemote = z.strictObject({
  mcpServers: z.record(z.string(), z.strictObject({ url: z.url(), headers: Env.optional() })),
});

/** VS Code's mcp.json: `inputs` it asks the user for, and `servers` by type. */
const VsCodeConfig = z.strictObject({
  inputs: z
    .array(z.strictObject({ type: z.literal('promptString'), id: z.string(), description: z.string(), password: z.boolean().optional() }))
    .optional(),
  servers: z.record(
    z.string(),
    z.discriminatedUnion('type', [
      z.strictObject({ type: z.literal('stdio'), command: z.string(), args: z.array(z.string()).optional(), env: Env.optional() }),
      z.strictObject({ type: z.literal('http'), url: z.url(), headers: Env.optional() }),
    ]),
  ),
});

describe('the desktop and editor configurations of docs/clients.md', () => {
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

  /** What check_connection says of a server started with the real-API settings. */
  const liveWithBothCredentials = () => ({ healthy: true, mode: 'live', base_url: sandbox.url, credentials: { access_token: true, api_key: true } });

  for (const section of ['Claude Desktop', 'Cursor']) {
    it(`starts ${section}'s stdio entry, which reaches the service with the settings in env`, async () => {
      const config = StdioServers.parse(JSON.parse(fill(docBlock(section, 'json', '"command"').text, realApi())));
      const [, server] = only(config.mcpServers);
      expect(server.command).toBe('node');
      const session = await sessionOverStdio(process.execPath, server.args ?? [], server.env ?? {});
      expect(session.connection).toMatchObject(liveWithBothCredentials());
    });
  }

  it("connects with Cursor's remote entry, sending both headers from ${env:NAME}", async () => {
    const config = CursorRemote.parse(JSON.parse(fill(docBlock('Cursor', 'json', '"url"').text, [[PLACEHOLDER.team, proxy.url]])));
    const [, server] = only(config.mcpServers);
    const environment: Record<string, string> = { APPMGMT_ACCESS_TOKEN: 'pat_demo_admin', APPMGMT_API_KEY: 'key_demo_admin' };
    const session = await sessionOverHttp(server.url, expand(server.headers ?? {}, 'env', (name) => environment[name]));
    expect(session.tools).toContain('check_connection');
    expect(credentialHeaders(proxy.requests)).toEqual({ authorization: ['Bearer pat_demo_admin'], 'x-appmgmt-api-key': ['key_demo_admin'] });
  });

  /** VS Code's answer to each input: what the user types when asked. */
  function typed(config: z.infer<typeof VsCodeConfig>, answers: Record<string, string>): Resolve {
    return (id) => {
      const input = config.inputs?.find((candidate) => candidate.id === id);
      // A secret must be asked for with its typing hidden.
      expect(input?.password, `input ${id}`).toBe(true);
      return answers[id];
    };
  }

  it("starts VS Code's stdio entry with the secrets it asks for as inputs", async () => {
    const config = VsCodeConfig.parse(JSON.parse(fill(docBlock('VS Code', 'json', '"type": "stdio"').text, [[PLACEHOLDER.clone, CLONE], [PLACEHOLDER.baseUrl, sandbox.url]])));
    const [, server] = only(config.servers);
    if (server.type !== 'stdio') throw new Error('not stdio');
    expect(server.command).toBe('node');
    const { accessToken, apiKey } = sandbox.simulation.credentials;
    const env = expand(server.env ?? {}, 'input', typed(config, { 'appmgmt-access-token': accessToken!, 'appmgmt-api-key': apiKey! }));
    const session = await sessionOverStdio(process.execPath, server.args ?? [], env);
    expect(session.connection).toMatchObject(liveWithBothCredentials());
  });

  it("connects with VS Code's http entry, sending both headers from the inputs", async () => {
    const config = VsCodeConfig.parse(JSON.parse(fill(docBlock('VS Code', 'json', '"type": "http"').text, [[PLACEHOLDER.team, proxy.url]])));
    const [, server] = only(config.servers);
    if (server.type !== 'http') throw new Error('not http');
    const headers = expand(server.headers ?? {}, 'input', typed(config, { 'appmgmt-access-token': 'pat_demo_editor', 'appmgmt-api-key': 'key_demo_editor' }));
    const session = await sessionOverHttp(server.url, headers);
    expect(session.tools).toContain('check_connection');
    expect(credentialHeaders(proxy.requests)).toEqual({ authorization: ['Bearer pat_demo_editor'], 'x-appmgmt-api-key': ['key_demo_editor'] });
  });
});
