import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paths } from '../../src/api/paths.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import { TOOLS } from '../../src/tools/index.js';
import { cleanEnv } from '../process.js';
import { blocksUnder, docFigures, ROOT, shellCommands } from './markdown.js';

// docs/development.md: the Node.js a contributor needs (checked against every package of the
// lockfile, the way npm checks engines), the commands CI runs, the sandbox command and the example
// client, each run as written.
const DOC = 'docs/development.md';
const doc = readFileSync(`${ROOT}${DOC}`, 'utf8');
const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: Record<string, string>; engines: { node: string } };
const lock = JSON.parse(readFileSync(`${ROOT}package-lock.json`, 'utf8')) as { packages: Record<string, { engines?: { node?: string } | string[] }> };
const manifest = JSON.parse(readFileSync(`${ROOT}manifest.json`, 'utf8')) as { compatibility: { runtimes: { node: string } } };
const runtimes = JSON.parse(readFileSync(`${ROOT}test/runtimes/package.json`, 'utf8')) as { devDependencies: Record<string, string> };

type Version = [number, number, number];

const parse = (text: string): Version => {
  const [major = 0, minor = 0, patch = 0] = text.split('.').map(Number);
  return [major, minor, patch];
};
const compare = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/**
 * Whether `version` satisfies an npm engines range, for the forms package.json files use: `||`
 * alternatives of space-separated comparators (>=, >, <=, <, =, ^, ~, or a bare or x-ed version).
 */
export function satisfies(version: string, range: string): boolean {
  const v = parse(version);
  return range.split('||').some((alternative) => {
    const comparators = alternative.trim().replace(/(>=|<=|>|<|=)\s+/g, '$1').split(/\s+/).filter(Boolean);
    return comparators.every((comparator) => {
      if (comparator === '*' || comparator === 'x') return true;
      const [, op = '', raw] = /^(>=|<=|>|<|=|\^|~)?v?([\d.xX*]+)$/.exec(comparator) ?? [];
      if (raw === undefined) throw new Error(`cannot read engines range ${JSON.stringify(range)}`);
      const parts = raw.split('.').filter((part) => /^\d+$/.test(part)).map(Number);
      const low = parse(parts.join('.'));
      const bump = (index: number): Version => [index === 0 ? low[0] + 1 : low[0], index === 1 ? low[1] + 1 : index === 0 ? 0 : low[1], 0];
      switch (op) {
        case '>=':
          return compare(v, low) >= 0;
        case '>':
          return compare(v, low) > 0;
        case '<=':
          return compare(v, low) <= 0;
        case '<':
          return compare(v, low) < 0;
        case '^':
          return compare(v, low) >= 0 && compare(v, bump(low[0] === 0 && parts.length > 1 ? 1 : 0)) < 0;
        case '~':
          return compare(v, low) >= 0 && compare(v, bump(parts.length > 1 ? 1 : 0)) < 0;
        default:
          // 20, 20.x, 20.19 or =20.19.0: that part of the version, every later part allowed.
          return parts.length === 3 ? compare(v, low) === 0 : compare(v, low) >= 0 && compare(v, bump(parts.length - 1)) < 0;
      }
    });
  });
}

