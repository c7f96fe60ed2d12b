import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getMcpConfigForManifest } from '@anthropic-ai/mcpb';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import { TOOLS } from '../../src/tools/index.js';

// Packs with scripts/pack.mjs (as `npm run pack` does, into a temp folder), unpacks with `mcpb unpack`
// and starts the server from the unpacked folder the way Claude Desktop does: mcp_config from the
// manifest with ${__dirname} and ${user_config.*} substituted by mcpb's own getMcpConfigForManifest.
const root = fileURLToPath(new URL('../..', import.meta.url));
const MCPB = join(root, 'node_modules', '@anthropic-ai', 'mcpb', 'dist', 'cli', 'cli.js');
const manifest = JSON.parse(readFileSync(join(root, 'manifest.json'), 'utf8'));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const READ_TOOLS = TOOLS.filter((tool) => tool.annotations.readOnlyHint).map((tool) => tool.name);

const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
const listing = (dir: string) => filesUnder(dir).map((file) => relative(dir, file).split(sep).join('/')).sort();

/** Folders a module resolution from `dir` would search for node_modules. */
function nodeModulesAbove(dir: string): string[] {
  const found: string[] = [];
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, 'node_modules'))) found.push(join(at, 'node_modules'));
    if (dirname(at) === at) return found;
  }
}

describe('the MCP Bundle (.mcpb)', () => {
  let work: string;
  let unpacked: string;
  let packLog: string;
  let sandbox: Sandbox;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'appmgmt-bundle-'));
    const bundle = join(work, 'app-management-mcp.mcpb');
    unpacked = join(work, 'unpacked');
    const pack = spawnSync(process.execPath, [join(root, 'scripts', 'pack.mjs'), bundle], { encoding: 'utf8' });
    packLog = pack.stderr;
    if (pack.status !== 0) throw new Error(`pack failed: ${pack.stdout}${pack.stderr}`);
    const unpack = spawnSync(process.execPath, [MCPB, 'unpack', bundle, unpacked], { encoding: 'utf8' });
    if (unpack.status !== 0) throw new Error(`mcpb unpack failed: ${unpack.stdout}${unpack.stderr}`);
    sandbox = await startSandbox({ control: true });
  });

  afterAll(async () => {
    await sandbox?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** Starts the unpacked server as Claude Desktop would for these settings, and connects a client. */
  async function install(userConfig: Record<string, string | boolean>) {
    const config = await getMcpConfigForManifest({ manifest, extensionPath: unpacked, systemDirs: {}, userConfig, pathSeparator: sep });
    if (!config) throw new Error('getMcpConfigForManifest returned nothing: a required user_config value is missing');
    // The host's own Node runs `node`; getDefaultEnvironment() adds PATH/HOME but no APPMGMT_* from this process.
    const transport = new StdioClientTransport({
      command: config.command === 'node' ? process.execPath : config.command,
      args: config.args ?? [],
      env: config.env ?? {},
      cwd: unpacked,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk));
    const client = new Client({ name: 'bundle-host', version: '1.0.0' });
    try {
      await client.connect(transport);
    } catch (error) {
      throw new Error(`the bundled server did not start: ${String(error)}\nstderr: ${stderr}`);
    }
    return { client, config, stderr: () => stderr };
  }

  const credentials = () => {
    const { accessToken, apiKey, monitoringApiKey } = sandbox.simulation.credentials;
    return { base_url: sandbox.url, access_token: accessToken, api_key: apiKey, monitoring_api_key: monitoringApiKey };
  };

  it('holds only the manifest, the built dist/, a minimal package.json, the license, and the README with the docs/ it links to', () => {
    expect(packLog).toMatch(/packed .*\(\d+ KiB/);
    const files = listing(unpacked);
    const dist = listing(join(root, 'dist')).map((file) => `dist/${file}`);
    const docs = listing(join(root, 'docs')).map((file) => `docs/${file}`);
    expect(files).toEqual(['LICENSE', 'README.md', ...dist, ...docs, 'manifest.json', 'package.json'].sort());
    const linked = [...readFileSync(join(unpacked, 'README.md'), 'utf8').matchAll(/\]\((docs\/[^)#]+)/g)].map((match) => match[1]!);
    expect(linked.length).toBeGreaterThan(0);
    expect(linked.filter((path) => !files.includes(path))).toEqual([]);
    expect(files.filter((file) => /(^|\/)(node_modules|src|test)\//.test(file))).toEqual([]);
    expect(JSON.parse(readFileSync(join(unpacked, 'manifest.json'), 'utf8'))).toEqual(manifest);
    expect(JSON.parse(readFileSync(join(unpacked, 'package.json'), 'utf8'))).toEqual({ name: pkg.name, version: pkg.version, type: 'module' });
  });

  it('runs with no node_modules anywhere above it', () => {
    expect(nodeModulesAbove(unpacked)).toEqual([]);
    expect(existsSync(join(unpacked, manifest.server.entry_point))).toBe(true);
  });

  it('starts from the settings a user fills in (optional fields left empty) and reaches the API with them', async () => {
    const { client } = await install(credentials());
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(manifest.tools.map((tool: { name: string }) => tool.name));

      const seen = sandbox.requests.length;
      const job = await client.callTool({ name: 'get_scheduling_job', arguments: { app_id: 'app_demo', job_id: 'job_empty' } });
      // app_notes pushes cleanly in the default world (app_demo has commits to pull first).
      const push = await client.callTool({ name: 'push_app_to_repo', arguments: { app_id: 'app_notes' } });
      // The completed job is followed by one calendar read; then the push.
      const [jobRequest, , pushRequest] = sandbox.requests.slice(seen);
      expect(jobRequest?.rawPath).toBe('/api/apps/app_demo/social-calendar/posts/schedule/job_empty');
      expect(jobRequest?.headers.api_key).toBe(sandbox.simulation.credentials.apiKey);
      expect(pushRequest?.headers.authorization).toBe(`Bearer ${sandbox.simulation.credentials.accessToken}`);
      for (const result of [job, push]) expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  it('applies read-only mode and app scoping chosen in the host settings', async () => {
    const { client, config } = await install({ ...credentials(), monitoring_url: sandbox.url, read_only: true, app_id: 'app_demo' });
    try {
      expect(config.env).toMatchObject({ APPMGMT_READ_ONLY: 'true', APPMGMT_APP_ID: 'app_demo' });
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(READ_TOOLS);
      for (const tool of tools) expect(Object.keys(tool.inputSchema.properties ?? {}), tool.name).not.toContain('app_id');

      const seen = sandbox.requests.length;
      await client.callTool({ name: 'get_scheduling_job', arguments: { job_id: 'job_empty' } });
      expect(sandbox.requests.slice(seen).map((request) => request.rawPath)).toEqual([
        '/api/apps/app_demo/social-calendar/posts/schedule/job_empty',
        // A completed job is followed by one calendar read: approved posts still waiting are named.
        '/api/apps/app_demo/social-calendar/posts',
      ]);
    } finally {
      await client.close();
    }
  });
});
