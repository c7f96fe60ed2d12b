// The servers the bench starts: ours (built), the two reference servers, and a bare node process.
import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
export const OURS = fileURLToPath(new URL('../dist/index.js', import.meta.url));
/** The one-tool SDK server the bench holds ours against (bench/floor-server.mjs). */
export const FLOOR = fileURLToPath(new URL('./floor-server.mjs', import.meta.url));
/** The naive peer: the same two upstream reads with fetch, nothing else (bench/peer-server.mjs). */
export const PEER = fileURLToPath(new URL('./peer-server.mjs', import.meta.url));
export const FLOOR_NAME = 'floor (one-tool SDK server)';
export const BARE_NAME = 'bare node -e';
/** Ours with OpenTelemetry turned on (its SDK loads at start-up); port 9 discards what it would export. */
export const OTEL_NAME = 'ours, OpenTelemetry on';

/** The environment without any APPMGMT_* setting of the caller's, plus `extra`. */
export function cleanEnv(extra = {}) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('APPMGMT_')));
  return { ...env, ...extra };
}

/** A complete live configuration whose API is never called (port 9 is the discard port). */
export const LIVE_ENV = {
  APPMGMT_BASE_URL: 'http://127.0.0.1:9',
  APPMGMT_ACCESS_TOKEN: 'bench-token',
  APPMGMT_API_KEY: 'bench-key',
};

/** The script a package's `bin` entry points at, so it runs under this node without a shell. */
function binScript(pkg, bin) {
  const manifest = require(`${pkg}/package.json`);
  const relative = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin[bin];
  return realpathSync(join(require.resolve(`${pkg}/package.json`), '..', relative));
}

const node = (name, args, env = cleanEnv()) => ({ name, command: process.execPath, args, env });

export const BARE = ['-e', "process.stdin.once('data', () => process.stdout.write('{}\\n'))"];

/**
 * NODE_EXTRA_CA_CERTS makes every Node.js 20 process read and parse that certificate file before it
 * runs any code (about 45 ms for the Debian system bundle on the bench machine). When the bench's environment sets it, as some
 * machines and corporate setups do, two more rows show the same starts without it.
 */
function withoutExtraCaCerts() {
  if (!process.env.NODE_EXTRA_CA_CERTS) return [];
  const drop = (env) => Object.fromEntries(Object.entries(env).filter(([name]) => name !== 'NODE_EXTRA_CA_CERTS'));
  return [node('bare node -e, no NODE_EXTRA_CA_CERTS', BARE, drop(cleanEnv())), node('ours, no NODE_EXTRA_CA_CERTS', [OURS], drop(cleanEnv(LIVE_ENV)))];
}

export function coldStartTargets() {
  return [
    node(BARE_NAME, BARE),
    node('ours', [OURS], cleanEnv(LIVE_ENV)),
    node(OTEL_NAME, [OURS], cleanEnv({ ...LIVE_ENV, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' })),
    ...withoutExtraCaCerts(),
    node('ours, no code cache', [OURS], cleanEnv({ ...LIVE_ENV, NODE_DISABLE_COMPILE_CACHE: '1' })),
    node('ours --sandbox', [OURS, '--sandbox']),
    node(FLOOR_NAME, [FLOOR]),
    node('server-everything', [binScript('@modelcontextprotocol/server-everything', 'mcp-server-everything'), 'stdio']),
    node('server-filesystem', [binScript('@modelcontextprotocol/server-filesystem', 'mcp-server-filesystem'), tmpdir()]),
  ];
}

export const REFERENCES = ['server-everything', 'server-filesystem'];
export const byName = (targets, name) => targets.find((target) => target.name === name);
