import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { secretsOf } from '../../src/config.js';
import { createRedisStore } from '../../src/gate/redis-store.js';
import { createMemoryStore, type GateStore } from '../../src/gate/store.js';
import { silentLog } from '../../src/log.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import { createServer } from '../../src/server.js';
import { redactor } from '../../src/text.js';
import { sandboxConfig } from '../helpers.js';
import { type RedisServer, redisSkipReason, startRedis } from '../redis.js';

// Issue 17: a second confirm: true with the same arguments after a campaign was created must say it
// was created (when, its id), that nothing was sent now, and that another call would create a second
// one, whichever store the gate keeps its state in.

const ARGS = {
  app_id: 'app_demo',
  campaign_name: 'Repeat check',
  campaign_type: 'SMART',
  daily_budget_micros: 5_000_000,
  landing_page: 'https://demo-planner.sandbox.test/',
};

interface Outcome {
  text: string;
  isError: boolean;
  structured: Record<string, unknown> | undefined;
}

/** A server on the sandbox with `store`, and a 2025 SDK client (it checks structuredContent against the output schema, errors too). */
async function connectWith(store: GateStore) {
  const sandbox: Sandbox = await startSandbox({ control: true });
  const config = sandboxConfig(sandbox);
  const api = createApiClient({ config, log: silentLog, retryDelayMs: () => 0, redact: redactor(secretsOf(config)) });
  const server = createServer({ config, log: silentLog, api, store });
  const client = new Client({ name: 'repeat-test', version: '1.0.0' });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  await client.listTools(); // the client keeps each tool's output schema and checks every result against it
  return {
    sandbox,
    async call(args: Record<string, unknown>): Promise<Outcome> {
      const result = await client.callTool({ name: 'create_ad_campaign', arguments: args });
      const content = result.content as Array<{ text?: string }>;
      return { text: content.map((part) => part.text ?? '').join('\n'), isError: result.isError === true, structured: result.structuredContent as Record<string, unknown> | undefined };
    },
    posts: () => sandbox.requests.filter((request) => request.method === 'POST').length,
    async close() {
      await client.close();
      await server.close();
      await sandbox.close();
    },
  };
}

function describeRepeat(name: string, makeStore: () => GateStore) {
  describe(`a repeated confirmation of create_ad_campaign (${name} store)`, () => {
    let harness: Awaited<ReturnType<typeof connectWith>> | undefined;
    afterEach(async () => {
      await harness?.close();
      harness = undefined;
    });

    it('names the campaign it created and when, sends nothing, and says another call creates a second one', async () => {
      harness = await connectWith(makeStore());
      await harness.call(ARGS);
      const created = await harness.call({ ...ARGS, confirm: true });
      const id = String(created.structured?.campaign_id);
      expect(id).toMatch(/^cmp_\w+$/);
      expect(harness.posts()).toBe(1);

      const again = await harness.call({ ...ARGS, confirm: true });
      expect(again.isError).toBe(true);
      expect(again.text).toMatch(
        new RegExp(`^NOT SENT: this exact call \\(same arguments\\) was already carried out at \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z: created campaign ${id}, status \\w+\\. Nothing was sent now\\.`),
      );
      expect(again.text).toContain('Calling create_ad_campaign again without confirm starts a NEW, second one');
      expect(again.text).not.toMatch(/no pending warning|get a fresh warning/);
      expect(again.structured).toEqual({ error: expect.stringContaining(`created campaign ${id}`), next: expect.stringContaining('do not call create_ad_campaign again unless they want it done a second time') });
      expect(harness.posts()).toBe(1);

      // The warning for the same arguments says so too, before anything could be confirmed.
      const warning = await harness.call(ARGS);
      expect(warning.text).toContain(`: created campaign ${id}, status`);
      expect(warning.text).toContain('Confirming this warning does it a SECOND time.');
      expect(warning.structured?.earlier_attempt).toContain(`done: created campaign ${id}`);
      expect(harness.posts()).toBe(1);
    });
  });
}

describeRepeat('in-process', () => createMemoryStore({ now: Date.now }));

describe.skipIf(redisSkipReason !== undefined)('with Redis', () => {
  let redis: RedisServer;
  const stores: GateStore[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await redis?.stop();
  });
  describeRepeat('Redis', () => {
    const store = createRedisStore({ url: redis.url });
    stores.push(store);
    return store;
  });
});
