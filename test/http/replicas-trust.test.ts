import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import { BIN, runNode } from '../process.js';
import { redisSkipReason, startRedis, type RedisServer } from '../redis.js';
import { campaign, connectHttp, startHttp, type AnyClient, type HttpProcess } from './harness.js';

if (redisSkipReason) console.warn(redisSkipReason);

/**
 * Two http replicas on one Redis, tried as issue 16 tried them: a user is their access token (the
 * credential the gated tools send), whatever else their headers carry; Redis that evicts or forgets
 * is refused at start, reported on /readyz, and makes gated calls refuse rather than repeat.
 */

const STATE_SECRET = `replica-trust-secret-${randomBytes(16).toString('hex')}`;
const OTHER_API_KEY = `made-up-api-key-${randomBytes(6).toString('hex')}`;
const CHAT = { app_id: 'app_demo', content: 'Make the header blue.' };

describe.skipIf(redisSkipReason !== undefined)('replicas on one Redis: who a user is, and a Redis that forgets', () => {
  let sandbox: Sandbox;
  let redis: RedisServer;
  let admin: Redis;
  let a: HttpProcess;
  let b: HttpProcess;
  let env: Record<string, string>;
  /** The demo user's token with the demo API key, and the same token with another API key. */
  let withKey: Record<string, string>;
  let withOtherKey: Record<string, string>;
  const clients: AnyClient[] = [];
  const creates = () => sandbox.requests.filter((request) => request.method === 'POST' && request.rawPath.endsWith('/campaigns'));
  const chats = () => sandbox.requests.filter((request) => request.method === 'POST' && request.rawPath.endsWith('/chat/message'));

  async function open(replica: HttpProcess, headers: Record<string, string>): Promise<AnyClient> {
    const client = await connectHttp(replica.mcp, '2025-11-25', { headers });
    clients.push(client);
    return client;
  }
  async function readyz(replica: HttpProcess): Promise<[number, Record<string, unknown>]> {
    const response = await fetch(`${replica.url}/readyz`);
    return [response.status, (await response.json()) as Record<string, unknown>];
  }

  beforeAll(async () => {
    sandbox = await startSandbox({ control: true });
    const { accessToken, apiKey } = sandbox.simulation.credentials;
    withKey = { authorization: `Bearer ${accessToken}`, 'x-appmgmt-api-key': apiKey };
    withOtherKey = { authorization: `Bearer ${accessToken}`, 'x-appmgmt-api-key': OTHER_API_KEY, 'x-appmgmt-monitoring-api-key': OTHER_API_KEY };
    redis = await startRedis();
    admin = new Redis(redis.url);
    env = { APPMGMT_BASE_URL: sandbox.url, APPMGMT_STATE_URL: redis.url, APPMGMT_STATE_SECRET: STATE_SECRET };
    [a, b] = await Promise.all([startHttp([], env), startHttp([], env)]);
  });
  afterAll(async () => {
    const exits = await Promise.all([a?.stop('SIGTERM'), b?.stop('SIGTERM')]);
    admin?.disconnect();
    await redis?.stop();
    await sandbox?.close();
    expect(exits).toEqual([0, 0]);
  });
  beforeEach(() => sandbox.reset());
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });

  it('is one user for one token whatever X-Appmgmt-Api-Key says: identical confirms over both replicas send one POST', async () => {
    const onA = await open(a, withKey);
    const onB = await open(b, withOtherKey);
    const args = campaign('Same token, other API key');
    // Warned once with each API key: one user, so the second warning replaces the first.
    expect((await onA.callTool('create_ad_campaign', args)).structured).toMatchObject({ confirmation_needed: true });
    expect((await onB.callTool('create_ad_campaign', args)).structured).toMatchObject({ confirmation_needed: true });
    const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? onA : onB).callTool('create_ad_campaign', { ...args, confirm: true })));
    expect(creates()).toHaveLength(1);
    expect(outcomes.filter((outcome) => !outcome.isError)).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.text.startsWith('NOT SENT'))).toHaveLength(9);
  });

  it("reuses a chat message's X-Request-ID after an unknown outcome when the API key changed", async () => {
    const before = await open(a, withKey);
    const after = await open(b, withOtherKey);
    await before.callTool('send_app_chat_message', CHAT);
    sandbox.script({ method: 'POST', status: 502, body: { detail: 'bad gateway' } });
    expect((await before.callTool('send_app_chat_message', { ...CHAT, confirm: true })).text).toMatch(/^OUTCOME UNKNOWN: the service answered 502/);
    const again = await after.callTool('send_app_chat_message', CHAT);
    expect(again.text).toContain('This attempt reuses its request id');
    await after.callTool('send_app_chat_message', { ...CHAT, confirm: true });
    const [lost, repeat] = chats();
    expect(chats()).toHaveLength(2);
    expect(repeat!.headers['x-request-id']).toBe(lost!.headers['x-request-id']);
  });

  for (const policy of ['allkeys-lru', 'volatile-lru']) {
    it(`refuses to start on maxmemory-policy ${policy} without APPMGMT_STATE_ALLOW_EVICTION, naming the setting`, async () => {
      await admin.config('SET', 'maxmemory-policy', policy);
      try {
        const exit = await runNode([BIN, 'http', '--port', '0'], { env: { ...process.env, ...env } });
        expect(exit.code).toBe(2);
        expect(exit.stderr).toContain(`Redis maxmemory-policy is ${policy}, not noeviction`);
        expect(exit.stderr).toContain('APPMGMT_STATE_ALLOW_EVICTION=true');
        expect(exit.stderr).not.toContain(STATE_SECRET);
      } finally {
        await admin.config('SET', 'maxmemory-policy', 'noeviction');
      }
    });
  }

  it('starts with the override, and /readyz reports the eviction policy with 200 (the replica still serves)', async () => {
    await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
    const replica = await startHttp([], { ...env, APPMGMT_STATE_ALLOW_EVICTION: 'true' });
    try {
      expect(replica.stderr()).toContain('Starting anyway: APPMGMT_STATE_ALLOW_EVICTION=true');
      const [status, body] = await readyz(replica);
      expect(status).toBe(200);
      expect(body).toEqual({ status: 'ready', gate: 'degraded', problems: [expect.stringMatching(/^Redis maxmemory-policy is allkeys-lru, not noeviction/)] });
    } finally {
      await admin.config('SET', 'maxmemory-policy', 'noeviction');
      expect(await replica.stop('SIGTERM')).toBe(0);
    }
  });

  it('starts when Redis refuses CONFIG (managed Redis), logging why it could not check, without the password', async () => {
    await admin.acl('SETUSER', 'managed', 'on', '>managed-Pa55word', '~*', '+@all', '-config');
    const replica = await startHttp([], { ...env, APPMGMT_STATE_URL: redis.url.replace('redis://', 'redis://managed:managed-Pa55word@') });
    try {
      expect(replica.stderr()).toMatch(/could not check Redis's maxmemory-policy at start-up \(Redis refused CONFIG GET \(NOPERM/);
      expect(replica.stderr()).not.toContain('Pa55word');
      expect(await readyz(replica)).toEqual([200, { status: 'ready', gate: 'ok' }]);
    } finally {
      expect(await replica.stop('SIGTERM')).toBe(0);
    }
  });

  // Last: the replicas then refuse gated calls for their grace period.
  it('reports lost memory on /readyz and refuses gated calls saying when to retry, while reads still work', async () => {
    expect((await readyz(a))[1]).toMatchObject({ status: 'ready', gate: 'ok' });
    const onA = await open(a, withKey);
    const args = campaign('Before the flush');
    await onA.callTool('create_ad_campaign', args);
    await admin.flushdb();
    for (const replica of [a, b]) {
      const [status, body] = await readyz(replica);
      expect(status).toBe(200);
      expect(body).toMatchObject({ status: 'ready', gate: 'refusing', refusing_until: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
      expect((body.problems as string[])[0]).toMatch(/lost its memory/);
    }
    const refused = await onA.callTool('create_ad_campaign', { ...args, confirm: true });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/lost its memory .* Nothing was sent; retry after \d{4}-\d\d-\d\dT[\d:.]+Z\./);
    const warning = await (await open(b, withKey)).callTool('create_ad_campaign', args);
    expect(warning.text).toMatch(/lost its memory/);
    expect(creates()).toHaveLength(0);
    expect((await onA.callTool('list_ad_campaigns', { app_id: 'app_demo' })).isError).toBe(false);
  });
});
