import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/http.js';
import {
  CLI_TEST_TIMEOUT_MS,
  CLONE,
  codexServerStatus,
  credentialHeaders,
  DEMO,
  docBlock,
  expectListed,
  fill,
  PLACEHOLDER,
  sh,
  shOk,
  terminalFixtures,
  versionOf,
  type Home,
  type RecordingProxy,
} from './terminal.js';

// The real Codex CLI (`codex`, from test/clients) runs the `codex mcp add` lines of docs/clients.md
// and reads the config.toml tables it documents, in a home folder of its own. Each test asks Codex
// what it read (`codex mcp get NAME --json`), then has Codex connect: `codex mcp list` only prints
// the file, and `codex doctor` checks the configuration without connecting, so the connection is
// made by Codex's app server (`mcpServerStatus/list`), which starts or connects to each server and
// lists its tools: the first test through the check docs/clients.md gives, the others directly.

const SECTION = 'Codex CLI';

interface CodexServer {
  name: string;
  enabled: boolean;
  transport:
    | { type: 'stdio'; command: string; args: string[]; env: Record<string, string> | null }
    | {
        type: 'streamable_http';
        url: string;
        bearer_token_env_var: string | null;
        http_headers: Record<string, string> | null;
        env_http_headers: Record<string, string> | null;
      };
}

/** The server named `name` as Codex read it from config.toml. */
async function codexGet(home: Home, name: string): Promise<CodexServer> {
  const exit = await sh(`codex mcp get ${name} --json`, home);
  if (exit.code !== 0) throw new Error(`codex mcp get exited ${exit.code}:\n${exit.stdout}\n${exit.stderr}`);
  return JSON.parse(exit.stdout) as CodexServer;
}

/** Codex's report on the server `name` after connecting to it: its serverInfo, tools and any error. */
async function codexConnects(home: Home, name: string, env: Record<string, string> = {}): Promise<void> {
  const status = (await codexServerStatus(home, env)).find((server) => server.name === name);
  expect(status, `Codex reports no server ${name}`).toBeDefined();
  expect({ server: status!.serverInfo?.name, error: status!.toolsError }).toEqual({ server: 'app-management-mcp', error: null });
  expect(Object.keys(status!.tools ?? {})).toContain('check_connection');
}

