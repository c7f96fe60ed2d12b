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
/** A session this long outlives the moment src/bin.ts would write (or rewrite) its cache. */
const PAST_CACHE_WRITE_MS = 2_000;

/** Every file of dist/ with its size, modification time and content hash. */
const distState = () =>
  readdirSync(DIST)
    .sort()
    .map((name) => {
      const path = join(DIST, name);
      return { name, bytes: statSync(path).size, mtimeMs: statSync(path).mtimeMs, sha256: createHash('sha256').update(readFileSync(path)).digest('hex') };
    });

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'start-up', version: '1' } } };

/**
 * Runs the built server with `--sandbox` through initialize and tools/list, keeps the session open
 * until `keepOpen` resolves, then closes stdin and waits for the exit.
 */
async function session(env: Record<string, string>, keepOpen: () => Promise<void>): Promise<number | null> {
  const child = spawn(process.execPath, [BIN, '--sandbox'], { env: { ...cleanEnv(), ...env }, stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  let stdout = '';
  const listed = new Promise<void>((resolve) => child.stdout.on('data', (chunk: Buffer) => (stdout += chunk) && stdout.includes('"id":2') && resolve()));
  for (const message of [INITIALIZE, { jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', id: 2, method: 'tools/list' }]) {
    child.stdin.write(`${JSON.stringify(message)}\n`);
  }
  await listed;
  await keepOpen();
  child.stdin.end();
  return exited;
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

  it('leaves dist/ as the build wrote it, and writes its code cache to the cache directory instead', async () => {
    const cacheDir = join(work, 'fresh-cache');
    const before = distState();
    const code = await session({ NODE_COMPILE_CACHE: cacheDir }, () => until(() => cacheFilesIn(cacheDir).length > 0, CACHE_WRITTEN_WITHIN_MS));
    expect(code).toBe(0);
    expect(cacheFilesIn(cacheDir)).toEqual([expect.stringContaining(`-${process.version}-${process.arch}-`)]);
    expect(distState()).toEqual(before);
  });

  it('takes the code cache it wrote on the next start, without writing it again', async () => {
    const cacheDir = join(work, 'fresh-cache');
    const [name] = cacheFilesIn(cacheDir);
    expect(name).toBeDefined();
    const cache = join(cacheDir, 'app-management-mcp', name!);
    const written = statSync(cache).mtimeMs;
    // A cache V8 rejected (another Node version's, other flags) would be written again a second into the session.
    const code = await session({ NODE_COMPILE_CACHE: cacheDir }, () => new Promise((resolve) => setTimeout(resolve, PAST_CACHE_WRITE_MS)));
    expect(code).toBe(0);
    expect(statSync(cache).mtimeMs).toBe(written);
    expect(cacheFilesIn(cacheDir)).toEqual([name]);
  });

  it('runs uncached, writing nothing anywhere, with NODE_DISABLE_COMPILE_CACHE=1', async () => {
    const cacheDir = join(work, 'disabled-cache');
    const before = distState();
    const code = await session({ NODE_COMPILE_CACHE: cacheDir, NODE_DISABLE_COMPILE_CACHE: '1' }, () => new Promise((resolve) => setTimeout(resolve, PAST_CACHE_WRITE_MS)));
    expect(code).toBe(0);
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
