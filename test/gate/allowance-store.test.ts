import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { UnreachableError } from '../../src/errors.js';
import { createAllowance, dayEnd } from '../../src/gate/allowance.js';
import { createRedisAllowanceStore } from '../../src/gate/allowance-redis.js';
import { createMemoryAllowanceStore, MAX_CALLS_PER_DAY, type AllowanceStore, type CountedCall, type Ledger } from '../../src/gate/allowance-store.js';
import { createGate } from '../../src/gate/gate.js';
import { scopeDigest } from '../../src/gate/key.js';
import { createRedisStore, KEY_PREFIX, StateStoreAmnesiaError, type RedisGateStore } from '../../src/gate/redis-store.js';
import { silentLog } from '../../src/log.js';
import { defineTool, type GatedTool, type ToolResult } from '../../src/tools/define.js';
import { redisSkipReason, startRedis, type RedisServer } from '../redis.js';
import { gateToolContext } from './context.js';

if (redisSkipReason) console.warn(redisSkipReason);

/**
 * The allowance's two stores hold the same promises (in the process, and in Redis across replicas):
 * a reservation never takes a ledger over its limit, however many race; a release gives back only
 * what is still counted. Over Redis, a store that lost its memory refuses spending for the gate's
 * grace period while reads go on.
 */

const ALICE = scopeDigest('alice');
const BOB = scopeDigest('bob');
/** Two grants of ALICE's (gate/key.ts scopeDigest of `grant:<id>`). */
const GRANT_A = scopeDigest(`grant:${'a'.repeat(32)}`);
const GRANT_B = scopeDigest(`grant:${'b'.repeat(32)}`);
const DAY = '2026-11-25';
/** Until a day after the day ends, seen from noon. */
const KEEP = 36 * 3_600_000;
const ledger = (user = ALICE, unit: Ledger['unit'] = 'micros'): Ledger => ({ user, unit, day: DAY });
let minute = 0;
/** A call of `amount`, each a minute after the one before. */
const counted = (amount: number, extra: Partial<CountedCall> = {}): CountedCall => ({
  id: randomUUID(),
  tool: 'create_ad_campaign',
  app: 'app_demo',
  amount,
  at: Date.parse('2026-11-25T10:00:00Z') + 60_000 * minute++,
  state: 'sending',
  ...extra,
});

