import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV_VARS } from '../../src/config.js';
import { defaultWorld } from '../../src/sandbox/built-in-world.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import { TOOLS } from '../../src/tools/index.js';
import { BIN, cleanEnv, runNode, startRaw, type Exit } from '../process.js';
import { redisSkipReason, startRedis, type RedisServer } from '../redis.js';

// The built bin as a user or a client starts it. Mode logic itself is tested in test/server.test.ts;
// here: the flags and variables reach it, and the process behaves well at its edges.
const root = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(`${root}/package.json`, 'utf8'));
const NAMES = TOOLS.map((tool) => tool.name);
const READ_TOOLS = TOOLS.filter((tool) => tool.annotations.readOnlyHint).map((tool) => tool.name);

/** Runs the bin with stdin left open, as a terminal would: it must end by itself. */
function run(args: string[], env: Record<string, string> = {}): Promise<Exit> {
  return runNode([BIN, ...args], { env: { ...cleanEnv(), ...env } });
}

async function connect(args: string[], env: Record<string, string> = {}) {
  // StdioClientTransport adds only PATH, HOME and the like: no APPMGMT_* leaks from this process.
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, ...args], env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk));
  const client = new Client({ name: 'cli-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

async function toolNames(args: string[], env: Record<string, string> = {}): Promise<string[]> {
  const { client } = await connect(args, env);
  try {
    return (await client.listTools()).tools.map((tool) => tool.name);
  } finally {
    await client.close();
  }
}

describe('the command line', () => {
  let sandbox: Sandbox;
  let apiEnv: Record<string, string>;

  beforeAll(async () => {
    sandbox = await startSandbox();
    const { accessToken, apiKey, monitoringApiKey } = sandbox.simulation.credentials;
    apiEnv = { APPMGMT_BASE_URL: sandbox.url, APPMGMT_ACCESS_TOKEN: accessToken, APPMGMT_API_KEY: apiKey, APPMGMT_MONITORING_API_KEY: monitoringApiKey };
  });
  afterAll(() => sandbox?.close());

  it('--help prints every flag and variable on stdout and exits 0 without starting the server', async () => {
    const { code, stdout, stderr } = await run(['--help']);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toContain(`app-management-mcp ${pkg.version}`);
    for (const flag of ['--sandbox', '--sandbox-world', '--read-only', '--app-id', '--tools', '--port', '--version']) expect(stdout).toContain(flag);
    for (const name of Object.keys(ENV_VARS)) expect(stdout).toContain(name);
    expect(stdout).toMatch(/sandbox \[--port N\]/);
  });

  it("--help names the sandbox's read-only credentials, and --sandbox serves with them when they are set", async () => {
    const { stdout } = await run(['--help']);
    expect(stdout).toContain('to try its read-only ones, also set\n                            APPMGMT_ACCESS_TOKEN=pat_demo_owner_ro APPMGMT_API_KEY=key_demo_owner_ro');
    // The names --help prints are the built-in world's read-only credentials.
    const { access_tokens, personal_api_keys } = defaultWorld().credentials;
    expect(access_tokens.find((token) => token.token === 'pat_demo_owner_ro')?.permission).toBe('read_only');
    expect(personal_api_keys.find((key) => key.key === 'key_demo_owner_ro')?.permission).toBe('read_only');

    const server = await startRaw(['--sandbox'], { APPMGMT_ACCESS_TOKEN: 'pat_demo_owner_ro' });
    try {
      const answer = (await server.request('tools/call', { name: 'check_connection', arguments: {} })).result as { content: Array<{ text: string }> };
      expect(answer.content[0]?.text).toContain('Permission level: access token READ-ONLY, API key full access (as the sandbox records them).');
      expect(answer.content[0]?.text).toContain("The sandbox's read-only credentials, to see what one can do: start the server with APPMGMT_API_KEY=key_demo_owner_ro.");
      // Over a client's pipe, no start-up line: stderr stays the client's log of real events.
      expect(server.stderr()).not.toContain('info: sandbox:');
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    // A team's sandbox over HTTP says which credentials serve, with their permission, and the read-only ones to try.
    const child = spawn(process.execPath, [BIN, 'http', '--sandbox', '--port', '0'], { env: { ...cleanEnv(), APPMGMT_ACCESS_TOKEN: 'pat_demo_owner_ro' } });
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk;
        if (stderr.includes('info: sandbox:') && stderr.endsWith('\n')) resolve();
      });
      child.on('close', (code) => reject(new Error(`exited (${code}): ${stderr}`)));
    });
    child.kill('SIGTERM');
    expect(stderr).toContain(
      'info: sandbox: a simulated service, with access token pat_demo_owner_ro (read-only) and API key key_demo_owner (full access); to try read-only ones, start with APPMGMT_API_KEY=key_demo_owner_ro\n',
    );
  });

  it('--version prints the package version on stdout and exits 0', async () => {
    const { code, stdout, stderr } = await run(['--version']);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toBe(`${pkg.version}\n`);
  });

  it.each<{ how: string; args: string[]; env?: Record<string, string>; lines: string[] }>([
    {
      how: 'an unknown flag',
      args: ['--readonly'],
      lines: ['Unknown flag --readonly; did you mean --read-only? The flags are --sandbox, --sandbox-world FILE, --read-only, --app-id ID, --tools a,b, --toolsets a,b, --port N, --host H, --help, --version'],
    },
    { how: '--port without sandbox', args: ['--sandbox', '--port', '8080'], lines: ['--port applies only to the http command (app-management-mcp http --port N) or the sandbox command (app-management-mcp sandbox --port N)'] },
    { how: 'an unknown command', args: ['serve'], lines: ['Unknown command serve; the commands are http and sandbox (without one, the MCP server runs on stdio)'] },
    { how: 'an empty --app-id', args: ['--sandbox', '--app-id', ''], env: { APPMGMT_APP_ID: 'app_demo' }, lines: ['--app-id is empty; give an app ID or leave the flag out'] },
    {
      how: 'three mistakes in the environment',
      args: ['--sandbox'],
      env: { APPMGMT_READONLY: 'true', APPMGMT_TIMEOUT_MS: '90000000', APPMGMT_BASE_URL: 'https://user:pa55word@api.example.com' },
      lines: [
        'APPMGMT_BASE_URL must not contain a user name or password; credentials belong in APPMGMT_ACCESS_TOKEN and APPMGMT_API_KEY',
        'APPMGMT_TIMEOUT_MS must be at most 86400000 (24 hours)',
        'Unknown variable APPMGMT_READONLY; did you mean APPMGMT_READ_ONLY?',
      ],
    },
  ])('$how stops start-up with exit code 2 and one line per problem', async ({ args, env = {}, lines }) => {
    const { code, stdout, stderr } = await run(args, env);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trimEnd().split('\n')).toEqual(lines.map((line) => `app-management-mcp: ${line}`));
    expect(stderr).not.toContain('pa55word');
  });

  it.each<{ how: string; args: string[]; env: Record<string, string> }>([
    { how: '--read-only', args: ['--read-only'], env: {} },
    { how: 'APPMGMT_READ_ONLY=true', args: [], env: { APPMGMT_READ_ONLY: 'true' } },
  ])('$how registers only the read tools', async ({ args, env }) => {
    expect(await toolNames(['--sandbox', ...args], env)).toEqual(READ_TOOLS);
  });

  it.each<{ how: string; args: string[]; env: Record<string, string> }>([
    { how: '--app-id', args: ['--app-id', 'app_demo'], env: {} },
    { how: 'APPMGMT_APP_ID', args: [], env: { APPMGMT_APP_ID: 'app_demo' } },
  ])('$how removes app_id from every schema and fills it in', async ({ args, env }) => {
    const { client } = await connect(args, { ...apiEnv, ...env });
    try {
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(NAMES.length);
      for (const tool of tools) expect(Object.keys(tool.inputSchema.properties ?? {}), tool.name).not.toContain('app_id');
      const seen = sandbox.requests.length;
      await client.callTool({ name: 'get_scheduling_job', arguments: { job_id: 'job_empty' } });
      expect(sandbox.requests.slice(seen).map((request) => request.rawPath)).toEqual([
        '/api/apps/app_demo/social-calendar/posts/schedule/job_empty',
        // A completed job is followed by one calendar read: approved posts still waiting are named.
        '/api/apps/app_demo/social-calendar/posts',
      ]);
    } finally {
      await client.close();
    }
  });

  it('--toolsets and APPMGMT_TOOLSETS offer only those toolsets, plus check_connection', async () => {
    const repo = ['check_connection', 'pull_repo_changes', 'resolve_repo_conflicts', 'push_app_to_repo'];
    expect(await toolNames(['--sandbox', '--toolsets', 'repo'])).toEqual(repo);
    expect(await toolNames(['--sandbox'], { APPMGMT_TOOLSETS: 'repo' })).toEqual(repo);
    const exit = spawnSync(process.execPath, [BIN, '--toolsets', 'repo,campains'], { env: cleanEnv(), encoding: 'utf8', input: '' });
    expect(exit.status).toBe(2);
    expect(exit.stderr.trim()).toBe(
      'app-management-mcp: --toolsets has unknown toolset campains; the toolsets are emails, campaigns, sharing, social, repo, chat, monitoring (or all)',
    );
  });

  it('--tools enables only the named tools, in registry order', async () => {
    expect(await toolNames(['--sandbox', '--tools', 'push_app_to_repo, get_scheduling_job'])).toEqual(['check_connection', 'get_scheduling_job', 'push_app_to_repo']);
  });

  it('--sandbox-world refuses a malformed world with the bad field, exit code 2', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bad-world-'));
    const file = join(dir, 'world.json');
    writeFileSync(file, JSON.stringify({ workspaces: [{ id: 1 }] }));
    const result = spawnSync(process.execPath, [BIN, '--sandbox-world', file], { env: cleanEnv(), encoding: 'utf8', input: '' });
    rmSync(dir, { recursive: true, force: true });
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^app-management-mcp: invalid sandbox world: world\.workspaces\[0\]\.id: /);
  });

  it('--tools with an unknown name stops start-up and lists the valid names', () => {
    const exit = spawnSync(process.execPath, [BIN, '--tools', 'get_scheduling_job,bogus_tool'], { env: cleanEnv(), encoding: 'utf8', input: '' });
    expect(exit.status).not.toBe(0);
    expect(exit.stdout).toBe('');
    expect(exit.stderr).toContain('bogus_tool');
    for (const name of NAMES) expect(exit.stderr).toContain(name);
  });

  it.each([
    { how: 'live API', args: [] },
    { how: '--sandbox', args: ['--sandbox'] },
  ])('exits once the client closes stdin ($how)', async ({ args }) => {
    // The MCP stdio shutdown: the client closes the server's stdin and waits for it to exit.
    const child = spawn(process.execPath, [BIN, ...args], { env: cleanEnv() });
    try {
      let stdout = '';
      const answered = new Promise<void>((resolve) =>
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk;
          if (stdout.includes('"id":1')) resolve();
        }),
      );
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      child.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'eof', version: '1' } } })}\n`,
      );
      await answered;
      child.stdin.end();
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill();
    }
  }, 10_000);

  const script = spawnSync('script', ['--version'], { encoding: 'utf8' });
  const hasScript = script.status === 0 && /util-linux/.test(script.stdout);

  // `script` (util-linux) gives the server a pseudo-terminal; stdout goes to /dev/null, so all we read is stderr.
  it.skipIf(!hasScript)('says on stderr what it is and how to connect when run in a terminal with no client', async () => {
    const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
    const child = spawn('script', ['-qc', `${quote(process.execPath)} ${quote(BIN)} 1>/dev/null`, '/dev/null'], { env: cleanEnv() });
    try {
      let terminal = '';
      await new Promise<void>((resolve) =>
        child.stdout.on('data', (chunk: Buffer) => {
          terminal += chunk;
          if (/MCP client[^\n]*\n/.test(terminal)) resolve();
        }),
      );
      expect(terminal).toMatch(/app-management-mcp/);
      expect(terminal).toMatch(/waiting for an MCP client/);
      expect(terminal).toMatch(/--help|README/);
      const exited = new Promise((resolve) => child.on('close', resolve));
      child.stdin.end();
      await exited;
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill();
    }
  }, 10_000);

  it('says nothing about connecting when a client is attached', async () => {
    const { client, stderr } = await connect(['--sandbox']);
    await client.listTools();
    await client.close();
    expect(stderr()).not.toMatch(/waiting for an MCP client/);
  });
});

describe('start-up with a state URL Redis cannot use', () => {
  const SECRET = 'k7Qz9pLm2Xv4Rt8Wn3Yb6Hc1Jd5Fg0Ae';

  /** One short line, naming the variable: no stack, no line of the minified bundle, no password. */
  function expectOneShortLine(exit: Exit, pattern: RegExp) {
    expect(exit.code).toBe(2);
    expect(exit.stdout).toBe('');
    const lines = exit.stderr.trimEnd().split('\n');
    expect(lines, exit.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(pattern);
    expect(exit.stderr.length).toBeLessThan(400);
    expect(exit.stderr).not.toMatch(/ReplyError|URI malformed|^\s+at |:\d+:\d+\)|=>|function|Node\.js v|pw-Sekret/m);
  }

  it.each([
    { how: 'a word as the database', url: 'redis://:pw-Sekret@127.0.0.1:6379/prod', line: /^app-management-mcp: APPMGMT_STATE_URL must end with a database number from 0 to 9999/ },
    { how: 'a negative database', url: 'redis://127.0.0.1:6379/-1', line: /^app-management-mcp: APPMGMT_STATE_URL must end with a database number/ },
    { how: 'a malformed % escape', url: 'redis://:pw-Sekret%zz@127.0.0.1:6379/0', line: /^app-management-mcp: APPMGMT_STATE_URL has a malformed % escape in its user name or password/ },
  ])('$how exits 2 with one short line naming APPMGMT_STATE_URL, over http and stdio', async ({ url, line }) => {
    const env = { APPMGMT_STATE_URL: url, APPMGMT_STATE_SECRET: SECRET };
    expectOneShortLine(await run(['http', '--sandbox', '--port', '0'], env), line);
    expectOneShortLine(await run(['--sandbox'], env), line);
  });

  it('a secret of one repeated character exits 2 naming APPMGMT_STATE_SECRET', async () => {
    expectOneShortLine(await run(['--sandbox'], { APPMGMT_STATE_URL: 'redis://127.0.0.1:6379/0', APPMGMT_STATE_SECRET: 'x'.repeat(40) }), /^app-management-mcp: APPMGMT_STATE_SECRET is too easy to guess/);
  });

  it('an unfilled MCP Bundle placeholder and a misspelled prefix exit 2, each named', async () => {
    const exit = await run(['--sandbox'], { APPMGMT_READ_ONLY: '${user_config.read_only}', APP_MGMT_TOOLS: 'check_connection' });
    expect(exit.code).toBe(2);
    expect(exit.stderr.trimEnd().split('\n')).toEqual([
      "app-management-mcp: APPMGMT_READ_ONLY is still ${user_config.read_only}: the MCP host did not fill this setting; set it in the extension's settings (or give the variable a value), then restart",
      'app-management-mcp: Unknown variable APP_MGMT_TOOLS; did you mean APPMGMT_TOOLS?',
    ]);
  });

  // Each form a client leaves when it has no value to put in, in a variable and in a flag, over
  // stdio and http: the setting is named with the variable the client did not fill; nothing starts.
  it.each([
    ['${NAME}', (name: string) => `\${${name}}`],
    ['${env:NAME}', (name: string) => `\${env:${name}}`],
    ['${{ secrets.NAME }}', (name: string) => `\${{ secrets.${name} }}`],
    ['$NAME', (name: string) => `$${name}`],
    ['%NAME%', (name: string) => `%${name}%`],
  ])('an unfilled %s in a variable or in a flag exits 2 naming the setting and the variable, over stdio and http', async (_, form) => {
    const line = (setting: string, name: string) =>
      `app-management-mcp: ${setting} is still ${form(name)}: the MCP client did not fill it, so ${name} is not set where the client starts; set ${name} there (or write the value itself into the client's configuration), then restart`;
    const inVariable = { APPMGMT_BASE_URL: form('APPMGMT_BASE_URL') };
    const inFlag = ['--app-id', form('APPMGMT_APP_ID')];
    const runs = await Promise.all([run(['--sandbox'], inVariable), run(['http', '--port', '0'], inVariable), run(['--sandbox', ...inFlag]), run(['http', '--port', '0', ...inFlag])]);
    const expected = [line('APPMGMT_BASE_URL', 'APPMGMT_BASE_URL'), line('APPMGMT_BASE_URL', 'APPMGMT_BASE_URL'), line('--app-id', 'APPMGMT_APP_ID'), line('--app-id', 'APPMGMT_APP_ID')];
    expect(runs.map((exit) => ({ code: exit.code, stdout: exit.stdout, stderr: exit.stderr.trimEnd() }))).toEqual(expected.map((stderr) => ({ code: 2, stdout: '', stderr })));
  });

  it('a stray error after start-up exits 1 with one short line, not the bundle', async () => {
    // An error nobody awaits, raised from outside our code, as ioredis raised the ReplyError of /prod.
    const stray = 'data:text/javascript,setTimeout(() => Promise.reject(new Error("stray " + "x".repeat(100000))), 50)';
    const exit = await runNode(['--import', stray, BIN, '--sandbox'], { env: cleanEnv() });
    expect(exit.code).toBe(1);
    const lines = exit.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^app-management-mcp: internal error, exiting: Error: stray x+$/);
    expect(exit.stderr.length).toBeLessThan(2_100);
  });

  describe.skipIf(redisSkipReason !== undefined)('against a real Redis', () => {
    let redis: RedisServer;
    beforeAll(async () => {
      redis = await startRedis();
    });
    afterAll(() => redis?.stop());

    it.each([
      { how: 'http', args: ['http', '--sandbox', '--port', '0'] },
      { how: 'stdio', args: ['--sandbox'] },
    ])('a database Redis refuses (/99 of 16) exits 2 naming APPMGMT_STATE_URL, never using database 0 ($how)', async ({ args }) => {
      const exit = await run(args, { APPMGMT_STATE_URL: redis.url.replace(/\/0$/, '/99'), APPMGMT_STATE_SECRET: SECRET });
      expectOneShortLine(exit, /^app-management-mcp: APPMGMT_STATE_URL names database 99, which this Redis refuses \(ERR DB index is out of range\); Redis has databases 0 to 15/);
    });

    it('a database Redis has (/15) starts', async () => {
      const child = spawn(process.execPath, [BIN, 'http', '--sandbox', '--port', '0'], {
        env: { ...cleanEnv(), APPMGMT_STATE_URL: redis.url.replace(/\/0$/, '/15'), APPMGMT_STATE_SECRET: SECRET },
      });
      try {
        let stderr = '';
        await new Promise<void>((resolve, reject) => {
          child.stderr.on('data', (chunk: Buffer) => {
            stderr += chunk;
            if (/serving MCP on/.test(stderr)) resolve();
          });
          child.on('close', () => reject(new Error(`exited before serving: ${stderr}`)));
        });
        expect(stderr).not.toMatch(/database/);
      } finally {
        child.kill('SIGTERM');
      }
    });
  });
});

