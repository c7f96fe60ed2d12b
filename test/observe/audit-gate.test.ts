import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RefusedError, StateStoreUnavailableError } from '../../src/errors.js';
import type { AskApproval, FormAnswer } from '../../src/gate/approval.js';
import { createGate, type Caller } from '../../src/gate/gate.js';
import { StateStoreAmnesiaError } from '../../src/gate/redis-store.js';
import { createMemoryStore } from '../../src/gate/store.js';
import { silentLog } from '../../src/log.js';
import { auditUser, createAuditTrail } from '../../src/observe/audit.js';
import { defineTool, type GatedTool } from '../../src/tools/define.js';
import { memorySink } from './audit-support.js';
import { gateToolContext } from '../gate/context.js';

/**
 * The gate's steps as the trail records them, where the end-to-end tests cannot easily reach:
 * approval forms (both eras), the tool's own check, and a store that fails or forgot.
 */

const APPROVE: FormAnswer = { action: 'accept', content: { approve: true } };

function setup(requireHumanConfirmation = false, storeOptions: { maxClaimsPerUser?: number } = {}) {
  const now = { t: 7_000_000 };
  const sent: unknown[] = [];
  const tool = defineTool({
    name: 'spend_money',
    title: 'Spend Money',
    description: 'A test tool that spends money.',
    input: { amount: z.number().describe('How much.'), app_id: z.string().optional().describe('App.') },
    output: { done: z.boolean() },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    cost: 'money',
    gate: {
      check: (args) => {
        if (args.amount > 100) throw new RefusedError('Refused: above the cap of 100. Nothing was sent.');
      },
      warn: (args) => ({ action: `Spend ${args.amount}`, cost: `${args.amount} units`, details: [] }),
      unknownOutcome: 'Unknown.',
    },
    async run(args) {
      sent.push(args);
      return { text: 'Spent.', next: 'Nothing more is needed.', structured: { done: true } };
    },
  }) as unknown as GatedTool;
  const store = createMemoryStore({ now: () => now.t, ...storeOptions });
  const trail = memorySink();
  const audit = createAuditTrail({ sink: trail.sink, now: () => now.t, redact: (text) => text, log: silentLog });
  const gate = createGate({ store, now: () => now.t, config: { requireHumanConfirmation, approvalTimeoutMs: 60_000 }, log: silentLog, audit });
  const ctx = gateToolContext(() => now.t);
  const steps = () => trail.parsed().map((line) => `${line.step}:${line.outcome}${line.reason ? `:${line.reason}` : ''}`);
  return { tool, store, trail, gate, ctx, sent, steps };
}

describe('the gate in the audit trail', () => {
  it('records an inline approval asked and declined, and no request', async () => {
    const { tool, gate, ctx, sent, steps, trail } = setup(true);
    const caller: Caller = { scope: 'alice', approval: { kind: 'inline', showForm: async () => ({ action: 'decline' }) } };
    await gate.call(tool, { amount: 5 }, undefined, ctx, caller);
    await expect(gate.call(tool, { amount: 5 }, true, ctx, caller)).rejects.toThrow(/did not approve \(declined\)/);
    expect(sent).toEqual([]);
    expect(steps()).toEqual(['warned:pending', 'confirmed:pending', 'approval_asked:pending', 'approval_answered:declined']);
    expect(trail.parsed()[2]).toMatchObject({ cost: '5 units', user: auditUser('alice') });
  });

  it('records approval rounds: asked, approved, answered; then a reused approval and another call’s state refused', async () => {
    const { tool, gate, ctx, sent, steps } = setup(true);
    const as = (retry?: { state: unknown; answer: FormAnswer | undefined }): Caller => ({ scope: 'alice', approval: { kind: 'rounds', ...(retry ? { retry } : {}) } });
    await gate.call(tool, { amount: 5 }, undefined, ctx, as());
    const { state } = ((await gate.call(tool, { amount: 5 }, true, ctx, as())) as AskApproval).ask;
    await gate.call(tool, { amount: 5 }, true, ctx, as({ state, answer: APPROVE }));
    await expect(gate.call(tool, { amount: 5 }, true, ctx, as({ state, answer: APPROVE }))).rejects.toThrow(/already used/);
    await expect(gate.call(tool, { amount: 6 }, true, ctx, as({ state, answer: APPROVE }))).rejects.toThrow(/another call/);
    expect(sent).toHaveLength(1);
    expect(steps()).toEqual([
      'warned:pending',
      'approval_asked:pending',
      'approval_answered:approved',
      'confirmed:pending',
      'answered:success', // this tool's run sends through no API client: no `sent` line (audit.test.ts has them)
      'refused:refused:approval_reused',
      'refused:refused:approval_state',
    ]);
  });

  it('records a declined round, which closes its warning, and a user past the limit of answered forms, by its reason', async () => {
    const { tool, gate, ctx, sent, steps } = setup(true, { maxClaimsPerUser: 1 });
    const as = (retry?: { state: unknown; answer: FormAnswer | undefined }): Caller => ({ scope: 'alice', approval: { kind: 'rounds', ...(retry ? { retry } : {}) } });
    const ask = async (amount: number) => ((await gate.call(tool, { amount }, true, ctx, as())) as AskApproval).ask.state;
    await gate.call(tool, { amount: 5 }, undefined, ctx, as());
    await expect(gate.call(tool, { amount: 5 }, true, ctx, as({ state: await ask(5), answer: { action: 'decline' } }))).rejects.toThrow(/The warning is closed/);
    expect(await gate.call(tool, { amount: 5 }, true, ctx, as())).toMatchObject({ isError: true });
    await gate.call(tool, { amount: 6 }, undefined, ctx, as());
    await expect(gate.call(tool, { amount: 6 }, true, ctx, as({ state: await ask(6), answer: APPROVE }))).rejects.toThrow(/answered 1 approval form within/);
    expect(sent).toEqual([]);
    expect(steps()).toEqual([
      'warned:pending',
      'approval_asked:pending',
      'approval_answered:declined',
      'refused:refused:no_pending_warning',
      'warned:pending',
      'approval_asked:pending',
      'refused:refused:approval_limit',
    ]);
  });

  it("records the tool's own check, a store that does not answer, and one that lost its memory, each by its reason", async () => {
    const { tool, gate, ctx, store, steps, trail } = setup();
    const caller: Caller = { scope: 'bob', approval: { kind: 'none' } };
    await expect(gate.call(tool, { amount: 500, app_id: 'app_1' }, undefined, ctx, caller)).rejects.toThrow(/above the cap/);
    store.inFlight = () => Promise.reject(new StateStoreUnavailableError('the connection to Redis dropped'));
    await expect(gate.call(tool, { amount: 5 }, undefined, ctx, caller)).rejects.toThrow(StateStoreUnavailableError);
    store.take = () => Promise.reject(new StateStoreAmnesiaError(1_000, 2_000));
    await expect(gate.call(tool, { amount: 5 }, true, ctx, caller)).rejects.toThrow(StateStoreAmnesiaError);
    expect(steps()).toEqual(['refused:refused:local_check', 'refused:refused:store_unavailable', 'confirmed:pending', 'refused:refused:store_amnesia']);
    expect(trail.parsed()[0]).toMatchObject({ app: 'app_1', summary: 'Refused: above the cap of 100. Nothing was sent.' });
  });
});