function describeAllowanceStore(name: string, open: () => Promise<AllowanceStore[]>) {
  describe(`${name} allowance store`, () => {
    it('counts calls up to the limit exactly, and refuses the one that would go over', async () => {
      const [store] = await open();
      const reserve = (amount: number, user = ALICE) => store!.reserve({ ledger: ledger(user), call: counted(amount), limit: 15_000_000, totalLimit: 25_000_000, keepForMs: KEEP });
      expect(await reserve(10_000_000)).toEqual({ ok: true, used: 10_000_000, total: 10_000_000 });
      expect(await reserve(6_000_000)).toEqual({ ok: false, over: 'user' });
      expect(await reserve(5_000_000)).toEqual({ ok: true, used: 15_000_000, total: 15_000_000 });
      expect(await reserve(11_000_000, BOB)).toEqual({ ok: false, over: 'total' });
      expect(await reserve(10_000_000, BOB)).toEqual({ ok: true, used: 10_000_000, total: 25_000_000 });
      const usage = await store!.usage(ledger());
      expect(usage.used).toBe(15_000_000);
      expect(usage.total).toBe(25_000_000);
      expect(usage.calls.map((call) => call.amount)).toEqual([10_000_000, 5_000_000]);
    });

    it('lets exactly what fits through when 50 reservations race, over several connections', async () => {
      const stores = await open();
      const outcomes = await Promise.all(
        Array.from({ length: 50 }, (_, i) => stores[i % stores.length]!.reserve({ ledger: ledger(), call: counted(5_000_000), limit: 15_000_000, keepForMs: KEEP })),
      );
      expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(3);
      expect(outcomes.filter((outcome) => !outcome.ok)).toEqual(Array.from({ length: 47 }, () => ({ ok: false, over: 'user' })));
      expect((await stores[0]!.usage(ledger())).used).toBe(15_000_000);
    });

    it('gives back a released call once, and records what became of the others', async () => {
      const [store] = await open();
      const [kept, lost, created] = [counted(1_000_000, { campaign: 'cmp_1' }), counted(2_000_000), counted(4_000_000)];
      for (const call of [kept, lost, created]) await store!.reserve({ ledger: ledger(), call, limit: 10_000_000, keepForMs: KEEP });
      expect(await store!.release({ ledger: ledger() }, lost.id)).toEqual({ used: 5_000_000 });
      expect(await store!.release({ ledger: ledger() }, lost.id)).toBeUndefined();
      expect(await store!.release({ ledger: ledger() }, randomUUID())).toBeUndefined();
      await store!.settle({ ledger: ledger() }, kept.id, 'unknown');
      await store!.settle({ ledger: ledger() }, created.id, 'done', 'cmp_0007');
      await store!.settle({ ledger: ledger() }, lost.id, 'done', 'cmp_0008'); // released: nothing to settle
      const usage = await store!.usage(ledger());
      expect(usage).toEqual({
        used: 5_000_000,
        total: 5_000_000,
        calls: [
          { ...kept, state: 'unknown' },
          { ...created, state: 'done', campaign: 'cmp_0007' },
        ],
      });
      expect(await store!.usage(ledger(ALICE, 'turns'))).toEqual({ used: 0, total: 0, calls: [] });
    });

    it("counts a grant's call in the person's ledger and the grant's at once, each against its own limit, the total once", async () => {
      const [store] = await open();
      const grantA = ledger(GRANT_A);
      const grantB = ledger(GRANT_B);
      // The person's limit is 20.00; grant A chose 12.00 for itself, grant B 100.00.
      const reserve = (amount: number, grant: Ledger, grantLimit: number) => store!.reserve({ ledger: ledger(), grant, call: counted(amount), limit: 20_000_000, grantLimit, totalLimit: 50_000_000, keepForMs: KEEP });
      expect(await reserve(10_000_000, grantA, 12_000_000)).toEqual({ ok: true, used: 10_000_000, total: 10_000_000, grantUsed: 10_000_000 });
      expect(await reserve(5_000_000, grantA, 12_000_000)).toEqual({ ok: false, over: 'grant' });
      expect(await reserve(8_000_000, grantB, 100_000_000)).toEqual({ ok: true, used: 18_000_000, total: 18_000_000, grantUsed: 8_000_000 });
      // Grant B's own limit has room; the person's does not: the operator's limit is named first.
      expect(await reserve(5_000_000, grantB, 100_000_000)).toEqual({ ok: false, over: 'user' });
      expect(await reserve(5_000_000, grantA, 12_000_000)).toEqual({ ok: false, over: 'user' });
      const [person, a, b] = [await store!.usage(ledger()), await store!.usage(grantA), await store!.usage(grantB)];
      expect([person.used, person.total, person.calls.length]).toEqual([18_000_000, 18_000_000, 2]);
      expect([a.used, a.calls.map((call) => call.amount)]).toEqual([10_000_000, [10_000_000]]);
      expect([b.used, b.calls.map((call) => call.amount)]).toEqual([8_000_000, [8_000_000]]);

      // A release gives back in both ledgers and the total; a settlement marks the call in both.
      const released = b.calls[0]!;
      expect(await store!.release({ ledger: ledger(), grant: grantB }, released.id)).toEqual({ used: 10_000_000, grantUsed: 0 });
      expect(await store!.release({ ledger: ledger(), grant: grantB }, released.id)).toBeUndefined();
      await store!.settle({ ledger: ledger(), grant: grantA }, a.calls[0]!.id, 'done', 'cmp_0009');
      expect((await store!.usage(grantA)).calls[0]).toMatchObject({ state: 'done', campaign: 'cmp_0009' });
      expect((await store!.usage(ledger())).calls).toEqual([{ ...a.calls[0], state: 'done', campaign: 'cmp_0009' }]);
      expect((await store!.usage(grantB)).used).toBe(0);
      expect((await store!.usage(ledger())).total).toBe(10_000_000);
    });

    it("lets exactly what fits a grant's own limit through when 30 reservations race", async () => {
      const stores = await open();
      const outcomes = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          stores[i % stores.length]!.reserve({ ledger: ledger(), grant: ledger(GRANT_A), call: counted(5_000_000), limit: 100_000_000, grantLimit: 10_000_000, keepForMs: KEEP }),
        ),
      );
      expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(2);
      expect(outcomes.filter((outcome) => !outcome.ok)).toEqual(Array.from({ length: 28 }, () => ({ ok: false, over: 'grant' })));
      expect([(await stores[0]!.usage(ledger())).used, (await stores[0]!.usage(ledger(GRANT_A))).used]).toEqual([10_000_000, 10_000_000]);
    });

    it(`holds at most ${MAX_CALLS_PER_DAY} calls in one ledger`, async () => {
      const [store] = await open();
      const all = await Promise.all(Array.from({ length: MAX_CALLS_PER_DAY }, () => store!.reserve({ ledger: ledger(ALICE, 'turns'), call: counted(1), keepForMs: KEEP })));
      expect(all.every((outcome) => outcome.ok)).toBe(true);
      expect(await store!.reserve({ ledger: ledger(ALICE, 'turns'), call: counted(1), keepForMs: KEEP })).toEqual({ ok: false, over: 'calls' });
    });
  });
}

