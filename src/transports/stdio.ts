import { PassThrough } from 'node:stream';
import { serveStdio as serve, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { Log } from '../log.js';
import type { Calls, ServerFactory } from '../server.js';

/** After stdin closes, calls still in flight get this long to answer before the process exits. */
export const SHUTDOWN_GRACE_MS = 3_000;

/**
 * Serves MCP on stdin/stdout, to clients of every protocol era (2025 sessions and 2026-07-28
 * requests alike), with one server built for the connection. When the client closes stdin (or the
 * caller calls `stop`, on SIGTERM), `shutdown` aborts every wait and poll (they answer with what
 * they have) and every request on its way upstream (a confirmed call answers OUTCOME UNKNOWN), and
 * calls in flight get a short grace to write their answers; `done` then resolves, so the process can
 * exit: no orphan is left behind when a client goes away mid-call.
 */
export function serveStdio(factory: ServerFactory, options: { log: Log; calls: Calls; shutdown: AbortController }): { done: Promise<void>; stop(): void } {
  const { log, calls, shutdown } = options;
  // The transport reads a copy of stdin that never ends: the SDK's own transport would close itself
  // on end of input, and the answers of calls still in flight could no longer be written.
  const input = new PassThrough();
  process.stdin.pipe(input, { end: false });
  const transport = new StdioServerTransport(input, process.stdout);
  serve(() => factory(), { legacy: 'serve', transport, onerror: (error) => log.warn(`stdio: ${error.message}`) });
  let finished: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (finished = resolve));
  const stop = async () => {
    if (shutdown.signal.aborted) return;
    shutdown.abort();
    const grace = new Promise<void>((ended) => setTimeout(ended, SHUTDOWN_GRACE_MS).unref());
    await Promise.race([calls.idle(), grace]);
    await new Promise((settled) => setImmediate(settled)); // the SDK writes an answer just after its handler settles
    if (calls.active > 0) log.warn(`exiting with ${calls.active} call(s) still waiting for the service at shutdown`);
    finished();
  };
  process.stdin.once('end', () => void stop());
  process.stdin.once('close', () => void stop());
  if (process.stdin.isTTY) {
    log.info('running on stdio and waiting for an MCP client. This is a server: add it to a client (see README), or run with --help.');
  }
  return { done, stop: () => void stop() };
}
