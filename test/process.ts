import { spawn, type SpawnOptions } from 'node:child_process';
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
