// `npm run test:conformance`: the official MCP conformance suite (@modelcontextprotocol/conformance,
// server mode) against the built server, `app-management-mcp http --sandbox`, for every protocol era.
//
// The suite needs Node.js >= 22, so it runs on test/runtimes' pinned Node 22; the server runs on the
// Node.js that runs this script (20 or later). Both packages are installed on first use
// (test/conformance, test/runtimes), never by `npm install` at the root. Only 127.0.0.1 is spoken to.
//
// Only the scenarios that apply to this server are run: most of the suite calls fixture tools and
// prompts of its own reference server (test_simple_text, test_simple_prompt, …) or resources,
// logging and completions, which this server does not offer. Checks inside an applicable scenario
// that need such a fixture are listed below with the message the suite gives for them; any other
// failure or warning fails the run.
//   node scripts/conformance.mjs [--keep]   (--keep keeps the suite's checks.json files)
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureInstalled } from './ensure-installed.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const BIN = `${root}dist/index.js`;
const NODE22 = `${root}test/runtimes/node_modules/node22/bin/node`;
/** Per scenario; the slowest (server-stateless) takes about 5 s. */
const SCENARIO_TIMEOUT_MS = 60_000;

/** The two pinned lines of the suite (test/conformance/package.json). */
const SUITES = {
  // The current release: the 2025 protocol eras (its client asks for 2025-11-25).
  release: `${root}test/conformance/node_modules/@modelcontextprotocol/conformance`,
  // The 0.2 prerelease line: wire schema checks for each era, and the 2026-07-28 era.
  next: `${root}test/conformance/node_modules/conformance-next`,
};

/**
 * Checks that cannot pass against a server without the suite's fixtures, and the message the suite
 * gives for each; a check fails the run unless its message matches.
 */
const UNTESTABLE = {
  'server-stateless': {
    'sep-2575-server-rejects-undeclared-capability': /^Not testable: server does not list the diagnostic tool 'test_missing_capability'/,
    'sep-2575-missing-capability-http-400': /^Not testable: server does not list the diagnostic tool 'test_missing_capability'/,
    'sep-2575-http-server-no-independent-requests-on-stream': /^Not testable: server does not list the diagnostic tool 'test_streaming_elicitation'/,
    'sep-2575-server-no-log-without-loglevel': /^Not testable: server does not list the diagnostic tool 'test_logging_tool'/,
    // Warnings: the suite calls its hook tools test_trigger_{prompt,tool}_change to change the lists
    // and, as this server has no such tool (-32602, unknown tool), waits for a notification in vain.
    'sep-2575-server-sends-prompts-list-changed-on-subscription': /^Mutated the prompt list but no notifications\/prompts\/list_changed arrived/,
    'sep-2575-server-sends-tools-list-changed-on-subscription': /^Mutated the tool list but no notifications\/tools\/list_changed arrived/,
  },
};

const SESSION_ERA = ['server-initialize', 'ping', 'tools-list', 'prompts-list'];
const RUNS = [
  { suite: 'release', era: undefined, scenarios: [...SESSION_ERA, 'dns-rebinding-protection'] },
  { suite: 'next', era: '2025-06-18', scenarios: SESSION_ERA }, // dns-rebinding-protection starts at 2025-11-25
  { suite: 'next', era: '2025-11-25', scenarios: [...SESSION_ERA, 'dns-rebinding-protection'] },
  {
    suite: 'next',
    era: '2026-07-28',
    scenarios: [
      'server-stateless',
      'tools-list',
      'prompts-list',
      'caching',
      'server-sse-multiple-streams',
      'http-header-validation',
      'input-required-result-unsupported-methods',
      'dns-rebinding-protection',
    ],
  },
  // The authorization server of OAuth mode (APPMGMT_OAUTH_ISSUER), against a second server with it on.
  // The suite's authorization-code-grant needs a person at a browser to consent: test/auth/e2e.test.ts
  // walks that flow with headless Chromium instead.
  { suite: 'next', era: '2026-07-28', authorization: true, scenarios: ['authorization-server-metadata-endpoint'] },
];

const keep = process.argv.includes('--keep');
if (!existsSync(BIN)) fail('dist/index.js is missing: run `npm run build` first (npm run test:conformance does).');
ensureInstalled('test/runtimes'); // its install script fetches the Node.js binaries (from the npm registry)
ensureInstalled('test/conformance', { ignoreScripts: true });

