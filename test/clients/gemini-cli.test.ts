import { readFileSync, writeFileSync } from 'node:fs';
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

// The real Gemini CLI (`gemini`, from test/clients) runs the `gemini mcp add` lines of
// docs/clients.md, each taken from the doc and filled in as a user would, in a home folder of its
// own; `gemini mcp list` then checks every server by connecting to it, once the folder is trusted.

const SECTION = 'Gemini CLI';

/** `gemini mcp list`'s line for a server it connected to. */
const connected = (name: string) => new RegExp(`^✓ ${name}: .* - Connected$`, 'm');

/** The trust the doc names for one run (CI, a script). */
const TRUST_THIS_RUN = { GEMINI_CLI_TRUST_WORKSPACE: 'true' };

interface ServerEntry {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  url?: string;
  type?: string;
  headers?: Record<string, string>;
}

/** The servers `gemini mcp add` wrote to the project's settings. */
function projectServers(home: Home): Record<string, ServerEntry> {
  const settings = JSON.parse(readFileSync(join(home.project, '.gemini', 'settings.json'), 'utf8')) as { mcpServers: Record<string, ServerEntry> };
  return settings.mcpServers;
}

describe(`Gemini CLI ${versionOf('gemini')} with the lines of docs/clients.md`, { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  let home: Home;
  let proxy: RecordingProxy;
  let sandbox: Sandbox;
  terminalFixtures((now) => ({ home, proxy, sandbox } = now));

  const sandboxLine = () => fill(docBlock(SECTION, 'sh', 'gemini mcp add app-management-sandbox').text, [[PLACEHOLDER.clone, CLONE]]);

  it('in an untrusted folder keeps only the server added last, and disables it; trusted first, as the doc says, it keeps each one and connects', async () => {
    const other = `gemini mcp add other node -- ${CLONE}/dist/index.js --sandbox`;
    await shOk(sandboxLine(), home);
    await shOk(other, home);
    expect(Object.keys(projectServers(home))).toEqual(['other']);
    const untrusted = await shOk('gemini mcp list', home);
    expect(untrusted).toContain('disabled because this folder is untrusted');
    expectListed(untrusted, /other: .* - Disabled$/m);

    const trust = fill(docBlock(SECTION, 'json', 'TRUST_FOLDER').text, [[PLACEHOLDER.project, home.project]]);
    writeFileSync(join(home.geminiHome, 'trustedFolders.json'), trust);
    await shOk(sandboxLine(), home);
    expect(projectServers(home)).toEqual({
      other: { command: 'node', args: [`${CLONE}/dist/index.js`, '--sandbox'] },
      'app-management-sandbox': { command: 'node', args: [`${CLONE}/dist/index.js`, '--sandbox'] },
    });
    expectListed(await shOk('gemini mcp list', home), connected('app-management-sandbox'));
  });

  it("keeps the server's own arguments only behind the `--`, where the doc puts it", async () => {
    // --debug is one of Gemini's own options: without the `--` Gemini takes it and the entry loses it.
    const withDebug = sandboxLine().replace('--sandbox', '--sandbox --debug');
    await shOk(withDebug, home);
    expect(projectServers(home)['app-management-sandbox']?.args).toEqual([`${CLONE}/dist/index.js`, '--sandbox', '--debug']);
    await shOk(withDebug.replace(' node -- ', ' node '), home);
    expect(projectServers(home)['app-management-sandbox']?.args).toEqual([`${CLONE}/dist/index.js`, '--sandbox']);
  });

  it('refuses the `--` before the command, which is why the doc puts it after `node`', async () => {
    const exit = await sh(sandboxLine().replace(' node -- ', ' -- node '), home);
    expect(exit.code).not.toBe(0);
    expect(exit.stderr).toContain('Not enough non-option arguments');
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
    expect(projectServers(home)['app-management']).toEqual({
      command: 'node',
      args: [`${CLONE}/dist/index.js`],
      env: { APPMGMT_BASE_URL: sandbox.url, APPMGMT_ACCESS_TOKEN: accessToken, APPMGMT_API_KEY: apiKey },
    });
    expectListed(await shOk('gemini mcp list', home, TRUST_THIS_RUN), connected('app-management'));
  });

  it('connects over HTTP to the local sandbox server, sending both credential headers with every request', async () => {
    const add = fill(docBlock(SECTION, 'sh', '--transport http', PLACEHOLDER.local).text, [[PLACEHOLDER.local, proxy.url]]);
    await shOk(add, home);
    expectListed(await shOk('gemini mcp list', home, TRUST_THIS_RUN), connected('app-management-http'));
    expect(proxy.requests.length).toBeGreaterThan(0);
    expect(credentialHeaders(proxy.requests)).toEqual({ authorization: [`Bearer ${DEMO.token}`], 'x-appmgmt-api-key': [DEMO.apiKey] });
  });

  it("connects over HTTP to a team deployment, keeping ${VAR} in the settings and reading the user's environment", async () => {
    const add = fill(docBlock(SECTION, 'sh', '--transport http', PLACEHOLDER.team).text, [[PLACEHOLDER.team, proxy.url]]);
    await shOk(add, home);
    expect(projectServers(home)['app-management']?.headers).toEqual({
      Authorization: 'Bearer ${APPMGMT_ACCESS_TOKEN}',
      'X-Appmgmt-Api-Key': '${APPMGMT_API_KEY}',
    });
    const env = { ...TRUST_THIS_RUN, APPMGMT_ACCESS_TOKEN: 'pat_demo_admin', APPMGMT_API_KEY: 'key_demo_admin' };
    expectListed(await shOk('gemini mcp list', home, env), connected('app-management'));
    expect(credentialHeaders(proxy.requests)).toEqual({ authorization: ['Bearer pat_demo_admin'], 'x-appmgmt-api-key': ['key_demo_admin'] });
  });

  it('reports a server that cannot start as disconnected, so that "Connected" above means connected', async () => {
    await shOk(`gemini mcp add broken node -- ${CLONE}/dist/index.js --no-such-flag`, home);
    expectListed(await shOk('gemini mcp list', home, TRUST_THIS_RUN), /^✗ broken: .* - Disconnected$/m);
  });
});
