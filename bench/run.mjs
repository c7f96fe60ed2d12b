// `npm run bench` (builds first): issue 31's four figures in a few minutes. Ours, the naive peer
// (bench/peer-server.mjs: the same two upstream reads with fetch, nothing else) and the floor
// (bench/floor-server.mjs: one trivial tool) are measured in the same run, round robin
// (bench/versus.mjs), and the cold starts of ours, the floor and bare node on every Node.js found
// (this one, BENCH_NODES, and test/runtimes' 22 and 24). Prints each ratio against its target,
// writes bench/out/results.json (ignored by git); `--baseline` also replaces bench/baseline.json,
// which the README's figures must match. `npm run bench:full` measures everything else too (tokens,
// result sizes, HTTP with Redis, the views). Only 127.0.0.1 traffic; every loop is bounded.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { measureColdStarts, primeCodeCache } from './cold-start.mjs';
import { BARE, cleanEnv, FLOOR, LIVE_ENV, OURS } from './targets.mjs';
import { measureVersus, versusSettings } from './versus.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const log = (message) => process.stderr.write(`bench: ${message}\n`);

/** The targets of issue 31. */
const TARGETS = {
  cpuPerCallOverPeer: { at: 'most', value: 1.0 },
  throughputOverPeer: { at: 'least', value: 1.0 },
  coldStartOverFloor: { at: 'most', value: 0.5 },
  memoryOverFloor: { at: 'most', value: 1.2 },
};
const meets = (name, ratio) => (TARGETS[name].at === 'most' ? ratio <= TARGETS[name].value : ratio >= TARGETS[name].value);

/** This Node.js, those in BENCH_NODES (comma-separated paths), and test/runtimes' 22 and 24 when installed: one per version. */
function runtimes() {
  const found = [process.execPath, ...(process.env.BENCH_NODES?.split(',').filter(Boolean) ?? [])];
  for (const major of [22, 24]) {
    const path = fileURLToPath(new URL(`../test/runtimes/node_modules/node${major}/bin/node`, import.meta.url));
    if (existsSync(path)) found.push(path);
  }
  const byVersion = new Map();
  for (const node of found) {
    const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
    if (!byVersion.has(version)) byVersion.set(version, node);
  }
  return [...byVersion].map(([version, node]) => ({ version, node }));
}

const round = (value) => Math.round(value * 100) / 100;
const load = () => loadavg()[0].toFixed(1);
const started = performance.now();
const loadBefore = load();

const coldStart = {};
for (const { version, node } of runtimes()) {
  const targets = [
    { name: 'bare node -e', command: node, args: BARE, env: cleanEnv() },
    { name: 'ours', command: node, args: [OURS], env: cleanEnv(LIVE_ENV) },
    { name: 'floor', command: node, args: [FLOOR], env: cleanEnv() },
  ];
  // src/bin.ts writes its code cache for a Node version a second into a session: a user's second start has it.
  await primeCodeCache(targets[1]);
  log(`cold start on Node ${version}: ${targets.length} servers × ${RUNS} runs, round robin`);
  const measured = await measureColdStarts(targets, { runs: RUNS });
  coldStart[version] = { ...measured, oursOverFloor: round(measured.ours.median / measured.floor.median), oursOverBare: round(measured.ours.median / measured['bare node -e'].median) };
}
log('ours, the peer and the floor over HTTP (bench/versus.mjs)');
const versus = await measureVersus({ log, settings: versusSettings() });

const cpu = cpus();
const main = coldStart[process.version] ?? Object.values(coldStart)[0];
const ratios = {
  cpuPerCallOverPeer: versus.ratios.cpuPerCallOverPeer,
  throughputOverPeer: versus.ratios.throughputOverPeer,
  coldStartOverFloor: Math.max(...Object.values(coldStart).map((c) => c.oursOverFloor)),
  memoryOverFloor: versus.ratios.memory,
};
const results = {
  date: new Date().toISOString(),
  machine: { node: process.version, cpu: cpu[0]?.model ?? 'unknown', cores: cpu.length, memoryGiB: Math.round(totalmem() / 2 ** 30), os: `${process.platform} ${release()}`, loadAverage: { before: Number(loadBefore), after: Number(load()) } },
  coldStart: { runs: RUNS, byNode: coldStart },
  versus: { ...versus, ratios: { ...versus.ratios, coldStartOverFloor: round(main.oursOverFloor), coldStartOverBare: round(main.oursOverBare) } },
  issue31: { ratios, targets: Object.fromEntries(Object.entries(ratios).map(([name, ratio]) => [name, meets(name, ratio)])) },
  seconds: Math.round((performance.now() - started) / 1000),
};
const written = new URL('./out/results.json', import.meta.url);
mkdirSync(new URL('./out/', import.meta.url), { recursive: true });
writeFileSync(written, `${JSON.stringify(results, null, 2)}\n`);
const baseline = process.argv.includes('--baseline');
if (baseline) copyFileSync(written, new URL('./baseline.json', import.meta.url));
process.stdout.write(`${report(results)}\n`);

