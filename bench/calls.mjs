// Tool calls through the built server over stdio: per-call overhead against the same HTTP request
// made directly, throughput of sequential calls, and memory.
import { spawn } from 'node:child_process';
import { connectStdio, rssMiB } from './mcp.mjs';
import { summarize } from './stats.mjs';
import { cleanEnv, OURS } from './targets.mjs';

// A read of the sandbox's default world that no rate limit applies to.
const CALL = { name: 'list_campaign_suggestions', arguments: { app_id: 'app_demo', campaign_id: 'cmp_demo' } };
const PATH = '/api/apps/app_demo/adnet-ads/campaigns/cmp_demo/optimization-suggestions';

/** `node dist/index.js sandbox` on a free port; resolves with its URL and the APPMGMT_* lines it prints. */
export function startSandboxProcess() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [OURS, 'sandbox'], { env: cleanEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
    let text = '';
    const timer = setTimeout(() => (child.kill(), reject(new Error('the sandbox did not start within 10 s'))), 10_000);
    child.stderr.on('data', (chunk) => {
      text += chunk;
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(text)?.[1];
      if (!url || !text.includes('APPMGMT_MONITORING_API_KEY=')) return;
      clearTimeout(timer);
      const env = Object.fromEntries([...text.matchAll(/^\s*(APPMGMT_\w+)=(\S+)$/gm)].map((m) => [m[1], m[2]]));
      resolve({ url, env, pid: child.pid, close: () => child.kill() });
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`the sandbox exited with ${code}: ${text}`)));
  });
}

/** Milliseconds of each of `count` sequential runs of `task`, and the seconds all of them took. */
async function timeEach(count, task) {
  const ms = [];
  const started = process.hrtime.bigint();
  for (let i = 0; i < count; i++) {
    const t = process.hrtime.bigint();
    await task();
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return { ms, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
}

async function callOk(client) {
  const result = await client.callTool(CALL);
  if (result.isError) throw new Error(`${CALL.name} failed: ${JSON.stringify(result.content)}`);
}

/** Our server against a sandbox in another process, and fetch straight to that sandbox. */
export async function measureOverhead({ calls = 1000, warmup = 50 } = {}) {
  const sandbox = await startSandboxProcess();
  const ours = await connectStdio({ command: process.execPath, args: [OURS], env: cleanEnv(sandbox.env) });
  try {
    const rssAfterInitialize = await rssMiB(ours.pid);
    const direct = async () => {
      const response = await fetch(sandbox.url + PATH, { headers: { authorization: `Bearer ${sandbox.env.APPMGMT_ACCESS_TOKEN}` } });
      if (!response.ok) throw new Error(`direct request failed: ${response.status}`);
      await response.json();
    };
    for (let i = 0; i < warmup; i++) {
      await callOk(ours.client);
      await direct();
    }
    const viaMcp = await timeEach(calls, () => callOk(ours.client));
    const viaFetch = await timeEach(calls, direct);
    const mcp = summarize(viaMcp.ms);
    const fetched = summarize(viaFetch.ms);
    return {
      tool: CALL.name,
      calls,
      mcp,
      direct: fetched,
      overheadMedianMs: Math.round((mcp.median - fetched.median) * 100) / 100,
      callsPerSecond: Math.round(calls / viaMcp.seconds),
      directPerSecond: Math.round(calls / viaFetch.seconds),
      rssMiB: { afterInitialize: rssAfterInitialize, afterCalls: await rssMiB(ours.pid), calls: warmup + calls },
    };
  } finally {
    await ours.close();
    sandbox.close();
  }
}

/** RSS of `dist/index.js --sandbox` (server and sandbox in one process) after initialize and after the calls. */
export async function measureMemory({ calls = 1000 } = {}) {
  const ours = await connectStdio({ command: process.execPath, args: [OURS, '--sandbox'], env: cleanEnv() });
  try {
    const afterInitialize = await rssMiB(ours.pid);
    for (let i = 0; i < calls; i++) await callOk(ours.client);
    return { calls, afterInitialize, afterCalls: await rssMiB(ours.pid) };
  } finally {
    await ours.close();
  }
}
