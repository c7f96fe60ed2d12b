import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, StateStoreUnavailableError } from '../../src/errors.js';
import { callKey, lastWarningSlot, scopeDigest } from '../../src/gate/key.js';
import { createRedisStore, EPOCH_KEY, KEY_PREFIX, StateStoreAmnesiaError, type RedisStoreOptions } from '../../src/gate/redis-store.js';
import { CONFIRM_WINDOW_MS, IN_FLIGHT_TTL_MS, type GateStore } from '../../src/gate/store.js';
import type { Log } from '../../src/log.js';
import { freePort, type RedisServer, redisSkipReason, startRedis } from '../redis.js';
import { describeGateStore } from './store-contract.js';

if (redisSkipReason) console.warn(redisSkipReason);

/**
 * Ages every gate record by `ms`, as if that much time had passed, and drops those whose time is up.
 * The times inside a sorted set (a user's warnings, their claims) move back by as much.
 */
const AGE = `
for _, key in ipairs(redis.call('KEYS', ARGV[1])) do
  if redis.call('TYPE', key).ok == 'zset' then
    local members = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
    for i = 1, #members, 2 do redis.call('ZADD', key, tonumber(members[i + 1]) - tonumber(ARGV[2]), members[i]) end
  end
  local left = redis.call('PTTL', key)
  if left >= 0 then
    if left <= tonumber(ARGV[2]) then redis.call('DEL', key) else redis.call('PEXPIRE', key, left - tonumber(ARGV[2])) end
  end
end
`;

/**
 * A method's failure must come before a control timer of this many command timeouts, started with
 * the calls, fires: however late a busy machine runs timers, it runs a due one before a later one.
 */
const CONTROL_TIMEOUTS = 1.5;

const TOOL = 'spend_money';
const call = (amount: number) => callKey('', TOOL, { amount });
const SLOT = lastWarningSlot('', TOOL);
const USER = scopeDigest('');
const KEY_SHAPE = new RegExp(`^${KEY_PREFIX}((pending|latest|running|unknown|done|claims|round|warnings):[0-9a-f]{64}|epoch)$`);

/** A log that keeps its lines. */
function recordingLog(): Log & { lines: string[] } {
  const lines: string[] = [];
  const keep = (level: string) => (message: string) => void lines.push(`${level}: ${message}`);
  return { lines, debug: keep('debug'), info: keep('info'), warn: keep('warn'), error: keep('error') };
}

