// The built server's `http --sandbox` mode (stateless Streamable HTTP, a fresh server per request)
// measured from clients in this process: per-call latency and calls per second with 1 and with 50
// concurrent clients, for the gate's in-process store and for Redis, beside the same calls over
// stdio; and the server's memory after 10,000 calls. Only 127.0.0.1 traffic; every loop is bounded.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connectStdio, rssMiB } from './mcp.mjs';
import { cleanEnv, OURS } from './targets.mjs';

/** A read of the sandbox's default world that no rate limit applies to (the one the stdio per-call table uses). */
export const READ = { name: 'list_campaign_suggestions', arguments: { app_id: 'app_demo', campaign_id: 'cmp_demo' } };
/** A gated call without confirm: a warning, written to the gate's store; a new name each call is a new record. */
export const WARN = {
  name: 'create_ad_campaign',
  arguments: { app_id: 'app_demo', campaign_type: 'SMART', daily_budget_micros: 5_000_000, landing_page: 'https://demo-planner.sandbox.test/' },
};
const KINDS = { read: READ, warn: WARN };

const env = (name, fallback) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number ≥ 1`);
  return value;
};

/** The counts, each overridable from the environment. */
export function httpSettings() {
  return {
    /** Sequential calls of each single-client run (read and warning, each client, each store). */
    sequentialCalls: env('BENCH_HTTP_CALLS', 300),
    clients: env('BENCH_HTTP_CLIENTS', 50),
    /** Calls of each concurrent run, spread evenly over the clients. */
    concurrentCalls: env('BENCH_HTTP_CONCURRENT_CALLS', 2_000),
    /** Calls each http server has answered when its memory is read (topped up over the clients). */
    memoryCalls: env('BENCH_HTTP_MEMORY_CALLS', 10_000),
    warmup: env('BENCH_HTTP_WARMUP', 50),
  };
}

let names = 0;
/** The arguments of the next call of `kind`: a warning gets a name no call used before. */
const argumentsOf = (kind) => (kind === 'warn' ? { ...WARN.arguments, campaign_name: `Bench ${++names}` } : READ.arguments);

/** Calls `kind` once; throws unless the result is the expected one (a read without error, a warning). */
async function callOnce(client, kind) {
  const result = await client.callTool({ name: KINDS[kind].name, arguments: argumentsOf(kind) });
  if (result.isError) throw new Error(`${KINDS[kind].name} answered an error: ${textOf(result)}`);
  if (kind === 'warn' && result.structuredContent?.confirmation_needed !== true) throw new Error(`create_ad_campaign did not warn: ${textOf(result)}`);
}

const textOf = (result) => (result.content ?? []).map((part) => part.text ?? '').join(' ').slice(0, 200);

// ---- processes -------------------------------------------------------------------------------

/** CPU time (user + system) a process has used, in ms, from /proc (Linux; USER_HZ is 100). */
async function cpuMs(pid) {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Busy and total CPU time of the whole machine, in ms, from /proc/stat (Linux; USER_HZ is 100). */
async function machineMs() {
  const fields = (await readFile('/proc/stat', 'utf8')).split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number);
  const total = fields.reduce((sum, value) => sum + value, 0) * 10;
  return { busy: total - (fields[3] + fields[4]) * 10, total };
}

/** `dist/index.js http --port 0 --sandbox`; resolves once /readyz answers 200 (the store is connected). */
async function startHttpServer(extraEnv = {}) {
  const child = spawn(process.execPath, [OURS, 'http', '--port', '0', '--sandbox'], { env: cleanEnv(extraEnv), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const exited = new Promise((resolve) => child.once('close', resolve));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const base = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => (child.kill(), reject(new Error(`the http server did not start within 10 s: ${stderr}`))), 10_000);
    child.stderr.on('data', () => {
      const url = /serving MCP on (http:\/\/127\.0\.0\.1:\d+)\/mcp/.exec(stderr)?.[1];
      if (url) (clearTimeout(timer), resolve(url));
    });
    void exited.then((code) => (clearTimeout(timer), reject(new Error(`the http server exited (${code}) before listening: ${stderr}`))));
  });
  const deadline = Date.now() + 10_000;
  for (;;) {
    const ready = await fetch(`${base}/readyz`).then((response) => response.status === 200, () => false);
    if (ready) break;
    if (Date.now() > deadline) throw new Error(`the http server was not ready within 10 s: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    pid: child.pid,
    mcp: new URL(`${base}/mcp`),
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function findRedisServer() {
  const candidates = ['/usr/bin/redis-server', ...(process.env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, 'redis-server'))];
  return candidates.find((path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

async function freePort() {
  const server = createServer();
  await new Promise((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** One inline Redis command on a fresh connection; resolves with the raw reply. */
function redisCommand(port, command) {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    const timer = setTimeout(() => (socket.destroy(), reject(new Error('redis did not answer within 1 s'))), 1_000);
    socket.once('error', (error) => (clearTimeout(timer), reject(error)));
    socket.once('connect', () => socket.write(`${command}\r\n`));
    socket.on('data', (chunk) => {
      reply += chunk;
      // A bulk reply ($len\r\n...\r\n) is whole once its length has arrived; anything else is one line.
      const bulk = /^\$(\d+)\r\n/.exec(reply);
      if (bulk ? Buffer.byteLength(reply) >= bulk[0].length + Number(bulk[1]) + 2 : reply.endsWith('\r\n')) {
        clearTimeout(timer);
        socket.destroy();
        resolve(reply);
      }
    });
  });
}

/** Keys and used memory of the Redis on `port`. */
async function redisUsage(port) {
  const keys = Number(/^:(\d+)/.exec(await redisCommand(port, 'DBSIZE'))?.[1]);
  const usedBytes = Number(/used_memory:(\d+)/.exec(await redisCommand(port, 'INFO memory'))?.[1]);
  return { keys, usedMemoryMiB: Math.round((usedBytes / 2 ** 20) * 10) / 10 };
}

/** redis-server on a free loopback port, nothing persisted. */
async function startRedis(binary) {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'appmgmt-bench-redis-'));
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--loglevel', 'warning'];
  const child = spawn(binary, args, { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('close', resolve));
  const deadline = Date.now() + 5_000;
  for (;;) {
    const pong = await redisCommand(port, 'PING').then((reply) => reply.startsWith('+PONG'), () => false);
    if (pong) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`redis-server did not answer on 127.0.0.1:${port}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    pid: child.pid,
    port,
    url: `redis://127.0.0.1:${port}/0`,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 2_000);
      await exited;
      clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// ---- clients and runs ------------------------------------------------------------------------

/** A client of `era` connected to `mcp`: the v2 SDK client pinned to 2026-07-28, or the v1 SDK client (2025-11-25). */
async function connectHttp(mcp, era) {
  if (era === '2026-07-28') {
    const client = new Client({ name: 'bench', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new StreamableHTTPClientTransport(mcp));
    return client;
  }
  const client = new LegacyClient({ name: 'bench', version: '1.0.0' });
  await client.connect(new LegacyHttpTransport(mcp));
  return client;
}

/** Nearest-rank percentile of sorted values. */
const at = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
const round = (value, places = 1) => Math.round(value * 10 ** places) / 10 ** places;

/**
 * `calls` calls of `kind` spread evenly over `clients`, each issuing its share back to back, all
 * starting together. Errors are counted, not fatal. Reads the CPU the listed processes used meanwhile.
 */
async function run(clients, kind, calls, processes = {}) {
  const ms = [];
  const errors = [];
  const cpuBefore = Object.fromEntries(await Promise.all(Object.entries(processes).map(async ([name, pid]) => [name, await cpuMs(pid)])));
  const machineBefore = await machineMs();
  const ownBefore = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    clients.map(async (client, index) => {
      const share = Math.floor(calls / clients.length) + (index < calls % clients.length ? 1 : 0);
      for (let i = 0; i < share; i++) {
        const t = performance.now();
        try {
          await callOnce(client, kind);
          ms.push(performance.now() - t);
        } catch (error) {
          errors.push(error instanceof Error ? error.message : String(error));
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const own = process.cpuUsage(ownBefore);
  const cpu = { bench: (own.user + own.system) / 1000 };
  for (const [name, pid] of Object.entries(processes)) cpu[name] = (await cpuMs(pid)) - cpuBefore[name];
  const machine = await machineMs();
  const cores = (machine.total - machineBefore.total) / (seconds * 1000);
  const busyCores = (machine.busy - machineBefore.busy) / (seconds * 1000);
  const oursCores = Object.values(cpu).reduce((sum, value) => sum + value, 0) / (seconds * 1000);
  ms.sort((a, b) => a - b);
  return {
    kind,
    tool: KINDS[kind].name,
    clients: clients.length,
    calls,
    ok: ms.length,
    errors: errors.length,
    ...(errors.length ? { firstError: errors[0] } : {}),
    p50: round(at(ms, 0.5) ?? NaN),
    p99: round(at(ms, 0.99) ?? NaN),
    max: round(ms[ms.length - 1] ?? NaN),
    callsPerSecond: Math.round(ms.length / seconds),
    seconds: round(seconds, 2),
    // CPU per successful call, in ms, of each process (the bench's clients included): where the 2 cores go.
    cpuMsPerCall: Object.fromEntries(Object.entries(cpu).map(([name, value]) => [name, round(value / Math.max(1, ms.length), 2)])),
    // Cores the whole machine kept busy meanwhile, and how many of them went to anything but these processes
    // (another job on a shared machine makes every number of this run slower).
    machine: { cores: Math.round(cores), busyCores: round(busyCores, 2), otherCores: round(Math.max(0, busyCores - oursCores), 2) },
  };
}

async function withClients(mcp, era, count, task) {
  const clients = [];
  try {
    for (let i = 0; i < count; i++) clients.push(await connectHttp(mcp, era));
    return await task(clients);
  } finally {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  }
}

/** One http server (with `store`): the single-client runs, the concurrent runs, then the memory top-up. */
async function measureStore(store, settings, log, redis) {
  const server = await startHttpServer(redis ? { APPMGMT_STATE_URL: redis.url, APPMGMT_STATE_SECRET: randomBytes(32).toString('hex') } : {});
  const processes = { server: server.pid, ...(redis ? { redis: redis.pid } : {}) };
  let served = 0;
  let warned = 0;
  const counted = async (result) => {
    served += result.calls;
    if (result.kind === 'warn') warned += result.ok;
    return result;
  };
  try {
    const rssAfterStartup = await rssMiB(server.pid);
    const redisBefore = redis ? await redisUsage(redis.port) : undefined;
    const runs = [];
    await withClients(server.mcp, '2026-07-28', 1, async (clients) => {
      for (const kind of ['read', 'warn']) await counted(await run(clients, kind, settings.warmup));
    });
    for (const era of ['2026-07-28', '2025-11-25']) {
      log(`http, ${store} store: 1 client (${era}), ${settings.sequentialCalls} reads and ${settings.sequentialCalls} warnings`);
      await withClients(server.mcp, era, 1, async (clients) => {
        for (const kind of ['read', 'warn']) runs.push({ era, ...(await counted(await run(clients, kind, settings.sequentialCalls, processes))) });
      });
    }
    log(`http, ${store} store: ${settings.clients} clients (2026-07-28), ${settings.concurrentCalls} reads and ${settings.concurrentCalls} warnings`);
    const bursts = {};
    const topUp = await withClients(server.mcp, '2026-07-28', settings.clients, async (clients) => {
      for (const kind of ['read', 'warn']) {
        // Untimed: one call from every client at once. The first burst also opens the connections
        // (connecting the clients one by one used one); its latency is kept apart as a cold burst.
        const burst = await counted(await run(clients, kind, clients.length));
        bursts[kind] = { p50: burst.p50, max: burst.max, errors: burst.errors };
        runs.push({ era: '2026-07-28', ...(await counted(await run(clients, kind, settings.concurrentCalls, processes))) });
      }
      // The rest of the memory run: reads and warnings in equal parts, over the same clients.
      const rest = Math.max(0, settings.memoryCalls - served);
      log(`http, ${store} store: ${rest} more calls over ${settings.clients} clients for the memory reading`);
      return [await counted(await run(clients, 'read', Math.ceil(rest / 2))), await counted(await run(clients, 'warn', Math.floor(rest / 2)))];
    });
    const memory = {
      afterStartup: rssAfterStartup,
      afterCalls: await rssMiB(server.pid),
      calls: served,
      warnings: warned,
      topUpErrors: topUp[0].errors + topUp[1].errors,
      ...(redis ? { redis: { before: redisBefore, after: await redisUsage(redis.port) } } : {}),
    };
    // The server's own warnings and errors, and node's (such as MaxListenersExceededWarning).
    const logged = server.stderr().split('\n').filter((line) => /^\[app-management-mcp\] (warn|error):|^\(node:\d+\) \w*(Warning|Error)/.test(line));
    return { runs, coldBurst: bursts, memory, serverLogWarnings: logged.length, ...(logged.length ? { serverLogSample: [...new Set(logged)].slice(0, 3) } : {}) };
  } finally {
    await server.stop();
  }
}

/** The same read and warning over stdio, one client (the v1 SDK client of bench/mcp.mjs), `--sandbox`. */
async function measureStdio(settings) {
  const session = await connectStdio({ command: process.execPath, args: [OURS, '--sandbox'], env: cleanEnv() });
  try {
    for (const kind of ['read', 'warn']) await run([session.client], kind, settings.warmup);
    const runs = [];
    for (const kind of ['read', 'warn']) runs.push({ era: '2025-11-25', ...(await run([session.client], kind, settings.sequentialCalls, { server: session.pid })) });
    return runs;
  } finally {
    await session.close();
  }
}

/** Everything above: stdio, then the in-process store, then Redis (skipped when redis-server is missing). */
export async function measureHttp({ log = () => undefined, settings = httpSettings() } = {}) {
  const started = performance.now();
  log(`stdio: 1 client, ${settings.sequentialCalls} reads and ${settings.sequentialCalls} warnings`);
  const stdio = await measureStdio(settings);
  const stores = { memory: await measureStore('memory', settings, log) };
  const binary = findRedisServer();
  if (!binary) {
    stores.redis = { skipped: 'redis-server is not installed (Debian: apt-get install redis-server); the Redis rows are left out.' };
    log(stores.redis.skipped);
  } else {
    const redis = await startRedis(binary);
    try {
      stores.redis = { server: binary, ...(await measureStore('redis', settings, log, redis)) };
    } finally {
      await redis.stop();
    }
  }
  return {
    settings,
    read: READ,
    warn: { name: WARN.name, arguments: { ...WARN.arguments, campaign_name: 'Bench N (a new name each call)' } },
    stdio,
    stores,
    seconds: round((performance.now() - started) / 1000),
  };
}

// `node bench/http.mjs` alone (after `npm run build`): this part only, as JSON.
if (import.meta.url === `file://${process.argv[1]}`) {
  const results = await measureHttp({ log: (message) => process.stderr.write(`bench: ${message}\n`) });
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
}
