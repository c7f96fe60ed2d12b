// `npm run bench:profile`: where our HTTP server's CPU goes while it answers the bench's read
// (`list_campaign_suggestions` against the sandbox in its own process). Builds with a source map,
// runs `dist/index.js http` under `node --cpu-prof`, makes BENCH_PROFILE_CALLS calls (2,000 by
// default) with BENCH_PROFILE_CLIENTS clients (1), stops the server, and prints its self time by
// where the code comes from: a package, a file of ours, Node's own fetch (undici), Node's
// internals, the garbage collector; then the time of each function of ours with all it calls.
// BENCH_PROFILE_SAVE=path keeps the .cpuprofile. Only 127.0.0.1 traffic.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandboxProcess } from './calls.mjs';
import { OURS, PEER } from './targets.mjs';
import { callMany, connectHttp, startHttp } from './versus.mjs';

const CALL = { name: 'list_campaign_suggestions', arguments: { app_id: 'app_demo', campaign_id: 'cmp_demo' } };
const calls = Number(process.env.BENCH_PROFILE_CALLS ?? 2_000);
const clientCount = Number(process.env.BENCH_PROFILE_CLIENTS ?? 1);
const top = Number(process.env.BENCH_PROFILE_TOP ?? 25);
/** `node bench/profile.mjs peer` profiles the naive peer (bench/peer-server.mjs) instead, for comparison. */
const peer = process.argv[2] === 'peer';

execFileSync(process.execPath, ['scripts/build.mjs', '--sourcemap'], { cwd: new URL('..', import.meta.url), stdio: 'inherit' });
const map = new SourceMap(JSON.parse(readFileSync(new URL('./out/server.cjs.map', import.meta.url), 'utf8')));
const dir = mkdtempSync(join(tmpdir(), 'appmgmt-profile-'));
const sandbox = await startSandboxProcess();
try {
  const server = peer
    ? await startHttp(['--cpu-prof', '--cpu-prof-dir', dir, PEER, 'http'], { APPMGMT_BASE_URL: sandbox.url, APPMGMT_ACCESS_TOKEN: sandbox.env.APPMGMT_ACCESS_TOKEN })
    : await startHttp(['--cpu-prof', '--cpu-prof-dir', dir, OURS, 'http', '--port', '0'], { APPMGMT_BASE_URL: sandbox.url });
  const headers = {
    authorization: `Bearer ${sandbox.env.APPMGMT_ACCESS_TOKEN}`,
    'x-appmgmt-api-key': sandbox.env.APPMGMT_API_KEY,
  };
  const clients = [];
  for (let i = 0; i < clientCount; i++) clients.push(await connectHttp(server.url, headers));
  await callMany(clients, CALL, calls);
  await Promise.all(clients.map((client) => client.close()));
  await server.stop();
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error('the server wrote no profile');
  // BENCH_PROFILE_SAVE=path keeps the profile, for Chrome DevTools or a closer look.
  if (process.env.BENCH_PROFILE_SAVE) copyFileSync(join(dir, file), process.env.BENCH_PROFILE_SAVE);
  process.stdout.write(summarize(JSON.parse(readFileSync(join(dir, file), 'utf8'))));
} finally {
  sandbox.close();
  rmSync(dir, { recursive: true, force: true });
}

/** Where a profile node's code comes from: a package, a file of ours, or a part of Node. */
function origin({ url, functionName, lineNumber, columnNumber }) {
  if (!url) return functionName || '(anonymous)'; // (garbage collector), (program), (idle)
  if (url.includes('/deps/undici/')) return 'fetch (undici, in Node)';
  if (url.startsWith('node:')) return `node: ${url.replace(/^node:(internal\/)?/, '').split('/')[0]}`;
  if (/[\\/]server-[^\\/]+\.cjs$/.test(url)) {
    const source = map.findEntry(lineNumber, columnNumber)?.originalSource ?? '';
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source)?.[1];
    return pkg ?? source.replace(/^(\.\.\/)+/, '') ?? 'bundle';
  }
  return /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? url.replace(/^file:\/\//, '');
}

/** A function's name; in the bundle, where its source starts (minified names say nothing). */
function functionOf(frame, where) {
  const entry = /[\\/]server-[^\\/]+\.cjs$/.test(frame.url) ? map.findEntry(frame.lineNumber, frame.columnNumber) : undefined;
  if (entry?.originalSource) return `${entry.name ?? '(anonymous)'} (${where}:${entry.originalLine + 1})`;
  return `${frame.functionName || '(anonymous)'} [${where}]`;
}

function summarize(profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  const functions = new Map();
  // Inclusive time: a sample counts once for every distinct function of ours (src/) on its stack.
  const parents = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const inclusive = new Map();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    const us = profile.timeDeltas[i] ?? 0;
    if (node.callFrame.functionName === '(idle)') return;
    total += us;
    const where = origin(node.callFrame);
    self.set(where, (self.get(where) ?? 0) + us);
    const name = functionOf(node.callFrame, where);
    functions.set(name, (functions.get(name) ?? 0) + us);
    const onStack = new Set();
    for (let at = id; at !== undefined; at = parents.get(at)) {
      const frame = byId.get(at).callFrame;
      const from = origin(frame);
      if (from.startsWith('src/')) onStack.add(functionOf(frame, from));
    }
    for (const name of onStack) inclusive.set(name, (inclusive.get(name) ?? 0) + us);
  });
  const rows = (entries) =>
    [...entries]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => `| ${name} | ${((100 * us) / total).toFixed(1)}% | ${(us / 1000 / calls).toFixed(3)} ms |`)
      .join('\n');
  return [
    `Self time of ${peer ? 'the naive peer' : 'our HTTP server'} over ${calls.toLocaleString('en-US')} calls (${clientCount} client${clientCount === 1 ? '' : 's'}), idle excluded: ${(total / 1000 / calls).toFixed(2)} ms per call.`,
    '',
    '| where | share | per call |',
    '|---|---|---|',
    rows(self),
    '',
    '| function | share | per call |',
    '|---|---|---|',
    rows(functions),
    '',
    '| function of ours, with all it calls | share | per call |',
    '|---|---|---|',
    rows(inclusive),
    '',
  ].join('\n');
}
