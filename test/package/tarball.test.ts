import { spawn } from 'node:child_process';
import { builtinModules } from 'node:module';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/tools/index.js';
import { SERVER_VERSION } from '../../src/version.js';
import { blocksUnder, markdownFiles, ROOT, shellCommands } from '../docs/markdown.js';
import { startReceiver, type Receiver } from '../observe/otlp-receiver.js';
import type { Exit } from '../process.js';
import { redisSkipReason, startRedis, type RedisServer } from '../redis.js';

// The package as npm would publish it: `npm pack` of the clone (dist/ as `npm test` built it),
// installed into an empty folder with the npm that ships with Node.js 22 (and with 24's), and
// started with `npx -y` on Node.js 22 and 24, each with its own npm (test/runtimes pins all four). npm runs
// --offline with a cache of its own: the package must bring everything it runs, so a dependency
// would fail the install instead of being fetched.

const RUNTIMES = `${ROOT}test/runtimes/node_modules/`;
/** Each Node.js line with the npm it ships with. */
const RUNTIME = {
  22: { node: `${RUNTIMES}node22/bin/node`, npm: `${RUNTIMES}npm-node22/bin/npm-cli.js`, npx: `${RUNTIMES}npm-node22/bin/npx-cli.js` },
  24: { node: `${RUNTIMES}node24/bin/node`, npm: `${RUNTIMES}npm-node24/bin/npm-cli.js`, npx: `${RUNTIMES}npm-node24/bin/npx-cli.js` },
} as const;
type Line = keyof typeof RUNTIME;

/** npm's own complaints: `npm warn …` (npm 7 to 11 print it in one case or the other). */
const NPM_WARNING = /^npm warn/im;

let scratch: string;

/** A user's environment with nothing of this machine's npm, Node.js or settings: that Node.js first on PATH, a home and an npm cache of its own. */
function userEnv(line: Line, name: string): Record<string, string> {
  const home = join(scratch, `home-${name}`);
  mkdirSync(home, { recursive: true });
  return {
    PATH: [dirname(RUNTIME[line].node), '/usr/bin', '/bin'].join(':'),
    HOME: home,
    npm_config_cache: join(home, '.npm'),
    npm_config_update_notifier: 'false',
  };
}

/** Runs `node script args` as that user in `cwd` and collects what it writes. */
function run(line: Line, script: string, args: string[], cwd: string, env: Record<string, string>): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(RUNTIME[line].node, [script, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A client connected over stdio to `command args`; the caller closes it. */
async function connect(command: string, args: string[], env: Record<string, string>, cwd?: string): Promise<Client> {
  const client = new Client({ name: 'package-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command, args, env, stderr: 'pipe', ...(cwd ? { cwd } : {}) }));
  return client;
}

const textOf = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as Array<{ text?: string }>).map((part) => part.text ?? '').join('\n');

/** Every file below `dir`, as paths from `base`. */
function filesUnder(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name), base) : [join(dir, entry.name).slice(base.length + 1)],
  );
}

/** The relative targets of a markdown file's links and images, as paths from the package root. */
function linkedPaths(file: string): string[] {
  const text = readFileSync(`${ROOT}${file}`, 'utf8').replace(/```[\s\S]*?```/g, '');
  const targets = [...text.matchAll(/\]\(([^)\s]+)\)|<img src="([^"]+)"/g)].map((match) => (match[1] ?? match[2])!);
  return targets.filter((target) => !/^[a-z]+:/.test(target) && !target.startsWith('#')).map((target) => normalize(join(dirname(file), target.split('#')[0]!)));
}

