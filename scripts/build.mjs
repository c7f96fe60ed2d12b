// Bundles src/ into dist/ with esbuild: minified ESM for Node 20. The sandbox and the HTTP client
// live in separate chunks loaded on first use, so start-up parses only what `initialize` needs.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
const result = await build({
  entryPoints: { index: 'src/index.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  legalComments: 'none',
  chunkNames: 'chunks/[name]-[hash]',
  metafile: true,
  logLevel: 'warning',
});
const bytes = Object.entries(result.metafile.outputs).reduce((sum, [, out]) => sum + out.bytes, 0);
process.stderr.write(`built dist/ (${Object.keys(result.metafile.outputs).length} files, ${(bytes / 1024).toFixed(0)} KiB)\n`);
