import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import { CREDENTIAL_HEADERS } from '../../src/transports/http.js';
import { campaign, connectHttp } from '../http/harness.js';
import { cleanEnv } from '../process.js';
import { redisSkipReason, startRedis, type RedisServer } from '../redis.js';
import { blocksUnder, ROOT, shellCommands } from './markdown.js';

// docs/team.md: each command run from the clone as written, with only what a test cannot have
// swapped in: a free port for 8080, this test's sandbox for https://your-service.example, this test's
// redis-server for redis.internal, and a file of this test's for /run/secrets/….
const DOC = 'docs/team.md';
const doc = readFileSync(`${ROOT}${DOC}`, 'utf8');
const EXAMPLE_SERVICE = 'https://your-service.example';

interface Started {
  child: ChildProcess;
  /** http://127.0.0.1:PORT, from the server's own start-up line. */
  url: string;
  /** The address its start-up line names. */
  shown: string;
  stop(): Promise<number | null>;
}

/** Runs one documented command line through bash, with `--port 8080` made a free port, until it says where it listens. */
async function run(command: string): Promise<Started> {
  expect(command).toContain('--port 8080');
  // Its own process group, so that the signal reaches the server whether or not bash forked for it.
  const child = spawn('bash', ['-c', command.replace('--port 8080', '--port 0')], { cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  let stderr = '';
  const shown = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk;
      const found = /serving MCP on (http:\/\/[^/\s]+)\/mcp/.exec(stderr);
      if (found) resolve(found[1]!);
    });
    void exited.then((code) => reject(new Error(`exited (${code}) before listening:\n${stderr}`)));
  });
  const port = new URL(shown).port;
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    shown,
    stop() {
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM');
      return exited;
    },
  };
}

/** A GET with the Host header a client behind the named host sends (fetch cannot set Host). */
function get(url: string, host?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = request({ host: '127.0.0.1', port: target.port, path: target.pathname, headers: host ? { host } : {} }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

/** A POST to /mcp with the given Host and Origin; only the status matters. */
function post(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = request({ method: 'POST', host: '127.0.0.1', port: target.port, path: '/mcp', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
  });
}

describe('docs/team.md', () => {
  let sandbox: Sandbox;
  let headers: Record<string, string>;
  beforeAll(async () => {
    sandbox = await startSandbox();
    const { accessToken, apiKey } = sandbox.simulation.credentials;
    headers = { authorization: `Bearer ${accessToken}`, [CREDENTIAL_HEADERS.apiKey]: apiKey };
  });
  afterAll(() => sandbox?.close());

  it('serves one replica on 127.0.0.1, live or against the sandbox, with /healthz and /readyz', async () => {
    const [block] = blocksUnder(DOC, 'One replica', 'sh');
    const [live, demo] = shellCommands(block!.text);
    expect([live, demo]).toEqual(['node dist/index.js http --port 8080', 'node dist/index.js http --port 8080 --sandbox']);
    for (const command of [live!, demo!]) {
      const server = await run(command);
      try {
        expect(server.shown).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        expect(await get(`${server.url}/healthz`)).toBe(200);
        expect(await get(`${server.url}/readyz`)).toBe(200);
        if (command === demo) {
          const client = await connectHttp(new URL(`${server.url}/mcp`), '2026-07-28');
          const answer = await client.callTool('check_connection');
          await client.close();
          expect(answer.text).toMatch(/^\[sandbox\] Service healthy/);
        }
      } finally {
        expect(await server.stop()).toBe(0);
      }
    }
  }, 60_000);

  it('serves other machines only under the host and origin it names, and refuses to start without them', async () => {
    const [, block] = blocksUnder(DOC, 'One replica', 'sh');
    const [command] = shellCommands(block!.text);
    expect(command).toMatch(/^APPMGMT_BASE_URL=\S+ APPMGMT_HTTP_ALLOWED_HOSTS=mcp\.example\.com APPMGMT_HTTP_ALLOWED_ORIGINS=https:\/\/chat\.example\.com node dist\/index\.js http --host 0\.0\.0\.0 --port 8080$/);
    const server = await run(command!);
    try {
      expect(await post(server.url, { host: 'mcp.example.com', origin: 'https://chat.example.com' })).toBe(200);
      expect(await post(server.url, { host: 'evil.example', origin: 'https://chat.example.com' })).toBe(403);
      expect(await post(server.url, { host: 'mcp.example.com', origin: 'https://evil.example' })).toBe(403);
      expect(await get(`${server.url}/healthz`, 'mcp.example.com')).toBe(200);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    const bare = command!.replace(/APPMGMT_HTTP_ALLOWED_\w+=\S+ /g, '').replace('--port 8080', '--port 0');
    const refused = spawn('bash', ['-c', bare], { cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    refused.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    expect(await new Promise((resolve) => refused.on('close', resolve))).toBe(2);
    expect(stderr).toContain('APPMGMT_HTTP_ALLOWED_HOSTS and APPMGMT_HTTP_ALLOWED_ORIGINS must name');
  }, 60_000);

  describe.skipIf(redisSkipReason !== undefined)('several replicas', () => {
    let redis: RedisServer;
    let secrets: string;
    beforeAll(async () => {
      redis = await startRedis();
      secrets = mkdtempSync(join(tmpdir(), 'team-doc-'));
    });
    afterAll(async () => {
      await redis?.stop();
      rmSync(secrets, { recursive: true, force: true });
    });

    it('lets a warning given by one replica be confirmed through the other, sending one request', async () => {
      const [block] = blocksUnder(DOC, 'Several replicas behind a load balancer', 'sh');
      const [command] = shellCommands(block!.text);
      expect(command).toContain('APPMGMT_STATE_URL=redis://redis.internal:6379/0');
      writeFileSync(`${secrets}/appmgmt-state-secret`, `${'0123456789abcdef'.repeat(2)}fedcba9876543210`);
      const local = command!
        .replace(EXAMPLE_SERVICE, sandbox.url)
        .replace('redis://redis.internal:6379/0', redis.url)
        .replace('/run/secrets/appmgmt-state-secret', `${secrets}/appmgmt-state-secret`);
      const [a, b] = await Promise.all([run(local), run(local)]);
      try {
        for (const replica of [a, b]) expect(await get(`${replica.url}/readyz`)).toBe(200);
        const onA = await connectHttp(new URL(`${a.url}/mcp`), '2026-07-28', { headers });
        const onB = await connectHttp(new URL(`${b.url}/mcp`), '2025-11-25', { headers });
        const args = campaign('Team doc launch');
        const creates = () => sandbox.requests.filter((sent) => sent.method === 'POST' && sent.rawPath.endsWith('/campaigns')).length;
        const before = creates();
        expect((await onA.callTool('create_ad_campaign', args)).structured).toMatchObject({ confirmation_needed: true });
        const done = await onB.callTool('create_ad_campaign', { ...args, confirm: true });
        expect(done.structured).toMatchObject({ confirmation_needed: false, campaign_name: args.campaign_name });
        expect(creates()).toBe(before + 1);
        await Promise.all([onA.close(), onB.close()]);
      } finally {
        expect(await Promise.all([a.stop(), b.stop()])).toEqual([0, 0]);
      }
    }, 60_000);
  });

  it('names the credential headers the server reads', () => {
    const table = doc.slice(doc.indexOf('## The headers each client sends'), doc.indexOf('## What is shared'));
    const named = [...table.matchAll(/^\| `([A-Za-z-]+):/gm)].map((match) => match[1]!.toLowerCase());
    expect(named.sort()).toEqual(Object.values(CREDENTIAL_HEADERS).sort());
  });
});
