import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdirSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/**
 * A real Redis for tests: Debian's redis-server on a free loopback port, with no persistence (or an
 * append-only file, which a restart reads back), that a test can stop, start again on the same port,
 * or freeze (SIGSTOP) to play a Redis that stops answering.
 */

/** How long a starting redis-server may take to answer PING. */
const START_TIMEOUT_MS = 5_000;
/** How long a stopping redis-server may take before it is killed. */
const STOP_TIMEOUT_MS = 2_000;

function findRedisServer(): string | undefined {
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

export const REDIS_SERVER = findRedisServer();

/**
 * Why the Redis tests skip on this machine, or undefined when they run. Outside CI a missing
 * redis-server only skips them; with REQUIRE_REDIS_TESTS set, importing this module fails instead.
 */
export const redisSkipReason: string | undefined = (() => {
  if (REDIS_SERVER) return undefined;
  const why = 'redis-server is not installed (Debian: apt-get install redis-server)';
  if (process.env.REQUIRE_REDIS_TESTS) throw new Error(`REQUIRE_REDIS_TESTS is set, but ${why}.`);
  return `Redis tests skipped: ${why}.`;
})();

export interface RedisServer {
  readonly port: number;
  /** redis://127.0.0.1:<port>/0 */
  readonly url: string;
  /** Starts it again on the same port (empty unless it persists) and resolves once it answers. */
  start(): Promise<void>;
  /** Stops it and resolves once the process has ended. */
  stop(): Promise<void>;
  /** Freezes the process: connections stay open, nothing answers. */
  pause(): void;
  resume(): void;
}

/** A free TCP port on 127.0.0.1 (free when asked; nothing holds it after). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no port was assigned');
  return address.port;
}

export interface RedisOptions {
  /** Persist every write to an append-only file (fsync always), so that a restart keeps the data, as the gate asks of production. */
  appendOnly?: boolean;
}

/** Starts a redis-server for the tests. @throws when it is not installed or does not answer within 5 s. */
export async function startRedis({ appendOnly = false }: RedisOptions = {}): Promise<RedisServer> {
  if (!REDIS_SERVER) throw new Error(redisSkipReason ?? 'redis-server is not installed');
  const binary = REDIS_SERVER;
  const port = await freePort();
  const dir = join(tmpdir(), `appmgmt-redis-${port}-${process.pid}`);
  let child: ChildProcess | undefined;
  let paused = false;
  const killOnExit = () => child?.kill('SIGKILL');

  async function start(): Promise<void> {
    if (child) throw new Error('redis-server is already running');
    mkdirSync(dir, { recursive: true }); // its working directory: nothing is written there without persistence
    const persistence = appendOnly ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence, '--dir', dir, '--loglevel', 'warning'];
    const started = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    started.stdout?.on('data', (chunk: Buffer) => (output += chunk));
    started.stderr?.on('data', (chunk: Buffer) => (output += chunk));
    child = started;
    process.once('exit', killOnExit);
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!(await answersPing(port))) {
      if (started.exitCode !== null || Date.now() > deadline) {
        await stop();
        throw new Error(`redis-server did not answer on 127.0.0.1:${port}: ${output.trim() || 'no output'}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async function stop(): Promise<void> {
    await halt();
    rmSync(dir, { recursive: true, force: true });
  }

  /** Ends the process, keeping its files (an append-only file survives for the next start). */
  async function halt(): Promise<void> {
    const running = child;
    if (!running) return;
    child = undefined;
    process.off('exit', killOnExit);
    if (running.exitCode === null && running.signalCode === null) {
      const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
      if (paused) running.kill('SIGCONT');
      running.kill('SIGTERM');
      const timer = setTimeout(() => running.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    paused = false;
  }

  if (appendOnly) process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}/0`,
    start,
    // A persisting server keeps its files between stop and start; they go when the test process exits.
    stop: appendOnly ? halt : stop,
    pause() {
      paused = true;
      child?.kill('SIGSTOP');
    },
    resume() {
      paused = false;
      child?.kill('SIGCONT');
    },
  };
}

/** True when something on the port answers PING with PONG within 500 ms. */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (chunk: Buffer) => done(chunk.toString().startsWith('+PONG')));
  });
}
