// Ours against the naive peer (bench/peer-server.mjs: the same SDK answering the same two upstream
// reads with fetch and nothing else) and the floor (bench/floor-server.mjs: the SDK with one trivial
// tool, a new server per request), in the same run and round robin, so machine noise falls on all
// alike. Ours and the peer serve `list_campaign_suggestions` against the sandbox in its own process
// (`dist/index.js sandbox`), as a live deployment calls its API; the floor calls nothing. Server CPU
// per call (1 client, HTTP and stdio; over HTTP also the floor with 28 trivial tools),
// calls/s with 50 clients over HTTP, and the RSS of each HTTP server once it has answered 10,000
// calls. Only 127.0.0.1 traffic; every loop is bounded.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startSandboxProcess } from './calls.mjs';
import { connectStdio, rssMiB } from './mcp.mjs';
import { cleanEnv, FLOOR, OURS, PEER } from './targets.mjs';

const OUR_CALL = { name: 'list_campaign_suggestions', arguments: { app_id: 'app_demo', campaign_id: 'cmp_demo' } };
const FLOOR_CALL = { name: 'echo', arguments: { text: 'hello' } };

const env = (name, fallback) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number ≥ 1`);
  return value;
};

/** The counts, each overridable from the environment. */
export function versusSettings() {
  return {
    /** Rounds of each round-robin measurement; the median round is reported. Seven, with the calls below, keep each HTTP server under the 10,000 calls after which its memory is read. */
    rounds: env('BENCH_VERSUS_ROUNDS', 7),
    /** Sequential calls per target per round, 1 client. */
    sequentialCalls: env('BENCH_VERSUS_CALLS', 200),
    clients: env('BENCH_HTTP_CLIENTS', 50),
    /** Calls per target per round over all the clients. */
    concurrentCalls: env('BENCH_VERSUS_CONCURRENT_CALLS', 1_000),
    /** Calls each HTTP server has answered when its memory is read. */
    memoryCalls: env('BENCH_HTTP_MEMORY_CALLS', 10_000),
    warmup: env('BENCH_HTTP_WARMUP', 50),
  };
}

/** CPU time (user + system) of a process in ms, from /proc (Linux; USER_HZ is 100). */
async function cpuMs(pid) {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** `node <args>`; resolves once it prints "serving MCP on <url>/mcp" on stderr. */
export async function startHttp(args, extraEnv) {
  const child = spawn(process.execPath, args, { env: cleanEnv(extraEnv), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const exited = new Promise((resolve) => child.once('close', resolve));
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => (child.kill(), reject(new Error(`${args.join(' ')} did not listen within 10 s: ${stderr}`))), 10_000);
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const found = /serving MCP on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)?.[1];
      if (found) (clearTimeout(timer), resolve(new URL(found)));
    });
    void exited.then((code) => (clearTimeout(timer), reject(new Error(`${args.join(' ')} exited (${code}): ${stderr}`))));
  });
  return {
    pid: child.pid,
    url,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A v2 SDK client (2026-07-28) of `url`, sending `headers` with every request. */
export async function connectHttp(url, headers) {
  const client = new Client({ name: 'bench', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return client;
}

/** `calls` calls spread evenly over `clients`, all starting together; throws on an error result. */
export async function callMany(clients, call, calls) {
  await Promise.all(
    clients.map(async (client, index) => {
      const share = Math.floor(calls / clients.length) + (index < calls % clients.length ? 1 : 0);
      for (let i = 0; i < share; i++) {
        const result = await client.callTool(call);
        if (result.isError) throw new Error(`${call.name} answered an error: ${JSON.stringify(result.content).slice(0, 200)}`);
      }
    }),
  );
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const round = (value, places = 2) => Math.round(value * 10 ** places) / 10 ** places;
const spread = (values) => ({ median: round(median(values)), min: round(Math.min(...values)), max: round(Math.max(...values)) });

/**
 * Runs `measure(target)` for every target, `rounds` times, the starting target rotating each round.
 * @returns per target name, the list of values.
 */
async function roundRobin(targets, rounds, measure) {
  const values = Object.fromEntries(targets.map((target) => [target.name, []]));
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < targets.length; i++) {
      const target = targets[(r + i) % targets.length];
      values[target.name].push(await measure(target));
    }
  }
  return values;
}

export async function measureVersus({ log = () => undefined, settings = versusSettings() } = {}) {
  const started = performance.now();
  const sandbox = await startSandboxProcess();
  const credentials = {
    authorization: `Bearer ${sandbox.env.APPMGMT_ACCESS_TOKEN}`,
    'x-appmgmt-api-key': sandbox.env.APPMGMT_API_KEY,
    'x-appmgmt-monitoring-api-key': sandbox.env.APPMGMT_MONITORING_API_KEY,
  };
  const stops = [];
  try {
    const oursHttp = await startHttp([OURS, 'http', '--port', '0'], { APPMGMT_BASE_URL: sandbox.url });
    stops.push(oursHttp.stop);
    const peerHttp = await startHttp([PEER, 'http'], { APPMGMT_BASE_URL: sandbox.url, APPMGMT_ACCESS_TOKEN: sandbox.env.APPMGMT_ACCESS_TOKEN });
    stops.push(peerHttp.stop);
    const floorHttp = await startHttp([FLOOR, 'http'], {});
    stops.push(floorHttp.stop);
    // The same floor registering 28 trivial tools, as many as ours has: what registering every tool on every request costs the SDK itself.
    const floor28Http = await startHttp([FLOOR, 'http', '--tools', '28'], {});
    stops.push(floor28Http.stop);
    const oursStdio = await connectStdio({ command: process.execPath, args: [OURS], env: cleanEnv(sandbox.env) });
    stops.push(oursStdio.close);
    const floorStdio = await connectStdio({ command: process.execPath, args: [FLOOR], env: cleanEnv() });
    stops.push(floorStdio.close);
    const http = [
      { name: 'ours', pid: oursHttp.pid, url: oursHttp.url, headers: credentials, call: OUR_CALL, served: 0 },
      { name: 'peer', pid: peerHttp.pid, url: peerHttp.url, headers: {}, call: OUR_CALL, served: 0 },
      { name: 'floor', pid: floorHttp.pid, url: floorHttp.url, headers: {}, call: FLOOR_CALL, served: 0 },
    ];
    for (const target of http) {
      target.client = await connectHttp(target.url, target.headers);
      stops.push(() => target.client.close());
    }
    const stdio = [
      { name: 'ours', pid: oursStdio.pid, call: OUR_CALL, client: oursStdio.client },
      { name: 'floor', pid: floorStdio.pid, call: FLOOR_CALL, client: floorStdio.client },
    ];
    const floor28 = { name: 'floor, 28 tools, http', pid: floor28Http.pid, call: FLOOR_CALL, client: await connectHttp(floor28Http.url, {}) };
    stops.push(() => floor28.client.close());
    const sequential = [...http.map((t) => ({ ...t, name: `${t.name} http` })), floor28, ...stdio.map((t) => ({ ...t, name: `${t.name} stdio` }))];
    for (const target of sequential) await callMany([target.client], target.call, settings.warmup);
    for (const target of http) target.served += settings.warmup;

    log(`ours, peer, floor: server CPU per call, 1 client, ${settings.rounds} rounds × ${settings.sequentialCalls} calls, HTTP and stdio`);
    const cpu = await roundRobin(sequential, settings.rounds, async (target) => {
      const before = await cpuMs(target.pid);
      await callMany([target.client], target.call, settings.sequentialCalls);
      return (await cpuMs(target.pid)) - before;
    });
    for (const target of http) target.served += settings.rounds * settings.sequentialCalls;
    const cpuPerCall = Object.fromEntries(Object.entries(cpu).map(([name, values]) => [name, spread(values.map((ms) => ms / settings.sequentialCalls))]));

    log(`ours, peer, floor: ${settings.clients} clients over HTTP, ${settings.rounds} rounds × ${settings.concurrentCalls} calls`);
    const pools = {};
    for (const target of http) {
      pools[target.name] = [];
      for (let i = 0; i < settings.clients; i++) pools[target.name].push(await connectHttp(target.url, target.headers));
      stops.push(() => Promise.all(pools[target.name].map((client) => client.close().catch(() => undefined))));
      await callMany(pools[target.name], target.call, settings.clients); // opens the connections, untimed
      target.served += settings.clients;
    }
    const rates = await roundRobin(http, settings.rounds, async (target) => {
      const t = performance.now();
      await callMany(pools[target.name], target.call, settings.concurrentCalls);
      return settings.concurrentCalls / ((performance.now() - t) / 1000);
    });
    for (const target of http) target.served += settings.rounds * settings.concurrentCalls;
    const callsPerSecond = Object.fromEntries(Object.entries(rates).map(([name, values]) => [name, spread(values.map(Math.round))]));

    log(`ours, peer, floor: memory after ${settings.memoryCalls.toLocaleString('en-US')} HTTP calls each`);
    const memory = {};
    for (const target of http) {
      await callMany(pools[target.name], target.call, Math.max(0, settings.memoryCalls - target.served));
      memory[target.name] = { calls: Math.max(settings.memoryCalls, target.served), rssMiB: await rssMiB(target.pid) };
    }

    const ratio = (a, b) => round(a / b);
    // Each round's own ratio, ours ÷ another server measured minutes apart at most: machine noise cancels best here.
    const perRound = (values, name, other) => spread(values[name].map((value, i) => value / values[other][i]));
    return {
      settings,
      ours: OUR_CALL,
      floor: FLOOR_CALL,
      cpuPerCallMs: cpuPerCall,
      callsPerSecond,
      memory,
      ratios: {
        cpuPerCallHttp: ratio(cpuPerCall['ours http'].median, cpuPerCall['floor http'].median),
        cpuPerCallStdio: ratio(cpuPerCall['ours stdio'].median, cpuPerCall['floor stdio'].median),
        throughput: ratio(callsPerSecond.ours.median, callsPerSecond.floor.median),
        memory: ratio(memory.ours.rssMiB, memory.floor.rssMiB),
        cpuPerCallOverPeer: ratio(cpuPerCall['ours http'].median, cpuPerCall['peer http'].median),
        throughputOverPeer: ratio(callsPerSecond.ours.median, callsPerSecond.peer.median),
        memoryOverPeer: ratio(memory.ours.rssMiB, memory.peer.rssMiB),
      },
      /** Ours ÷ the peer within each round: median (min–max) over the rounds. */
      roundRatios: {
        cpuPerCallOverPeer: perRound(cpu, 'ours http', 'peer http'),
        throughputOverPeer: perRound(rates, 'ours', 'peer'),
        cpuPerCallOverFloor: perRound(cpu, 'ours http', 'floor http'),
        throughputOverFloor: perRound(rates, 'ours', 'floor'),
      },
      seconds: round((performance.now() - started) / 1000, 1),
    };
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    sandbox.close();
  }
}

// `node bench/versus.mjs` alone (after `npm run build`): this part only, as JSON.
if (import.meta.url === `file://${process.argv[1]}`) {
  const results = await measureVersus({ log: (message) => process.stderr.write(`bench: ${message}\n`) });
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  process.exit(0);
}
