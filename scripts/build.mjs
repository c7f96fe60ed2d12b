// Bundles src/ into dist/ with esbuild, minified for Node 20, in two files:
//   dist/server-HASH.cjs  the whole server (src/index.ts) as one CommonJS file, so that src/bin.ts can
//                         compile it with a V8 code cache. The sandbox and the HTTP client stay behind
//                         dynamic imports: they are compiled, but run only on first use.
//   dist/index.js         the executable (src/bin.ts), which runs that file.
// Then one short session of the built server writes the code cache (dist/server-HASH.cjs.cache), so
// the first start after a build is as fast as every later one and dist/ does not change under tests.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { build } from 'esbuild';

/**
 * zod re-exports all of its ~60 error-message locales (about 260 KiB minified, a fifth of the bundle)
 * as `z.locales`, which nothing here uses: its own default, English, is imported directly. Reading
 * and compiling them cost start-up time on every run, so the bundle gets a locales module with
 * English alone.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/]/.test(args.importer) ? { path: join(args.resolveDir, args.path), namespace: 'zod-locales' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: 'export { default as en } from "./en.js";',
      resolveDir: dirname(args.path),
    }));
  },
};

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
const server = await build({
  ...common,
  plugins: [zodEnglishOnly, noDefaultValidator],
  entryPoints: { server: 'src/index.ts' },
  entryNames: '[name]-[hash]', // a new bundle never meets the code cache of an old one
  format: 'cjs',
  outExtension: { '.js': '.cjs' },
});
const [bundle] = Object.keys(server.metafile.outputs);
// V8 keeps a source with any character outside ASCII as two bytes per character: reading and
// compiling it then cost about 9 ms more at every start. esbuild escapes strings, not regex literals.
const stray = /[^\x00-\x7f]/.exec(readFileSync(bundle, 'latin1'));
if (stray) {
  process.stderr.write(`build: ${bundle} has a character outside ASCII near "${readFileSync(bundle, 'utf8').slice(Math.max(0, stray.index - 60), stray.index + 20)}": write it as a \\u escape\n`);
  process.exit(1);
}
const bin = await build({
  ...common,
  entryPoints: { index: 'src/bin.ts' },
  format: 'esm',
  define: { BUNDLE: JSON.stringify(`./${basename(bundle)}`) },
});
const outputs = Object.values({ ...server.metafile.outputs, ...bin.metafile.outputs });
const bytes = outputs.reduce((sum, out) => sum + out.bytes, 0);
const cached = await primeCodeCache(`${bundle}.cache`);
process.stderr.write(`built dist/ (${(bytes / 1024).toFixed(0)} KiB in ${outputs.length} files${cached ? ', plus the code cache' : ''})\n`);

/** Runs the server through initialize and tools/list until src/bin.ts has written `cacheFile` (at most 5 s). */
async function primeCodeCache(cacheFile) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('APPMGMT_')));
  const child = spawn(process.execPath, ['dist/index.js'], {
    env: { ...env, APPMGMT_BASE_URL: 'http://127.0.0.1:9', APPMGMT_LOG_LEVEL: 'error' }, // never called
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  const send = (message) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'build', version: '1' } } });
  send({ method: 'notifications/initialized' });
  send({ id: 2, method: 'tools/list' });
  for (let wait = 0; wait < 100 && !existsSync(cacheFile) && child.exitCode === null; wait++) await sleep(50);
  child.kill();
  if (!existsSync(cacheFile)) process.stderr.write('build: no code cache was written; the server will start slower\n');
  return existsSync(cacheFile);
}