const env = cleanEnv();
const running = new Set(); // the suite processes running now
const versions = Object.fromEntries(Object.entries(SUITES).map(([name, dir]) => [name, JSON.parse(readFileSync(`${dir}/package.json`, 'utf8')).version]));
const node22 = spawnSync(NODE22, ['--version'], { encoding: 'utf8' }).stdout.trim();
const server = await startServer();
const oauthPort = await freePort();
const oauthServer = await startServer(oauthPort, { APPMGMT_OAUTH_ISSUER: `http://127.0.0.1:${oauthPort}` });
// The suite's checks.json files; also its working directory, so nothing lands in the repository.
const results = mkdtempSync(join(tmpdir(), 'conformance-'));
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    for (const child of running) child.kill('SIGKILL');
    server.child.kill('SIGTERM');
    rmSync(results, { recursive: true, force: true });
    process.exit(130);
  });
}
process.stderr.write(
  `conformance ${versions.release} and ${versions.next} (on Node.js ${node22}) against ${server.mcp} (Node.js ${process.version})\n`,
);

// The runs go side by side, as many at once as there are CPUs (the server is stateless), the
// scenarios of a run one after another; each run is reported once it is done, in order.
const started = Date.now();
const lanes = RUNS.map(() => {
  let settle;
  const promise = new Promise((resolve) => (settle = resolve));
  return { promise, settle };
});
let next = 0;
const worker = async () => {
  while (next < RUNS.length) {
    const index = next++;
    const { suite, era, scenarios, authorization } = RUNS[index];
    const done = [];
    for (const scenario of scenarios) done.push({ label: era ?? versions.release, scenario, ...(await runScenario(suite, era, scenario, authorization)) });
    lanes[index].settle(done);
  }
};
for (let count = Math.min(RUNS.length, availableParallelism()); count > 0; count--) void worker();
const outcomes = [];
for (const [index, lane] of lanes.entries()) {
  const { suite, era } = RUNS[index];
  const what = RUNS[index].authorization ? `OAuth authorization server, ${oauthServer.mcp.replace(/\/mcp$/, '')} (conformance ${versions[suite]})` : era ? `protocol ${era} (conformance ${versions[suite]})` : `conformance ${versions.release} (protocol 2025-11-25)`;
  process.stderr.write(`\n== ${what}\n`);
  for (const outcome of await lane.promise) {
    outcomes.push(outcome);
    report(outcome);
  }
}

const stopped = await server.stop();
await oauthServer.stop();
const failed = outcomes.filter((outcome) => !outcome.ok);
process.stderr.write(`\n${outcomes.length - failed.length}/${outcomes.length} scenarios passed in ${seconds(Date.now() - started)}`);
process.stderr.write(stopped === 0 ? '; the server stopped on SIGTERM.\n' : `; the server did not stop cleanly on SIGTERM (${stopped}).\n`);
if (failed.length > 0) {
  process.stderr.write(`failed: ${failed.map((outcome) => `${outcome.label} ${outcome.scenario}`).join(', ')}\n`);
  process.stderr.write(`server log:\n${server.stderr().trimEnd().split('\n').slice(-30).join('\n')}\n`);
}
if (failed.length > 0 || keep) process.stderr.write(`the suite's results are in ${results}\n`);
else rmSync(results, { recursive: true, force: true });
process.exit(failed.length > 0 || stopped !== 0 ? 1 : 0);

/** Runs one scenario with the suite and judges it from the checks it wrote, not only its exit code. */
async function runScenario(suite, era, scenario, authorization = false) {
  const out = join(results, era ?? 'release', scenario);
  const args = authorization
    ? [`${SUITES[suite]}/dist/index.js`, 'authorization', '--url', oauthServer.mcp.replace(/\/mcp$/, ''), '--scenario', scenario, '--output-dir', out]
    : [`${SUITES[suite]}/dist/index.js`, 'server', '--url', server.mcp, '--scenario', scenario, '--output-dir', out];
  if (era && !authorization) args.push('--spec-version', era, '--timeout', String(Math.max(1_000, SCENARIO_TIMEOUT_MS - 5_000)));
  const began = Date.now();
  const exit = await run(NODE22, args, SCENARIO_TIMEOUT_MS);
  const ms = Date.now() - began;
  const base = { ms, exit };
  if (exit.timedOut) return { ...base, ok: false, why: `no result after ${seconds(SCENARIO_TIMEOUT_MS)}` };
  if (/^SKIPPED:/m.test(exit.stdout)) return { ...base, ok: false, why: 'the suite skipped it (not applicable at this protocol version)' };
  const file = existsSync(out) ? readdirSync(out).map((name) => join(out, name, 'checks.json')).find((path) => existsSync(path)) : undefined;
  if (!file) return { ...base, ok: false, why: `the suite wrote no checks (exit ${exit.code})` };
  const untestable = UNTESTABLE[scenario] ?? {};
  const checks = JSON.parse(readFileSync(file, 'utf8'));
  const passed = checks.filter((check) => check.status === 'SUCCESS');
  const excused = [];
  const bad = [];
  for (const check of checks) {
    if (['SUCCESS', 'INFO', 'SKIPPED'].includes(check.status)) continue;
    if (untestable[check.id]?.test(check.errorMessage ?? '')) excused.push(check);
    else bad.push(check);
  }
  const nowPassing = passed.filter((check) => check.id in untestable).map((check) => check.id);
  if (bad.length === 0 && passed.length === 0) return { ...base, ok: false, why: 'no check passed', checks };
  // The suite exits 1 for any failure, the excused ones included; every failure is judged above.
  if (bad.length === 0 && exit.code !== 0 && excused.length === 0) return { ...base, ok: false, why: `the suite exited ${exit.code}`, checks };
  return { ...base, ok: bad.length === 0, passed: passed.length, excused, bad, nowPassing, file };
}

