// Bundles src/ into dist/ with esbuild, minified for Node 20, in two files:
//   dist/server-HASH.cjs  the whole server (src/index.ts) as one CommonJS file, so that src/bin.ts can
//                         compile it with a V8 code cache. The sandbox and the HTTP client stay behind
//                         dynamic imports: they are compiled, but run only on first use.
//   dist/index.js         the executable (src/bin.ts, CommonJS as dist/package.json says), which runs that file.
// and the MCP Apps views beside them, one dist/NAME.view.html each (scripts/build-views.mjs).
// The sandbox's built-in world goes in already validated (see builtInWorldAsJson). Then one short
// session of the built server writes its code cache for this Node version, in the user's cache
// directory (src/bin.ts says why not in dist/), so the first start after a build is as fast as
// every later one. Nothing under dist/ changes after the build.
// `--sourcemap` also writes the server bundle's source map to bench/out/ (bench/profile.mjs reads it);
// the bundle's code is the same, though its hashed name differs.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import { build } from 'esbuild';
import { buildViews, MAX_VIEW_BYTES } from './build-views.mjs';
import { zodEnglishOnly } from './zod-english-only.mjs';

/**
 * The SDK's default JSON Schema validator is Ajv (another 150 KiB), evaluated at start-up through
 * this one module even though the server always passes its own (src/gate/approval.ts). The bundle
 * gets the module without it; constructing the default would throw instead of validating nothing.
 */
const noDefaultValidator = {
  name: 'no-default-json-schema-validator',
  setup(build) {
    build.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, (args) => ({ path: args.path, namespace: 'mcp-shims' }));
    build.onLoad({ filter: /.*/, namespace: 'mcp-shims' }, () => ({
      contents: [
        "export { default as process } from 'node:process';",
        'export class DefaultJsonSchemaValidator {',
        "  constructor() { throw new Error('app-management-mcp passes its own jsonSchemaValidator; the SDK default (Ajv) is not bundled'); }",
        '}',
      ].join('\n'),
      resolveDir: process.cwd(),
    }));
  },
};

/**
 * OpenTelemetry (src/observe/otel.ts with the SDK and its exporters) is built apart, into
 * dist/otel.cjs, which the server requires only when the OTEL_* environment turns it on: the server
 * bundle, and so every start without OpenTelemetry, carries none of it.
 */
const otelApart = {
  name: 'otel-apart',
  setup(build) {
    build.onResolve({ filter: /^\.\/otel\.js$/ }, (args) => (/[\\/]src[\\/]observe[\\/]/.test(args.importer) ? { path: 'otel', namespace: 'otel-apart' } : undefined));
    build.onLoad({ filter: /.*/, namespace: 'otel-apart' }, () => ({ contents: 'module.exports = require("./otel.cjs");', loader: 'js' }));
    build.onResolve({ filter: /^\.\/otel\.cjs$/, namespace: 'otel-apart' }, (args) => ({ path: args.path, external: true }));
  },
};

/** src/bin.ts writes the code cache a second after the bundle loads; the session lasts this long after tools/list is answered. */
const PRIMING_AFTER_LIST_MS = 1_500;
/** A server that has not answered tools/list by then is broken; the build goes on without a cache. */
const PRIMING_LIST_TIMEOUT_MS = 20_000;

/** The module whose export, the validated default world, the bundle carries as data. */
const BUILT_IN_WORLD = 'src/sandbox/built-in-world.ts';

/**
 * Validating the built-in world with zod took a fifth of a `--sandbox` start, at every start, for
 * the same answer each time. The build runs src/sandbox/built-in-world.ts once and bundles its
 * result as JSON in place of it: an invalid default world fails the build, and a start only parses
 * the JSON. (A --sandbox-world file is still validated at every start.)
 */
async function builtInWorldAsJson() {
  const { outputFiles } = await build({ entryPoints: [BUILT_IN_WORLD], bundle: true, platform: 'node', format: 'esm', write: false, logLevel: 'warning' });
  const { defaultWorld } = await import(`data:text/javascript;base64,${Buffer.from(outputFiles[0].contents).toString('base64')}`);
  const world = defaultWorld();
  const json = JSON.stringify(world);
  if (!isDeepStrictEqual(JSON.parse(json), world)) throw new Error(`${BUILT_IN_WORLD}: the validated world does not survive JSON (an undefined, a Date or a Map in it?)`);
  const contents = `const WORLD = ${JSON.stringify(json)};\nexport function defaultWorld() { return JSON.parse(WORLD); }\n`;
  return {
    name: 'built-in-world-as-json',
    setup(build) {
      build.onLoad({ filter: /[\\/]src[\\/]sandbox[\\/]built-in-world\.ts$/ }, () => ({ contents, loader: 'js' }));
    },
  };
}

