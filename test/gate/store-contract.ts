import { afterEach, describe, expect, it } from 'vitest';
import { callKey, lastWarningSlot, scopeDigest } from '../../src/gate/key.js';
import { docFigures } from '../docs/markdown.js';
import { CONFIRM_WINDOW_MS, IN_FLIGHT_TTL_MS, MAX_CLAIMS_PER_USER, MAX_PENDING_PER_USER, MAX_SUMMARY_CHARS, type GateStore, type UnknownOutcome } from '../../src/gate/store.js';

/**
 * What every GateStore promises the gate, run against each store: the in-process one and Redis.
 * Time is the harness's: `elapse` moves the store's clock and ages its records, so no test sleeps.
 */

export interface StoreUnderTest {
  store: GateStore;
  /** The cap on the store's records (or keys) that refuses new warnings. */
  maxRecords: number;
  /** The store's clock (it stamps `since` of in-flight markers). */
  now(): number;
  /** Lets `ms` pass as the store sees it: its clock moves on, and every record has `ms` less to live. */
  elapse(ms: number): Promise<void>;
}

const TOOL = 'spend_money';
/** docs/safety.md's figure for the rounds below, read from it so the two cannot drift. */
const [CLAIMS_PER_USER, DECLINED_ROUNDS] = docFigures(
  'docs/safety.md',
  /Each user's answered forms are remembered for 10 minutes, at most (\d+) of them; .*? \(`test\/gate\/store-contract\.ts`, on both stores: ([\d,]+) declined rounds\)/,
) as [number, number];
/** Keys as the gate makes them: hashes of scope, tool and arguments. */
const call = (amount: number) => callKey('', TOOL, { amount });
const SLOT = lastWarningSlot('', TOOL);
const OTHER_TOOL_SLOT = lastWarningSlot('', 'other_tool');
/** Users as stores see them: digests of their gate scopes. */
const ALICE = scopeDigest('alice');
const BOB = scopeDigest('bob');
/** Bob's calls: his own keys and slot. */
const bobsCall = (amount: number) => callKey('bob', TOOL, { amount });
const BOB_SLOT = lastWarningSlot('bob', TOOL);

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
      expect(await store.warn(key, SLOT, { at: 0 }, ALICE)).toEqual({ ok: true });
      expect(await store.take(key, SLOT)).toMatchObject({ ok: true });
    }

    it('lets one take use a warning, and only one', async () => {
      const { store, now } = await setup();
      expect(await store.warn(call(5), SLOT, { at: now(), requestId: 'req-1' }, ALICE)).toEqual({ ok: true });
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
      await store.warn(call(5), SLOT, { at: now() }, ALICE);
      const taken = await Promise.all(Array.from({ length: 10 }, () => store.take(call(5), SLOT)));
      expect(taken.filter((outcome) => outcome.ok)).toHaveLength(1);
      expect(taken.filter((outcome) => !outcome.ok && outcome.why === 'in_flight')).toHaveLength(9);
    });

    it('binds: answers what a take would, taking nothing', async () => {
      const harness = await setup();
      const { store, now } = harness;
      expect(await store.bind(call(5), SLOT, 'round-1')).toEqual({ ok: false, why: 'no_warning', otherArguments: false });
      await store.warn(call(5), SLOT, { at: now(), requestId: 'req-1' }, ALICE);
      expect(await store.bind(call(5), SLOT, 'round-1')).toEqual({ ok: true, pending: { at: now(), requestId: 'req-1' } });
      expect(await store.bind(call(5), SLOT, 'round-2')).toEqual({ ok: true, pending: { at: now(), requestId: 'req-1' } });
      expect(await store.bind(call(6), SLOT, 'round-3')).toEqual({ ok: false, why: 'no_warning', otherArguments: true });
      expect(await store.inFlight(call(5))).toBeUndefined();
      expect(await store.take(call(5), SLOT, 'round-2')).toEqual({ ok: true, pending: { at: now(), requestId: 'req-1' } });
      expect(await store.bind(call(5), SLOT, 'round-4')).toEqual({ ok: false, why: 'in_flight', inFlight: { since: now() } });
    });

    it('lets an approval round take only the warning it was bound to, once', async () => {
      const { store, now } = await setup();
      await store.warn(call(5), SLOT, { at: now() }, ALICE);
      await store.bind(call(5), SLOT, 'round-1');
      // A newer form for the same warning replaces the older one.
      await store.bind(call(5), SLOT, 'round-2');
      expect(await store.take(call(5), SLOT, 'round-1')).toEqual({ ok: false, why: 'other_round' });
      // A newer warning for the same arguments drops every round bound to the older one.
      await store.warn(call(5), SLOT, { at: now() }, ALICE);
      expect(await store.take(call(5), SLOT, 'round-2')).toEqual({ ok: false, why: 'other_round' });
      expect(await store.take(call(5), SLOT, 'never-bound')).toEqual({ ok: false, why: 'other_round' });
      await store.bind(call(5), SLOT, 'round-3');
      expect(await store.take(call(5), SLOT, 'round-3')).toMatchObject({ ok: true });
      await store.settle(call(5), { kind: 'clean' });
      expect(await store.take(call(5), SLOT, 'round-3')).toEqual({ ok: false, why: 'no_warning', otherArguments: false });
    });

    it('lets exactly one of ten concurrent takes with the bound round act', async () => {
      const { store, now } = await setup();
      await store.warn(call(5), SLOT, { at: now() }, ALICE);
      await store.bind(call(5), SLOT, 'round-1');
      const taken = await Promise.all(Array.from({ length: 10 }, () => store.take(call(5), SLOT, 'round-1')));
      expect(taken.filter((outcome) => outcome.ok)).toHaveLength(1);
    });

    it(`keeps at most ${MAX_PENDING_PER_USER} pending warnings per user: their own oldest goes, never another user's`, async () => {
      const { store, now, elapse } = await setup();
      await store.warn(bobsCall(1), BOB_SLOT, { at: now() }, BOB);
      for (let amount = 1; amount <= MAX_PENDING_PER_USER + 5; amount++) {
        await elapse(10);
        expect(await store.warn(call(amount), SLOT, { at: now() }, ALICE)).toEqual({ ok: true });
      }
      for (let amount = 1; amount <= 5; amount++) expect(await store.take(call(amount), SLOT), `amount ${amount}`).toMatchObject({ ok: false, why: 'no_warning' });
      expect(await store.take(call(6), SLOT)).toMatchObject({ ok: true });
      expect(await store.take(call(MAX_PENDING_PER_USER + 5), SLOT)).toMatchObject({ ok: true });
      expect(await store.take(bobsCall(1), BOB_SLOT)).toMatchObject({ ok: true });
    });

    it("refuses new warnings once the store is full, keeping every user's pending warnings", async () => {
      const { store, now, maxRecords } = await setup();
      await store.warn(bobsCall(1), BOB_SLOT, { at: now() }, BOB);
      let refused: unknown;
      for (let i = 0; i < maxRecords && refused === undefined; i++) {
        const outcome = await store.warn(callKey(`flood-${i}`, TOOL, { amount: 1 }), lastWarningSlot(`flood-${i}`, TOOL), { at: now() }, scopeDigest(`flood-${i}`));
        if (!outcome.ok) refused = outcome;
      }
      expect(refused).toEqual({ ok: false, why: 'full', records: maxRecords });
      // Replacing a pending warning adds nothing, so it is still allowed.
      expect(await store.warn(bobsCall(1), BOB_SLOT, { at: now() }, BOB)).toEqual({ ok: true });
      expect(await store.take(bobsCall(1), BOB_SLOT)).toMatchObject({ ok: true });
    });

    it('replaces an older warning for the same call with the newer one', async () => {
      const { store, now, elapse } = await setup();
      const first = now();
      await store.warn(call(5), SLOT, { at: first, requestId: 'req-1' }, ALICE);
      await elapse(1_000);
      await store.warn(call(5), SLOT, { at: now(), requestId: 'req-2' }, ALICE);
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
      expect(await store.warn(call(5), SLOT, { at: now() }, ALICE)).toEqual({ ok: false, why: 'in_flight', inFlight: { since } });
      expect(await store.take(call(5), SLOT)).toEqual({ ok: false, why: 'in_flight', inFlight: { since } });
      // Other arguments are another call.
      expect(await store.inFlight(call(6))).toBeUndefined();
      expect(await store.warn(call(6), SLOT, { at: now() }, ALICE)).toEqual({ ok: true });
      expect(await store.take(call(6), SLOT)).toMatchObject({ ok: true });
    });

    it("says when the tool's latest pending warning was for other arguments", async () => {
      const { store, now } = await setup();
      await store.warn(call(5), SLOT, { at: now() }, ALICE);
      expect(await store.take(call(6), SLOT)).toEqual({ ok: false, why: 'no_warning', otherArguments: true });
      expect(await store.take(call(6), OTHER_TOOL_SLOT)).toEqual({ ok: false, why: 'no_warning', otherArguments: false });
      // Once that warning is used up, there is no other warning to point to.
      expect(await store.take(call(5), SLOT)).toMatchObject({ ok: true });
      expect(await store.take(call(6), SLOT)).toEqual({ ok: false, why: 'no_warning', otherArguments: false });
    });

    it('does not point to a warning for other arguments once it expired', async () => {
      const { store, now, elapse } = await setup();
      await store.warn(call(5), SLOT, { at: now() }, ALICE);
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

      it('clean: remembers what the call did for the window, for that call only', async () => {
        const harness = await setup();
        const { store, now, elapse } = harness;
        await inFlight(harness, call(5));
        await store.settle(call(5), { kind: 'clean', completed: { at: now(), summary: 'created campaign cmp_1' } });
        expect(await store.completed(call(5))).toEqual({ at: now(), summary: 'created campaign cmp_1' });
        expect(await store.completed(call(6))).toBeUndefined();
        expect(await store.completed(bobsCall(5))).toBeUndefined();
        // A repeated confirmation still finds no warning to take: the record only tells what was done.
        expect(await store.take(call(5), SLOT)).toEqual({ ok: false, why: 'no_warning', otherArguments: false });
        await elapse(CONFIRM_WINDOW_MS - 1_000);
        expect(await store.completed(call(5))).toMatchObject({ summary: 'created campaign cmp_1' });
        await elapse(1_001);
        expect(await store.completed(call(5))).toBeUndefined();
      });

      it('clean again: the newer completed call replaces the older; refused and unknown leave it as it was', async () => {
        const harness = await setup();
        const { store } = harness;
        await inFlight(harness, call(5));
        await store.settle(call(5), { kind: 'clean', completed: { at: 1, summary: 'created campaign cmp_1' } });
        await inFlight(harness, call(5));
        await store.settle(call(5), { kind: 'clean', completed: { at: 2, summary: 'created campaign cmp_2' } });
        await inFlight(harness, call(5));
        await store.settle(call(5), { kind: 'refused' });
        await inFlight(harness, call(5));
        await store.settle(call(5), { kind: 'unknown', record });
        expect(await store.completed(call(5))).toEqual({ at: 2, summary: 'created campaign cmp_2' });
        // A clean answer without a summary records nothing.
        await inFlight(harness, call(6));
        await store.settle(call(6), { kind: 'clean' });
        expect(await store.completed(call(6))).toBeUndefined();
      });

      it(`keeps at most ${MAX_SUMMARY_CHARS} characters of a completed call's summary`, async () => {
        const harness = await setup();
        await inFlight(harness, call(5));
        await harness.store.settle(call(5), { kind: 'clean', completed: { at: 1, summary: 'x'.repeat(10_000) } });
        expect((await harness.store.completed(call(5)))?.summary).toBe('x'.repeat(MAX_SUMMARY_CHARS));
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
      expect(await store.warn(call(5), SLOT, { at: now() }, ALICE)).toEqual({ ok: true });
    });

    it('does not mark a call by touching it when it is not in flight', async () => {
      const { store, now } = await setup();
      await store.touch(call(5));
      expect(await store.inFlight(call(5))).toBeUndefined();
      expect(await store.warn(call(5), SLOT, { at: now() }, ALICE)).toEqual({ ok: true });
    });

    const CLAIMED = { ok: true };
    const USED = { ok: false, why: 'used' };
    const FULL = { ok: false, why: 'full', claims: MAX_CLAIMS_PER_USER };

    it('claims a one-time token once, and forgets the claim after the window', async () => {
      const { store, elapse } = await setup();
      expect(await store.claimOnce('nonce-1', CONFIRM_WINDOW_MS, ALICE)).toEqual(CLAIMED);
      expect(await store.claimOnce('nonce-1', CONFIRM_WINDOW_MS, ALICE)).toEqual(USED);
      expect(await store.claimOnce('nonce-2', CONFIRM_WINDOW_MS, ALICE)).toEqual(CLAIMED);
      await elapse(CONFIRM_WINDOW_MS + 1);
      expect(await store.claimOnce('nonce-1', CONFIRM_WINDOW_MS, ALICE)).toEqual(CLAIMED);
    });

    it('forgets a claim after the shorter time it asked for', async () => {
      const { store, elapse } = await setup();
      expect(await store.claimOnce('nonce-1', 60_000, ALICE)).toEqual(CLAIMED);
      await elapse(59_000);
      expect(await store.claimOnce('nonce-1', 60_000, ALICE)).toEqual(USED);
      await elapse(2_000);
      expect(await store.claimOnce('nonce-1', 60_000, ALICE)).toEqual(CLAIMED);
    });

    it(`keeps at most ${MAX_CLAIMS_PER_USER} claims per user: beyond them that user is refused, never anyone else, until theirs expire`, async () => {
      const { store, elapse } = await setup();
      // A second apart: Redis's own clock moves on too while the claims are made, by far less.
      for (let i = 0; i < MAX_CLAIMS_PER_USER; i++) {
        await elapse(1_000);
        expect(await store.claimOnce(`alice-${i}`, CONFIRM_WINDOW_MS, ALICE), `claim ${i}`).toEqual(CLAIMED);
      }
      expect(await store.claimOnce('alice-over', CONFIRM_WINDOW_MS, ALICE)).toEqual(FULL);
      // Nothing of hers was pushed out to make room: a used claim still reads as used.
      expect(await store.claimOnce('alice-0', CONFIRM_WINDOW_MS, ALICE)).toEqual(USED);
      expect(await store.claimOnce('bob-1', CONFIRM_WINDOW_MS, BOB)).toEqual(CLAIMED);
      // Her oldest expires first, and frees room for one more.
      await elapse(CONFIRM_WINDOW_MS - (MAX_CLAIMS_PER_USER - 1) * 1_000 + 1);
      expect(await store.claimOnce('alice-over', CONFIRM_WINDOW_MS, ALICE)).toEqual(CLAIMED);
      expect(await store.claimOnce('alice-over-2', CONFIRM_WINDOW_MS, ALICE)).toEqual(FULL);
    });

    it(`keeps one user's ${DECLINED_ROUNDS} declined approval rounds to their own share: another user still gets a warning and confirms it once`, async () => {
      const { store, now } = await setup();
      const outcomes = new Map<string, number>();
      const count = (outcome: string) => outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      /** One round as the gate walks it: a warning, its form, and the answer "decline", which uses the warning up. */
      const declinedRound = async (i: number) => {
        const key = call(i);
        const nonce = `round-${i}`;
        const warned = await store.warn(key, SLOT, { at: now() }, ALICE);
        const bound = await store.bind(key, SLOT, nonce);
        const claimed = await store.claimOnce(nonce, CONFIRM_WINDOW_MS, ALICE);
        if (!warned.ok || !bound.ok) return count('no warning');
        if (!claimed.ok) return count(claimed.why === 'full' && claimed.claims === MAX_CLAIMS_PER_USER ? 'refused: full' : `refused: ${claimed.why}`);
        count((await store.take(key, SLOT, nonce)).ok ? 'declined' : 'not taken');
        await store.settle(key, { kind: 'refused' });
      };
      // Fewer rounds at once than a user's pending warnings, so none of them pushes out another's warning.
      const AT_ONCE = MAX_PENDING_PER_USER / 2;
      for (let first = 0; first < DECLINED_ROUNDS; first += AT_ONCE) await Promise.all(Array.from({ length: AT_ONCE }, (_, i) => declinedRound(first + i)));
      expect(MAX_CLAIMS_PER_USER).toBe(CLAIMS_PER_USER);
      expect(Object.fromEntries(outcomes)).toEqual({ declined: MAX_CLAIMS_PER_USER, 'refused: full': DECLINED_ROUNDS - MAX_CLAIMS_PER_USER });
      expect(await store.warn(bobsCall(1), BOB_SLOT, { at: now() }, BOB)).toEqual({ ok: true });
      expect(await store.take(bobsCall(1), BOB_SLOT)).toMatchObject({ ok: true });
      expect(await store.take(bobsCall(1), BOB_SLOT)).toMatchObject({ ok: false });
    });

    it('lets exactly one of ten concurrent claims of a token win', async () => {
      const { store } = await setup();
      const claims = await Promise.all(Array.from({ length: 10 }, () => store.claimOnce('nonce-1', CONFIRM_WINDOW_MS, ALICE)));
      expect(claims.filter((claim) => claim.ok)).toHaveLength(1);
      expect(claims.filter((claim) => !claim.ok && claim.why === 'used')).toHaveLength(9);
    });

    it('keeps warnings, slots and unknown outcomes for the window, and forgets them after it', async () => {
      const harness = await setup();
      const { store, now, elapse } = harness;
      const record: UnknownOutcome = { at: now(), what: 'the connection failed or dropped' };
      await inFlight(harness, call(7));
      await store.settle(call(7), { kind: 'unknown', record });
      await store.warn(call(5), SLOT, { at: now() }, ALICE);
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
