import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import { startHttp, type HttpProcess } from '../http/harness.js';
import { fencedBlocks, take } from '../docs/markdown.js';
import { cleanEnv, type Exit } from '../process.js';

// Shared by the tests of the clients people run from a terminal (Claude Code, Gemini CLI, Qwen Code, Codex CLI)
// and of the desktop clients' configuration files: the fenced blocks of docs/clients.md, the
// placeholders in them, a home folder of their own for the real CLIs, a shell that runs a block as a
// user would, and a proxy that shows which headers a client sent.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const DOC = 'docs/clients.md';

/** The clone's folder, as a user substitutes it for the placeholder path. */
export const CLONE = ROOT.replace(/\/$/, '');

/** The placeholders docs/clients.md writes, each replaced by a test with what it stands for. */
export const PLACEHOLDER = {
  clone: '/absolute/path/to/app-management-mcp',
  project: '/absolute/path/to/your/project',
  /** The local `http --port 8080 --sandbox` server. */
  local: 'http://127.0.0.1:8080',
  /** A team's deployment. */
  team: 'https://mcp.example.com',
  baseUrl: 'https://your-service.example',
  token: 'your-personal-access-token',
  apiKey: 'your-personal-api-key',
} as const;

/** What the sandbox accepts as the demo owner's credentials (over HTTP, also what it uses without any). */
export const DEMO = { token: 'pat_demo_owner', apiKey: 'key_demo_owner' } as const;

export interface DocBlock {
  lang: string;
  text: string;
  /** The `#` or `##` heading the block is under. */
  section: string;
  /** The 1-based line of its opening fence. */
  line: number;
}

/** Every fenced block of docs/clients.md, in order. */
export function docBlocks(): DocBlock[] {
  const lines = readFileSync(join(ROOT, DOC), 'utf8').split('\n');
  const blocks: DocBlock[] = [];
  let section = '';
  for (let at = 0; at < lines.length; at++) {
    const line = lines[at]!;
    const heading = /^#{1,2} (.*)$/.exec(line);
    if (heading) section = heading[1]!.trim();
    const fence = /^```(\S*)\s*$/.exec(line);
    if (!fence) continue;
    const end = lines.findIndex((candidate, index) => index > at && candidate.startsWith('```'));
    if (end < 0) throw new Error(`${DOC}:${at + 1}: a fenced block is never closed`);
    blocks.push({ lang: fence[1] ?? '', text: lines.slice(at + 1, end).join('\n'), section, line: at + 1 });
    at = end;
  }
  return blocks;
}

/**
 * The one block of `lang` under the heading `section` whose text contains every one of `parts`.
 * @throws Error when none or several match, so that a test never runs a block other than the one it names.
 */
export function docBlock(section: string, lang: string, ...parts: string[]): DocBlock {
  const found = docBlocks().filter((block) => block.section === section && block.lang === lang && parts.every((part) => block.text.includes(part)));
  if (found.length !== 1) {
    throw new Error(`${DOC}: expected one ${lang} block under "${section}" containing ${parts.join(' + ')}, found ${found.length}`);
  }
  take(fencedBlocks(DOC).filter((block) => block.line === found[0]!.line));
  return found[0]!;
}

/**
 * `text` with each placeholder replaced as a user would replace it.
 * @throws Error when a placeholder is not in the text: the test and the doc no longer agree.
 */
export function fill(text: string, replacements: Array<[placeholder: string, value: string]>): string {
  return replacements.reduce((result, [placeholder, value]) => {
    if (!result.includes(placeholder)) throw new Error(`${DOC} no longer contains ${placeholder} in:\n${text}`);
    return result.replaceAll(placeholder, value);
  }, text);
}

// The CLIs' entry points inside test/clients/node_modules. Claude Code's `bin` is a placeholder that
// its postinstall replaces with the native binary, and `npm test` installs this folder with
// --ignore-scripts; its cli-wrapper.cjs finds and runs the same binary without that step.
const MODULES = fileURLToPath(new URL('./node_modules/', import.meta.url));
const PACKAGES = {
  claude: '@anthropic-ai/claude-code',
  gemini: '@google/gemini-cli',
  qwen: '@qwen-code/qwen-code',
  codex: '@openai/codex',
};
const ENTRY_POINTS = {
  claude: `${MODULES}${PACKAGES.claude}/cli-wrapper.cjs`,
  gemini: `${MODULES}${PACKAGES.gemini}/bundle/gemini.js`,
  qwen: `${MODULES}${PACKAGES.qwen}/cli-entry.js`,
  codex: `${MODULES}${PACKAGES.codex}/bin/codex.js`,
};

