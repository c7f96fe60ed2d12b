import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createManualClock, type SandboxClock } from './clock.js';
import { createSimulation, type Simulation, type SimulationOptions } from './simulation.js';
import type { RecordedRequest, ScriptedResponse, SimRequest, SimResponse } from './types.js';
import { readBody } from '../transports/body.js';

export interface SandboxOptions extends Omit<SimulationOptions, 'clock'> {
  /** 0 (default) picks a free port. */
  port?: number;
  clock?: SandboxClock;
  /** Serve the control surface under /_sandbox/ (reset, advance the clock, pick a scenario). */
  control?: boolean;
  /** Largest request body accepted, in bytes. */
  maxBodyBytes?: number;
  /**
   * Let the process exit while the sandbox still listens (for the sandbox inside the MCP server,
   * which must end with its client's session, after answering every request in flight).
   */
  unref?: boolean;
}

/** The request log keeps this many, newest last: a sandbox that runs for days must not grow without end. */
export const MAX_RECORDED = 10_000;

export interface Sandbox {
  /** http://127.0.0.1:PORT, no trailing slash. */
  url: string;
  clock: SandboxClock;
  simulation: Simulation;
  /** The requests received, in order, at most the last MAX_RECORDED (control requests excluded). */
  requests: RecordedRequest[];
  /** Queue a canned answer; it is used before the simulation. */
  script(response: ScriptedResponse): void;
  /** Answer every hung request (with 504) and forget remaining scripts. */
  release(): void;
  /** Back to the initial world and an empty request log. */
  reset(): void;
  close(): Promise<void>;
}

/**
 * Starts the simulated service on 127.0.0.1. It never writes to stdout.
 * @throws when the port is taken.
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const clock = options.clock ?? createManualClock();
  const simulation = createSimulation({ ...options, clock });
  const requests: RecordedRequest[] = [];
  let scripts: ScriptedResponse[] = [];
  const hung = new Set<ServerResponse>();
  const maxBody = options.maxBodyBytes ?? 1_000_000;

  const server = createServer((req, res) => {
    void serve(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, { status: 500, body: { detail: `sandbox error: ${String(error)}` } });
    });
  });

  async function serve(req: IncomingMessage, res: ServerResponse) {
    const rawUrl = req.url ?? '/';
    const [rawPath = '/', queryString = ''] = rawUrl.split('?', 2);
    const bytes = await readBody(req, maxBody);
    if (bytes === undefined) return send(res, { status: 413, body: { detail: 'request body too large' } });
    const body = parseBody(bytes.toString('utf8'));
    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : (value ?? '')]),
    );
    const method = (req.method ?? 'GET').toUpperCase();

    if (rawPath.startsWith('/_sandbox/')) {
      if (!options.control) return send(res, { status: 404, body: { detail: 'Not Found' } });
      return send(res, control(method, rawPath, body));
    }

    requests.push({ method, rawPath, query: queryString, headers, body, at: clock.now() });
    if (requests.length > MAX_RECORDED) requests.splice(0, requests.length - MAX_RECORDED);
    const scripted = takeScript(method, rawPath);
    if (scripted?.drop) return void req.socket.destroy();
    if (scripted?.hang) return void hung.add(res);
    if (scripted) return send(res, scripted);

    let segments: string[];
    try {
      segments = rawPath.split('/').filter(Boolean).map(decodeURIComponent);
    } catch {
      return send(res, { status: 400, body: { detail: 'malformed path encoding' } });
    }
    const request: SimRequest = { method, segments, rawPath, query: new URLSearchParams(queryString), headers, body };
    send(res, await simulation.handle(request));
  }

  function takeScript(method: string, rawPath: string): ScriptedResponse | undefined {
    const index = scripts.findIndex(
      (s) =>
        (!s.method || s.method.toUpperCase() === method) &&
        (!s.path || (typeof s.path === 'string' ? s.path === rawPath : s.path.test(rawPath))),
    );
    if (index < 0) return undefined;
    const scripted = scripts[index]!;
    const left = (scripted.times ?? 1) - 1;
    if (left <= 0) scripts.splice(index, 1);
    else scripts[index] = { ...scripted, times: left };
    return scripted;
  }

  function control(method: string, rawPath: string, body: unknown): SimResponse {
    const input = (body ?? {}) as Record<string, unknown>;
    if (method === 'POST' && rawPath === '/_sandbox/reset') {
      sandbox.reset();
      return { status: 200, body: { reset: true } };
    }
    if (method === 'POST' && rawPath === '/_sandbox/advance') {
      const ms = Number(input.ms ?? Number(input.seconds ?? 0) * 1000);
      if (!Number.isFinite(ms) || ms < 0) return { status: 400, body: { detail: 'ms must be a non-negative number' } };
      clock.advance(ms);
      return { status: 200, body: { now: new Date(clock.now()).toISOString() } };
    }
    if (method === 'POST' && rawPath === '/_sandbox/scenario') {
      const name = String(input.name ?? '');
      try {
        simulation.scenario(name);
      } catch (error) {
        return { status: 400, body: { detail: error instanceof Error ? error.message : String(error), scenarios: simulation.scenarios } };
      }
      return { status: 200, body: { scenario: name } };
    }
    if (method === 'GET' && rawPath === '/_sandbox/requests') return { status: 200, body: requests };
    if (method === 'GET' && rawPath === '/_sandbox/state') {
      return { status: 200, body: { scenarios: simulation.scenarios, credentials: simulation.credentials, ...simulation.inspect() } };
    }
    return { status: 404, body: { detail: 'unknown control route' } };
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  if (options.unref) {
    server.unref();
    server.on('connection', (socket) => socket.unref());
  }

  const sandbox: Sandbox = {
    url: `http://127.0.0.1:${port}`,
    clock,
    simulation,
    requests,
    script: (response) => void scripts.push(response),
    release() {
      for (const res of hung) send(res, { status: 504, body: { detail: 'released' } });
      hung.clear();
      scripts = [];
    },
    reset() {
      simulation.reset();
      requests.length = 0;
      scripts = [];
    },
    close: () =>
      new Promise<void>((resolve) => {
        sandbox.release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return sandbox;
}

function send(res: ServerResponse, response: SimResponse) {
  if (res.headersSent || res.destroyed) return;
  const payload = response.body === undefined ? '' : JSON.stringify(response.body);
  res.writeHead(response.status, {
    ...(payload ? { 'content-type': 'application/json' } : {}),
    ...response.headers,
  });
  res.end(payload);
}

function parseBody(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
