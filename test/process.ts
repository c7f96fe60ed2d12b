import { spawn, type SpawnOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Helpers for tests that run the built server (or another program) as a separate process. */

/** The built bin; `npm test` builds it first. */
export const BIN = fileURLToPath(new URL('../dist/index.js', import.meta.url));

/** This process's environment without any APPMGMT_* setting, so a developer's own never leaks in. */
export function cleanEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('APPMGMT_'))) as Record<string, string>;
}

export interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node args…` with stdin left open, as a terminal would, and collects what it writes until it ends. */
export function runNode(args: string[], options: SpawnOptions = {}): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: cleanEnv(), ...options });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface RawServer {
  child: ReturnType<typeof spawn>;
  /** Sends a JSON-RPC request and resolves with its answer. */
  request(method: string, params?: Record<string, unknown>): Promise<{ result?: Record<string, unknown>; error?: unknown }>;
  /** Every line the server wrote to stdout, in order. */
  lines: string[];
  stderr(): string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
}

/**
 * The built server as a child process spoken to in raw JSON-RPC lines (no SDK client in between),
 * already initialized.
 */
export async function startRaw(args: string[], env: Record<string, string> = {}): Promise<RawServer> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...cleanEnv(), ...env } });
  const lines: string[] = [];
  const waiting = new Map<number, (message: Record<string, unknown>) => void>();
  let buffer = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk;
    for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
      lines.push(line);
      const message = JSON.parse(line) as Record<string, unknown>;
      if (typeof message.id === 'number') waiting.get(message.id)?.(message);
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  let nextId = 1;
  const request: RawServer['request'] = (method, params) =>
    new Promise((resolve) => {
      const id = nextId++;
      waiting.set(id, resolve as (message: Record<string, unknown>) => void);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) })}\n`);
    });
  await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  return { child, request, lines, stderr: () => stderr, exited };
}

/** Resident memory of a process in MiB (Linux). */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1]);
  return kib / 1024;
}