describe(`Codex CLI ${versionOf('codex')} with the lines of docs/clients.md`, { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  let home: Home;
  let proxy: RecordingProxy;
  let sandbox: Sandbox;
  terminalFixtures((now) => ({ home, proxy, sandbox } = now));

  it('connects over stdio to the sandbox added with the documented line, as the documented check shows, which also reports a server that cannot start', async () => {
    await shOk(fill(docBlock(SECTION, 'sh', 'codex mcp add app-management-sandbox').text, [[PLACEHOLDER.clone, CLONE]]), home);
    await shOk(`codex mcp add broken -- node ${CLONE}/dist/index.js --no-such-flag`, home);
    const server = await codexGet(home, 'app-management-sandbox');
    expect(server).toMatchObject({ enabled: true, transport: { type: 'stdio', command: 'node', args: [`${CLONE}/dist/index.js`, '--sandbox'] } });
    // "enabled" is all `codex mcp list` says, for a server that starts and for one that cannot.
    const list = await shOk('codex mcp list', home);
    expectListed(list, /^app-management-sandbox\s+node\s+.*--sandbox\s.*enabled/m);
    expectListed(list, /^broken\s+node\s+.*--no-such-flag\s.*enabled/m);

    // The check as written, with a shorter wait: Codex answers within it here.
    const check = fill(docBlock(SECTION, 'sh', 'mcpServerStatus/list').text, [['sleep 15', 'sleep 6']]);
    const exit = await sh(check, home);
    expect(exit.code, exit.stderr).toBe(0);
    const printed = exit.stdout.trim().split('\n');
    expect(printed).toEqual([
      '"name":"app-management-sandbox","runtimeStatus"',
      '"serverInfo":{"name":"app-management-mcp"',
      '"toolsError":null',
      '"name":"broken","runtimeStatus"',
      '"serverInfo":null',
      expect.stringMatching(/^"toolsError":"MCP startup failed/),
    ]);
  });

  it('connects over stdio with the real-API line, its settings stored as the server environment', async () => {
    const { accessToken, apiKey } = sandbox.simulation.credentials;
    const add = fill(docBlock(SECTION, 'sh', 'APPMGMT_BASE_URL').text, [
      [PLACEHOLDER.baseUrl, sandbox.url],
      [PLACEHOLDER.token, accessToken!],
      [PLACEHOLDER.apiKey, apiKey!],
      [PLACEHOLDER.clone, CLONE],
    ]);
    await shOk(add, home);
    const server = await codexGet(home, 'app-management');
    expect(server.transport).toMatchObject({
      type: 'stdio',
      command: 'node',
      args: [`${CLONE}/dist/index.js`],
      env: { APPMGMT_BASE_URL: sandbox.url, APPMGMT_ACCESS_TOKEN: accessToken, APPMGMT_API_KEY: apiKey },
    });
    await codexConnects(home, 'app-management');
  });

  it('connects over HTTP with the token from a variable and the API key header from the documented table', async () => {
    const add = fill(docBlock(SECTION, 'sh', '--bearer-token-env-var').text, [[PLACEHOLDER.team, proxy.url]]);
    await shOk(add, home);
    expect((await codexGet(home, 'app-management')).transport).toMatchObject({
      type: 'streamable_http',
      url: `${proxy.url}/mcp`,
      bearer_token_env_var: 'APPMGMT_ACCESS_TOKEN',
    });
    // The table written by `codex mcp add` is the only one in the file: the doc's table replaces it.
    expect(readFileSync(join(home.codexHome, 'config.toml'), 'utf8')).toMatch(/^\[mcp_servers\.app-management\]$/m);
    writeFileSync(join(home.codexHome, 'config.toml'), fill(docBlock(SECTION, 'toml', 'env_http_headers').text, [[PLACEHOLDER.team, proxy.url]]));

    const server = await codexGet(home, 'app-management');
    expect(server.transport).toEqual({
      type: 'streamable_http',
      url: `${proxy.url}/mcp`,
      bearer_token_env_var: 'APPMGMT_ACCESS_TOKEN',
      http_headers: null,
      env_http_headers: { 'X-Appmgmt-Api-Key': 'APPMGMT_API_KEY' },
      http_headers_helper: null,
    });

    await codexConnects(home, 'app-management', { APPMGMT_ACCESS_TOKEN: 'pat_demo_admin', APPMGMT_API_KEY: 'key_demo_admin' });
    expect(credentialHeaders(proxy.requests)).toEqual({ authorization: ['Bearer pat_demo_admin'], 'x-appmgmt-api-key': ['key_demo_admin'] });
  });

  it('connects over HTTP to the local sandbox server with the literal headers of http_headers', async () => {
    const table = fill(docBlock(SECTION, 'toml', PLACEHOLDER.local).text, [[PLACEHOLDER.local, proxy.url]]);
    appendFileSync(join(home.codexHome, 'config.toml'), `${table}\n`);
    const server = await codexGet(home, 'app-management-http');
    expect(server.transport).toMatchObject({
      type: 'streamable_http',
      url: `${proxy.url}/mcp`,
      http_headers: { Authorization: `Bearer ${DEMO.token}`, 'X-Appmgmt-Api-Key': DEMO.apiKey },
    });

    await codexConnects(home, 'app-management-http');
    expect(credentialHeaders(proxy.requests)).toEqual({ authorization: [`Bearer ${DEMO.token}`], 'x-appmgmt-api-key': [DEMO.apiKey] });
  });

  it('ignores a table key named `headers`, which is why the doc uses http_headers', async () => {
    appendFileSync(join(home.codexHome, 'config.toml'), `[mcp_servers.misnamed]\nurl = "${proxy.url}/mcp"\nheaders = { "X-Appmgmt-Api-Key" = "${DEMO.apiKey}" }\n`);
    const server = await codexGet(home, 'misnamed');
    expect(server.transport).toMatchObject({ type: 'streamable_http', http_headers: null, env_http_headers: null });
  });
});
