import { createHash, randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GATED_CREDENTIAL } from '../../src/gate/gate.js';
import { gateScope } from '../../src/gate/key.js';
import { createRedisStore } from '../../src/gate/redis-store.js';
import type { GateStore } from '../../src/gate/store.js';
import { silentLog } from '../../src/log.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import { createServerFactory } from '../../src/server.js';
import { TOOLS } from '../../src/tools/index.js';
import { connect, sandboxConfig, type CallOutcome } from '../helpers.js';
import { redisSkipReason, startRedis, type RedisServer } from '../redis.js';

if (redisSkipReason) console.warn(redisSkipReason);

/**
 * Who the gate thinks is calling: the keyed hash of the one credential the gated tools send, on
 * every transport. Two stdio servers with different tokens sharing one Redis are two users.
 */

const STATE_SECRET = `scope-test-secret-${randomBytes(16).toString('hex')}`;
const GATED = TOOLS.filter((tool) => tool.cost !== 'none').map((tool) => tool.name);

/** Arguments the default sandbox world accepts, for every gated tool (as in test/safety/single-use.test.ts, whose import would run its tests here too). */
const GATED_SAMPLES: Record<string, Record<string, unknown>> = {
  create_ad_campaign: {
    app_id: 'app_demo',
    campaign_name: 'Scope',
    campaign_type: 'SMART',
    daily_budget_micros: 5_000_000,
    landing_page: 'https://demo-planner.sandbox.test/',
  },
  resume_ad_campaign: { app_id: 'app_demo', campaign_id: 'cmp_demo' },
  delete_ad_campaign: { app_id: 'app_demo', campaign_id: 'cmp_quiet' },
  apply_budget_recommendation: {
    app_id: 'app_demo',
    campaign_id: 'cmp_demo',
    recommendation_resource_name: 'customers/7100000001/recommendations/adnet_rec_budget_7100000001',
    recommended_daily_budget_micros: 35_000_000,
  },
  delete_email_template: { app_id: 'app_demo', template_id: 'tpl_seed_digest' },
  resolve_repo_conflicts: { app_id: 'app_demo' },
  send_app_chat_message: { app_id: 'app_demo', content: 'Make the header blue.' },
};

describe('the gate scope', () => {
  it('is a keyed hash of the credential, never a plain SHA-256 of it, and the key matters', () => {
    const token = 'tok_alice_0123456789';
    const scope = gateScope(STATE_SECRET, token);
    expect(scope).toMatch(/^[0-9a-f]{64}$/);
    expect(scope).not.toBe(createHash('sha256').update(token).digest('hex'));
    expect(scope).toBe(gateScope(STATE_SECRET, token)); // the same on every replica with the secret
    expect(scope).not.toBe(gateScope(`${STATE_SECRET}-other`, token));
    expect(scope).not.toBe(gateScope(STATE_SECRET, 'tok_bob_0123456789'));
  });

  it('has sample arguments for every gated tool', () => {
    expect(Object.keys(GATED_SAMPLES).sort()).toEqual([...GATED].sort());
  });

  for (const name of GATED) {
    it(`${name}: writes carry exactly the gated credential (${GATED_CREDENTIAL}) and no other`, async () => {
      const h = await connect();
      try {
        const args = GATED_SAMPLES[name]!;
        expect((await h.call(name, args)).text).toMatch(/CONFIRMATION NEEDED/);
        await h.call(name, { ...args, confirm: true });
        const writes = h.sandbox.requests.filter((request) => request.method !== 'GET');
        expect(writes).toHaveLength(1);
        expect(writes[0]!.headers.authorization).toBe(`Bearer ${h.config.accessToken}`);
        for (const other of [h.config.apiKey, h.config.monitoringApiKey]) expect(JSON.stringify(writes[0]!.headers)).not.toContain(other);
      } finally {
        await h.close();
      }
    });
  }
});

describe.skipIf(redisSkipReason !== undefined)('two stdio servers sharing one Redis', () => {
  let sandbox: Sandbox;
  let redis: RedisServer;
  const stores: GateStore[] = [];
  const clients: Client[] = [];
  const creates = () => sandbox.requests.filter((request) => request.method === 'POST' && request.rawPath.endsWith('/campaigns'));

  beforeAll(async () => {
    sandbox = await startSandbox({ control: true });
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
    await sandbox?.close();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await Promise.all(stores.splice(0).map((store) => store.close()));
    sandbox.reset();
  });

  /** A stdio-style server of its own (its own store connection), configured with `accessToken`, and a client on it. */
  async function serverFor(accessToken: string): Promise<(name: string, args: Record<string, unknown>) => Promise<CallOutcome>> {
    const store = createRedisStore({ url: redis.url });
    stores.push(store);
    const factory = createServerFactory({ config: sandboxConfig(sandbox, { accessToken }), log: silentLog, store, stateSecret: STATE_SECRET });
    const client = new Client({ name: 'scope-test', version: '1.0.0' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await Promise.all([factory().connect(serverSide), client.connect(clientSide)]);
    clients.push(client);
    return async (name, args) => {
      const result = await client.callTool({ name, arguments: args });
      const text = (result.content as Array<{ text?: string }>).map((part) => part.text ?? '').join('\n');
      return { text, isError: result.isError === true };
    };
  }

  it("refuses Bob's confirm of Alice's warning, sending nothing, and Alice's own confirm still works", async () => {
    const alice = await serverFor(sandbox.simulation.credentials.accessToken);
    const bob = await serverFor(`made-up-bob-${randomBytes(6).toString('hex')}`);
    const args = GATED_SAMPLES.create_ad_campaign!;
    expect((await alice('create_ad_campaign', args)).text).toMatch(/^CONFIRMATION NEEDED/);
    const bobs = await bob('create_ad_campaign', { ...args, confirm: true });
    expect(bobs.text).toMatch(/^NOT SENT: confirm: true needs a pending warning/);
    expect(creates()).toHaveLength(0);
    const alices = await alice('create_ad_campaign', { ...args, confirm: true });
    expect(alices.isError).toBe(false);
    expect(creates()).toHaveLength(1);
  });

  it('keeps no token, nor a plain SHA-256 of one, in Redis', async () => {
    const token = sandbox.simulation.credentials.accessToken;
    const alice = await serverFor(token);
    await alice('create_ad_campaign', GATED_SAMPLES.create_ad_campaign!);
    const admin = new Redis(redis.url);
    try {
      const keys = await admin.keys('*');
      const values = await Promise.all(keys.map(async (key) => ((await admin.type(key)) === 'zset' ? (await admin.zrange(key, '0', '-1')).join(',') : await admin.get(key))));
      const dump = JSON.stringify([keys, values]);
      expect(keys.length).toBeGreaterThan(0);
      for (const forbidden of [token, createHash('sha256').update(token).digest('hex'), gateScope(STATE_SECRET, token)]) expect(dump).not.toContain(forbidden);
    } finally {
      admin.disconnect();
    }
  });
});
