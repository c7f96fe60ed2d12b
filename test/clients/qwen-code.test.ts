import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/http.js';
import {
  CLI_TEST_TIMEOUT_MS,
  CLONE,
  credentialHeaders,
  docBlock,
  expectListed,
  fill,
  PLACEHOLDER,
  shOk,
  terminalFixtures,
  versionOf,
  type Home,
  type RecordingProxy,
} from './terminal.js';

// The real Qwen Code CLI (`qwen`, from test/clients) runs the `qwen mcp add` lines of
// docs/clients.md, each taken from the doc and filled in as a user would, in a home folder of its
// own; `qwen mcp list` then checks every server by connecting to it. Each CLI command takes a few
// seconds, so each test adds its servers and lists them once.

const SECTION = 'Qwen Code';

/** `qwen mcp list`'s line for a server it connected to (colours aside: Qwen Code ignores NO_COLOR). */
const connected = (name: string) => new RegExp(`^✓ ${name}: .* - Connected$`, 'm');
const withoutColour = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, '');

interface ServerEntry {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  httpUrl?: string;
  headers?: Record<string, string>;
}

/** The servers `qwen mcp add` wrote to the user's settings, its default scope. */
function userServers(home: Home): Record<string, ServerEntry> {
  return (JSON.parse(readFileSync(join(home.qwenHome, 'settings.json'), 'utf8')) as { mcpServers: Record<string, ServerEntry> }).mcpServers;
}

describe(`Qwen Code ${versionOf('qwen')} with the lines of docs/clients.md`, { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  let home: Home;
  let proxy: RecordingProxy;
  let sandbox: Sandbox;
  terminalFixtures((now) => ({ home, proxy, sandbox } = now));

  it('connects over stdio with the sandbox line and the real-API line, in the user settings, and reports a server that cannot start', async () => {
    const { accessToken, apiKey } = sandbox.simulation.credentials;
    const sandboxLine = fill(docBlock(SECTION, 'sh', 'qwen mcp add app-management-sandbox').text, [[PLACEHOLDER.clone, CLONE]]);
    const realLine = fill(docBlock(SECTION, 'sh', 'APPMGMT_BASE_URL').text, [
      [PLACEHOLDER.baseUrl, sandbox.url],
      [PLACEHOLDER.token, accessToken!],
      [PLACEHOLDER.apiKey, apiKey!],
      [PLACEHOLDER.clone, CLONE],
    ]);
    // A server that cannot start, so that "Connected" below means connected.
    const broken = `qwen mcp add broken node -- ${CLONE}/dist/index.js --no-such-flag`;
    await shOk([sandboxLine, realLine, broken].join(' && '), home);
    expect(userServers(home)).toEqual({
      'app-management-sandbox': { command: 'node', args: [`${CLONE}/dist/index.js`, '--sandbox'] },
      'app-management': {
        command: 'node',
        args: [`${CLONE}/dist/index.js`],
        env: { APPMGMT_BASE_URL: sandbox.url, APPMGMT_ACCESS_TOKEN: accessToken, APPMGMT_API_KEY: apiKey },
      },
      broken: { command: 'node', args: [`${CLONE}/dist/index.js`, '--no-such-flag'] },
    });

    const list = withoutColour(await shOk('qwen mcp list', home));
    expectListed(list, connected('app-management-sandbox'));
    expectListed(list, connected('app-management'));
    expectListed(list, /^✗ broken: .* - Disconnected$/m);
  });

  it("connects over HTTP to a team deployment, keeping ${VAR} in the settings and reading the user's environment", async () => {
    const add = fill(docBlock(SECTION, 'sh', '--transport http').text, [[PLACEHOLDER.team, proxy.url]]);
    await shOk(add, home);
    expect(userServers(home)['app-management']).toEqual({
      httpUrl: `${proxy.url}/mcp`,
      headers: { Authorization: 'Bearer ${APPMGMT_ACCESS_TOKEN}', 'X-Appmgmt-Api-Key': '${APPMGMT_API_KEY}' },
    });
    const env = { APPMGMT_ACCESS_TOKEN: 'pat_demo_admin', APPMGMT_API_KEY: 'key_demo_admin' };
    expectListed(withoutColour(await shOk('qwen mcp list', home, env)), connected('app-management'));
    expect(proxy.requests.length).toBeGreaterThan(0);
    expect(credentialHeaders(proxy.requests)).toEqual({ authorization: ['Bearer pat_demo_admin'], 'x-appmgmt-api-key': ['key_demo_admin'] });
  });
});
