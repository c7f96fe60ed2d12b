// Cold start: spawn a server, write `initialize` to its stdin at once, time the first line on stdout.
import { spawn } from 'node:child_process';
import { summarize } from './stats.mjs';

const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1.0.0' } },
})}\n`;

/** Milliseconds from spawn to the first complete stdout line; rejects after `timeoutMs` or on an early exit. */
export function timeToFirstLine({ command, args, env }, timeoutMs = 10_000) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'ignore'] });
    let output = '';
    let done = false;
    const finish = (error, ms) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.kill();
      if (error) reject(error);
      else resolve(ms);
    };
    const timer = setTimeout(() => finish(new Error(`no answer within ${timeoutMs} ms: ${args.join(' ')}`)), timeoutMs);
    child.on('error', finish);
    child.on('exit', (code) => finish(new Error(`exited with ${code} before answering: ${args.join(' ')}`)));
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (output.includes('\n')) finish(undefined, Number(process.hrtime.bigint() - started) / 1e6);
    });
    child.stdin.on('error', () => {}); // the child may exit before reading everything
    child.stdin.write(INITIALIZE);
  });
}

/**
 * Runs every target `runs` times, round robin (the starting target rotates each round), so machine
 * noise hits all of them alike. The first `warmup` rounds fill the disk cache and are discarded.
 * @returns per target name: summary statistics of the milliseconds.
 */
export async function measureColdStarts(targets, { runs = 21, warmup = 2 } = {}) {
  const samples = Object.fromEntries(targets.map((target) => [target.name, []]));
  for (let round = 0; round < warmup + runs; round++) {
    for (let i = 0; i < targets.length; i++) {
      const target = targets[(round + i) % targets.length];
      const ms = await timeToFirstLine(target);
      if (round >= warmup) samples[target.name].push(ms);
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, summarize(values)]));
}


/**
 * Runs `target` through initialize and tools/list and on for 1.5 s after the answer, so src/bin.ts
 * writes its code cache for this Node (as a user's first session does). Timed from the answer, not
 * the spawn: on a busy machine loading the bundle alone can take a second.
 */
export async function primeCodeCache({ command, args, env }, timeoutMs = 20_000) {
  const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'ignore'] });
  const send = (message) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  child.stdin.on('error', () => {});
  let output = '';
  const listed = new Promise((resolve) => child.stdout.on('data', (chunk) => (output += chunk).includes('"id":2') && resolve()));
  send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1.0.0' } } });
  send({ method: 'notifications/initialized' });
  send({ id: 2, method: 'tools/list' });
  let timer;
  await Promise.race([listed, new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
  clearTimeout(timer);
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  child.kill();
  await new Promise((resolve) => (child.exitCode === null ? child.once('close', resolve) : resolve()));
}