function report(outcome) {
  const { scenario } = outcome;
  const mark = outcome.ok ? '✓' : '✗';
  let line = `${mark} ${scenario.padEnd(44)} `;
  if (outcome.why) line += outcome.why;
  else {
    line += `${outcome.passed} passed`;
    if (outcome.bad.length > 0) line += `, ${outcome.bad.length} failed`;
    if (outcome.excused.length > 0) line += ` (${outcome.excused.length} untestable without the suite's fixtures)`;
  }
  process.stderr.write(`${line}  ${seconds(outcome.ms)}\n`);
  for (const id of outcome.nowPassing ?? []) process.stderr.write(`    note: ${id} passes now; drop it from UNTESTABLE\n`);
  for (const check of outcome.bad ?? []) {
    process.stderr.write(`    ${check.status} ${check.id}: ${check.errorMessage ?? check.description}\n`);
    if (check.details) process.stderr.write(`      ${JSON.stringify(check.details).slice(0, 1500)}\n`);
  }
  if (!outcome.ok && outcome.why) {
    const text = `${outcome.exit.stdout}${outcome.exit.stderr}`.trim();
    if (text) process.stderr.write(`${text.split('\n').slice(-25).map((row) => `    | ${row}`).join('\n')}\n`);
  }
}

/** Starts `node dist/index.js http --sandbox --port PORT` (a free one by default) and waits until it says where it listens. */
async function startServer(port = 0, extraEnv = {}) {
  const child = spawn(process.execPath, [BIN, 'http', '--sandbox', '--port', String(port)], { env: { ...env, ...extraEnv }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const exited = new Promise((resolve) => child.on('close', (code, signal) => resolve(code ?? signal)));
  const mcp = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not listen within 20 s:\n${stderr}`)), 20_000);
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const found = /serving MCP on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before listening:\n${stderr}`));
    });
  }).catch((error) => {
    child.kill('SIGKILL');
    fail(error.message);
  });
  return {
    child,
    mcp,
    stderr: () => stderr,
    /** SIGTERM, then the exit code (or 'timeout' after 10 s, when it is killed). */
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill('SIGTERM');
      let timer;
      const late = new Promise((resolve) => (timer = setTimeout(() => resolve('timeout'), 10_000)));
      const code = await Promise.race([exited, late]);
      clearTimeout(timer);
      if (code === 'timeout') child.kill('SIGKILL');
      return code;
    },
  };
}

/** A free TCP port on 127.0.0.1 (for an OAuth issuer, which must be known before the server starts). */
async function freePort() {
  const { createServer } = await import('node:net');
  const probe = createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Runs a program to its end or until `ms` have passed (then kills it), collecting its output. */
function run(command, args, ms) {
  return new Promise((resolve) => {
    // Node 22's compile cache (kept with the installed suite) saves about a third of each start.
    const suiteEnv = { ...env, NO_COLOR: '1', FORCE_COLOR: '0', NODE_COMPILE_CACHE: `${root}test/conformance/node_modules/.compile-cache` };
    const child = spawn(command, args, { cwd: results, env: suiteEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, ms);
    child.on('error', (error) => {
      clearTimeout(timer);
      running.delete(child);
      resolve({ code: null, stdout, stderr: `${stderr}${error.message}`, timedOut });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      running.delete(child);
      resolve({ code, stdout, stderr, timedOut });
    });
  });
}

/** This process's environment without any APPMGMT_* setting, so a developer's own never leaks in. */
function cleanEnv() {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('APPMGMT_')));
}

function seconds(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}

function fail(message) {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}