/** Resolves once `attempt` resolves, trying every 25 ms for at most `timeoutMs`. */
async function eventually<T>(attempt: () => Promise<T>, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

/**
 * Every method of `store`, each called once, with its outcome and whether it settled before a
 * control timer of `controlMs`, started with the calls, fired.
 */
async function callEveryMethod(store: GateStore, controlMs: number) {
  const methods: Record<string, () => Promise<unknown>> = {
    inFlight: () => store.inFlight(call(1)),
    unknownOutcome: () => store.unknownOutcome(call(1)),
    warn: () => store.warn(call(1), SLOT, { at: 0 }, USER),
    take: () => store.take(call(1), SLOT),
    bind: () => store.bind(call(1), SLOT, 'round'),
    touch: () => store.touch(call(1)),
    settle: () => store.settle(call(1), { kind: 'clean' }),
    claimOnce: () => store.claimOnce('nonce', 1_000, USER),
    ping: () => store.ping(),
  };
  let fired = false;
  const control = setTimeout(() => (fired = true), controlMs);
  const settled = await Promise.all(
    Object.entries(methods).map(async ([method, run]) => {
      const outcome = await run().then(
        () => undefined,
        (error: unknown) => error,
      );
      return { method, outcome, beforeControl: !fired };
    }),
  );
  clearTimeout(control);
  return settled;
}

describe.skipIf(redisSkipReason !== undefined)('the Redis gate store', () => {
  let server: RedisServer;
  let admin: Redis;
  const stores: GateStore[] = [];
  const open = (options: Partial<RedisStoreOptions> = {}) => {
    const store = createRedisStore({ url: server.url, ...options });
    stores.push(store);
    return store;
  };
  /** Every gate key with its PTTL and value. */
  async function records() {
    const keys = await admin.keys('*');
    return Promise.all(
      keys.map(async (key) => {
        // A user's warnings are a sorted set of call hashes; every other record is a string.
        const value = (await admin.type(key)) === 'zset' ? (await admin.zrange(key, '0', '-1')).join(',') : ((await admin.get(key)) ?? '');
        return { key, pttl: await admin.pttl(key), value };
      }),
    );
  }

  beforeAll(async () => {
    server = await startRedis();
    admin = new Redis(server.url, { retryStrategy: () => 50 });
    admin.on('error', () => undefined); // the outage tests stop the server under it
  });
  afterAll(async () => {
    admin?.disconnect();
    await server?.stop();
  });
  beforeEach(async () => {
    await eventually(() => admin.flushall());
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });

  describeGateStore('Redis', async () => {
    let now = 1_000_000;
    const maxRecords = 1_000;
    return {
      store: open({ now: () => now, maxKeys: maxRecords }),
      maxRecords,
      now: () => now,
      elapse: async (ms) => {
        now += ms;
        await admin.eval(AGE, 0, `${KEY_PREFIX}*`, ms);
      },
    };
  });

  it('lets exactly one of 20 concurrent takes over 4 connections use a warning, round after round', async () => {
    const replicas = Array.from({ length: 4 }, () => open());
    await Promise.all(replicas.map((store) => store.ping())); // four connections, all open
    expect(String(await admin.client('LIST')).match(/name=app-management-mcp/g)).toHaveLength(4);
    for (let round = 1; round <= 5; round++) {
      await replicas[round % 4]!.warn(call(round), SLOT, { at: round }, USER);
      const taken = await Promise.all(Array.from({ length: 20 }, (_, i) => replicas[i % 4]!.take(call(round), SLOT)));
      expect(taken.filter((outcome) => outcome.ok)).toEqual([{ ok: true, pending: { at: round } }]);
      expect(taken.filter((outcome) => !outcome.ok && outcome.why === 'in_flight')).toHaveLength(19);
    }
  });

  it('keeps every record under a TTL no longer than the confirmation window, in-flight markers under a shorter one', async () => {
    const store = open();
    await store.warn(call(1), SLOT, { at: 0 }, USER); // pending + latest
    await store.warn(call(2), SLOT, { at: 0 }, USER);
    await store.take(call(2), SLOT); // running
    await store.touch(call(2));
    await store.warn(call(3), SLOT, { at: 0 }, USER);
    await store.take(call(3), SLOT);
    await store.settle(call(3), { kind: 'unknown', record: { at: 0, what: 'x' } }); // unknown
    await store.warn(call(4), SLOT, { at: 0 }, USER);
    await store.take(call(4), SLOT);
    await store.settle(call(4), { kind: 'clean', completed: { at: 0, summary: 'created campaign cmp_1' } }); // done
    await store.claimOnce('nonce', 2 * CONFIRM_WINDOW_MS, USER); // claims, asked for longer than allowed
    const found = await records();
    expect(new Set(found.map(({ key }) => key.split(':')[2]))).toEqual(new Set(['pending', 'latest', 'running', 'unknown', 'done', 'claims', 'warnings', 'epoch']));
    for (const { key, pttl } of found) {
      if (key === EPOCH_KEY) {
        expect(pttl, 'the epoch is kept for good: its loss is how amnesia shows').toBe(-1);
        continue;
      }
      const ttl = key.includes(':running:') ? IN_FLIGHT_TTL_MS : CONFIRM_WINDOW_MS;
      expect(key).toMatch(KEY_SHAPE);
      expect(pttl, key).toBeGreaterThan(ttl - 5_000);
      expect(pttl, key).toBeLessThanOrEqual(ttl);
    }
  });

  it('lets records expire in real time', async () => {
    const store = open({ ttlMs: 100 });
    await store.warn(call(1), SLOT, { at: 0 }, USER);
    for (const { pttl } of await records()) expect(pttl).toBeLessThanOrEqual(100);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await store.take(call(1), SLOT)).toEqual({ ok: false, why: 'no_warning', otherArguments: false });
    expect(await admin.keys('*')).toEqual([EPOCH_KEY]);
  });

  it("writes only hashes: nothing in Redis contains the caller's credential or arguments", async () => {
    const scope = 'ghp_Cr3dent1alOfUserA_9f8e7d6c5b4a';
    const args = { amount: 5, note: 'card 4111 1111 1111 1111' };
    const key = callKey(scope, TOOL, args);
    const slot = lastWarningSlot(scope, TOOL);
    const store = open();
    await store.warn(key, slot, { at: 0, requestId: '6f1c1f9e-3c3a-4d4e-9a57-0a8f0d2b7c11' }, USER);
    await store.take(callKey(scope, TOOL, { amount: 6 }), slot);
    await store.take(key, slot);
    await store.settle(key, { kind: 'unknown', record: { at: 0, what: 'the service answered 500' } });
    await store.warn(key, slot, { at: 0 }, USER);
    await store.take(key, slot);
    await store.settle(key, { kind: 'clean', completed: { at: 0, summary: 'created campaign cmp_1' } });
    await store.claimOnce(`${scope}:approval-nonce`, CONFIRM_WINDOW_MS, USER);
    const dump = JSON.stringify(await records());
    for (const secret of ['Cr3dent1al', 'ghp_', '4111', 'card', 'approval-nonce', 'amount']) expect(dump).not.toContain(secret);
    for (const { key: name, value } of await records()) {
      expect(name).toMatch(KEY_SHAPE);
      expect(value).toMatch(/^(\{.*\}|[0-9a-f]{64}|1)$/);
    }
    // A key that is not a hash never reaches Redis.
    await expect(store.warn('spend_money {"amount":5}', slot, { at: 0 }, USER)).rejects.toThrow(/SHA-256 hex digests/);
    await expect(store.take(key, scope)).rejects.toThrow(TypeError);
  });

  it('runs its scripts again after Redis forgot them (NOSCRIPT)', async () => {
    const store = open();
    await store.warn(call(1), SLOT, { at: 0 }, USER);
    await admin.script('FLUSH');
    expect(await store.take(call(1), SLOT)).toMatchObject({ ok: true });
  });

  it('fails closed within the command timeout while Redis is stopped, and refuses for the grace once it is back empty', async () => {
    const log = recordingLog();
    let now = 1_000_000;
    const store = open({ commandTimeoutMs: 300, log, now: () => now, graceMs: 60_000 });
    await store.warn(call(9), SLOT, { at: 0 }, USER);
    await server.stop();
    try {
      for (const { method, outcome, beforeControl } of await callEveryMethod(store, CONTROL_TIMEOUTS * 300)) {
        expect(outcome, method).toBeInstanceOf(StateStoreUnavailableError);
        expect((outcome as Error).message, method).toMatch(/^The confirmation gate's state store is unavailable \(/);
        expect(beforeControl, method).toBe(true);
      }
    } finally {
      await server.start();
    }
    await eventually(() => store.ping());
    // The restarted Redis kept nothing (no persistence): the store notices, and refuses every decision for the grace.
    await expect(store.take(call(9), SLOT)).rejects.toThrow(StateStoreAmnesiaError);
    await expect(store.warn(call(9), SLOT, { at: 0 }, USER)).rejects.toThrow(/lost its memory .*refused until 1970-01-01T00:17:40\.000Z.*Nothing was sent; retry after/);
    now += 60_000;
    // After the grace: the old warning is gone, so nothing can act on it; a new one works.
    expect(await store.take(call(9), SLOT)).toMatchObject({ ok: false, why: 'no_warning' });
    expect(await store.warn(call(9), SLOT, { at: 0 }, USER)).toEqual({ ok: true });
    expect(await store.take(call(9), SLOT)).toMatchObject({ ok: true });
    const warnings = log.lines.filter((line) => line.startsWith('warn:'));
    expect(warnings[0]).toMatch(new RegExp(`^warn: gate state store redis://127\\.0\\.0\\.1:${server.port}/0 is unreachable \\(`));
    expect(warnings.slice(1)).toEqual([expect.stringMatching(/lost its memory .*noeviction and persistence/)]);
    expect(log.lines).toContain(`info: gate state store redis://127.0.0.1:${server.port}/0 answers again`);
  });

  it('fails closed within the command timeout while Redis hangs, and works again once it answers', async () => {
    const store = open({ commandTimeoutMs: 200 });
    await store.ping();
    server.pause();
    try {
      for (const { method, outcome, beforeControl } of await callEveryMethod(store, CONTROL_TIMEOUTS * 200)) {
        expect(outcome, method).toBeInstanceOf(StateStoreUnavailableError);
        expect((outcome as Error).message, method).toMatch(/state store is unavailable \(no answer from Redis within 200 ms\)/);
        expect(beforeControl, method).toBe(true);
      }
    } finally {
      server.resume();
    }
    await eventually(() => store.ping());
    expect(await store.warn(call(2), SLOT, { at: 0 }, USER)).toEqual({ ok: true });
    expect(await store.take(call(2), SLOT)).toMatchObject({ ok: true });
  });

  it('fails closed at once when Redis was never there, and never shows the password', async () => {
    const log = recordingLog();
    const port = await freePort();
    const store = open({ url: `redis://gate:hunter2-Pa55word@127.0.0.1:${port}/0`, commandTimeoutMs: 500, log });
    for (const { method, outcome, beforeControl } of await callEveryMethod(store, CONTROL_TIMEOUTS * 500)) {
      expect(outcome, method).toBeInstanceOf(StateStoreUnavailableError);
      expect(beforeControl, method).toBe(true);
      const error = outcome as StateStoreUnavailableError;
      expect(`${error.message} ${String(error.cause)} ${error.stack}`).not.toMatch(/hunter2|Pa55word|gate:/);
    }
    expect(log.lines.join('\n')).toContain(`redis://127.0.0.1:${port}/0 is unreachable`);
    expect(log.lines.join('\n')).not.toMatch(/hunter2|Pa55word/);
  });

  it('refuses every call after close', async () => {
    const store = open();
    await store.ping();
    await store.close();
    await expect(store.ping()).rejects.toThrow(/state store is unavailable \(the store was closed\)/);
    await expect(store.take(call(1), SLOT)).rejects.toBeInstanceOf(StateStoreUnavailableError);
  });

  it('refuses a TTL beyond the confirmation window and a URL that is not redis://, without echoing it', () => {
    expect(() => createRedisStore({ url: server.url, ttlMs: CONFIRM_WINDOW_MS + 1 })).toThrow(RangeError);
    expect(() => createRedisStore({ url: 'http://user:secret-pass@example.invalid/0' })).toThrow(ConfigError);
    expect(() => createRedisStore({ url: 'not a url secret-pass' })).toThrow(/^APPMGMT_STATE_URL is not a URL/);
    try {
      createRedisStore({ url: 'http://user:secret-pass@example.invalid/0' });
    } catch (error) {
      expect(String(error)).not.toContain('secret-pass');
    }
  });
});
