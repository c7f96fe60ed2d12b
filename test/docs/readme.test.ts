import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV_VARS } from '../../src/config.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import { TOOLS } from '../../src/tools/index.js';
import { cleanEnv } from '../process.js';
import { blocksUnder, CLONE_PLACEHOLDER, fencedBlocks, ROOT, shellCommands } from './markdown.js';

// README.md as a newcomer follows it: its length, its two commands, and each client snippet run as
// the client would run it, with the clone's real path where the snippet says /absolute/path/to/….
const README = 'README.md';
/** The limit: a README a newcomer finishes. */
const MAX_README_LINES = 250;
const ciRun = readFileSync(`${ROOT}.ci/run`, 'utf8');
const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: Record<string, string>; engines: { node: string } };

type ServerEntry = { command: string; args: string[]; env?: Record<string, string> };

/** Starts `command args` as a client does and answers with the text of check_connection and the tool count. */
async function viaClient(entry: ServerEntry): Promise<{ text: string; tools: number; isError: boolean }> {
  const transport = new StdioClientTransport({ command: entry.command, args: entry.args, env: { ...(entry.env ?? {}), PATH: process.env.PATH ?? '' }, stderr: 'pipe' });
  const client = new Client({ name: 'readme-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    const result = (await client.callTool({ name: 'check_connection', arguments: {} })) as { content: Array<{ text: string }>; isError?: boolean };
    return { text: result.content[0]!.text, tools: tools.length, isError: result.isError === true };
  } finally {
    await client.close();
  }
}

const withClone = (text: string) => text.replaceAll(CLONE_PLACEHOLDER, ROOT.replace(/\/$/, ''));

describe('README.md', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(() => sandbox?.close());

  it(`is at most ${MAX_README_LINES} lines`, () => {
    const lines = readFileSync(`${ROOT}${README}`, 'utf8').trimEnd().split('\n').length;
    expect(lines).toBeLessThanOrEqual(MAX_README_LINES);
  });

  it("gives the performance figures of the committed bench baseline, with its machine and date", () => {
    const baseline = JSON.parse(readFileSync(`${ROOT}bench/baseline.json`, 'utf8')) as {
      date: string;
      machine: { node: string; cpu: string; cores: number };
      coldStart: { byNode: Record<string, { oursOverFloor: number }> };
      versus: { ratios: Record<'cpuPerCallOverPeer' | 'cpuPerCallHttp' | 'throughputOverPeer' | 'throughput' | 'memory' | 'memoryOverPeer', number> };
    };
    const section = readFileSync(`${ROOT}${README}`, 'utf8').split('## Performance')[1]!.split('\n## ')[0]!.replace(/\s+/g, ' ');
    const { ratios } = baseline.versus;
    const times = (ratio: number) => `${ratio.toFixed(2)}×`;
    // Issue 31: measured on the supported runtime, with the ratios to the naive peer and to the floor.
    expect(baseline.machine.node).toMatch(/^v22\./);
    expect(section).toContain(`on ${baseline.date.slice(0, 10)} (Node ${baseline.machine.node.slice(1)}, ${baseline.machine.cpu}, ${baseline.machine.cores} cores`);
    const cold = Object.entries(baseline.coldStart.byNode).map(([version, c]) => `${times(c.oursOverFloor)} the floor on Node ${version.slice(1)}`);
    for (const figure of [
      `CPU per \`tools/call\` ${times(ratios.cpuPerCallOverPeer)} the peer (${times(ratios.cpuPerCallHttp)} the floor)`,
      `throughput ${times(ratios.throughputOverPeer)} the peer (${times(ratios.throughput)} the floor)`,
      `HTTP calls ${times(ratios.memory)} the floor (${times(ratios.memoryOverPeer)} the peer)`,
      ...cold,
    ]) {
      expect(section).toContain(figure);
    }
  });

  it('installs as CI does, runs a first command that ends by itself, and tests with the command CI runs', () => {
    const [develop] = blocksUnder(README, 'Develop', 'sh');
    expect(shellCommands(develop!.text)).toEqual(['npm ci', 'npm run demo', 'npm test']);
    expect(ciRun).toMatch(/^npm ci\b/m);
    expect(ciRun).toMatch(/^npm test$/m);
    // npm ci builds nothing (the package builds at prepack): every command after it builds first.
    expect(pkg.scripts.prepare).toBeUndefined();
    expect(pkg.scripts.demo).toMatch(/^npm run build --silent && /);
    expect(pkg.scripts.test).toMatch(/npm run build && tsc --noEmit && tsc -p views && vitest run$/);
  });

  it('npm run demo plays its session against the sandbox, every result marked [sandbox], and names the audit file it wrote', async () => {
    // The build is what npm test runs first (see above); this runs the rest of the script.
    const [build, play] = pkg.scripts.demo!.split(' && ');
    expect(build).toBe('npm run build --silent');
    const [command, ...args] = play!.split(' ');
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(command!, args, { cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk));
      child.stderr.on('data', (chunk: Buffer) => (err += chunk));
      child.on('close', (exit) => resolve({ code: exit, stdout: out, stderr: err }));
    });
    expect(code, stderr).toBe(0);
    expect(stderr).toBe('');
    const lines = stdout.split('\n');
    const results = lines.flatMap((line, i) => (line.startsWith('> ') ? [lines[i + 1]!] : []));
    expect(results.length).toBeGreaterThan(20);
    expect(results.filter((line) => !/^(\[isError\] )?\[sandbox\] /.test(line))).toEqual([]);
    expect(stdout).not.toMatch(/^\{"v":1/m);
    const named = /^The audit trail of this session: (\d+) lines \(one per step of each costly call\) in (\S+)$/m.exec(stdout);
    expect(named, stdout.slice(-300)).not.toBeNull();
    const trail = readFileSync(named![2]!, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as { step: string; tool: string });
    rmSync(dirname(named![2]!), { recursive: true, force: true });
    expect(trail).toHaveLength(Number(named![1]));
    // Every costly tool the session called, and only those, left its steps there.
    const called = lines.filter((line) => line.startsWith('> ')).map((line) => line.split(' ')[1]!);
    const costly = TOOLS.filter((tool) => tool.cost !== 'none').map((tool) => tool.name);
    expect(new Set(trail.map((line) => line.tool))).toEqual(new Set(called.filter((name) => costly.includes(name))));
    expect(readFileSync(`${ROOT}${README}`, 'utf8')).toContain('to a file it names at the end');
  }, 60_000);

  it('npm run sandbox builds, then answers initialize on stdio and exits when stdin closes', async () => {
    // The build is what npm test runs first; rebuilding dist/ here would pull it from under the
    // tests running beside this one, so this runs the rest of the script: the server it starts.
    const [build, serve] = pkg.scripts.sandbox!.split(' && ');
    expect(build).toBe('node scripts/build.mjs');
    expect(pkg.scripts.build).toBe(build);
    const [command, ...args] = serve!.split(' ');
    const child = spawn(command!, args, { cwd: ROOT, env: cleanEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdin.end(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'readme', version: '1' } } })}\n`);
    expect(await exited).toBe(0);
    const answer = JSON.parse(stdout.split('\n')[0]!) as { id: number; result: { serverInfo: { name: string } } };
    expect(answer).toMatchObject({ id: 1, result: { serverInfo: { name: 'app-management-mcp' } } });
  });

  it('counts the tools the registry has', () => {
    const readme = readFileSync(`${ROOT}${README}`, 'utf8');
    expect(readme).toContain(`${TOOLS.length} tools cover every`);
    expect(readme).toContain(`the ${TOOLS.length} tools,`);
  });

  it('names the Node.js that package.json engines requires', () => {
    const floor = /^>=(\d+\.\d+)\.0$/.exec(pkg.engines.node)![1]!;
    const readme = readFileSync(`${ROOT}${README}`, 'utf8');
    expect(readme).toContain(`Node.js ${floor} or newer`);
  });

  it("gives Claude Desktop configurations that start the server from the clone's dist/index.js", async () => {
    const configs = blocksUnder(README, 'Claude Desktop', 'json').map((block) => JSON.parse(withClone(block.text)) as { mcpServers: Record<string, ServerEntry> });
    expect(configs).toHaveLength(2);
    const [sandboxed, live] = configs.map((config) => {
      expect(Object.keys(config)).toEqual(['mcpServers']);
      const entries = Object.entries(config.mcpServers);
      expect(entries).toHaveLength(1);
      const [name, entry] = entries[0]!;
      expect(name).toMatch(/^[a-z][a-z-]*$/);
      expect(entry.command).toBe('node');
      expect(entry.args[0]).toBe(`${ROOT}dist/index.js`);
      for (const name of Object.keys(entry.env ?? {})) expect(Object.keys(ENV_VARS)).toContain(name);
      return entry;
    });
    expect(sandboxed!.args.slice(1)).toEqual(['--sandbox']);
    expect(sandboxed!.env).toBeUndefined();
    const demo = await viaClient(sandboxed!);
    expect(demo.tools).toBe(TOOLS.length);
    expect(demo.text).toMatch(/^\[sandbox\] Service healthy/);

    // The live one against a sandbox in this process, standing in for the service.
    expect(live!.args.slice(1)).toEqual([]);
    expect(Object.keys(live!.env!)).toEqual(['APPMGMT_BASE_URL', 'APPMGMT_ACCESS_TOKEN', 'APPMGMT_API_KEY']);
    const { accessToken, apiKey } = sandbox.simulation.credentials;
    const real = await viaClient({ ...live!, env: { APPMGMT_BASE_URL: sandbox.url, APPMGMT_ACCESS_TOKEN: accessToken, APPMGMT_API_KEY: apiKey } });
    expect(real.isError).toBe(false);
    expect(real.text).toMatch(/^Service healthy/);
    expect(real.text).toContain('access token yes, API key yes');
  }, 60_000);

  it('gives a Claude Code line whose command after -- starts the sandbox server', async () => {
    const lines = blocksUnder(README, 'Claude Code', 'sh').flatMap((block) => shellCommands(withClone(block.text)));
    expect(lines).toHaveLength(1);
    const parsed = /^claude mcp add ([a-z][a-z-]*) -- (node \S+ --sandbox)$/.exec(lines[0]!);
    expect(parsed, lines[0]).not.toBeNull();
    const [command, ...args] = parsed![2]!.split(' ');
    expect(args[0]).toBe(`${ROOT}dist/index.js`);
    const demo = await viaClient({ command: command!, args });
    expect(demo.tools).toBe(TOOLS.length);
    expect(demo.text).toMatch(/^\[sandbox\] /);
  }, 60_000);

  it('runs only npm scripts that exist, in its text as in its blocks', () => {
    const text = readFileSync(`${ROOT}${README}`, 'utf8');
    const named = [...text.matchAll(/\bnpm run ([a-z][\w:-]*)/g)].map((match) => match[1]!);
    expect(named.length).toBeGreaterThan(1);
    for (const script of named) expect(Object.keys(pkg.scripts), script).toContain(script);
    // The audit trail's lines and jq query are run by the tests of docs/operations.md, which read README.md too.
    // So are the `npx` line, by the test of the packed tarball (test/package/tarball.test.ts).
    const own = fencedBlocks(README).filter((block) => block.heading !== 'Who spent what' && block.heading !== 'Try it');
    expect(own.every((block) => block.testedBy === 'test/docs/readme.test.ts')).toBe(true);
  });
});
