import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  AnswerTooLargeError,
  ApiError,
  CancelledError,
  InputError,
  ReadOnlyCredentialError,
  StateStoreUnavailableError,
  UnexpectedAnswerError,
  UnreachableError,
} from '../../src/errors.js';
import type { AskApproval } from '../../src/gate/approval.js';
import { createGate, type Every } from '../../src/gate/gate.js';
import { callKey, canonical, MAX_ARGUMENT_BYTES, scopeDigest } from '../../src/gate/key.js';
import { CONFIRM_WINDOW_MS, createMemoryStore, HEARTBEAT_MS, IN_FLIGHT_TTL_MS } from '../../src/gate/store.js';
import { silentLog } from '../../src/log.js';
import { defineTool, type GatedTool } from '../../src/tools/define.js';
import { gateToolContext } from './context.js';

/** A call result that is not a request for approval (no approval channel is offered in these tests). */
function settled<T extends object>(result: T | AskApproval): T {
  if ('ask' in result) throw new Error('unexpected approval request');
  return result;
}

/** A gated tool whose run the test controls; it counts the requests it "sends". */
function fakeTool(behaviour: () => Promise<void> = async () => undefined) {
  const sent: unknown[] = [];
  const tool = defineTool({
    name: 'spend_money',
    title: 'Spend Money',
    description: 'A test tool that spends money. Two calls.',
    input: { amount: z.number().describe('How much.'), note: z.string().optional().describe('A note.') },
    output: { done: z.boolean() },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    cost: 'money',
    gate: {
      warn: (args) => ({ action: `Spend ${args.amount}`, cost: `${args.amount} units`, details: [] }),
      unknownOutcome: 'It may or may not have been spent.',
    },
    async run(args) {
      sent.push(args);
      await behaviour();
      return { text: 'Spent.', next: 'Nothing more is needed.', structured: { done: true } };
    },
  }) as unknown as GatedTool;
  return { tool, sent };
}

function setup(now = { t: 1_000_000 }, every?: Every) {
  const store = createMemoryStore({ now: () => now.t });
  const inner = createGate({
    store,
    now: () => now.t,
    config: { requireHumanConfirmation: false, approvalTimeoutMs: 1000 },
    log: silentLog,
    newRequestId: () => `req-${now.t}`,
    ...(every ? { every } : {}),
  });
  const gate = { call: async (...args: Parameters<typeof inner.call>) => settled(await inner.call(...args)) };
  const ctx = gateToolContext(() => now.t);
  return { gate, inner, store, ctx, now };
}

/** Time the test moves: `advance` runs each repeating timer as often as it falls due, at its own moment. */
function manualTime(t = 1_000_000) {
  const timers = new Set<{ ms: number; due: number; tick: () => void }>();
  const time = {
    t,
    every: ((ms, tick) => {
      const timer = { ms, due: time.t + ms, tick };
      timers.add(timer);
      return () => void timers.delete(timer);
    }) as Every,
    get timers() {
      return timers.size;
    },
    async advance(ms: number) {
      const until = time.t + ms;
      for (let next = earliest(); next && next.due <= until; next = earliest()) {
        time.t = next.due;
        next.due += next.ms;
        next.tick();
        await new Promise((resolve) => setImmediate(resolve)); // what the tick started (a store write) runs before time moves on
      }
      time.t = until;
    },
  };
  const earliest = () => [...timers].sort((a, b) => a.due - b.due)[0];
  return time;
}