/** The version a CLI reports, for the report of a failing test. */
export function versionOf(cli: keyof typeof ENTRY_POINTS): string {
  return (JSON.parse(readFileSync(`${MODULES}${PACKAGES[cli]}/package.json`, 'utf8')) as { version: string }).version;
}

/** Variables that would let the developer's own accounts, settings or trust decisions leak into a test. */
const FOREIGN = /^(APPMGMT_|CLAUDE|ANTHROPIC_|GEMINI_|GOOGLE_|QWEN_|DASHSCOPE_|OPENAI_|CODEX_|XDG_)/;

// Nothing beyond 127.0.0.1: no update checks, telemetry or error reports. The machine may be
// offline, and a CLI waiting on a blocked call home would make the test hang instead of fail.
const QUIET = {
  DISABLE_AUTOUPDATER: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  // Claude Code still opens a connection to its model API at start-up (seen with strace): this sends
  // it to the discard port on this machine, which refuses it at once. No test here needs the API.
  ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
  GEMINI_TELEMETRY_ENABLED: 'false',
  // Gemini CLI otherwise starts a second copy of itself with a larger heap, which doubles the few
  // seconds each command takes; `mcp add` and `mcp list` need no larger heap.
  GEMINI_CLI_NO_RELAUNCH: 'true',
  // Qwen Code, a fork of Gemini CLI, relaunches the same way.
  QWEN_CODE_NO_RELAUNCH: 'true',
  NO_COLOR: '1',
};

/** Gemini CLI's user settings with usage statistics, telemetry and update checks off (Qwen Code reads the same keys). */
const GEMINI_SETTINGS = {
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
  general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
};

export interface Home {
  /** The temporary home folder; every CLI keeps its configuration under it. */
  root: string;
  /** The folder the CLIs run in, as a user's project. */
  project: string;
  claudeConfig: string;
  geminiHome: string;
  qwenHome: string;
  codexHome: string;
  env: Record<string, string>;
  remove(): void;
}

/**
 * A fresh home folder of its own for the CLIs, never the user's: HOME and each CLI's configuration
 * folder point into it, and `claude`, `gemini`, `qwen` and `codex` on its PATH run the installed CLIs (with
 * this test's Node.js as `node`).
 */
