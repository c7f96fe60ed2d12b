import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RefusedError } from '../../src/errors.js';
import type { ApprovalState, AskApproval, FormAnswer } from '../../src/gate/approval.js';
import { createGate, type Caller } from '../../src/gate/gate.js';
import { CONFIRM_WINDOW_MS, createMemoryStore } from '../../src/gate/store.js';
import { silentLog } from '../../src/log.js';
import { defineTool, type GatedTool, type ToolResult } from '../../src/tools/define.js';
import { gateToolContext } from './context.js';

/**
 * The 2026-07-28 approval: a confirmed call first comes back with a form and a state; only the
 * retry carrying an approval and that state acts, once. What a client may forge is checked here;
 * the signature of the state is the SDK codec's (test/http covers a tampered state end to end).
 */

const APPROVE: FormAnswer = { action: 'accept', content: { approve: true } };
const TIMEOUT_MS = 60_000;

/** A small per-user cap on answered forms, so the test reaches it. */
const CLAIMS = 3;

function setup(options: { maxClaimsPerUser?: number } = {}) {
  const now = { t: 5_000_000 };
  const sent: unknown[] = [];
  const tool = defineTool({
    name: 'spend_money',
    title: 'Spend Money',
    description: 'A test tool that spends money.',
    input: { amount: z.number().describe('How much.') },
    output: { done: z.boolean() },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    cost: 'money',
    gate: { warn: (args) => ({ action: `Spend ${args.amount}`, cost: `${args.amount} units`, details: [] }), unknownOutcome: 'Unknown.' },
    async run(args) {
      sent.push(args);
      return { text: 'Spent.', next: 'Nothing more is needed.', structured: { done: true } };
    },
  }) as unknown as GatedTool;
  const store = createMemoryStore({ now: () => now.t, ...options });
  const gate = createGate({ store, now: () => now.t, config: { requireHumanConfirmation: true, approvalTimeoutMs: TIMEOUT_MS }, log: silentLog });
  const ctx = gateToolContext(() => now.t);
  const as = (scope: string, retry?: { state: unknown; answer: FormAnswer | undefined }): Caller => ({
    scope,
    approval: { kind: 'rounds', ...(retry ? { retry } : {}) },
  });
  const warn = async (amount: number, scope = 'alice') => gate.call(tool, { amount }, undefined, ctx, as(scope));
  const confirm = (amount: number, scope = 'alice', retry?: { state: unknown; answer: FormAnswer | undefined }) =>
    gate.call(tool, { amount }, true, ctx, as(scope, retry));
  /** The first round: must be a form, with the exact amount in its message. */
  async function ask(amount: number, scope = 'alice'): Promise<ApprovalState> {
    const first = await confirm(amount, scope);
    expect(first).toHaveProperty('ask');
    expect((first as AskApproval).ask.message).toBe(`Spend ${amount}. ${amount} units`);
    return (first as AskApproval).ask.state;
  }
  return { gate, store, tool, sent, now, warn, confirm, ask };
}

const result = (value: ToolResult | AskApproval) => {
  expect(value).not.toHaveProperty('ask');
  return value as ToolResult;
};

