import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../src/sandbox/types.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import { connectHttp, startHttp, type AnyClient, type HttpProcess } from '../http/harness.js';
import { startRaw } from '../process.js';
import { redisSkipReason, startRedis, type RedisServer } from '../redis.js';
import { campaign, parseTrail, receivedDigest, receivedWrites, spendsFromTrail, type Spend } from './audit-support.js';

/**
 * The proof issue 18 asks of the audit trail: built servers (HTTP replicas sharing Redis and one
 * trail file, and stdio servers) spend against a sandbox through workflows and a hostile run
 * (concurrent confirmations over two replicas, upstream faults, SIGTERM and SIGKILL during a spend,
 * Redis restarted during and between spends); then the list of spends rebuilt from the trail file
 * ALONE must equal the sandbox's own record of the writes it received, with every outcome that
 * cannot be known marked unknown.
 */

/** The same on every replica: it keys users, so their ids in the trail agree. */
const STATE_SECRET = 'audit-rebuild-Qz9pLm2Xv4Rt8Wn3Yb6Hc1Jd5F';
/** Short, so a hung request ends as an unknown outcome without a long wait. */
const TIMEOUT_MS = 1_500;
/** Concurrent confirmations of one warning, spread over two replicas. */
const RACERS = 8;

const OWNER = 'pat_demo_owner';
const ADMIN = 'pat_demo_admin';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(redisSkipReason !== undefined)('the audit trail rebuilt alone against the sandbox record', () => {
  let redis: RedisServer;
  let sandbox: Sandbox;
  let dir: string;
  const processes: HttpProcess[] = [];
  const clients = new Map<HttpProcess, AnyClient[]>();

  beforeAll(async () => {
    redis = await startRedis({ appendOnly: true });
    dir = mkdtempSync(join(tmpdir(), 'audit-rebuild-'));
  });
  afterAll(async () => {
    for (const server of processes.splice(0)) await stop(server, 'SIGKILL');
    await sandbox?.close();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const envFor = (trail: string, extra: Record<string, string> = {}) => ({
    APPMGMT_BASE_URL: sandbox.url,
    APPMGMT_STATE_URL: redis.url,
    APPMGMT_STATE_SECRET: STATE_SECRET,
    APPMGMT_AUDIT_LOG: trail,
    APPMGMT_TIMEOUT_MS: String(TIMEOUT_MS),
    APPMGMT_LOG_LEVEL: 'info', // startHttp reads the address from the info line
    ...extra,
  });

  async function replica(trail: string): Promise<HttpProcess> {
    const server = await startHttp([], envFor(trail));
    processes.push(server);
    return server;
  }

  async function user(server: HttpProcess, token: string): Promise<AnyClient> {
    const client = await connectHttp(server.mcp, '2025-11-25', { headers: { authorization: `Bearer ${token}` } });
    clients.set(server, [...(clients.get(server) ?? []), client]);
    return client;
  }

  /** Closes the replica's idle clients (a drain waits for open connections), then signals it. */
  async function stop(server: HttpProcess, signal: NodeJS.Signals = 'SIGTERM', keep?: AnyClient) {
    for (const client of clients.get(server) ?? []) if (client !== keep) await client.close().catch(() => undefined);
    clients.delete(server);
    await server.stop(signal);
  }

  /** Warns, then confirms: the answer of the confirmation. */
  async function spend(client: AnyClient, tool: string, args: Record<string, unknown>) {
    const warning = await client.callTool(tool, args);
    expect(warning.text).toMatch(/^CONFIRMATION NEEDED/);
    return client.callTool(tool, { ...args, confirm: true });
  }

  const writesReceived = () => sandbox.requests.filter((request) => request.method !== 'GET').length;
  async function untilReceived(count: number) {
    while (writesReceived() < count) await sleep(5);
  }

  /** The rebuilt spends, checked equal to the sandbox's record; returns them by digest. */
  function rebuildAndCompare(trail: string): Map<string, Spend> {
    const lines = parseTrail(readFileSync(trail, 'utf8')); // every line must parse: none torn, none foreign
    const spends = spendsFromTrail(lines);
    expect(spends.map((spend) => spend.sent_sha256).sort()).toEqual(receivedWrites(sandbox.requests));
    return new Map(spends.map((spend) => [spend.sent_sha256, spend]));
  }

  const byName = (name: string) => (request: RecordedRequest) => (request.body as { campaign_name?: string } | undefined)?.campaign_name === name;
  function outcomeOf(spends: Map<string, Spend>, name: string): string {
    const received = sandbox.requests.filter(byName(name));
    expect(received).toHaveLength(1);
    return spends.get(receivedDigest(received[0]!))!.outcome;
  }

  it('rebuilds every spend of the workflows, each with its outcome', async () => {
    sandbox = await startSandbox({ control: true });
    const trail = join(dir, 'workflows.jsonl');
    const server = await replica(trail);
    const owner = await user(server, OWNER);
    const admin = await user(server, ADMIN);

    expect((await spend(owner, 'create_ad_campaign', campaign('Workflow spring'))).isError).toBe(false);
    expect((await spend(admin, 'create_ad_campaign', campaign('Workflow summer', 7_500_000))).isError).toBe(false);
    const created = sandbox.requests.filter(byName('Workflow spring'));
    expect(created).toHaveLength(1);
    const campaignId = /cmp_\w+/.exec((await owner.callTool('list_ad_campaigns', { app_id: 'app_demo' })).text)?.[0];
    expect(campaignId).toBeDefined();
    expect((await spend(owner, 'delete_ad_campaign', { app_id: 'app_demo', campaign_id: campaignId })).isError).toBe(false);
    expect((await spend(admin, 'delete_email_template', { app_id: 'app_demo', template_id: 'tpl_seed_invite' })).isError).toBe(false);
    await stop(server);

    const spends = rebuildAndCompare(trail);
    expect(spends.size).toBe(4);
    expect([...spends.values()].map((spend) => spend.outcome)).toEqual(['success', 'success', 'success', 'success']);
    expect(new Set([...spends.values()].map((spend) => spend.user)).size).toBe(2);
    await sandbox.close();
  }, 60_000);

  it('rebuilds every spend of a hostile run, with every unknown outcome marked unknown', async () => {
    sandbox = await startSandbox({ control: true });
    const trail = join(dir, 'hostile.jsonl');
    const a = await replica(trail);
    const b = await replica(trail);
    const ownerA = await user(a, OWNER);
    const ownerB = await user(b, OWNER);
    const adminB = await user(b, ADMIN);
    const unknown: string[] = [];

    // Plain spends by two users on two replicas.
    expect((await spend(ownerA, 'create_ad_campaign', campaign('Hostile plain A'))).isError).toBe(false);
    expect((await spend(adminB, 'create_ad_campaign', campaign('Hostile plain B'))).isError).toBe(false);

    // Concurrent confirmations of one warning over both replicas: one spend.
    expect((await ownerA.callTool('create_ad_campaign', campaign('Hostile race'))).text).toMatch(/^CONFIRMATION NEEDED/);
    const racers = await Promise.all(
      Array.from({ length: RACERS }, (_, i) => (i % 2 ? ownerA : ownerB).callTool('create_ad_campaign', { ...campaign('Hostile race'), confirm: true })),
    );
    expect(racers.filter((answer) => !answer.isError)).toHaveLength(1);
    expect(racers.filter((answer) => /^NOT SENT/.test(answer.text))).toHaveLength(RACERS - 1);

    // Upstream faults: a 500, a dropped connection, no answer, the ad platform's 409, and a sure 422 refusal.
    const fault = async (name: string, script: Parameters<Sandbox['script']>[0] | 'adnet_unreachable') => {
      if (script === 'adnet_unreachable') sandbox.simulation.scenario('adnet_unreachable');
      else sandbox.script(script);
      const answer = await spend(ownerB, 'create_ad_campaign', campaign(name));
      if (script === 'adnet_unreachable') sandbox.simulation.scenario('default');
      return answer;
    };
    for (const [name, script] of [
      ['Hostile 500', { status: 500, method: 'POST', path: /\/campaigns$/, body: { detail: 'boom' } }],
      ['Hostile drop', { status: 200, method: 'POST', path: /\/campaigns$/, drop: true }],
      ['Hostile hang', { status: 200, method: 'POST', path: /\/campaigns$/, hang: true }],
      ['Hostile adnet 409', 'adnet_unreachable'],
    ] as const) {
      expect((await fault(name, script)).text).toMatch(/^OUTCOME UNKNOWN/);
      unknown.push(name);
    }
    sandbox.release();
    expect((await fault('Hostile 422', { status: 422, method: 'POST', path: /\/campaigns$/, body: { detail: `no: Bearer ${OWNER}` } })).isError).toBe(true);

    // SIGTERM to a replica with a spend on its way: it drains, the call ends unknown, the line is written.
    sandbox.script({ status: 200, method: 'POST', path: /\/campaigns$/, hang: true });
    const before = writesReceived();
    const victim = await user(a, OWNER);
    const draining = spend(victim, 'create_ad_campaign', campaign('Hostile SIGTERM http'));
    await untilReceived(before + 1);
    await stop(a, 'SIGTERM', victim);
    expect((await draining).text).toMatch(/^OUTCOME UNKNOWN/);
    await victim.close();
    unknown.push('Hostile SIGTERM http');
    sandbox.release();

    // SIGTERM and SIGKILL to stdio servers with a spend on its way.
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      const name = `Hostile ${signal} stdio`;
      const stdio = await startRaw([], envFor(trail, { APPMGMT_ACCESS_TOKEN: OWNER, APPMGMT_TIMEOUT_MS: '60000' }));
      const call = (confirm: boolean) => stdio.request('tools/call', { name: 'create_ad_campaign', arguments: { ...campaign(name), ...(confirm ? { confirm } : {}) } });
      await call(false);
      sandbox.script({ status: 200, method: 'POST', path: /\/campaigns$/, hang: true });
      const count = writesReceived();
      const answer = call(true);
      await untilReceived(count + 1);
      stdio.child.kill(signal);
      await stdio.exited;
      if (signal === 'SIGTERM') expect(JSON.stringify(await answer)).toMatch(/OUTCOME UNKNOWN/);
      unknown.push(name);
      sandbox.release();
    }

    // Redis stops while a spend is on its way, and stays down for the next warning.
    sandbox.script({ status: 200, method: 'POST', path: /\/campaigns$/, hang: true });
    const count = writesReceived();
    const during = spend(ownerB, 'create_ad_campaign', campaign('Hostile Redis restart'));
    await untilReceived(count + 1);
    await redis.stop();
    sandbox.release(); // answers 504: unknown, while the store cannot record it
    expect((await during).text).toMatch(/^OUTCOME UNKNOWN/);
    unknown.push('Hostile Redis restart');
    const refused = await adminB.callTool('create_ad_campaign', campaign('Hostile Redis down'));
    expect(refused.text).toMatch(/state store is unavailable/);
    await redis.start();
    while ((await fetch(`${b.url}/readyz`)).status !== 200) await sleep(50);
    expect((await spend(adminB, 'create_ad_campaign', campaign('Hostile after restart'))).isError).toBe(false);
    await stop(b);

    // The trail alone against the sandbox's record.
    const spends = rebuildAndCompare(trail);
    const outcomes = [...spends.values()].map((spend) => spend.outcome);
    expect(spends.size).toBe(13);
    expect(outcomes.filter((outcome) => outcome === 'unknown')).toHaveLength(unknown.length);
    for (const name of unknown) expect(outcomeOf(spends, name)).toBe('unknown');
    expect(outcomeOf(spends, 'Hostile 422')).toBe('refused');
    for (const name of ['Hostile plain A', 'Hostile plain B', 'Hostile race', 'Hostile after restart']) expect(outcomeOf(spends, name)).toBe('success');
    // Only the process killed outright left a spend without an answer; the trail still names it.
    expect([...spends.values()].filter((spend) => spend.unanswered)).toHaveLength(1);
    expect(outcomeOf(spends, 'Hostile SIGKILL stdio')).toBe('unknown');
    // The refusals of the run are in the trail with their reasons, and no credential is.
    const text = readFileSync(trail, 'utf8');
    const reasons = parseTrail(text).filter((line) => line.step === 'refused').map((line) => line.reason);
    expect(reasons.filter((reason) => reason === 'in_flight' || reason === 'no_pending_warning' || reason === 'already_done')).toHaveLength(RACERS - 1);
    expect(reasons).toContain('store_unavailable');
    for (const token of [OWNER, ADMIN, STATE_SECRET]) expect(text).not.toContain(token);
  }, 180_000);
});
