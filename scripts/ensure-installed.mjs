// Installs a test-only package of this repository (test/clients, test/runtimes) from its lockfile
// when its node_modules is missing or older than the lockfile; otherwise does nothing. Those
// packages stay out of the root install, so `npm install && npm run sandbox` stays light.
//   node scripts/ensure-installed.mjs test/clients [--ignore-scripts]
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * @param {string} dir the package folder, relative to the repository root
 * @param {{ ignoreScripts?: boolean }} options
 */
export function ensureInstalled(dir, { ignoreScripts = false } = {}) {
  const folder = `${root}${dir}/`;
  // npm writes node_modules/.package-lock.json on every install, so it dates the installed tree.
  const installed = mtime(`${folder}node_modules/.package-lock.json`);
  const locked = mtime(`${folder}package-lock.json`);
  if (locked === undefined) throw new Error(`${dir}/package-lock.json is missing`);
  if (installed !== undefined && installed >= locked) return;
  process.stderr.write(`installing ${dir} from its lockfile…\n`);
  const args = ['ci', '--prefix', folder, '--no-audit', '--no-fund', ...(ignoreScripts ? ['--ignore-scripts'] : [])];
  const run = spawnSync('npm', args, { stdio: 'inherit', shell: process.platform === 'win32' });
  if (run.status !== 0) throw new Error(`npm ci in ${dir} failed`);
}

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [dir, flag] = process.argv.slice(2);
  if (!dir) {
    process.stderr.write('usage: node scripts/ensure-installed.mjs <dir> [--ignore-scripts]\n');
    process.exit(2);
  }
  ensureInstalled(dir, { ignoreScripts: flag === '--ignore-scripts' });
}
