import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_WORLD } from '../src/sandbox/default-world.js';
import { BIN, cleanEnv } from './process.js';

// These tests run the built bundle (`npm test` builds it first), on whichever Node.js runs them:
// `npm run test:node-versions` runs them on Node.js 22 and 24 as well.

const DIST = dirname(BIN);
/** src/bin.ts writes a missing code cache a second into a session. */
const CACHE_WRITTEN_WITHIN_MS = 10_000;

/** Every file of dist/ with its size, modification time and content hash. */
const distState = () =>
  readdirSync(DIST)
    .sort()
    .map((name) => {
      const path = join(DIST, name);
      return { name, bytes: statSync(path).size, mtimeMs: statSync(path).mtimeMs, sha256: createHash('sha256').update(readFileSync(path)).digest('hex') };
    });

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'start-up', version: '1' } } };

interface Session {
  /** Resolves once the server has answered a ping sent now. */
  ping(): Promise<void>;
  /** Closes stdin and resolves with the exit code. */
  close(): Promise<number | null>;
}

/** Starts the built server with `--sandbox` and resolves once it has answered initialize and tools/list. */
async function open(env: Record<string, string>): Promise<Session> {
  const child = spawn(process.execPath, [BIN, '--sandbox'], { env: { ...cleanEnv(), ...env }, stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  let stdout = '';
  const waiting = new Map<number, () => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk;
    for (const [id, resolve] of waiting) if (stdout.includes(`"id":${id}`)) resolve();
  });
  let id = 1;
  const died = exited.then((code) => Promise.reject(new Error(`the server exited (${code}) before answering`)));
  died.catch(() => undefined);
  const answered = (next: number) => Promise.race([new Promise<void>((resolve) => waiting.set(next, resolve)), died]);
  const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
  send(INITIALIZE);
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const listed = answered(++id);
  send({ jsonrpc: '2.0', id, method: 'tools/list' });
  await listed;
  return {
    async ping() {
      const pong = answered(++id);
      send({ jsonrpc: '2.0', id, method: 'ping' });
      await pong;
    },
    close() {
      child.stdin.end();
      return exited;
    },
  };
}

/** Resolves once `condition()` holds (checked every 50 ms); rejects after `ms`. */
async function until(condition: () => boolean, ms: number): Promise<void> {
  for (const started = Date.now(); !condition(); await new Promise((resolve) => setTimeout(resolve, 50))) {
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
  }
}

const cacheFilesIn = (dir: string) => {
  try {
    return readdirSync(join(dir, 'app-management-mcp')).filter((name) => name.endsWith('.cache'));
  } catch {
    return [];
  }
};