function report({ versus: v, coldStart: c, issue31, machine, seconds }) {
  const span = (s, unit = '') => `${s.median}${unit} (${s.min}–${s.max})`;
  const mark = (name) => (issue31.targets[name] ? 'met' : '**missed**');
  const target = (name) => `${TARGETS[name].at === 'most' ? '≤' : '≥'} ${TARGETS[name].value.toFixed(1)}`;
  const cold = Object.entries(c.byNode).map(([version, s]) => `| cold start, Node ${version.slice(1)} | ${s.ours.median} ms | | ${s.floor.median} ms | ours ÷ floor ${s.oursOverFloor.toFixed(2)} (bare node ${s['bare node -e'].median} ms) | ≤ 0.5 | ${s.oursOverFloor <= 0.5 ? 'met' : '**missed**'} |`);
  return [
    `**Issue 31** (Node ${machine.node.slice(1)}, ${machine.cpu}, ${machine.cores} cores; load average ${machine.loadAverage.before} before, ${machine.loadAverage.after} after; took ${seconds} s).`,
    '',
    '| figure | ours | naive peer | floor | ratio | target | |',
    '|---|---|---|---|---|---|---|',
    `| server CPU per \`tools/call\`, HTTP, 1 client | ${span(v.cpuPerCallMs['ours http'], ' ms')} | ${span(v.cpuPerCallMs['peer http'], ' ms')} | ${span(v.cpuPerCallMs['floor http'], ' ms')} | ours ÷ peer ${issue31.ratios.cpuPerCallOverPeer.toFixed(2)} (per round ${span(v.roundRatios.cpuPerCallOverPeer)}); ÷ floor ${v.ratios.cpuPerCallHttp.toFixed(2)} | ${target('cpuPerCallOverPeer')} | ${mark('cpuPerCallOverPeer')} |`,
    `| calls/s, ${v.settings.clients} clients, HTTP | ${span(v.callsPerSecond.ours)} | ${span(v.callsPerSecond.peer)} | ${span(v.callsPerSecond.floor)} | ours ÷ peer ${issue31.ratios.throughputOverPeer.toFixed(2)} (per round ${span(v.roundRatios.throughputOverPeer)}); ÷ floor ${v.ratios.throughput.toFixed(2)} | ${target('throughputOverPeer')} | ${mark('throughputOverPeer')} |`,
    ...cold,
    `| RSS after ${v.memory.ours.calls.toLocaleString('en-US')} HTTP calls | ${v.memory.ours.rssMiB} MiB | ${v.memory.peer.rssMiB} MiB | ${v.memory.floor.rssMiB} MiB | ours ÷ floor ${issue31.ratios.memoryOverFloor.toFixed(2)}; ÷ peer ${v.ratios.memoryOverPeer.toFixed(2)} | ${target('memoryOverFloor')} | ${mark('memoryOverFloor')} |`,
    `| server CPU per \`tools/call\`, stdio, 1 client | ${span(v.cpuPerCallMs['ours stdio'], ' ms')} | | ${span(v.cpuPerCallMs['floor stdio'], ' ms')} | ours ÷ floor ${v.ratios.cpuPerCallStdio.toFixed(2)} | | |`,
    '',
    `Ours and the peer answer \`${v.ours.name}\` ${JSON.stringify(v.ours.arguments)} from the sandbox in its own process (two API requests each); the floor answers \`echo\` and calls nothing. ` +
      `${v.settings.rounds} rounds, round robin: ${v.settings.sequentialCalls} sequential calls per server (server CPU from /proc, 10 ms ticks) and ${v.settings.concurrentCalls.toLocaleString('en-US')} calls over ${v.settings.clients} clients per server; median round (min–max). ` +
      `Cold start: spawn to the \`initialize\` answer over stdio, ${c.runs} runs each, round robin, median; the worst Node's ratio is the one held to the target. Where the time goes: \`npm run bench:profile\`.`,
    '',
    `Targets: ${Object.entries(issue31.targets).map(([name, ok]) => `${name} ${issue31.ratios[name].toFixed(2)} ${target(name)} ${ok ? 'met' : 'MISSED'}`).join('; ')}. Written to bench/out/results.json${baseline ? ' and bench/baseline.json' : ''}.`,
  ].join('\n');
}