describe('the confirmation gate', () => {
  it("keeps a confirmed call marked in flight for as long as it runs, past the marker's own 3 minutes, and stops the heartbeat when it ends", async () => {
    const time = manualTime();
    const started = time.t;
    const { gate, store, ctx } = setup(time, time.every);
    let answer!: () => void;
    const { tool, sent } = fakeTool(() => new Promise<void>((resolve) => (answer = resolve)));
    await gate.call(tool, { amount: 5 }, undefined, ctx);
    const running = gate.call(tool, { amount: 5 }, true, ctx);
    await vi.waitFor(() => expect(sent).toHaveLength(1));
    // Five minutes of a call that has not answered: without a touch each minute the marker would be gone after three.
    await time.advance(IN_FLIGHT_TTL_MS + 2 * HEARTBEAT_MS);
    expect(await store.inFlight(callKey('', tool.name, { amount: 5 }))).toEqual({ since: started });
    const again = await gate.call(tool, { amount: 5 }, true, ctx);
    expect(again.text).toMatch(/^NOT SENT: an identical spend_money call \(same arguments\) has been running since/);
    const warning = await gate.call(tool, { amount: 5 }, undefined, ctx);
    expect(warning.text).toMatch(/^NOT SENT: an identical spend_money call/);
    expect(sent).toHaveLength(1);
    answer();
    expect((await running).isError).toBeFalsy();
    expect(time.timers).toBe(0);
    expect(await store.inFlight(callKey('', tool.name, { amount: 5 }))).toBeUndefined();
  });

  it('still reports what happened when the store fails to record the end of a call', async () => {
    const { gate, store, ctx } = setup();
    const { tool, sent } = fakeTool();
    store.settle = () => Promise.reject(new StateStoreUnavailableError('the connection to Redis dropped'));
    await gate.call(tool, { amount: 5 }, undefined, ctx);
    expect((await gate.call(tool, { amount: 5 }, true, ctx)).structured).toEqual({ confirmation_needed: false, done: true });
    expect(sent).toHaveLength(1);
  });

  it('refuses, sending nothing, when the store cannot take the warning', async () => {
    const { gate, store, ctx } = setup();
    const { tool, sent } = fakeTool();
    await gate.call(tool, { amount: 5 }, undefined, ctx);
    store.take = () => Promise.reject(new StateStoreUnavailableError('not connected to Redis; reconnecting'));
    await expect(gate.call(tool, { amount: 5 }, true, ctx)).rejects.toThrow(/state store is unavailable.*refused/);
    expect(sent).toHaveLength(0);
  });

  it('acts only on confirm: true after a warning for the same arguments, once', async () => {
    const { gate, ctx } = setup();
    const { tool, sent } = fakeTool();
    const warning = await gate.call(tool, { amount: 5 }, undefined, ctx);
    expect(warning.structured).toMatchObject({ confirmation_needed: true, cost: '5 units' });
    expect((await gate.call(tool, { amount: 5 }, true, ctx)).structured).toEqual({ confirmation_needed: false, done: true });
    const again = await gate.call(tool, { amount: 5 }, true, ctx);
    expect(again.isError).toBe(true);
    expect(again.text).toMatch(/^NOT SENT: this exact call \(same arguments\) was already carried out at /);
    expect(sent).toHaveLength(1);
  });

  it('never creates a warning from a confirm: true call, so a second confirm cannot use one', async () => {
    const { gate, ctx } = setup();
    const { tool, sent } = fakeTool();
    for (let i = 0; i < 3; i++) expect((await gate.call(tool, { amount: 5 }, true, ctx)).text).toMatch(/^NOT SENT/);
    expect(sent).toHaveLength(0);
  });

  it.each([2, 3, 10, 50])('sends exactly one request for %i concurrent confirmations after one warning', async (n) => {
    const { gate, ctx } = setup();
    const { tool, sent } = fakeTool(() => new Promise((resolve) => setTimeout(resolve, 5)));
    await gate.call(tool, { amount: 5 }, undefined, ctx);
    const results = await Promise.all(Array.from({ length: n }, () => gate.call(tool, { amount: 5 }, true, ctx)));
    expect(sent).toHaveLength(1);
    expect(results.filter((result) => !result.isError)).toHaveLength(1);
    for (const refused of results.filter((result) => result.isError)) expect(refused.text).toMatch(/^NOT SENT: an identical spend_money call \(same arguments\) has been running since 1970-01-01T00:16:40\.000Z\./);
  });

  it.each([2, 3, 10])('sends exactly one request for %i confirmations one after another', async (n) => {
    const { gate, ctx } = setup();
    const { tool, sent } = fakeTool();
    await gate.call(tool, { amount: 5 }, undefined, ctx);
    for (let i = 0; i < n; i++) await gate.call(tool, { amount: 5 }, true, ctx);
    expect(sent).toHaveLength(1);
  });

  it('sends nothing for a new warning with the same arguments while the confirmed call runs', async () => {
    const { gate, ctx } = setup();
    let finish!: () => void;
    const { tool, sent } = fakeTool(() => new Promise((resolve) => (finish = resolve)));
    await gate.call(tool, { amount: 5 }, undefined, ctx);
    const running = gate.call(tool, { amount: 5 }, true, ctx);
    await new Promise((resolve) => setImmediate(resolve));
    const warning = await gate.call(tool, { amount: 5 }, undefined, ctx);
    expect(warning.isError).toBe(true);
    expect(warning.text).toMatch(/has been running since/);
    // Other arguments are another call and may be warned about.
    expect((await gate.call(tool, { amount: 6 }, undefined, ctx)).structured?.confirmation_needed).toBe(true);
    finish();
    await running;
    expect(sent).toHaveLength(1);
  });

  it('keys calls by canonical arguments: key order does not matter, values do', () => {
    expect(callKey('', 't', { a: 1, b: [1, 2] })).toBe(callKey('', 't', { b: [1, 2], a: 1 }));
    expect(callKey('', 't', { a: 1 })).not.toBe(callKey('', 't', { a: 2 }));
    expect(callKey('user-1', 't', { a: 1 })).not.toBe(callKey('user-2', 't', { a: 1 }));
    expect(canonical({ b: { d: 1, c: [true, null] }, a: undefined })).toBe('{"b":{"c":[true,null],"d":1}}');
  });

  it('refuses arguments over 64 KiB before remembering anything', async () => {
    const { gate, ctx, store } = setup();
    const { tool } = fakeTool();
    const note = 'x'.repeat(MAX_ARGUMENT_BYTES);
    await expect(gate.call(tool, { amount: 5, note }, undefined, ctx)).rejects.toThrow(InputError);
    await expect(gate.call(tool, { amount: 5, note }, undefined, ctx)).rejects.toThrow(/arguments: are 65 KiB of JSON; at most 64 KiB/);
    expect(store.sizes()).toEqual({ pending: 0, latest: 0, running: 0, unknown: 0, done: 0, claimed: 0, total: 0 });
  });

  it('forgets a warning after the confirmation window', async () => {
    const { gate, ctx, now } = setup();
    const { tool, sent } = fakeTool();
    await gate.call(tool, { amount: 5 }, undefined, ctx);
    now.t += CONFIRM_WINDOW_MS + 1;
    expect((await gate.call(tool, { amount: 5 }, true, ctx)).text).toMatch(/^NOT SENT/);
    expect(sent).toHaveLength(0);
  });

  describe('a call done within the window', () => {
    /** The fake tool, saying what it did as a gate's `done` does. */
    function doneTool() {
      const made = fakeTool();
      made.tool.gate.done = () => 'created campaign cmp_42';
      return made;
    }

    it('answers a repeated confirmation with what was done, when, that nothing was sent, and that another call is a second one', async () => {
      const { gate, ctx, now } = setup();
      const { tool, sent } = doneTool();
      await gate.call(tool, { amount: 5 }, undefined, ctx);
      await gate.call(tool, { amount: 5 }, true, ctx);
      now.t += 120_000;
      const again = await gate.call(tool, { amount: 5 }, true, ctx);
      expect(again.isError).toBe(true);
      expect(again.text).toBe(
        'NOT SENT: this exact call (same arguments) was already carried out at 1970-01-01T00:16:40.000Z: created campaign cmp_42. Nothing was sent now. Calling spend_money again without confirm starts a NEW, second one: a fresh warning, and once confirmed it is done again.',
      );
      expect(again.next).toBe('Tell the user it was done at 1970-01-01T00:16:40.000Z (created campaign cmp_42); do not call spend_money again unless they want it done a second time.');
      expect(again.next).not.toMatch(/without confirm to get a fresh warning/);
      expect(sent).toHaveLength(1);
    });

    it('says so in the next warning for the same arguments: confirming does it a second time', async () => {
      const { gate, ctx } = setup();
      const { tool } = doneTool();
      await gate.call(tool, { amount: 5 }, undefined, ctx);
      await gate.call(tool, { amount: 5 }, true, ctx);
      const warning = await gate.call(tool, { amount: 5 }, undefined, ctx);
      expect(warning.text).toContain('ALREADY DONE: this exact call (same arguments) was carried out at 1970-01-01T00:16:40.000Z: created campaign cmp_42. Confirming this warning does it a SECOND time.');
      expect(warning.structured?.earlier_attempt).toBe('1970-01-01T00:16:40.000Z: done: created campaign cmp_42');
      // Other arguments are another call.
      expect((await gate.call(tool, { amount: 6 }, undefined, ctx)).text).not.toContain('ALREADY DONE');
    });

    it('forgets the call after the window: a confirmation then finds no warning, as before', async () => {
      const { gate, ctx, now } = setup();
      const { tool } = doneTool();
      await gate.call(tool, { amount: 5 }, undefined, ctx);
      await gate.call(tool, { amount: 5 }, true, ctx);
      now.t += CONFIRM_WINDOW_MS + 1;
      expect((await gate.call(tool, { amount: 5 }, true, ctx)).text).toMatch(/^NOT SENT: confirm: true needs a pending warning/);
    });

    it('remembers nothing as done after a refusal', async () => {
      const { gate, ctx } = setup();
      const { tool } = fakeTool(() => Promise.reject(new ApiError(400, {})));
      tool.gate.done = () => 'created campaign cmp_42';
      await gate.call(tool, { amount: 5 }, undefined, ctx);
      await expect(gate.call(tool, { amount: 5 }, true, ctx)).rejects.toThrow(ApiError);
      expect((await gate.call(tool, { amount: 5 }, true, ctx)).text).toMatch(/^NOT SENT: confirm: true needs a pending warning/);
    });
  });

  describe('statuses a tool declares sure refusals', () => {
    function refusingTool(error: unknown) {
      const made = fakeTool(() => Promise.reject(error));
      made.tool.gate.refusals = { 409: { why: 'the figure changed since it was read', next: 'Read the figure again.' } };
      return made;
    }

    it('answers a declared 409 as a refusal saying which, with the service\'s reason, and remembers no unknown outcome', async () => {
      const { gate, ctx, store } = setup();
      const { tool, sent } = refusingTool(new ApiError(409, { detail: 'The recommended budget changed since it was read' }));
      await gate.call(tool, { amount: 5 }, undefined, ctx);
      const result = await gate.call(tool, { amount: 5 }, true, ctx);
      expect(result).toEqual({
        isError: true,
        text: 'REFUSED (409): the figure changed since it was read. Nothing changed. The service said: "The recommended budget changed since it was read"',
        next: 'Read the figure again.',
      });
      expect(sent).toHaveLength(1);
      expect(await store.unknownOutcome(callKey('', 'spend_money', { amount: 5 }))).toBeUndefined();
      const next = await gate.call(tool, { amount: 5 }, undefined, ctx);
      expect(next.text).not.toMatch(/Earlier attempt|ALREADY DONE/);
      expect(next.structured).not.toHaveProperty('earlier_attempt');
    });

    it('keeps undeclared statuses as they were: a 500 is still an unknown outcome', async () => {
      const { gate, ctx } = setup();
      const { tool } = refusingTool(new ApiError(500, {}));
      await gate.call(tool, { amount: 5 }, undefined, ctx);
      expect((await gate.call(tool, { amount: 5 }, true, ctx)).text).toMatch(/^OUTCOME UNKNOWN: the service answered 500/);
    });
  });

  describe('unknown outcomes', () => {
    const unknown: Array<[string, unknown, RegExp]> = [
      ['a timeout', new UnreachableError('timeout', 30_000), /no whole answer within 30 s/],
      ['a dropped connection', new UnreachableError('network'), /the connection failed or dropped/],
      ['a 500', new ApiError(500, {}), /the service answered 500/],
      ['a 409', new ApiError(409, {}), /the service answered 409/],
      ['a 408', new ApiError(408, {}), /the service answered 408/],
      ['a 302', new ApiError(302, {}), /the service answered 302/],
      ['a cancellation', new CancelledError(), /cancelled while the request was on its way/],
      ['a 202 or a body of the wrong shape', new UnexpectedAnswerError('status 202'), /not the expected one \(status 202\)/],
      ['an answer too large to read', new AnswerTooLargeError(5 * 1024 * 1024), /too large to read/],
      ['a bug after sending', new TypeError('x is undefined'), /internal error after the request may have gone out/],
    ];
    it.each(unknown)('reports %s as OUTCOME UNKNOWN, and the next warning names it', async (_name, error, what) => {
      const { gate, ctx, now } = setup();
      const { tool, sent } = fakeTool(() => Promise.reject(error));
      await gate.call(tool, { amount: 5 }, undefined, ctx);
      const result = await gate.call(tool, { amount: 5 }, true, ctx);
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(/^OUTCOME UNKNOWN: /);
      expect(result.text).toMatch(what);
      now.t += 60_000;
      const next = await gate.call(tool, { amount: 5 }, undefined, ctx);
      expect(next.text).toMatch(/Earlier attempt: a confirmed call with these arguments at 1970-01-01T00:16:40\.000Z ended with an unknown outcome/);
      expect(next.structured?.earlier_attempt).toMatch(what);
      expect(sent).toHaveLength(1);
    });

    it.each([400, 401, 402, 403, 404, 422, 429])('treats a %i as a sure refusal, not an unknown outcome', async (status) => {
      const { gate, ctx } = setup();
      const { tool } = fakeTool(() => Promise.reject(new ApiError(status, {})));
      await gate.call(tool, { amount: 5 }, undefined, ctx);
      await expect(gate.call(tool, { amount: 5 }, true, ctx)).rejects.toBeInstanceOf(ApiError);
      expect((await gate.call(tool, { amount: 5 }, undefined, ctx)).text).not.toMatch(/Earlier attempt/);
    });

    it('treats a change the API client did not send (its credential answered read-only meanwhile) as nothing sent', async () => {
      const { gate, ctx } = setup();
      const { tool } = fakeTool(() => Promise.reject(new ReadOnlyCredentialError('accessToken', 1_000_000)));
      await gate.call(tool, { amount: 5 }, undefined, ctx);
      await expect(gate.call(tool, { amount: 5 }, true, ctx)).rejects.toBeInstanceOf(ReadOnlyCredentialError);
      expect((await gate.call(tool, { amount: 5 }, undefined, ctx)).text).not.toMatch(/Earlier attempt|OUTCOME UNKNOWN/);
    });

    it('settles an unknown outcome once a later attempt gets a clean answer', async () => {
      const { gate, ctx } = setup();
      let fail = true;
      const { tool } = fakeTool(async () => {
        if (fail) throw new UnreachableError('network');
      });
      await gate.call(tool, { amount: 5 }, undefined, ctx);
      await gate.call(tool, { amount: 5 }, true, ctx);
      fail = false;
      await gate.call(tool, { amount: 5 }, undefined, ctx);
      await gate.call(tool, { amount: 5 }, true, ctx);
      expect((await gate.call(tool, { amount: 5 }, undefined, ctx)).text).not.toMatch(/Earlier attempt/);
    });
  });

  it('reuses the request id of an unknown outcome for a tool the service deduplicates by X-Request-ID', async () => {
    const { gate, ctx, now } = setup();
    const ids: Array<string | undefined> = [];
    const { tool } = fakeTool();
    const chat = { ...tool, gate: { ...tool.gate, requestId: true } } as GatedTool;
    let fail = true;
    chat.run = async (_args, context) => {
      ids.push(context.requestId);
      if (fail) throw new UnreachableError('timeout', 1000);
      return { text: 'ok', next: 'done', structured: { done: true } };
    };
    await gate.call(chat, { amount: 1 }, undefined, ctx);
    await gate.call(chat, { amount: 1 }, true, ctx);
    now.t += 5_000;
    fail = false;
    const warning = await gate.call(chat, { amount: 1 }, undefined, ctx);
    expect(warning.text).toContain('This attempt reuses its request id');
    await gate.call(chat, { amount: 1 }, true, ctx);
    now.t += 5_000;
    await gate.call(chat, { amount: 1 }, undefined, ctx);
    await gate.call(chat, { amount: 1 }, true, ctx);
    expect(ids).toEqual(['req-1000000', 'req-1000000', 'req-1010000']);
  });
});

