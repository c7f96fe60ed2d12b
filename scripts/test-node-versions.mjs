// `npm run test:node-versions`: the end-to-end tests (the built server over stdio and HTTP, spawned
// by the tests with the Node.js that runs them) on Node.js 22 and 24, the supported LTS lines, except
// the one that runs this script (npm test ran the whole suite on it).
// The binaries come from the npm registry's `node` package, pinned in test/runtimes/package.json
// and installed there on first use, so a plain `npm install` at the root never downloads them.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ensureInstalled } from './ensure-installed.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const runtimes = `${root}test/runtimes`;
const E2E = ['test/stdio.test.ts', 'test/start-up.test.ts', 'test/eras.test.ts', 'test/http/http.test.ts', 'test/ecosystem/cli.test.ts', 'test/safety/process.test.ts', 'test/clients'];

// The node package's install script fetches the binary (from the npm registry), so scripts stay on here.
ensureInstalled('test/runtimes');
ensureInstalled('test/clients', { ignoreScripts: true });
for (const name of ['node22', 'node24']) {
  const node = `${runtimes}/node_modules/${name}/bin/node`;
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  // The whole suite already ran on this version (npm test with the same Node.js).
  if (version === process.version) {
    process.stderr.write(`\n== Node.js ${version} ran the whole suite: its end-to-end tests are not repeated\n`);
    continue;
  }
  process.stderr.write(`\n== end-to-end tests on Node.js ${version}\n`);
  run(node, [`${root}node_modules/vitest/vitest.mjs`, 'run', ...E2E.filter((path) => existsSync(`${root}${path}`))]);
}

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
