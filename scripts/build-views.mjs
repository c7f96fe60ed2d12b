// Builds each MCP Apps view (views/NAME.html: its title and markup, in views/shared/page.html; with
// views/NAME.ts, and views/NAME.css after the shared views/shared/base.css) into one
// self-contained page, dist/NAME.view.html (flat: test/start-up.test.ts reads every entry of dist/ as
// a file). The script is bundled by esbuild but not minified, so a host (or a person) can read and
// review what it runs: the views talk to the host through their own small bridge
// (views/shared/bridge.ts), not the extension's App class with zod and the client protocol (issue 27).
// Style and script are inline: the page asks no origin for anything.
// Run by scripts/build.mjs, or alone: `node scripts/build-views.mjs`.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build, transform } from 'esbuild';

/** The limit for one page, everything included, as the host receives it (issue 27). */
export const MAX_VIEW_BYTES = 40 * 1024;

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

async function buildView(name) {
  const source = (file) => readFileSync(new URL(file, viewsDir), 'utf8');
  const result = await build({
    entryPoints: [fileURLToPath(new URL(`${name}.ts`, viewsDir))],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: false,
    legalComments: 'none',
    charset: 'utf8',
    logLevel: 'silent',
  });
  const code = tabbed(result.outputFiles[0].text).replace(/<\/script/gi, '<\\/script');
  // The style without its comments and spaces (the script stays as written, for review): pages stay under the limit.
  const css = await transform(`${source('shared/base.css')}\n${source(`${name}.css`)}`, { loader: 'css', minifyWhitespace: true, logLevel: 'silent' });
  const style = css.code.trim().replace(/<\/style/gi, '<\\/style');
  const scripts = `<script type="module">\n${code}</script>`;
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

/**
 * The script indented with a tab per level instead of esbuild's two spaces: as readable, and each page
 * keeps about 1 KB more under the limit. A line break inside a template literal would be part of a
 * string, so a script that has one is refused rather than changed.
 */
function tabbed(code) {
  const lines = code.split('\n');
  if (lines.some((line) => (line.replace(/\\./g, '').match(/`/g)?.length ?? 0) % 2 === 1)) throw new Error('a view script has a template literal over several lines: its indentation cannot be rewritten safely');
  return lines.map((line) => line.replace(/^(?: {2})+/, (indent) => '\t'.repeat(indent.length / 2))).join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const sizes = await buildViews();
  for (const [name, bytes] of Object.entries(sizes)) process.stderr.write(`built dist/${name}.view.html (${(bytes / 1024).toFixed(1)} KiB of ${MAX_VIEW_BYTES / 1024})\n`);
}