describe('the gate with a full store', () => {
  it('refuses a new warning with a sentence saying the store is full, and sends nothing', async () => {
    const { ctx } = setup();
    const store = createMemoryStore({ now: () => 0, maxRecords: 3 });
    const gate = createGate({ store, now: () => 0, config: { requireHumanConfirmation: false, approvalTimeoutMs: 1000 }, log: silentLog });
    const { tool, sent } = fakeTool();
    expect(settled(await gate.call(tool, { amount: 1 }, undefined, ctx)).structured).toMatchObject({ confirmation_needed: true });
    const refused = settled(await gate.call(tool, { amount: 2 }, undefined, ctx));
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/^NOT RECORDED: the confirmation gate's store is full \(3 records.*no warning was recorded and nothing was sent/);
    expect(settled(await gate.call(tool, { amount: 2 }, true, ctx)).text).toMatch(/^NOT SENT: confirm: true needs a pending warning/);
    expect(settled(await gate.call(tool, { amount: 1 }, true, ctx)).isError).toBeFalsy();
    expect(sent).toEqual([{ amount: 1 }]);
  });
});

describe('the in-process gate store', () => {
  it('refuses new warnings beyond its cap instead of dropping older records, and expires them after the window', async () => {
    let now = 0;
    const store = createMemoryStore({ now: () => now, maxRecords: 9 });
    const user = scopeDigest('alice');
    for (const key of ['a', 'b', 'c']) expect(await store.warn(key, `slot-${key}`, { at: now }, user)).toEqual({ ok: true });
    expect(await store.warn('d', 'slot-d', { at: now }, user)).toEqual({ ok: false, why: 'full', records: 9 });
    expect(await store.take('a', 'slot-a')).toMatchObject({ ok: true });
    expect(await store.take('d', 'slot-d')).toMatchObject({ ok: false, why: 'no_warning' });
    await store.settle('a', { kind: 'unknown', record: { at: now, what: 'x' } });
    now += CONFIRM_WINDOW_MS + 1;
    expect(await store.unknownOutcome('a')).toBeUndefined();
    expect(await store.take('b', 'slot-b')).toMatchObject({ ok: false, why: 'no_warning' });
    // Once the old records expired, there is room again.
    expect(await store.warn('d', 'slot-d', { at: now }, user)).toEqual({ ok: true });
  });

  it('keeps a running call marked while it is touched, even past the window', async () => {
    let now = 0;
    const store = createMemoryStore({ now: () => now });
    await store.warn('k', 'slot', { at: now }, scopeDigest(''));
    await store.take('k', 'slot');
    for (let i = 0; i < 15; i++) {
      now += 60_000;
      await store.touch('k');
    }
    expect(await store.inFlight('k')).toEqual({ since: 0 });
    await store.settle('k', { kind: 'clean' });
    expect(await store.inFlight('k')).toBeUndefined();
  });
});
