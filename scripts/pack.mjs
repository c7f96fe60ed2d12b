// Packs the MCP Bundle (`npm run pack` builds first): app-management-mcp.mcpb at the repo root, or at
// the path given as the first argument. The bundle is made with `mcpb pack` from a staging folder that
// holds only what runs: manifest.json, the minified dist/ (every chunk, and dist/package.json, which
// makes dist/index.js CommonJS), a minimal package.json and the README with the docs/ it links to. No node_modules: esbuild inlines
// every dependency, and this script refuses to pack a dist/ that still imports a package.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const output = resolve(process.argv[2] ?? join(root, 'app-management-mcp.mcpb'));
const mcpbCli = join(dirname(fileURLToPath(import.meta.resolve('@anthropic-ai/mcpb'))), 'cli', 'cli.js');

function fail(message) {
  process.stderr.write(`pack: ${message}\n`);
  process.exit(1);
}

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

function mcpb(...args) {
  const run = spawnSync(process.execPath, [mcpbCli, ...args], { encoding: 'utf8' });
  if (run.status !== 0) fail(`mcpb ${args[0]} failed:\n${run.stdout}${run.stderr}`);
  return run.stdout;
}

/** Bare specifiers a module imports at run time. ajv keeps `require("ajv/…")` only inside code-generation strings. */
function packageImports(file) {
  const source = readFileSync(file, 'utf8');
  const specifiers = [...source.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"'./][^"']*)["']/g)].map((m) => m[1]);
  // Only what could be a package name: minified code also has strings such as "from" next to a quote.
  const packageName = /^(@[a-z0-9~][\w.~-]*\/)?[a-z0-9~][\w.~-]*(\/[\w.~/-]*)?$/;
  return specifiers.filter((name) => packageName.test(name) && !name.startsWith('node:') && !builtinModules.includes(name.split('/')[0]));
}

const dist = join(root, 'dist');
const manifest = JSON.parse(readFileSync(join(root, 'manifest.json'), 'utf8'));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
if (!existsSync(join(root, manifest.server.entry_point))) fail(`${manifest.server.entry_point} is missing: run npm run build first`);
if (manifest.version !== pkg.version) fail(`manifest.json version ${manifest.version} differs from package.json ${pkg.version}`);

const distFiles = filesUnder(dist);
const imported = distFiles.flatMap((file) => packageImports(file).map((name) => `${relative(root, file)} imports ${name}`));
if (imported.length > 0) fail(`dist/ is not self-contained:\n  ${imported.join('\n  ')}`);

mcpb('validate', join(root, 'manifest.json'));

const stage = mkdtempSync(join(tmpdir(), 'app-management-mcp-pack-'));
try {
  cpSync(join(root, 'manifest.json'), join(stage, 'manifest.json'));
  cpSync(dist, join(stage, 'dist'), { recursive: true });
  writeFileSync(join(stage, 'package.json'), `${JSON.stringify({ name: pkg.name, version: pkg.version, type: 'module' }, null, 2)}\n`);
  // The README's links point into docs/, so the docs travel with it.
  for (const doc of ['README.md', 'LICENSE', 'docs']) if (existsSync(join(root, doc))) cpSync(join(root, doc), join(stage, doc), { recursive: true });

  rmSync(output, { force: true });
  mcpb('pack', stage, output);
} finally {
  rmSync(stage, { recursive: true, force: true });
}
if (!existsSync(output)) fail(`mcpb pack wrote no ${output}`);
const kib = (statSync(output).size / 1024).toFixed(0);
process.stderr.write(`packed ${relative(process.cwd(), output) || output} (${kib} KiB; ${distFiles.length} files in dist/)\n`);