/** The lockfile's packages whose engines.node `version` does not satisfy, as npm would warn about them. */
function warnedOn(version: string): string[] {
  return Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && !Array.isArray(entry.engines) && entry.engines?.node && !satisfies(version, entry.engines.node))
    .map(([path]) => path.replace(/^.*node_modules\//, ''));
}

/** Runs a shell line from the clone, without blocking this process (the sandbox it may call lives here). */
function run(command: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command], { cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

describe('docs/development.md', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(() => sandbox?.close());

  it('reads engines ranges as npm does', () => {
    expect(satisfies('20.20.2', '^20.19.0 || >=22.12.0')).toBe(true);
    expect(satisfies('20.18.0', '^20.19.0 || >=22.12.0')).toBe(false);
    expect(satisfies('21.0.0', '18 || 20 || >=22')).toBe(false);
    expect(satisfies('22.19.0', '>= 22.19')).toBe(true);
    expect(satisfies('20.20.2', '>=22.19.0')).toBe(false);
    expect(satisfies('13.8.0', '^10 || ^12 || ^13.7 || ^14 || >=15.0.1')).toBe(true);
    expect(satisfies('16.0.0', '~14.17.0 || >=16 <17')).toBe(true);
  });

  it('names the Node.js floor that package.json and manifest.json declare', () => {
    const floor = /^>=(\d+\.\d+)\.0$/.exec(pkg.engines.node)?.[1];
    expect(floor, pkg.engines.node).toBeDefined();
    expect(manifest.compatibility.runtimes.node).toBe(pkg.engines.node);
    expect((lock.packages[''] as { engines?: { node?: string } }).engines?.node, 'package-lock.json still has the old engines').toBe(pkg.engines.node);
    expect(doc).toContain(`Node.js ${floor} or newer`);
  });

  it('holds no package npm would warn about on the Node.js it names, nor on the versions the tests run', () => {
    const floor = pkg.engines.node.replace(/^>=/, '');
    const pinned = Object.values(runtimes.devDependencies).filter((spec) => spec.startsWith('npm:node@')).map((spec) => spec.replace(/^npm:node@/, ''));
    expect(pinned).toEqual(['22.23.3', '24.21.0']);
    for (const version of [floor, '24.0.0', ...pinned]) expect(warnedOn(version), `Node.js ${version}`).toEqual([]);
  });

  it('names every package npm warns about on the end-of-life Node.js 20', () => {
    const warned = [...new Set(warnedOn('20.20.2'))];
    expect(warned.length).toBeGreaterThan(0);
    expect(satisfies('20.20.2', pkg.engines.node)).toBe(false);
    const paragraph = doc.slice(doc.indexOf('On Node.js 20 it warns'), doc.indexOf('## Tests and CI'));
    for (const name of warned) expect(paragraph, name).toContain(name === '@modelcontextprotocol/inspector' ? 'Inspector' : `\`${name}\``);
  });

  it('runs the test commands CI runs, in the same order, each an npm script', () => {
    const [block] = blocksUnder(DOC, 'Tests and CI', 'sh');
    const commands = shellCommands(block!.text);
    expect(commands).toEqual(['npm test', 'npm run test:node-versions', 'npm run test:conformance']);
    const ci = readFileSync(`${ROOT}.ci/run`, 'utf8').split('\n').filter((line) => /^npm /.test(line));
    expect(ci).toEqual(['npm ci --no-audit --no-fund', ...commands]);
    for (const command of commands.slice(1)) expect(Object.keys(pkg.scripts)).toContain(command.replace('npm run ', ''));
    expect(readFileSync(`${ROOT}scripts/test-node-versions.mjs`, 'utf8')).toContain("['node22', 'node24']");
    // docs/performance.md says on which Node.js lines the start-up test runs: these two.
    expect(docFigures('docs/performance.md', /`test\/start-up\.test\.ts` checks, on Node (\d+) and (\d+), that/)).toEqual([22, 24]);
  });

  it('starts the sandbox command, which prints its URL and demo credentials and answers with them', async () => {
    const [block] = blocksUnder(DOC, 'The sandbox', 'sh');
    expect(shellCommands(block!.text)).toEqual(['node dist/index.js sandbox']);
    const child = spawn('bash', ['-c', `exec ${shellCommands(block!.text)[0]}`], { cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      let stderr = '';
      const printed = await new Promise<Record<string, string>>((resolve, reject) => {
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk;
          if (/^Control: /m.test(stderr)) resolve(Object.fromEntries([...stderr.matchAll(/^ {2}(APPMGMT_[A-Z_]+)=(\S+)$/gm)].map((match) => [match[1]!, match[2]!])));
        });
        void exited.then((code) => reject(new Error(`exited (${code}): ${stderr}`)));
      });
      expect(Object.keys(printed)).toEqual(['APPMGMT_BASE_URL', 'APPMGMT_ACCESS_TOKEN', 'APPMGMT_API_KEY', 'APPMGMT_MONITORING_API_KEY']);
      // Issue 29: the read-only credentials are named too, and the service answers a change with one as read-only.
      expect(stderr).toContain('Read-only, to see what a read-only credential can do: APPMGMT_ACCESS_TOKEN=pat_demo_owner_ro APPMGMT_API_KEY=key_demo_owner_ro\n');
      const refused = await fetch(`${printed.APPMGMT_BASE_URL}${paths.pauseAdCampaign('app_demo', 'cmp_demo')}`, { method: 'POST', headers: { authorization: 'Bearer pat_demo_owner_ro' } });
      expect([refused.status, await refused.text()]).toEqual([403, expect.stringContaining('read_only_credential_route_not_allowed')]);
      const reset = await fetch(`${printed.APPMGMT_BASE_URL}/_sandbox/reset`, { method: 'POST' });
      expect(reset.ok).toBe(true);
      const job = await fetch(`${printed.APPMGMT_BASE_URL}${paths.listSocialPosts('app_demo')}`, { headers: { api_key: printed.APPMGMT_API_KEY! } });
      expect(job.status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  }, 60_000);

  it('runs the example client against the sandbox and, with --live, against the service it is given', async () => {
    const [block] = blocksUnder(DOC, 'A plain stdio script', 'sh');
    const [demo, live] = shellCommands(block!.text);
    expect(demo).toBe('node examples/stdio-client.mjs');
    const first = await run(demo!);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout.split('\n')[0]).toBe(`tools: ${TOOLS.map((tool) => tool.name).join(', ')}`);
    expect(first.stdout).toMatch(/^\[sandbox\] .*job_empty/m);

    // The live line with the sandbox in this process standing in for the service.
    const substituted = live!
      .replace('https://your-service.example', sandbox.url)
      .replace('your-personal-api-key', sandbox.simulation.credentials.apiKey)
      .replace('app_123', 'app_demo')
      .replace('job_456', 'job_empty');
    expect(substituted).not.toBe(live);
    const second = await run(substituted);
    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/^[^[].*job_empty/m);
    expect(second.stdout).not.toContain('[sandbox]');
  }, 60_000);
});
