import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { UnreachableError } from '../../src/errors.js';
import type { AskApproval, FormAnswer } from '../../src/gate/approval.js';
import { createGate, type Caller } from '../../src/gate/gate.js';
import { callKey, lastWarningSlot, scopeDigest } from '../../src/gate/key.js';
import { createRedisStore, KEY_PREFIX, StateStoreAmnesiaError, type RedisGateStore } from '../../src/gate/redis-store.js';
import { silentLog } from '../../src/log.js';
import { defineTool, type GatedTool, type ToolResult } from '../../src/tools/define.js';
import { redisSkipReason, startRedis, type RedisServer } from '../redis.js';
import { gateToolContext } from './context.js';

if (redisSkipReason) console.warn(redisSkipReason);

/**
 * The gate over a real Redis that loses its memory: flushed, restarted without persistence, or
 * with single keys gone (as eviction drops them). Losing keys may only ever refuse: no approval is
 * accepted twice, no two identical calls run at once, no unknown outcome is silently forgotten.
 * Time is the test's: the grace period passes by moving the injected clock.
 */

const GRACE_MS = 20 * 60_000;
const APPROVE: FormAnswer = { action: 'accept', content: { approve: true } };
const ALICE = 'alice-scope';

describe.skipIf(redisSkipReason !== undefined)('the gate when Redis loses its memory', () => {
  let server: RedisServer;
  let admin: Redis;
  const stores: RedisGateStore[] = [];

  beforeAll(async () => {
    server = await startRedis();
    admin = new Redis(server.url, { retryStrategy: () => 50 });
    admin.on('error', () => undefined); // one test restarts the server under it
  });
  afterAll(async () => {
    admin?.disconnect();
    await server?.stop();
  });
  beforeEach(async () => {
    await admin.flushall();
    await admin.config('SET', 'maxmemory-policy', 'noeviction');
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });

  function setup({ rounds = false, approvalTimeoutMs = 60_000 } = {}) {
    const now = { t: 1_800_000_000_000 };
    const sent: unknown[] = [];
    let behaviour: () => Promise<void> = async () => undefined;
    const tool = defineTool({
      name: 'spend_money',
      title: 'Spend Money',
      description: 'A test tool that spends money.',
      input: { amount: z.number().describe('How much.') },
      output: { done: z.boolean() },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
      cost: 'money',
      gate: { warn: (args) => ({ action: `Spend ${args.amount}`, cost: `${args.amount} units`, details: [] }), unknownOutcome: 'It may have been spent.' },
      async run(args) {
        sent.push(args);
        await behaviour();
        return { text: 'Spent.', next: 'Nothing more is needed.', structured: { done: true } };
      },
    }) as unknown as GatedTool;
    const store = createRedisStore({ url: server.url, now: () => now.t, graceMs: GRACE_MS });
    stores.push(store);
    const gate = createGate({ store, now: () => now.t, config: { requireHumanConfirmation: rounds, approvalTimeoutMs }, log: silentLog });
    const ctx = gateToolContext(() => now.t);
    const caller = (retry?: { state: unknown; answer: FormAnswer }): Caller => ({ scope: ALICE, approval: rounds ? { kind: 'rounds', ...(retry ? { retry } : {}) } : { kind: 'none' } });
    return {
      store,
      now,
      sent,
      setBehaviour: (next: () => Promise<void>) => void (behaviour = next),
      warn: (amount: number) => gate.call(tool, { amount }, undefined, ctx, caller()),
      confirm: (amount: number, retry?: { state: unknown; answer: FormAnswer }) => gate.call(tool, { amount }, true, ctx, caller(retry)),
    };
  }

  /** Ways Redis forgets everything; each resolves once `store` can reach Redis again. */
  const ways: Array<[string, (store: RedisGateStore) => Promise<void>]> = [
    ['FLUSHDB', async () => void (await admin.flushdb())],
    [
      'a restart without persistence',
      async (store) => {
        await server.stop();
        await server.start();
        await expect.poll(() => store.ping().then(() => true, () => false), { timeout: 5_000 }).toBe(true);
      },
    ],
  ];

  for (const [way, forget] of ways) {
    it(`refuses a used approval state after ${way}, during the grace and after it`, async () => {
      // An approval that outlives the grace, so that the replay reaches the store (a real one has expired by then).
      const t = setup({ rounds: true, approvalTimeoutMs: 2 * GRACE_MS });
      await t.warn(5);
      const { state } = ((await t.confirm(5)) as AskApproval).ask;
      expect(((await t.confirm(5, { state, answer: APPROVE })) as ToolResult).isError).toBeFalsy();
      expect(t.sent).toHaveLength(1);
      await forget(t.store);
      // The claim of the used state is gone with everything else; the store notices, and refuses.
      await expect(t.warn(5)).rejects.toThrow(StateStoreAmnesiaError);
      await expect(t.confirm(5, { state, answer: APPROVE })).rejects.toThrow(/lost its memory.*Nothing was sent; retry after/);
      // After the grace a fresh warning is possible, but the old state is bound to the warning it used up.
      t.now.t += GRACE_MS;
      await t.warn(5);
      const replay = (await t.confirm(5, { state, answer: APPROVE })) as ToolResult;
      expect(replay.isError).toBe(true);
      expect(replay.text).toMatch(/^NOT SENT: this approval was given for an earlier warning or form/);
      expect(t.sent).toHaveLength(1);
    });

    it(`never runs two identical calls at once when the in-flight marker is lost by ${way}`, async () => {
      const t = setup();
      let finish!: () => void;
      t.setBehaviour(() => new Promise<void>((resolve) => (finish = resolve)));
      await t.warn(5);
      const first = t.confirm(5);
      await expect.poll(() => t.sent.length).toBe(1);
      await forget(t.store);
      await expect(t.warn(5)).rejects.toThrow(StateStoreAmnesiaError);
      await expect(t.confirm(5)).rejects.toThrow(StateStoreAmnesiaError);
      finish();
      expect(((await first) as ToolResult).isError).toBeFalsy();
      expect(t.sent).toHaveLength(1);
    });
  }

  it('does not silently forget an unknown outcome: the next warning is refused during the grace, naming when to retry', async () => {
    const t = setup();
    t.setBehaviour(() => Promise.reject(new UnreachableError('timeout', 30_000)));
    await t.warn(5);
    expect(((await t.confirm(5)) as ToolResult).text).toMatch(/^OUTCOME UNKNOWN/);
    await admin.flushdb();
    const until = new Date(t.now.t + GRACE_MS).toISOString();
    await expect(t.warn(5)).rejects.toThrow(`refused until ${until}; read tools still work. Nothing was sent; retry after ${until}.`);
    t.now.t += GRACE_MS - 1;
    await expect(t.warn(5)).rejects.toThrow(StateStoreAmnesiaError);
    expect(t.sent).toHaveLength(1);
  });

  it('can only refuse when single keys vanish (a pending warning, an approval round), as eviction drops them', async () => {
    const t = setup({ rounds: true });
    const key = callKey(ALICE, 'spend_money', { amount: 5 });
    await t.warn(5);
    await admin.del(`${KEY_PREFIX}pending:${key}`);
    expect(((await t.confirm(5)) as ToolResult).text).toMatch(/^NOT SENT: confirm: true needs a pending warning/);
    await t.warn(5);
    const { state } = ((await t.confirm(5)) as AskApproval).ask;
    await admin.del(`${KEY_PREFIX}round:${key}`);
    expect(((await t.confirm(5, { state, answer: APPROVE })) as ToolResult).text).toMatch(/^NOT SENT: this approval was given for an earlier warning/);
    expect(t.sent).toHaveLength(0);
  });

  it('says why it could not read the eviction policy when Redis refuses CONFIG (managed Redis), and still works', async () => {
    await admin.acl('SETUSER', 'managed', 'on', '>managed-Pa55word', '~*', '+@all', '-config');
    const store = createRedisStore({ url: server.url.replace('redis://', 'redis://managed:managed-Pa55word@'), graceMs: GRACE_MS });
    stores.push(store);
    const found = await store.evictionPolicy();
    expect(found).toEqual({ unknown: expect.stringMatching(/^Redis refused CONFIG GET \(NOPERM/) });
    expect(JSON.stringify(found)).not.toContain('Pa55word');
    expect(await store.health()).toEqual({ problems: [] });
    expect(await store.warn(callKey(ALICE, 'spend_money', { amount: 1 }), lastWarningSlot(ALICE, 'spend_money'), { at: 0 }, scopeDigest(ALICE))).toEqual({ ok: true });
  });

  it('reports an eviction policy other than noeviction, and the grace after amnesia, in its health', async () => {
    const t = setup();
    expect(await t.store.health()).toEqual({ problems: [] });
    await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
    expect(await t.store.evictionPolicy()).toEqual({ policy: 'allkeys-lru' });
    expect((await t.store.health()).problems).toEqual([expect.stringMatching(/^Redis maxmemory-policy is allkeys-lru, not noeviction/)]);
    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    await admin.flushdb();
    // Health notices amnesia by itself, without waiting for a gated call.
    const health = await t.store.health();
    expect(health.refusingUntil).toBe(t.now.t + GRACE_MS);
    expect(health.problems).toEqual([expect.stringMatching(/lost its memory/)]);
    t.now.t += GRACE_MS;
    expect(await t.store.health()).toEqual({ problems: [] });
  });
});
