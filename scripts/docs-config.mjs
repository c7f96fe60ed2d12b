// `npm run docs:config`: writes docs/configuration.md from the configuration schema in src
// (src/config.ts and src/config-reference.ts). esbuild, already the build's tool, turns that
// TypeScript into one module in memory, so the generator needs nothing beyond the dev install.
// test/docs/config-reference.test.ts renders the same function and fails when the file differs.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
/** Another path for the output, as the test uses it; the default is the committed file. */
const out = process.argv[2] ?? `${root}docs/configuration.md`;

const bundled = await build({
  entryPoints: [`${root}src/config-reference.ts`],
  bundle: true,
  platform: 'node',
  format: 'esm',
  write: false,
  logLevel: 'warning',
});
const source = bundled.outputFiles[0].text;
const { renderConfigurationReference } = await import(`data:text/javascript;base64,${Buffer.from(source).toString('base64')}`);
writeFileSync(out, renderConfigurationReference());
process.stderr.write(`wrote ${out}\n`);
