import { afterEach, describe, expect, it } from 'vitest';
import { callKey, lastWarningSlot } from '../../src/gate/key.js';
import { CONFIRM_WINDOW_MS, IN_FLIGHT_TTL_MS, type GateStore, type UnknownOutcome } from '../../src/gate/store.js';

/**
 * What every GateStore promises the gate, run against each store: the in-process one and Redis.
 * Time is the harness's: `elapse` moves the store's clock and ages its records, so no test sleeps.
 */

export interface StoreUnderTest {
  store: GateStore;
  /** The store's clock (it stamps `since` of in-flight markers). */
  now(): number;
  /** Lets `ms` pass as the store sees it: its clock moves on, and every record has `ms` less to live. */
  elapse(ms: number): Promise<void>;
}

const TOOL = 'spend_money';
/** Keys as the gate makes them: hashes of scope, tool and arguments. */
const call = (amount: number) => callKey('', TOOL, { amount });
const SLOT = lastWarningSlot('', TOOL);
const OTHER_TOOL_SLOT = lastWarningSlot('', 'other_tool');

export function describeGateStore(name: string, make: () => Promise<StoreUnderTest>): void {
  describe(`the GateStore contract: ${name}`, () => {
    const made: GateStore[] = [];
    afterEach(async () => {
      await Promise.all(made.splice(0).map((store) => store.close()));
    });
    async function setup(): Promise<StoreUnderTest> {
      const harness = await make();
      made.push(harness.store);
      return harness;
    }
    /** A call taken and in flight since `now()`. */
    async function inFlight({ store }: StoreUnderTest, key: string): Promise<void> {
      expect(await store.warn(key, SLOT, { at: 0 })).toEqual({ ok: true });
      expect(await store.take(key, SLOT)).toMatchObject({ ok: true });
    }

    it('lets one take use a warning, and only one', async () => {
      const { store, now } = await setup();
      expect(await store.warn(call(5), SLOT, { at: now(), requestId: 'req-1' })).toEqual({ ok: true });
      expect(await store.take(call(5), SLOT)).toEqual({ ok: true, pending: { at: now(), requestId: 'req-1' } });
      await store.settle(call(5), { kind: 'clean' });
      expect(await store.take(call(5), SLOT)).toEqual({ ok: false, why: 'no_warning', otherArguments: false });
    });

    it('refuses a take without a warning', async () => {
      const { store } = await setup();
      expect(await store.take(call(5), SLOT)).toEqual({ ok: false, why: 'no_warning', otherArguments: false });
      expect(await store.inFlight(call(5))).toBeUndefined();
    });

    it('lets exactly one of ten concurrent takes use a warning', async () => {
      const { store, now } = await setup();
      await store.warn(call(5), SLOT, { at: now() });
      const taken = await Promise.all(Array.from({ length: 10 }, () => store.take(call(5), SLOT)));
      expect(taken.filter((outcome) => outcome.ok)).toHaveLength(1);
      expect(taken.filter((outcome) => !outcome.ok && outcome.why === 'in_flight')).toHaveLength(9);
    });

    it('peeks: answers what a take would, taking nothing', async () => {
      const harness = await setup();
      const { store, now } = harness;
      expect(await store.peek(call(5), SLOT)).toEqual({ ok: false, why: 'no_warning', otherArguments: false });
      await store.warn(call(5), SLOT, { at: now(), requestId: 'req-1' });
      expect(await store.peek(call(5), SLOT)).toEqual({ ok: true, pending: { at: now(), requestId: 'req-1' } });
      expect(await store.peek(call(5), SLOT)).toEqual({ ok: true, pending: { at: now(), requestId: 'req-1' } });
      expect(await store.peek(call(6), SLOT)).toEqual({ ok: false, why: 'no_warning', otherArguments: true });
      expect(await store.inFlight(call(5))).toBeUndefined();
      expect(await store.take(call(5), SLOT)).toEqual({ ok: true, pending: { at: now(), requestId: 'req-1' } });
      expect(await store.peek(call(5), SLOT)).toEqual({ ok: false, why: 'in_flight', inFlight: { since: now() } });
    });

    it('replaces an older warning for the same call with the newer one', async () => {
      const { store, now, elapse } = await setup();
      const first = now();
      await store.warn(call(5), SLOT, { at: first, requestId: 'req-1' });
      await elapse(1_000);
      await store.warn(call(5), SLOT, { at: now(), requestId: 'req-2' });
      expect(await store.take(call(5), SLOT)).toEqual({ ok: true, pending: { at: first + 1_000, requestId: 'req-2' } });
      await store.settle(call(5), { kind: 'clean' });
      expect(await store.take(call(5), SLOT)).toMatchObject({ ok: false, why: 'no_warning' });
    });

    it('refuses warn and take while the call is in flight, saying since when', async () => {
      const harness = await setup();
      const { store, now, elapse } = harness;
      const since = now();
      await inFlight(harness, call(5));
      await elapse(5_000);
      expect(await store.inFlight(call(5))).toEqual({ since });
      expect(await store.warn(call(5), SLOT, { at: now() })).toEqual({ ok: false, inFlight: { since } });
      expect(await store.take(call(5), SLOT)).toEqual({ ok: false, why: 'in_flight', inFlight: { since } });
      // Other arguments are another call.
      expect(await store.inFlight(call(6))).toBeUndefined();
      expect(await store.warn(call(6), SLOT, { at: now() })).toEqual({ ok: true });
      expect(await store.take(call(6), SLOT)).toMatchObject({ ok: true });
    });

    it("says when the tool's latest pending warning was for other arguments", async () => {
      const { store, now } = await setup();
      await store.warn(call(5), SLOT, { at: now() });
      expect(await store.take(call(6), SLOT)).toEqual({ ok: false, why: 'no_warning', otherArguments: true });
      expect(await store.take(call(6), OTHER_TOOL_SLOT)).toEqual({ ok: false, why: 'no_warning', otherArguments: false });
      // Once that warning is used up, there is no other warning to point to.
      expect(await store.take(call(5), SLOT)).toMatchObject({ ok: true });
      expect(await store.take(call(6), SLOT)).toEqual({ ok: false, why: 'no_warning', otherArguments: false });
    });

    it('does not point to a warning for other arguments once it expired', async () => {
      const { store, now, elapse } = await setup();
      await store.warn(call(5), SLOT, { at: now() });
      await elapse(CONFIRM_WINDOW_MS + 1);
      expect(await store.take(call(6), SLOT)).toEqual({ ok: false, why: 'no_warning', otherArguments: false });
    });

    describe('settle', () => {
      const record: UnknownOutcome = { at: 1, what: 'no whole answer within 30 s', requestId: 'req-1' };

      it('unknown: ends the call and records the outcome', async () => {
        const harness = await setup();
        await inFlight(harness, call(5));
        await harness.store.settle(call(5), { kind: 'unknown', record });
        expect(await harness.store.inFlight(call(5))).toBeUndefined();
        expect(await harness.store.unknownOutcome(call(5))).toEqual(record);
        expect(await harness.store.unknownOutcome(call(6))).toBeUndefined();
      });

      it('refused: ends the call and keeps an earlier unknown outcome as it was', async () => {
        const harness = await setup();
        await inFlight(harness, call(5));
        await harness.store.settle(call(5), { kind: 'refused' });
        expect(await harness.store.inFlight(call(5))).toBeUndefined();
        expect(await harness.store.unknownOutcome(call(5))).toBeUndefined();
        await inFlight(harness, call(5));
        await harness.store.settle(call(5), { kind: 'unknown', record });
        await inFlight(harness, call(5));
        await harness.store.settle(call(5), { kind: 'refused' });
        expect(await harness.store.unknownOutcome(call(5))).toEqual(record);
      });

      it('clean: ends the call and settles an earlier unknown outcome', async () => {
        const harness = await setup();
        await inFlight(harness, call(5));
        await harness.store.settle(call(5), { kind: 'unknown', record });
        await inFlight(harness, call(5));
        await harness.store.settle(call(5), { kind: 'clean' });
        expect(await harness.store.inFlight(call(5))).toBeUndefined();
        expect(await harness.store.unknownOutcome(call(5))).toBeUndefined();
      });

      it('unknown again: the newer outcome replaces the older', async () => {
        const harness = await setup();
        await inFlight(harness, call(5));
        await harness.store.settle(call(5), { kind: 'unknown', record });
        await inFlight(harness, call(5));
        await harness.store.settle(call(5), { kind: 'unknown', record: { at: 2, what: 'the service answered 500' } });
        expect(await harness.store.unknownOutcome(call(5))).toEqual({ at: 2, what: 'the service answered 500' });
      });
    });

    it('keeps a call marked while it is touched, even past the window, and forgets it once touching stops', async () => {
      const harness = await setup();
      const { store, now, elapse } = harness;
      const since = now();
      await inFlight(harness, call(5));
      for (let minute = 0; minute < 15; minute++) {
        await elapse(60_000);
        await store.touch(call(5));
      }
      expect(await store.inFlight(call(5))).toEqual({ since });
      // A process that died stops touching: its marker goes after IN_FLIGHT_TTL_MS (well inside the
      // window), and the call may be warned about again.
      await elapse(IN_FLIGHT_TTL_MS - 1_000);
      expect(await store.inFlight(call(5))).toEqual({ since });
      await elapse(2_000);
      expect(await store.inFlight(call(5))).toBeUndefined();
      expect(await store.warn(call(5), SLOT, { at: now() })).toEqual({ ok: true });
    });

    it('does not mark a call by touching it when it is not in flight', async () => {
      const { store, now } = await setup();
      await store.touch(call(5));
      expect(await store.inFlight(call(5))).toBeUndefined();
      expect(await store.warn(call(5), SLOT, { at: now() })).toEqual({ ok: true });
    });

    it('claims a one-time token once, and forgets the claim after the window', async () => {
      const { store, elapse } = await setup();
      expect(await store.claimOnce('nonce-1', CONFIRM_WINDOW_MS)).toBe(true);
      expect(await store.claimOnce('nonce-1', CONFIRM_WINDOW_MS)).toBe(false);
      expect(await store.claimOnce('nonce-2', CONFIRM_WINDOW_MS)).toBe(true);
      await elapse(CONFIRM_WINDOW_MS + 1);
      expect(await store.claimOnce('nonce-1', CONFIRM_WINDOW_MS)).toBe(true);
    });

    it('forgets a claim after the shorter time it asked for', async () => {
      const { store, elapse } = await setup();
      expect(await store.claimOnce('nonce-1', 60_000)).toBe(true);
      await elapse(59_000);
      expect(await store.claimOnce('nonce-1', 60_000)).toBe(false);
      await elapse(2_000);
      expect(await store.claimOnce('nonce-1', 60_000)).toBe(true);
    });

    it('lets exactly one of ten concurrent claims of a token win', async () => {
      const { store } = await setup();
      const claims = await Promise.all(Array.from({ length: 10 }, () => store.claimOnce('nonce-1', CONFIRM_WINDOW_MS)));
      expect(claims.filter(Boolean)).toHaveLength(1);
    });

    it('keeps warnings, slots and unknown outcomes for the window, and forgets them after it', async () => {
      const harness = await setup();
      const { store, now, elapse } = harness;
      const record: UnknownOutcome = { at: now(), what: 'the connection failed or dropped' };
      await inFlight(harness, call(7));
      await store.settle(call(7), { kind: 'unknown', record });
      await store.warn(call(5), SLOT, { at: now() });
      await elapse(CONFIRM_WINDOW_MS - 1_000);
      expect(await store.take(call(6), SLOT)).toEqual({ ok: false, why: 'no_warning', otherArguments: true });
      expect(await store.unknownOutcome(call(7))).toEqual(record);
      await elapse(1_001);
      expect(await store.take(call(5), SLOT)).toEqual({ ok: false, why: 'no_warning', otherArguments: false });
      expect(await store.unknownOutcome(call(7))).toBeUndefined();
    });

    it('answers a ping', async () => {
      const { store } = await setup();
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