describe('stdio shutdown on SIGTERM', () => {
  it('answers a confirmed spend still on its way upstream OUTCOME UNKNOWN before it exits', async () => {
    const sandbox = await startSandbox();
    const { accessToken, apiKey } = sandbox.simulation.credentials;
    const server = await startRaw([], { APPMGMT_BASE_URL: sandbox.url, APPMGMT_ACCESS_TOKEN: accessToken, APPMGMT_API_KEY: apiKey });
    try {
      const args = { app_id: 'app_demo', campaign_name: 'Slow spend', campaign_type: 'SMART', daily_budget_micros: 5_000_000, landing_page: 'https://demo-planner.sandbox.test/' };
      const warning = await server.request('tools/call', { name: 'create_ad_campaign', arguments: args });
      expect(JSON.stringify(warning.result)).toContain('CONFIRMATION NEEDED');
      sandbox.script({ status: 200, hang: true, method: 'POST', path: /\/campaigns$/ });
      const confirmed = server.request('tools/call', { name: 'create_ad_campaign', arguments: { ...args, confirm: true } });
      while (!sandbox.requests.some((request) => request.method === 'POST')) await new Promise((resolve) => setTimeout(resolve, 10));
      server.child.kill('SIGTERM');
      const exitedFirst = server.exited.then((code) => Promise.reject(new Error(`exited (${code}) without answering:\n${server.stderr()}`)));
      const answer = (await Promise.race([confirmed, exitedFirst])).result as { isError?: boolean; content: Array<{ text: string }> };
      expect(answer.isError).toBe(true);
      expect(answer.content[0]?.text).toMatch(/^OUTCOME UNKNOWN: the call was cancelled while the request was on its way\./);
      expect(await server.exited).toBe(0);
      expect(server.child.signalCode).toBeNull();
    } finally {
      server.child.kill('SIGKILL');
      await sandbox.close();
    }
  }, 10_000);
});

// The README's and docs/'s snippets are checked by the tests each names (test/docs/snippets.test.ts).
describe('the example client', () => {
  it('examples/stdio-client.mjs lists the tools and calls one against the sandbox', async () => {
    const { code, stdout, stderr } = await runNode([`${root}/examples/stdio-client.mjs`]);
    expect(stdout.split('\n')[0]).toBe(`tools: ${NAMES.join(', ')}`);
    expect(stdout).toMatch(/^\[sandbox\] .*job_empty/m);
    expect(code, stdout + stderr).toBe(0);
  });
});
