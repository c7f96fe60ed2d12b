import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLineSchema, type AuditLine } from '../../src/observe/audit.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import { CREDENTIAL_HEADERS } from '../../src/transports/http.js';
import { connectHttp } from '../http/harness.js';
import { receivedDigest } from '../observe/audit-support.js';
import { CLIENT_KIND, SERVER_KIND, startReceiver, type Receiver } from '../observe/otlp-receiver.js';
import { cleanEnv } from '../process.js';
import { blocksUnder, ROOT, shellCommands } from './markdown.js';
import { AUDIT_DOCS, DOC_TRAIL_PATH, EXAMPLE_CAMPAIGN, EXAMPLE_STATE_SECRET, exampleTrail } from './operations-example.js';

// docs/operations.md (and README.md's "Who spent what"): each block parsed or run as written, with
// only what a test cannot have swapped in: a free port for 8080, a file of this test's for
// /var/log/…, this test's sandbox as the service a deployment names in APPMGMT_BASE_URL, and this
// test's OTLP/HTTP receiver for http://collector:4318. The jq query is run by
// test/observe/audit-jq.test.ts.
const DOC = 'docs/operations.md';
const doc = readFileSync(`${ROOT}${DOC}`, 'utf8');
const COLLECTOR = 'http://collector:4318';

/** This environment without a developer's own APPMGMT_* or OTEL_* settings. */
function baseEnv(extra: Record<string, string>): Record<string, string> {
  return { ...Object.fromEntries(Object.entries(cleanEnv()).filter(([name]) => !name.startsWith('OTEL_'))), ...extra };
}

interface Started {
  child: ChildProcess;
  mcp: URL;
  stderr(): string;
  stop(): Promise<number | null>;
}

/** Runs a documented `… http --port 8080` line through bash on a free port until it says where it listens. */
async function serve(command: string, env: Record<string, string>): Promise<Started> {
  expect(command).toContain('--port 8080');
  // Its own process group, so that the signal reaches the server whether or not bash forked for it.
  const child = spawn('bash', ['-c', command.replace('--port 8080', '--port 0')], { cwd: ROOT, env: baseEnv(env), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk;
      const found = /serving MCP on (http:\/\/[^/\s]+)\/mcp/.exec(stderr);
      if (found) resolve(found[1]!);
    });
    void exited.then((code) => reject(new Error(`exited (${code}) before listening:\n${stderr}`)));
  });
  return {
    child,
    mcp: new URL(`${url}/mcp`),
    stderr: () => stderr,
    stop() {
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM');
      return exited;
    },
  };
}

/** The steps of one call, without what differs from run to run (the time, the random call id). */
const stable = ({ time: _time, call: _call, ...line }: AuditLine) => line;