describe('the npm package', () => {
  let tarball: string;
  let packed: { exit: Exit; files: string[]; size: number; entryCount: number };
  /** The empty folder the npm of each Node.js line installed the tarball into, and what it printed. */
  const project = (line: Line) => join(scratch, `project-${line}`);
  const installed = new Map<Line, Exit>();

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'appmgmt-package-'));
    // --ignore-scripts: npm test built dist/ already, and a rebuild would pull it from under the
    // tests running beside this one. That prepack builds is checked below.
    const exit = await run(22, RUNTIME[22].npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], ROOT, userEnv(22, 'packer'));
    expect(exit.code, exit.stderr).toBe(0);
    const [report] = JSON.parse(exit.stdout) as Array<{ filename: string; size: number; entryCount: number; files: Array<{ path: string }> }>;
    tarball = join(scratch, report!.filename);
    packed = { exit, files: report!.files.map((file) => file.path).sort(), size: report!.size, entryCount: report!.entryCount };

    for (const line of [22, 24] as const) {
      mkdirSync(project(line));
      installed.set(line, await run(line, RUNTIME[line].npm, ['install', '--offline', '--no-audit', '--no-fund', tarball], project(line), userEnv(line, 'user')));
    }
  }, 60_000);

  afterAll(() => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('builds when packed, never when installed, and depends on nothing', () => {
    const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: Record<string, string>; dependencies?: object; bin: Record<string, string> };
    expect(pkg.scripts.prepack).toBe(pkg.scripts.build);
    expect(Object.keys(pkg.scripts).filter((name) => /^(pre|post)?(install|prepare)$/.test(name))).toEqual([]);
    expect(pkg.dependencies).toBeUndefined();
    expect(pkg.bin).toEqual({ 'app-management-mcp': 'dist/index.js' });
  });

  it("requires nothing from dist/ but Node.js's own modules and dist's own files, whatever mode loads them", () => {
    const dist = `${ROOT}dist`;
    const wanted = readdirSync(dist)
      .filter((name) => /\.(c?js)$/.test(name))
      .flatMap((name) => [...readFileSync(join(dist, name), 'utf8').matchAll(/\b(?:require|import)\(\s*["']([@\w][\w@./-]*)["']\s*\)/g)].map((match) => match[1]!));
    // debug (under ioredis) asks for supports-color inside a try, and colours nothing without it.
    const optional = ['supports-color'];
    const outside = wanted.filter((name) => !name.startsWith('./') && !name.startsWith('node:') && !builtinModules.includes(name) && !optional.includes(name));
    expect(wanted.length).toBeGreaterThan(0);
    expect([...new Set(outside)]).toEqual([]);
  });

  it('packs the license, README, docs, the example client, the registry entry and dist, nothing else, and nothing npm warns about', () => {
    expect(packed.exit.stderr).not.toMatch(NPM_WARNING);
    const folders = ['docs', 'examples', 'dist'].flatMap((folder) => filesUnder(`${ROOT}${folder}`).map((path) => `${folder}/${path}`));
    expect(packed.files).toEqual(['LICENSE', 'README.md', ...folders, 'package.json', 'server.json'].sort());
    expect(readFileSync(`${ROOT}LICENSE`, 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} app-management-mcp contributors\n/);
  });

  it("keeps every link of the README and docs inside the package", () => {
    const documents = markdownFiles().filter((file) => packed.files.includes(file));
    expect(documents).toEqual(markdownFiles());
    const dead = documents.flatMap((file) => linkedPaths(file).filter((path) => !packed.files.includes(path)).map((path) => `${file} -> ${path}`));
    expect(dead).toEqual([]);
  });

  it.each([22, 24] as const)('installs into an empty folder with the npm of Node.js %i, offline, without a warning and without any dependency', (line) => {
    const exit = installed.get(line)!;
    expect(exit.code, exit.stderr).toBe(0);
    expect(`${exit.stdout}${exit.stderr}`).not.toMatch(NPM_WARNING);
    expect(exit.stdout).toMatch(/^added 1 package\b/m);
    expect(readdirSync(join(project(line), 'node_modules')).filter((name) => !name.startsWith('.'))).toEqual(['app-management-mcp']);
    expect(readdirSync(join(project(line), 'node_modules', 'app-management-mcp')).sort()).toEqual(['LICENSE', 'README.md', 'dist', 'docs', 'examples', 'package.json', 'server.json']);
  });

  it('answers --version and lists every tool over stdio from the installed command', async () => {
    const bin = join(project(22), 'node_modules', '.bin', 'app-management-mcp');
    const env = userEnv(22, 'user');
    const version = await new Promise<Exit>((resolve) => {
      const child = spawn(bin, ['--version'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
      child.on('close', (code) => resolve({ code, stdout, stderr: '' }));
    });
    expect(version).toMatchObject({ code: 0, stdout: `${SERVER_VERSION}\n` });
    const client = await connect(bin, [], env);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(TOOLS.map((tool) => tool.name));
      expect(tools).toHaveLength(28);
    } finally {
      await client.close();
    }
  });

  describe.skipIf(redisSkipReason)('with OpenTelemetry and Redis turned on', () => {
    let redis: RedisServer;
    let receiver: Receiver;
    beforeAll(async () => {
      [redis, receiver] = await Promise.all([startRedis(), startReceiver()]);
    });
    afterAll(async () => {
      await Promise.all([redis?.stop(), receiver?.close()]);
    });

    it('loads both from the package itself: spans reach the collector and warnings are kept in Redis', async () => {
      const env = {
        ...userEnv(22, 'user'),
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        APPMGMT_STATE_URL: redis.url,
        APPMGMT_STATE_SECRET: randomBytes(32).toString('hex'),
      };
      const client = await connect(join(project(22), 'node_modules', '.bin', 'app-management-mcp'), ['--sandbox'], env);
      try {
        const warning = await client.callTool({ name: 'delete_email_template', arguments: { app_id: 'app_demo', template_id: 'tpl_seed_digest' } });
        expect(textOf(warning)).toMatch(/^\[sandbox\] CONFIRMATION NEEDED/);
      } finally {
        await client.close();
      }
      const store = new Redis(redis.url, { lazyConnect: true });
      try {
        await store.connect();
        expect(await store.dbsize()).toBeGreaterThan(0);
      } finally {
        store.disconnect();
      }
      // The server exports what is left when its stdin closes; the client's close waits for its exit.
      expect(receiver.spans().map((span) => span.name)).toContain('tools/call delete_email_template');
    });
  });

  it.each([22, 24] as const)("runs the README's `npx -y` line, the tarball in place of the registry's copy, on Node.js %i and its npm", async (line) => {
    const [tryIt] = blocksUnder('README.md', 'Try it', 'sh');
    const [npx, yes, name, ...args] = shellCommands(tryIt!.text)[0]!.split(' ');
    expect([npx, yes, name, ...args]).toEqual(['npx', '-y', 'app-management-mcp', '--sandbox']);
    const cwd = join(scratch, `npx-${line}`);
    mkdirSync(cwd);
    const client = await connect(RUNTIME[line].node, [RUNTIME[line].npx, yes!, '--offline', `file:${tarball}`, ...args], userEnv(line, `npx-${line}`), cwd);
    try {
      expect(client.getServerVersion()).toMatchObject({ name, version: SERVER_VERSION });
      expect((await client.listTools()).tools).toHaveLength(TOOLS.length);
      expect(textOf(await client.callTool({ name: 'check_connection', arguments: {} }))).toMatch(/^\[sandbox\] Service healthy/);
    } finally {
      await client.close();
    }
  });
});