const builtInWorld = await builtInWorldAsJson();
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
const common = {
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  target: 'node20',
  minify: true,
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
};
const sourcemap = process.argv.includes('--sourcemap');
const server = await build({
  ...common,
  ...(sourcemap ? { sourcemap: 'external', sourcesContent: false } : {}),
  plugins: [zodEnglishOnly, noDefaultValidator, builtInWorld, otelApart],
  entryPoints: { server: 'src/index.ts' },
  entryNames: '[name]-[hash]', // a new bundle never meets the code cache of an old one
  format: 'cjs',
  outExtension: { '.js': '.cjs' },
});
const bundle = Object.keys(server.metafile.outputs).find((file) => file.endsWith('.cjs'));
if (sourcemap) {
  mkdirSync('bench/out', { recursive: true });
  renameSync(`${bundle}.map`, 'bench/out/server.cjs.map');
}
// V8 keeps a source with any character outside ASCII as two bytes per character: reading and
// compiling it then cost about 9 ms more at every start. esbuild escapes strings, not regex literals.
const stray = /[^\x00-\x7f]/.exec(readFileSync(bundle, 'latin1'));
if (stray) {
  process.stderr.write(`build: ${bundle} has a character outside ASCII near "${readFileSync(bundle, 'utf8').slice(Math.max(0, stray.index - 60), stray.index + 20)}": write it as a \\u escape\n`);
  process.exit(1);
}
const otel = await build({ ...common, entryPoints: { otel: 'src/observe/otel.ts' }, format: 'cjs', outExtension: { '.js': '.cjs' } });
// The executable is CommonJS (dist/package.json says so for dist/): Node starts a CommonJS entry
// without its ES module loader, 5 to 10 ms sooner here (issue 31), and the bundle it runs is one
// anyway. Its source keeps import.meta.url, which the banner gives it from __filename.
const bin = await build({
  ...common,
  entryPoints: { index: 'src/bin.ts' },
  format: 'cjs',
  define: { BUNDLE: JSON.stringify(`./${basename(bundle)}`), 'import.meta.url': 'importMetaUrl' },
  banner: { js: "'use strict';\nconst importMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
});
writeFileSync('dist/package.json', `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);
const outputs = Object.values({ ...server.metafile.outputs, ...otel.metafile.outputs, ...bin.metafile.outputs });
const bytes = outputs.reduce((sum, out) => sum + out.bytes, 0);
const views = await buildViews();
await primeCodeCache();
const viewBytes = Object.values(views).reduce((sum, size) => sum + size, 0);
process.stderr.write(`built dist/ (${(bytes / 1024).toFixed(0)} KiB in ${outputs.length} files, and ${Object.keys(views).length} views of ${(viewBytes / 1024).toFixed(0)} KiB)\n`);
process.stderr.write(`views (readable HTML, at most ${MAX_VIEW_BYTES / 1024} KiB each): ${Object.entries(views).map(([name, size]) => `${name} ${(size / 1024).toFixed(1)} KiB`).join(', ')}\n`);

/** Runs the server through initialize and tools/list for a session long enough that src/bin.ts writes its code cache. */
async function primeCodeCache() {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(APPMGMT|OTEL)_/.test(name))); // nor exports spans
  const child = spawn(process.execPath, ['dist/index.js'], {
    env: { ...env, APPMGMT_BASE_URL: 'http://127.0.0.1:9', APPMGMT_LOG_LEVEL: 'error' }, // never called
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  // Timed from the answer, not from the spawn: on a busy machine loading the bundle alone can take a second.
  let output = '';
  const listed = new Promise((resolve) => child.stdout.on('data', (chunk) => (output += chunk).includes('"id":2') && resolve(true)));
  const send = (message) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'build', version: '1' } } });
  send({ method: 'notifications/initialized' });
  send({ id: 2, method: 'tools/list' });
  const answered = await Promise.race([listed, sleep(PRIMING_LIST_TIMEOUT_MS, false, { ref: false })]);
  if (answered) await sleep(PRIMING_AFTER_LIST_MS);
  else process.stderr.write('build: the built server did not answer tools/list; no code cache was written\n');
  child.kill();
}