describe('the built server at start-up', () => {
  const work = mkdtempSync(join(tmpdir(), 'appmgmt-start-up-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  let dirs = 0;
  const freshDir = () => join(work, `cache-${++dirs}`);

  /** A session on an empty cache directory, kept open until it has written its code cache. */
  async function writeCache(cacheDir: string): Promise<number | null> {
    const session = await open({ NODE_COMPILE_CACHE: cacheDir });
    await until(() => cacheFilesIn(cacheDir).length > 0, CACHE_WRITTEN_WITHIN_MS);
    return session.close();
  }

  /**
   * Returns once `subject` is past the moment it would write a code cache, measured by a control
   * rather than a fixed wait: a session started after the subject's start, on an empty cache
   * directory, has written its own; src/bin.ts set the subject's timer earlier, so it is due by then.
   * The subject's answer to a ping sent after that comes from an event-loop turn that ends by
   * running due timers (libuv runs them after each poll), before any later turn reads stdin's end.
   */
  async function pastCacheWrite(subject: Session): Promise<void> {
    const control = freshDir();
    expect(await writeCache(control)).toBe(0);
    await subject.ping();
  }

  it('leaves dist/ as the build wrote it, and writes its code cache to the cache directory instead', async () => {
    const cacheDir = freshDir();
    const before = distState();
    expect(await writeCache(cacheDir)).toBe(0);
    expect(cacheFilesIn(cacheDir)).toEqual([expect.stringContaining(`-${process.version}-${process.arch}-`)]);
    expect(distState()).toEqual(before);
  });

  it('takes the code cache it wrote on the next start, without writing it again', async () => {
    const cacheDir = freshDir();
    expect(await writeCache(cacheDir)).toBe(0);
    const [name] = cacheFilesIn(cacheDir);
    const cache = join(cacheDir, 'app-management-mcp', name!);
    const written = statSync(cache).mtimeMs;
    // A cache V8 rejected (another Node version's, other flags) would be written again a second into the session.
    const session = await open({ NODE_COMPILE_CACHE: cacheDir });
    await pastCacheWrite(session);
    expect(await session.close()).toBe(0);
    expect(statSync(cache).mtimeMs).toBe(written);
    expect(cacheFilesIn(cacheDir)).toEqual([name]);
  });

  it('runs uncached, writing nothing anywhere, with NODE_DISABLE_COMPILE_CACHE=1', async () => {
    const cacheDir = freshDir();
    const before = distState();
    const session = await open({ NODE_COMPILE_CACHE: cacheDir, NODE_DISABLE_COMPILE_CACHE: '1' });
    await pastCacheWrite(session);
    expect(await session.close()).toBe(0);
    expect(cacheFilesIn(cacheDir)).toEqual([]);
    expect(distState()).toEqual(before);
  });

  it('refuses a --sandbox-world file with an invalid post before serving, naming the field', () => {
    const world = structuredClone(DEFAULT_WORLD) as Record<string, any>;
    world.posts[1].scheduled_timezone = 'Mars/Olympus_Mons';
    const file = join(work, 'world.json');
    writeFileSync(file, JSON.stringify(world));
    const run = spawnSync(process.execPath, [BIN, '--sandbox-world', file], { env: cleanEnv(), encoding: 'utf8', input: `${JSON.stringify(INITIALIZE)}\n` });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim()).toBe('app-management-mcp: invalid sandbox world: world.posts[1].scheduled_timezone: unknown time zone "Mars/Olympus_Mons"');
  });
});

// Issue 31: answering initialize does not load node:crypto (6 ms of a start; src/node-crypto.ts). A
// preload reports, at the server's first write to stdout, whether it had loaded; the same session then
// lists the tools, which load on that first tools/list.
describe('what a start loads before it answers initialize', () => {
  it('answers initialize without node:crypto, and lists all 28 tools after', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'appmgmt-preload-'));
    const preload = join(dir, 'report.cjs');
    writeFileSync(
      preload,
      [
        'const write = process.stdout.write.bind(process.stdout);',
        'let first = true;',
        'process.stdout.write = (chunk, ...rest) => {',
        "  if (first) { first = false; process.stderr.write(`LOADED ${JSON.stringify(process.moduleLoadList.filter((name) => /crypto/.test(name)))}\\n`); }",
        '  return write(chunk, ...rest);',
        '};',
      ].join('\n'),
    );
    try {
      const env = { ...cleanEnv(), APPMGMT_BASE_URL: 'http://127.0.0.1:9', APPMGMT_ACCESS_TOKEN: 'start-up-token', NODE_DISABLE_COMPILE_CACHE: '1' };
      const child = spawn(process.execPath, ['-r', preload, BIN], { env, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
      const listed = new Promise<void>((resolve) => child.stdout.on('data', (chunk: Buffer) => ((stdout += chunk).includes('"id":2') ? resolve() : undefined)));
      child.stdin.write(`${JSON.stringify(INITIALIZE)}\n`);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`);
      await listed;
      child.stdin.end();
      await new Promise((resolve) => child.on('exit', resolve));
      expect(stderr).toContain('LOADED []');
      const list = stdout.split('\n').find((line) => line.includes('"id":2'))!;
      expect((JSON.parse(list) as { result: { tools: unknown[] } }).result.tools).toHaveLength(28);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