describe('the audit trail in docs/operations.md and README.md', () => {
  let sandbox: Sandbox;
  let dir: string;
  beforeAll(async () => {
    sandbox = await startSandbox(); // its own, so that the campaign is the first of a fresh world, as in the documents
    dir = mkdtempSync(join(tmpdir(), 'operations-doc-'));
  });
  afterAll(async () => {
    await sandbox?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows three lines the schema parses: one call confirmed, sent and answered', () => {
    const lines = exampleTrail(DOC).map((line) => AuditLineSchema.parse(JSON.parse(line)));
    expect(lines.map((line) => [line.step, line.outcome])).toEqual([
      ['confirmed', 'pending'],
      ['sent', 'pending'],
      ['answered', 'success'],
    ]);
    const [confirmed, sent, answered] = lines;
    for (const field of ['call', 'user', 'tool', 'app', 'request_sha256', 'amount_micros'] as const) {
      expect(new Set(lines.map((line) => line[field])).size, field).toBe(1);
    }
    expect(confirmed!.tool).toBe('create_ad_campaign');
    expect(confirmed!.amount_micros).toBe(EXAMPLE_CAMPAIGN.daily_budget_micros);
    expect(sent!.http).toBe(`POST /api/apps/${EXAMPLE_CAMPAIGN.app_id}/adnet-ads/campaigns`);
    expect(sent!.sent_sha256).toMatch(/^[0-9a-f]{64}$/);
    // In the order they were written, within one second.
    const times = lines.map((line) => Date.parse(line.time));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(times[2]! - times[0]!).toBeLessThan(1_000);
    expect(answered!.summary).toMatch(/^created campaign cmp_\w+/);
  });

  it('shows the same lines in README.md as in docs/operations.md', () => {
    const [operations, readme] = AUDIT_DOCS.map(exampleTrail);
    expect(readme).toEqual(operations);
  });

  it('shows lines the server writes: the documented command, the same spend, the same lines but their time and call id', async () => {
    const [block] = blocksUnder(DOC, 'Turn it on', 'sh');
    const [command] = shellCommands(block!.text);
    expect(command).toBe(`APPMGMT_AUDIT_LOG=${DOC_TRAIL_PATH} node dist/index.js http --port 8080`);
    const trail = join(dir, 'audit.jsonl');
    // A deployment names its service; the secret is the one the documented trail was written with.
    const server = await serve(command!.replace(DOC_TRAIL_PATH, trail), { APPMGMT_BASE_URL: sandbox.url, APPMGMT_STATE_SECRET: EXAMPLE_STATE_SECRET });
    try {
      const { accessToken, apiKey } = sandbox.simulation.credentials;
      const client = await connectHttp(server.mcp, '2025-11-25', { headers: { authorization: `Bearer ${accessToken}`, [CREDENTIAL_HEADERS.apiKey]: apiKey } });
      expect((await client.callTool('create_ad_campaign', EXAMPLE_CAMPAIGN)).structured).toMatchObject({ confirmation_needed: true });
      expect((await client.callTool('create_ad_campaign', { ...EXAMPLE_CAMPAIGN, confirm: true })).isError).toBe(false);
      await client.close();
    } finally {
      expect(await server.stop()).toBe(0);
    }
    expect(statSync(trail).mode & 0o777).toBe(0o600);
    const written = readFileSync(trail, 'utf8').trimEnd().split('\n').map((line) => AuditLineSchema.parse(JSON.parse(line)));
    expect(written.map((line) => line.step)).toEqual(['warned', 'confirmed', 'sent', 'answered']);
    const shown = exampleTrail(DOC).map((line) => AuditLineSchema.parse(JSON.parse(line)));
    expect(written.slice(1).map(stable)).toEqual(shown.map(stable));
    // The digest is of exactly what the service received.
    const [create] = sandbox.requests.filter((request) => request.method === 'POST');
    expect(receivedDigest(create!)).toBe(shown[1]!.sent_sha256);
  }, 60_000);

  it('stops start-up with exit 2, naming the variable, when the trail file cannot be opened', async () => {
    const [block] = blocksUnder(DOC, 'Turn it on', 'sh');
    const [command] = shellCommands(block!.text);
    const child = spawn('bash', ['-c', command!.replace(DOC_TRAIL_PATH, join(dir, 'no-such-dir', 'audit.jsonl')).replace('--port 8080', '--port 0')], {
      cwd: ROOT,
      env: baseEnv({ APPMGMT_BASE_URL: sandbox.url }),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(2);
    expect(stderr).toContain('APPMGMT_AUDIT_LOG');
    expect(stderr).toContain('cannot be opened for appending');
  }, 60_000);
});

describe('OpenTelemetry in docs/operations.md', () => {
  let sandbox: Sandbox;
  let receiver: Receiver;
  let lines: string[];
  beforeAll(async () => {
    sandbox = await startSandbox();
    receiver = await startReceiver();
    const [block] = blocksUnder(DOC, 'Turn OpenTelemetry on', 'sh');
    lines = shellCommands(block!.text).map((line) => {
      expect(line).toContain(COLLECTOR);
      return line.replace(COLLECTOR, receiver.url);
    });
    expect(lines).toHaveLength(2);
  });
  afterAll(async () => {
    await receiver?.close();
    await sandbox?.close();
  });

  /** Names in the first column of the markdown table that follows `marker` in the document. */
  function tableNames(marker: string): string[] {
    const start = doc.indexOf(marker);
    expect(start, marker).toBeGreaterThanOrEqual(0);
    const table = doc.slice(start).split('\n\n').find((chunk) => chunk.startsWith('|'))!;
    return table.split('\n').slice(2).flatMap((row) => [...row.split('|')[1]!.matchAll(/`([a-z_.]+)`/g)].map((match) => match[1]!));
  }

  it('exports traces and metrics of the http server to the shared endpoint, with the attributes and metrics its tables name', async () => {
    const [shared] = lines;
    expect(shared).toMatch(/^OTEL_EXPORTER_OTLP_ENDPOINT=\S+ node dist\/index\.js http --port 8080$/);
    const server = await serve(shared!, { APPMGMT_BASE_URL: sandbox.url });
    try {
      const { accessToken, apiKey } = sandbox.simulation.credentials;
      const client = await connectHttp(server.mcp, '2025-11-25', { headers: { authorization: `Bearer ${accessToken}`, [CREDENTIAL_HEADERS.apiKey]: apiKey } });
      expect((await client.callTool('list_ad_campaigns', { app_id: 'app_demo' })).isError).toBe(false);
      await client.close();
    } finally {
      expect(await server.stop()).toBe(0); // the drain flushes the exporters
    }
    const spans = receiver.spans();
    const call = spans.find((span) => span.kind === SERVER_KIND && span.name === 'tools/call list_ad_campaigns');
    expect(call).toBeDefined();
    const child = spans.find((span) => span.kind === CLIENT_KIND && span.parentSpanId === call!.spanId);
    expect(child?.name).toBe('GET /api/apps/{id}/adnet-ads/campaigns');

    const serverAttributes = tableNames('**A SERVER span per MCP request');
    const clientAttributes = tableNames('**A CLIENT child span per upstream HTTP attempt');
    for (const span of spans) {
      const named = span.kind === SERVER_KIND ? serverAttributes : clientAttributes;
      for (const attribute of Object.keys(span.attributes)) expect(named, `${span.name}: ${attribute}`).toContain(attribute);
    }
    const metrics = new Set(receiver.metrics().map((metric) => metric.name));
    expect([...metrics].sort()).toEqual([...new Set(tableNames('| Metric |'))].sort());
  }, 60_000);

  it('exports only traces of a stdio server to the traces endpoint, when its client closes stdin', async () => {
    const [, perSignal] = lines;
    expect(perSignal).toMatch(/^OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=\S+\/v1\/traces node dist\/index\.js --sandbox$/);
    const before = receiver.received.length;
    const child = spawn('bash', ['-c', perSignal!], { cwd: ROOT, env: baseEnv({}), stdio: ['pipe', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    let stdout = '';
    const answered = new Promise<void>((resolve) =>
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk;
        if (stdout.includes('"id":2')) resolve();
      }),
    );
    const send = (message: Record<string, unknown>) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'operations-doc', version: '1' } } });
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/call', params: { name: 'list_ad_campaigns', arguments: { app_id: 'app_demo' } } });
    await answered;
    child.stdin.end();
    expect(await exited).toBe(0);
    const received = receiver.received.slice(before);
    expect(received.map((entry) => entry.path)).toContain('/v1/traces');
    expect(received.filter((entry) => entry.path !== '/v1/traces')).toEqual([]);
    const names = received.flatMap((entry) => JSON.parse(entry.body.toString('utf8')).resourceSpans.flatMap((r: { scopeSpans: Array<{ spans: Array<{ name: string }> }> }) => r.scopeSpans.flatMap((s) => s.spans.map((span) => span.name))));
    expect(names).toEqual(expect.arrayContaining(['initialize', 'tools/call list_ad_campaigns', 'GET /api/apps/{id}/adnet-ads/campaigns']));
  }, 60_000);
});