export function isolatedHome(): Home {
  const root = mkdtempSync(join(tmpdir(), 'appmgmt-clients-'));
  const project = join(root, 'project');
  const bin = join(root, 'bin');
  const claudeConfig = join(root, '.claude');
  const codexHome = join(root, '.codex');
  for (const folder of [project, bin, claudeConfig, codexHome, join(root, '.gemini'), join(root, '.qwen')]) mkdirSync(folder, { recursive: true });
  writeFileSync(join(root, '.gemini', 'settings.json'), JSON.stringify(GEMINI_SETTINGS, null, 2));
  writeFileSync(join(root, '.qwen', 'settings.json'), JSON.stringify(GEMINI_SETTINGS, null, 2));
  for (const [name, entry] of Object.entries(ENTRY_POINTS)) {
    writeFileSync(join(bin, name), `#!/bin/sh\nexec "${process.execPath}" "${entry}" "$@"\n`, { mode: 0o755 });
  }
  const inherited = Object.fromEntries(Object.entries(cleanEnv()).filter(([name]) => !FOREIGN.test(name)));
  const env = {
    ...inherited,
    ...QUIET,
    HOME: root,
    CLAUDE_CONFIG_DIR: claudeConfig,
    GEMINI_CLI_HOME: root,
    CODEX_HOME: codexHome,
    PATH: [bin, dirname(process.execPath), process.env.PATH ?? ''].join(':'),
  };
  return {
    root,
    project,
    claudeConfig,
    geminiHome: join(root, '.gemini'),
    qwenHome: join(root, '.qwen'),
    codexHome,
    env,
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** How long one CLI command may take before the test kills it and fails: a health check is a few seconds. */
export const CLI_TIMEOUT_MS = 40_000;

/**
 * Runs `command` with `sh -c` in the home's project folder, as a user pastes it into a terminal, and
 * collects what it writes. After `timeoutMs` the whole process group is killed and the exit code is null.
 */
export function sh(command: string, home: Home, env: Record<string, string> = {}, timeoutMs = CLI_TIMEOUT_MS): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command], { cwd: home.project, env: { ...home.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    const timer = setTimeout(() => {
      stderr += `\n[killed after ${timeoutMs} ms]`;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs `command` and returns its output, or throws with everything it wrote when it did not exit 0. */
export async function shOk(command: string, home: Home, env: Record<string, string> = {}): Promise<string> {
  const exit = await sh(command, home, env);
  if (exit.code !== 0) throw new Error(`\`${command}\` exited ${exit.code}:\n${exit.stdout}\n${exit.stderr}`);
  return `${exit.stdout}${exit.stderr}`;
}

/** The local HTTP server of docs/clients.md, started with its documented arguments on a free port. */
export async function startDocumentedHttp(): Promise<HttpProcess> {
  const words = docBlock('Connect a client', 'sh', 'dist/index.js http').text.trim().split(/\s+/);
  const [node, bin, command, ...args] = words;
  if (node !== 'node' || bin !== `${PLACEHOLDER.clone}/dist/index.js` || command !== 'http') {
    throw new Error(`${DOC}: the local HTTP command is not \`node …/dist/index.js http …\`: ${words.join(' ')}`);
  }
  const port = args.indexOf('--port');
  if (port >= 0) args.splice(port, 2);
  return startHttp(args);
}

export interface RecordingProxy {
  /** http://127.0.0.1:PORT, standing in for the server's origin. */
  url: string;
  /** The headers of every request passed on, in order. */
  requests: IncomingHttpHeaders[];
  close(): Promise<void>;
}

/**
 * A proxy on 127.0.0.1 in front of `target` (http://127.0.0.1:PORT) that records each request's
 * headers and passes it on unchanged but for Host, which must name the server's own port.
 */
export async function recordingProxy(target: string): Promise<RecordingProxy> {
  const requests: IncomingHttpHeaders[] = [];
  const server = createServer((incoming, answer) => {
    requests.push(incoming.headers);
    const forward = request(new URL(incoming.url ?? '/', target), { method: incoming.method, headers: { ...incoming.headers, host: new URL(target).host } }, (upstream) => {
      answer.writeHead(upstream.statusCode ?? 502, upstream.headers);
      upstream.pipe(answer);
    });
    forward.on('error', () => answer.destroy());
    incoming.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The credential headers of the requests a proxy saw (name: every distinct value), to compare whole. */
export function credentialHeaders(requests: IncomingHttpHeaders[]): Record<string, string[]> {
  const values = (name: string) => [...new Set(requests.map((headers) => String(headers[name] ?? '(none)')))];
  return { authorization: values('authorization'), 'x-appmgmt-api-key': values('x-appmgmt-api-key') };
}

/** A test runs a few CLI commands of a few seconds each; on a loaded machine they may take longer. */
export const CLI_TEST_TIMEOUT_MS = 60_000;

export interface Session {
  tools: string[];
  /** check_connection's structured result. */
  connection: Record<string, unknown>;
}

/**
 * Starts `command args` with `env` as a client application does from its configuration, initializes,
 * lists the tools and calls check_connection, then closes.
 */
export async function sessionOverStdio(command: string, args: string[], env: Record<string, string>): Promise<Session> {
  return session(new StdioClientTransport({ command, args, env: { ...cleanEnv(), APPMGMT_LOG_LEVEL: 'warn', ...env }, stderr: 'pipe' }));
}

/** The same over Streamable HTTP at `url`, sending `headers` with every request. */
export async function sessionOverHttp(url: string, headers: Record<string, string>): Promise<Session> {
  return session(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
}

async function session(transport: StdioClientTransport | StreamableHTTPClientTransport): Promise<Session> {
  const client = new Client({ name: 'docs-clients-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    const result = await client.callTool({ name: 'check_connection', arguments: {} });
    return { tools: tools.map((tool) => tool.name), connection: (result.structuredContent ?? {}) as Record<string, unknown> };
  } finally {
    await client.close();
  }
}

/** Asserts that a CLI's output has a line matching `line`, showing the whole output when it has not. */
export function expectListed(output: string, line: RegExp): void {
  expect(output, `the CLI printed:\n${output}`).toMatch(line);
}

export interface CodexServerStatus {
  name: string;
  serverInfo: { name: string; version: string } | null;
  tools: Record<string, unknown> | null;
  toolsError: string | null;
}

/**
 * What Codex reports after connecting to every configured MCP server: its app server (`codex
 * app-server`, JSON-RPC over stdio, the protocol Codex's own interfaces use) answers
 * `mcpServerStatus/list` by starting or connecting to each server and listing its tools. It needs
 * no OpenAI account. `env` is added to the home's environment, as the user's own variables.
 */
export async function codexServerStatus(home: Home, env: Record<string, string> = {}): Promise<CodexServerStatus[]> {
  // Without plugins: otherwise the app server also looks up plugin sources on the internet.
  const child = spawn('codex', ['app-server', '--disable', 'plugins'], { cwd: home.project, env: { ...home.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  const stop = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Already gone.
    }
  };
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  try {
    return await new Promise<CodexServerStatus[]>((resolve, reject) => {
      let buffer = '';
      child.stdout.on('data', (chunk: Buffer) => {
        buffer += chunk;
        for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
          const message = JSON.parse(buffer.slice(0, end)) as { id?: number; result?: { data: CodexServerStatus[] }; error?: unknown };
          buffer = buffer.slice(end + 1);
          if (message.id !== 1) continue;
          if (message.result) resolve(message.result.data);
          else reject(new Error(`mcpServerStatus/list failed: ${JSON.stringify(message.error)}`));
        }
      });
      child.on('close', (code) => reject(new Error(`codex app-server exited (${code}) before answering:\n${stderr}`)));
      setTimeout(() => reject(new Error(`codex app-server did not answer within ${CLI_TIMEOUT_MS} ms:\n${stderr}`)), CLI_TIMEOUT_MS).unref();
      const messages = [
        { method: 'initialize', id: 0, params: { clientInfo: { name: 'docs-clients-test', title: 'docs/clients.md test', version: '1.0.0' } } },
        { method: 'initialized' },
        { method: 'mcpServerStatus/list', id: 1, params: {} },
      ];
      child.stdin.write(messages.map((message) => `${JSON.stringify(message)}\n`).join(''));
    });
  } finally {
    stop();
  }
}

/** What each terminal client's tests work with: the documented HTTP server and a sandbox (per file), a fresh home and a recording proxy (per test). */
export interface TerminalFixtures {
  home: Home;
  http: HttpProcess;
  proxy: RecordingProxy;
  sandbox: Sandbox;
}

/**
 * Registers, in the calling describe, the hooks that start and stop the fixtures, and hands them to
 * `use` each time they change (after the file's start and before each test).
 */
export function terminalFixtures(use: (fixtures: TerminalFixtures) => void): void {
  const now = {} as TerminalFixtures;
  beforeAll(async () => {
    [now.http, now.sandbox] = await Promise.all([startDocumentedHttp(), startSandbox()]);
    use(now);
  });
  afterAll(async () => {
    await Promise.all([now.http?.stop(), now.sandbox?.close()]);
  });
  beforeEach(async () => {
    now.home = isolatedHome();
    now.proxy = await recordingProxy(now.http.url);
    use(now);
  });
  afterEach(async () => {
    await now.proxy.close();
    now.home.remove();
  });
}

export type Resolve = (name: string) => string | undefined;

/**
 * `values` with every `${prefix:NAME}` replaced through `resolve`, as VS Code, Cursor and Windsurf
 * fill their configuration files. @throws Error naming a variable it cannot resolve.
 */
export function expand(values: Record<string, string>, prefix: string, resolve: Resolve): Record<string, string> {
  const pattern = new RegExp(`\\$\\{${prefix}:([^}]+)\\}`, 'g');
  return Object.fromEntries(
    Object.entries(values).map(([key, value]) => [
      key,
      value.replace(pattern, (_whole, name: string) => {
        const resolved = resolve(name);
        if (resolved === undefined) throw new Error(`${key} refers to \${${prefix}:${name}}, which is not defined`);
        return resolved;
      }),
    ]),
  );
}

/** The one server in a parsed file. */
export function only<T>(servers: Record<string, T>): [string, T] {
  const entries = Object.entries(servers);
  expect(entries).toHaveLength(1);
  return entries[0]!;
}
