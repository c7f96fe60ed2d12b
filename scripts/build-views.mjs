// Builds each MCP Apps view (views/NAME.html: its title and markup, in views/shared/page.html; with
// views/NAME.ts, and views/NAME.css after the shared views/shared/base.css) into one
// self-contained page, dist/NAME.view.html (flat: test/start-up.test.ts reads every entry of dist/ as
// a file). The script, with the extension's App class, is bundled and minified by esbuild; the page
// carries it gzip-compressed and unpacks it with the browser's own DecompressionStream, because the
// App class brings the MCP protocol layer and zod (about 330 KB minified, 90 KB compressed) and a view
// may weigh 150 KB at most (issue 20). Style and script are inline: the page asks no origin for anything.
// Run by scripts/build.mjs, or alone: `node scripts/build-views.mjs`.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { zodEnglishOnly } from './zod-english-only.mjs';

/** The issue's limit for one page, everything included. */
export const MAX_VIEW_BYTES = 150 * 1024;

const root = new URL('..', import.meta.url);
const viewsDir = new URL('views/', root);

/** Every views/NAME.html is a view; views/shared/ holds what they have in common. */
export const VIEWS = readdirSync(viewsDir)
  .filter((file) => file.endsWith('.html'))
  .map((file) => file.slice(0, -'.html'.length))
  .sort();

/** Builds every view into `outDir` (default dist/) and returns each one's size in bytes; fails over the limit. */
export async function buildViews(outDir = fileURLToPath(new URL('dist/', root))) {
  mkdirSync(outDir, { recursive: true });
  const sizes = {};
  for (const name of VIEWS) {
    const html = await buildView(name);
    const bytes = Buffer.byteLength(html);
    if (bytes > MAX_VIEW_BYTES) throw new Error(`view ${name} is ${bytes} bytes, over the ${MAX_VIEW_BYTES}-byte limit`);
    writeFileSync(`${outDir}/${name}.view.html`, html);
    sizes[name] = bytes;
  }
  return sizes;
}

const clientDir = fileURLToPath(new URL('node_modules/@modelcontextprotocol/client/', root));

/**
 * Lets esbuild drop whole dependency modules the view imports nothing from (none of these packages
 * relies on import-time side effects a view needs), and gives the extension the client's own copy of
 * @modelcontextprotocol/core rather than a second one.
 */
const leanDependencies = {
  name: 'lean-dependencies',
  setup(build) {
    build.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData?.lean || args.kind === 'entry-point') return undefined;
      const fromClient = args.path.startsWith('@modelcontextprotocol/core');
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: fromClient ? clientDir : args.resolveDir,
        pluginData: { lean: true },
      });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      return resolved.path.includes(`${sep}node_modules${sep}`) ? { path: resolved.path, sideEffects: false } : { path: resolved.path };
    });
  },
};

/** The page's own loader: the script is gzip + base64 in a data block, unpacked and run as a module. */
const LOADER = [
  'const packed = document.getElementById("packed").textContent;',
  'const bytes = Uint8Array.from(atob(packed), (c) => c.charCodeAt(0));',
  'const code = await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text();',
  'const script = document.createElement("script");',
  'script.type = "module";',
  'script.textContent = code;',
  'document.body.append(script);',
].join('\n');

async function buildView(name) {
  const source = (file) => readFileSync(new URL(file, viewsDir), 'utf8');
  const result = await build({
    entryPoints: [fileURLToPath(new URL(`${name}.ts`, viewsDir))],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
    plugins: [zodEnglishOnly, leanDependencies],
  });
  const packed = gzipSync(result.outputFiles[0].contents, { level: 9 }).toString('base64');
  const style = `${source('shared/base.css')}\n${source(`${name}.css`)}`.replace(/<\/style/gi, '<\\/style');
  const scripts = `<script type="application/gzip;base64" id="packed">${packed}</script>\n<script type="module">${LOADER}</script>`;
  // The view's file is its <title> and the body's markup; the page around it (with the one CSP
  // every view declares) is shared. Function replacers: a "$" in the code is not a replacement pattern.
  const [, title, body] = /^(<title>[^<]*<\/title>)\n([\s\S]*)$/.exec(source(`${name}.html`)) ?? [];
  if (title === undefined) throw new Error(`views/${name}.html must start with its <title> line`);
  return source('shared/page.html')
    .replace('<!--TITLE-->', () => title)
    .replace('<!--BODY-->', () => body.trimEnd())
    .replace('/*STYLE*/', () => style)
    .replace('<!--SCRIPT-->', () => scripts);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const sizes = await buildViews();
  for (const [name, bytes] of Object.entries(sizes)) process.stderr.write(`built dist/${name}.view.html (${(bytes / 1024).toFixed(1)} KiB)\n`);
}