describeAllowanceStore('the in-process', async () => [createMemoryAllowanceStore({ now: () => Date.parse('2026-11-25T12:00:00Z') })]);

describe.skipIf(redisSkipReason !== undefined)('over Redis', () => {
  let server: RedisServer;
  let admin: Redis;
  const stores: RedisGateStore[] = [];
  const GRACE_MS = 20 * 60_000;
  const now = { t: Date.parse('2026-11-25T12:00:00Z') };

  beforeAll(async () => {
    server = await startRedis();
    admin = new Redis(server.url);
  });
  afterAll(async () => {
    admin?.disconnect();
    await server?.stop();
  });
  beforeEach(async () => {
    await admin.flushall();
    now.t = Date.parse('2026-11-25T12:00:00Z');
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });

  const gateStore = () => {
    const store = createRedisStore({ url: server.url, now: () => now.t, graceMs: GRACE_MS });
    stores.push(store);
    return store;
  };

  describeAllowanceStore('the Redis', async () => [createRedisAllowanceStore(gateStore()), createRedisAllowanceStore(gateStore())]);

  it("keeps its ledgers under the gate's prefix, for a day after their day ends", async () => {
    const store = createRedisAllowanceStore(gateStore());
    await store.reserve({ ledger: ledger(), call: counted(1_000_000), limit: 5_000_000, keepForMs: KEEP });
    const keys = (await admin.keys(`${KEY_PREFIX}allowance:*`)).sort();
    expect(keys).toEqual([`${KEY_PREFIX}allowance:micros:${ALICE}:${DAY}`, `${KEY_PREFIX}allowance:micros:total:${DAY}`]);
    for (const key of keys) expect(await admin.pttl(key)).toBeGreaterThan(KEEP - 60_000);
  });

  describe('through the gate, when Redis loses its memory', () => {
    function setup() {
      const sent: unknown[] = [];
      let outcome: () => Promise<void> = async () => undefined;
      const tool = defineTool({
        name: 'spend_money',
        title: 'Spend Money',
        description: 'A test tool that commits a daily budget.',
        input: { micros: z.number().describe('How much a day.') },
        output: { done: z.boolean() },
        annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
        cost: 'money',
        gate: { warn: (args) => ({ action: 'Spend', cost: `${args.micros} micros a day.`, details: [] }), commits: (args) => ({ micros: args.micros }), unknownOutcome: 'It may have been spent.' },
        async run(args) {
          sent.push(args);
          await outcome();
          return { text: 'Spent.', next: 'Nothing more is needed.', structured: { done: true } };
        },
      }) as unknown as GatedTool;
      const store = gateStore();
      const allowance = createAllowance({ store: createRedisAllowanceStore(store), now: () => now.t, log: silentLog });
      const gate = createGate({ store, now: () => now.t, config: { requireHumanConfirmation: false, approvalTimeoutMs: 60_000 }, log: silentLog, allowance });
      const ctx = { ...gateToolContext(() => now.t), config: { spendLimitDailyMicros: 20_000_000, timeoutMs: 1_000 } as never };
      const caller = { scope: 'alice', approval: { kind: 'none' as const } };
      const call = (micros: number, confirm?: true) => gate.call(tool, { micros }, confirm, ctx, caller);
      const report = () => allowance.report({ person: 'alice' }, ctx.config);
      /** The next call sent gets no answer in time. */
      const fail = () =>
        void (outcome = () => {
          outcome = async () => undefined;
          return Promise.reject(new UnreachableError('timeout', 1_000));
        });
      return { sent, call, report, fail };
    }

    it('refuses spending until the grace period ends, keeps reads working, then counts the day again from what Redis holds', async () => {
      const t = setup();
      t.fail();
      await t.call(15_000_000);
      expect(((await t.call(15_000_000, true)) as ToolResult).text).toMatch(/^OUTCOME UNKNOWN/);
      expect((await t.report())?.facts?.spend).toEqual({ limit: 20, used: 15, left: 5 });
      await admin.flushdb();
      // A warning, a confirmation: refused, nothing sent; the allowance still reads (what Redis now holds).
      await expect(t.call(5_000_000)).rejects.toThrow(StateStoreAmnesiaError);
      await expect(t.call(5_000_000, true)).rejects.toThrow(StateStoreAmnesiaError);
      expect((await t.report())?.facts?.spend).toEqual({ limit: 20, used: 0, left: 20 });
      now.t += GRACE_MS - 1;
      await expect(t.call(5_000_000)).rejects.toThrow(/lost its memory/);
      expect(t.sent).toHaveLength(1);
      now.t += 1;
      await t.call(5_000_000);
      expect(((await t.call(5_000_000, true)) as ToolResult).isError).toBeFalsy();
      expect(t.sent).toHaveLength(2);
      expect((await t.report())?.facts?.spend).toEqual({ limit: 20, used: 5, left: 15 });
    });

    it('refuses a reservation that meets the loss between the take and the count, sending nothing', async () => {
      const t = setup();
      await t.call(5_000_000);
      // The flush lands after the gate took the warning, just before the allowance counts.
      const flushFirst = admin.flushdb.bind(admin);
      const store = stores[0]!;
      const script = store.script.bind(store);
      store.script = async (...args) => {
        if (args[3]) await flushFirst();
        return script(...args);
      };
      await expect(t.call(5_000_000, true)).rejects.toThrow(StateStoreAmnesiaError);
      expect(t.sent).toHaveLength(0);
    });

    it('gives nothing back for a call Redis forgot, so no sum drops below zero', async () => {
      const store = createRedisAllowanceStore(gateStore());
      const call = counted(5_000_000);
      await store.reserve({ ledger: ledger(), call, limit: 20_000_000, keepForMs: dayEnd(now.t) - now.t });
      await admin.flushdb();
      expect(await store.release({ ledger: ledger() }, call.id)).toBeUndefined();
      expect(await store.usage(ledger())).toEqual({ used: 0, total: 0, calls: [] });
    });
  });
});
