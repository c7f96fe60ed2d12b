import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/http.js';
import {
  CLI_TEST_TIMEOUT_MS,
  CLONE,
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

// The real Claude Code CLI (`claude`, from test/clients) runs the `claude mcp add` lines and reads the
// `.mcp.json` files of docs/clients.md, each taken from the doc and filled in as a user would, in a
// home folder of its own; `claude mcp list` then checks every server it knows by connecting to it.

const SECTION = 'Claude Code';

/** `claude mcp list`'s line for a server it connected to. */
const connected = (name: string) => new RegExp(`^${name}: .* - ✔ Connected$`, 'm');

describe(`Claude Code ${versionOf('claude')} with the lines of docs/clients.md`, { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  let home: Home;
  let proxy: RecordingProxy;
  let sandbox: Sandbox;
  terminalFixtures((now) => ({ home, proxy, sandbox } = now));

  /** The real-API settings a user fills in: here the in-process sandbox and its demo owner. */
  function realApi(): Array<[string, string]> {
    const { accessToken, apiKey } = sandbox.simulation.credentials;
    return [
      [PLACEHOLDER.baseUrl, sandbox.url],
      [PLACEHOLDER.token, accessToken!],
      [PLACEHOLDER.apiKey, apiKey!],
      [PLACEHOLDER.clone, CLONE],
    ];
  }

  it('connects over stdio to the sandbox added with the documented `claude mcp add … -- node … --sandbox`', async () => {
    const add = fill(docBlock(SECTION, 'sh', 'claude mcp add app-management-sandbox').text, [[PLACEHOLDER.clone, CLONE]]);
    await shOk(add, home);
    const list = await shOk('claude mcp list', home);
    expectListed(list, connected('app-management-sandbox'));
    expect(list).toContain(`node ${CLONE}/dist/index.js --sandbox`);
  });

  it('connects over stdio with the real-API line, its settings stored as the server environment', async () => {
    const add = fill(docBlock(SECTION, 'sh', '--transport stdio').text, realApi());
    await shOk(add, home);
    expectListed(await shOk('claude mcp list', home), connected('app-management'));
    const stored = await shOk('claude mcp get app-management', home);
    expect(stored).toContain(`APPMGMT_BASE_URL=${sandbox.url}`);
    expect(stored).toContain(`APPMGMT_ACCESS_TOKEN=${sandbox.simulation.credentials.accessToken}`);
    expect(stored).toContain(`Args: ${CLONE}/dist/index.js`);
  });

  it('refuses a server name written after --env, which is why the doc puts the name first', async () => {
    const documented = fill(docBlock(SECTION, 'sh', '--transport stdio').text, realApi());
    const nameLast = documented.replace('claude mcp add app-management --transport stdio', 'claude mcp add --transport stdio').replace(' \\\n  -- node', ' app-management \\\n  -- node');
    expect(nameLast).not.toBe(documented);
    const exit = await sh(nameLast, home);
    expect(exit.code).not.toBe(0);
    expect(exit.stderr).toContain('Invalid environment variable format: app-management');
  });

  it('connects over HTTP to the local sandbox server, sending both credential headers with every request', async () => {
    const add = fill(docBlock(SECTION, 'sh', '--transport http', PLACEHOLDER.local).text, [[PLACEHOLDER.local, proxy.url]]);
    await shOk(add, home);
    expectListed(await shOk('claude mcp list', home), connected('app-management-http'));
    expect(proxy.requests.length).toBeGreaterThan(0);
    expect(credentialHeaders(proxy.requests)).toEqual({ authorization: [`Bearer ${DEMO.token}`], 'x-appmgmt-api-key': [DEMO.apiKey] });
  });

  it("connects over HTTP to a team deployment with the headers taken from the user's environment", async () => {
    const add = fill(docBlock(SECTION, 'sh', '--transport http', PLACEHOLDER.team).text, [[PLACEHOLDER.team, proxy.url]]);
    // Not the demo owner: a header that arrives proves it came from these variables.
    const env = { APPMGMT_ACCESS_TOKEN: 'pat_demo_admin', APPMGMT_API_KEY: 'key_demo_admin' };
    await shOk(add, home, env);
    expectListed(await shOk('claude mcp list', home), connected('app-management'));
    expect(credentialHeaders(proxy.requests)).toEqual({ authorization: ['Bearer pat_demo_admin'], 'x-appmgmt-api-key': ['key_demo_admin'] });
  });

  it("waits for approval of a project's .mcp.json, then connects over stdio with its ${VAR} settings from the environment", async () => {
    const file = fill(docBlock(SECTION, 'json', '"type": "stdio"').text, [[PLACEHOLDER.clone, CLONE]]);
    writeFileSync(join(home.project, '.mcp.json'), file);
    const { accessToken, apiKey } = sandbox.simulation.credentials;
    const env = { APPMGMT_BASE_URL: sandbox.url, APPMGMT_ACCESS_TOKEN: accessToken!, APPMGMT_API_KEY: apiKey! };
    expectListed(await shOk('claude mcp list', home, env), /^app-management: .* - ⏸ Pending approval/m);
    approve(home, 'app-management');
    expectListed(await shOk('claude mcp list', home, env), connected('app-management'));
  });

  it("connects over HTTP with a project's .mcp.json, the headers expanded from the user's environment", async () => {
    const file = fill(docBlock(SECTION, 'json', '"type": "http"').text, [[PLACEHOLDER.team, proxy.url]]);
    writeFileSync(join(home.project, '.mcp.json'), file);
    approve(home, 'app-management');
    const env = { APPMGMT_ACCESS_TOKEN: 'pat_demo_editor', APPMGMT_API_KEY: 'key_demo_editor' };
    expectListed(await shOk('claude mcp list', home, env), connected('app-management'));
    expect(credentialHeaders(proxy.requests)).toEqual({ authorization: ['Bearer pat_demo_editor'], 'x-appmgmt-api-key': ['key_demo_editor'] });
  });

  it("fails to connect when the team .mcp.json's ${VAR} is not set, the server's line kept where docs/troubleshooting.md says", async () => {
    // Claude Code passes an unset ${VAR} on as written; the server refuses it, naming the variable.
    const file = fill(docBlock(SECTION, 'json', '"type": "stdio"').text, [[PLACEHOLDER.clone, CLONE]]);
    writeFileSync(join(home.project, '.mcp.json'), file);
    approve(home, 'app-management');
    const list = await sh('claude mcp list', home);
    expectListed(list.stdout, /^app-management: .* - ✘ Failed to connect$/m);

    const where = /`(~\/\.cache\/claude-cli-nodejs\/<project>\/mcp-logs-<name>\/)`/.exec(readFileSync(join(CLONE, 'docs/troubleshooting.md'), 'utf8'))?.[1];
    expect(where, 'docs/troubleshooting.md names the folder').toBeDefined();
    const folder = where!.replace('~', home.root).replace('<project>', home.project.replaceAll('/', '-')).replace('<name>', 'app-management');
    const log = readdirSync(folder).map((name) => readFileSync(join(folder, name), 'utf8')).join('');
    expect(log).toContain('app-management-mcp: APPMGMT_BASE_URL is still ${APPMGMT_BASE_URL}: the MCP client did not fill it');
  });
});

/** Approves a project's server ahead of time, with the setting docs/clients.md names. */
function approve(home: Home, name: string): void {
  writeFileSync(join(home.claudeConfig, 'settings.json'), JSON.stringify({ enabledMcpjsonServers: [name] }));
}