describe('approval in rounds (protocol 2026-07-28)', () => {
  it('sends nothing in the first round and acts once on the approved retry', async () => {
    const t = setup();
    await t.warn(5);
    const state = await t.ask(5);
    expect(t.sent).toHaveLength(0);
    const done = result(await t.confirm(5, 'alice', { state, answer: APPROVE }));
    expect(done.structured).toEqual({ confirmation_needed: false, done: true });
    expect(t.sent).toEqual([{ amount: 5 }]);
  });

  it('asks for nothing when there is no warning to act on', async () => {
    const t = setup();
    const first = result(await t.confirm(5));
    expect(first.isError).toBe(true);
    expect(first.text).toMatch(/^NOT SENT: confirm: true needs a pending warning/);
  });

  it('refuses a replayed state: one approval allows one call', async () => {
    const t = setup();
    await t.warn(5);
    const state = await t.ask(5);
    result(await t.confirm(5, 'alice', { state, answer: APPROVE }));
    await t.warn(5); // a fresh warning does not revive the used approval
    await expect(t.confirm(5, 'alice', { state, answer: APPROVE })).rejects.toThrow(/already used.*Nothing was sent/);
    expect(t.sent).toHaveLength(1);
  });

  it('binds an approval to its warning: a newer warning for the same arguments does not revive it', async () => {
    const t = setup();
    await t.warn(5);
    const state = await t.ask(5);
    await t.warn(5); // replaces the warning the form was asked for
    const stale = result(await t.confirm(5, 'alice', { state, answer: APPROVE }));
    expect(stale.isError).toBe(true);
    expect(stale.text).toMatch(/^NOT SENT: this approval was given for an earlier warning or form of these arguments/);
    expect(t.sent).toHaveLength(0);
    // A fresh round for the pending warning still works.
    result(await t.confirm(5, 'alice', { state: await t.ask(5), answer: APPROVE }));
    expect(t.sent).toEqual([{ amount: 5 }]);
  });

  it('sends exactly one request for ten approved retries of one warning', async () => {
    const t = setup();
    await t.warn(5);
    const states = await Promise.all(Array.from({ length: 10 }, () => t.ask(5)));
    const outcomes = await Promise.allSettled(states.map((state) => t.confirm(5, 'alice', { state, answer: APPROVE })));
    expect(t.sent).toHaveLength(1);
    const acted = outcomes.filter((outcome) => outcome.status === 'fulfilled' && !(outcome.value as ToolResult).isError);
    expect(acted).toHaveLength(1);
  });

  it("refuses another user's state, and another call's state", async () => {
    const t = setup();
    await t.warn(5, 'alice');
    await t.warn(5, 'bob');
    await t.warn(6, 'alice');
    const alices = await t.ask(5, 'alice');
    await expect(t.confirm(5, 'bob', { state: alices, answer: APPROVE })).rejects.toThrow(/belongs to another call.*Nothing was sent/);
    await expect(t.confirm(6, 'alice', { state: alices, answer: APPROVE })).rejects.toThrow(/belongs to another call/);
    await expect(t.confirm(5, 'alice', { state: { ...alices, key: 'x'.repeat(64) }, answer: APPROVE })).rejects.toThrow(RefusedError);
    expect(t.sent).toHaveLength(0);
  });

  it('refuses an approval that comes back after APPMGMT_APPROVAL_TIMEOUT_MS', async () => {
    const t = setup();
    await t.warn(5);
    const state = await t.ask(5);
    t.now.t += TIMEOUT_MS + 1;
    await expect(t.confirm(5, 'alice', { state, answer: APPROVE })).rejects.toThrow(/^Nobody answered the approval form within 1 min/);
    expect(t.sent).toHaveLength(0);
  });

  for (const answer of [
    { action: 'decline' },
    { action: 'cancel' },
    { action: 'accept', content: { approve: false } },
    { action: 'accept', content: { approve: 'true' } },
    { action: 'accept', content: { approve: true, extra: 1 } },
    undefined,
  ]) {
    it(`sends nothing for the answer ${JSON.stringify(answer)}, and closes the warning: asking again needs a fresh one`, async () => {
      const t = setup();
      await t.warn(5);
      await expect(t.confirm(5, 'alice', { state: await t.ask(5), answer })).rejects.toThrow(
        /did not approve.*Nothing was sent\. The warning is closed: to ask again, call spend_money without confirm for a fresh one\.$/,
      );
      expect(t.sent).toHaveLength(0);
      const again = result(await t.confirm(5));
      expect(again.text).toMatch(/^NOT SENT: confirm: true needs a pending warning/);
      await t.warn(5);
      result(await t.confirm(5, 'alice', { state: await t.ask(5), answer: APPROVE }));
      expect(t.sent).toEqual([{ amount: 5 }]);
    });
  }

  it('leaves the warning of a newer form open when an older form is declined', async () => {
    const t = setup();
    await t.warn(5);
    const older = await t.ask(5);
    const newer = await t.ask(5);
    await expect(t.confirm(5, 'alice', { state: older, answer: { action: 'decline' } })).rejects.toThrow(/^The user did not approve \(declined\)\. Nothing was sent\.$/);
    result(await t.confirm(5, 'alice', { state: newer, answer: APPROVE }));
    expect(t.sent).toHaveLength(1);
  });

  it(`refuses a user past ${CLAIMS} answered forms in the window with a sentence saying so, and no one else`, async () => {
    const t = setup({ maxClaimsPerUser: CLAIMS });
    for (let amount = 1; amount <= CLAIMS; amount++) {
      await t.warn(amount);
      await expect(t.confirm(amount, 'alice', { state: await t.ask(amount), answer: { action: 'decline' } })).rejects.toThrow(/did not approve/);
    }
    await t.warn(99);
    await expect(t.confirm(99, 'alice', { state: await t.ask(99), answer: APPROVE })).rejects.toThrow(
      /^Refused: this user answered 3 approval forms within the last 10 minutes, the most the server takes in that time\. Nothing was sent; wait a few minutes/,
    );
    await t.warn(99, 'bob');
    result(await t.confirm(99, 'bob', { state: await t.ask(99, 'bob'), answer: APPROVE }));
    expect(t.sent).toEqual([{ amount: 99 }]);
    // Once her claims expire, she can answer forms again.
    t.now.t += CONFIRM_WINDOW_MS + 1;
    await t.warn(99);
    result(await t.confirm(99, 'alice', { state: await t.ask(99), answer: APPROVE }));
    expect(t.sent).toHaveLength(2);
  });
});
