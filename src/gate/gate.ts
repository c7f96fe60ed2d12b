import { nodeCrypto } from '../node-crypto.js';
import type { Config } from '../config.js';
import {
  AnswerTooLargeError,
  ApiError,
  CancelledError,
  ConfigError,
  InputError,
  RefusedError,
  StateStoreUnavailableError,
  UnexpectedAnswerError,
  UnreachableError,
  reasonOf,
} from '../errors.js';
import type { Log } from '../log.js';
import { noAudit, refusalReason, type AuditTrail, type CallTrail, type RefusalReason } from '../observe/audit.js';
import { duration, quote, sanitize } from '../text.js';
import type { GatedTool, Refusal, ToolContext, ToolResult, Warning } from '../tools/define.js';
import { createAllowance, NO_HOLD, type Allowance, type Payer } from './allowance.js';
import { createMemoryAllowanceStore } from './allowance-store.js';
import { askInline, checkState, judgeAnswer, type ApprovalChannel, type AskApproval } from './approval.js';
import { doneView, warningView } from './card.js';
import { callKey, lastWarningSlot, scopeDigest } from './key.js';
import {
  CONFIRM_WINDOW_MS,
  HEARTBEAT_MS,
  MAX_PENDING_PER_USER,
  MAX_SUMMARY_CHARS,
  type Completed,
  type GateStore,
  type Settlement,
  type Taken,
  type UnknownOutcome,
} from './store.js';

/**
 * The two-step confirmation of every gated tool (money, credits, permanent deletes):
 * - only a call WITHOUT `confirm: true` creates a warning, and it sends nothing that writes;
 * - a call with `confirm: true` acts only by taking a pending warning for exactly its arguments,
 *   which it uses up: N such calls after one warning send one request, whatever N and timing;
 * - while a confirmed call runs, a warning or confirmation with the same arguments sends nothing;
 * - anything but a clean answer or a sure refusal (a tool's gate names the statuses its service
 *   documents as such) is an unknown outcome, named by the next warning;
 * - a clean answer is remembered for the window, so a repeated confirmation or warning says it was done;
 * - where a daily limit applies, warnings show the allowance and a confirmed call reserves its amount
 *   just before it is sent (gate/allowance.ts).
 * When the client can show forms, a confirmed call also needs a person's approval: a 2025-era client
 * is shown the form while the call holds its warning; a 2026-07-28 client gets the form back with
 * a signed single-use state bound to that one pending warning, and the warning is taken only when
 * the approved retry arrives (on any replica that shares the store). A store that loses records can
 * only make the gate refuse: nothing acts without consuming its own pending warning.
 */

export interface GateDeps {
  store: GateStore;
  now: () => number;
  config: Pick<Config, 'requireHumanConfirmation' | 'approvalTimeoutMs'>;
  log: Log;
  newRequestId?: () => string;
  /** Where every step of every gated call is recorded (observe/audit.ts); nowhere by default. */
  audit?: AuditTrail;
  /** The daily limits (gate/allowance.ts); by default counted in this process. */
  allowance?: Allowance;
  /** Runs `tick` every `ms` until the returned function is called: the in-flight heartbeat's timer; `everyUnref` by default. */
  every?: Every;
}

export type Every = (ms: number, tick: () => void) => () => void;

/** setInterval that never keeps the process alive on its own: a heartbeat is no reason to stay up. */
export const everyUnref: Every = (ms, tick) => {
  const timer = setInterval(tick, ms);
  timer.unref();
  return () => clearInterval(timer);
};

/**
 * The credential every gated tool sends (api/client.ts: each gated operation's `credential`), and so
 * the one a caller's gate scope is derived from: a request's other headers do not make another user.
 * test/gate/scope.test.ts checks that each gated tool's writes carry exactly this credential.
 */
export const GATED_CREDENTIAL = 'accessToken' as const;

/** Who is calling and how their client takes approvals. `scope` keeps users apart (gateScope of GATED_CREDENTIAL, key.ts). */
export interface Caller {
  scope: string;
  approval: ApprovalChannel;
  /** The caller's own redaction (their credentials), for the audit trail. */
  redact?: (text: string) => string;
  /**
   * Whose daily limits the call counts against (gate/allowance.ts): by default the scope's own. An
   * OAuth grant counts against its person's (and its own, if the person chose one at consent),
   * while its warnings and confirmations stay the grant's (`scope`).
   */
  payer?: Payer;
}

export type Gate = ReturnType<typeof createGate>;

export function createGate({
  store,
  now,
  config,
  log,
  newRequestId = () => nodeCrypto().randomUUID(),
  audit = noAudit,
  allowance = createAllowance({ store: createMemoryAllowanceStore({ now }), now, log }),
  every = everyUnref,
}: GateDeps) {
  /**
   * One call of a gated tool, with `confirm` taken out of `request`. Every step is recorded in the
   * audit trail; a refusal thrown before anything was sent is recorded with its reason.
   * @throws the tool's errors when nothing was sent or the service refused for sure.
   */
  async function call(
    tool: GatedTool,
    request: Record<string, unknown>,
    confirm: unknown,
    ctx: ToolContext,
    caller: Caller = { scope: '', approval: { kind: 'none' } },
  ): Promise<ToolResult | AskApproval> {
    const key = callKey(caller.scope, tool.name, request);
    const payer = caller.payer ?? { person: caller.scope };
    const trail = audit.call({ scope: caller.scope, person: payer.person, tool: tool.name, request, redact: caller.redact });
    try {
      return await decide(tool, request, confirm, ctx, { ...caller, payer }, key, trail);
    } catch (error) {
      if (!trail.ended) await trail.refused(refusalReason(error, trail.stage), error);
      throw error;
    }
  }

  async function decide(
    tool: GatedTool,
    request: Record<string, unknown>,
    confirm: unknown,
    ctx: ToolContext,
    caller: Caller & { payer: Payer },
    key: string,
    trail: CallTrail,
  ): Promise<ToolResult | AskApproval> {
    const slot = lastWarningSlot(caller.scope, tool.name);
    const user = scopeDigest(caller.scope);
    const { payer } = caller;
    if (config.requireHumanConfirmation && caller.approval.kind === 'none') {
      trail.stage = 'approval_required';
      const why = caller.approval.sessionless
        ? 'and over HTTP the server cannot send a form to a client on a 2025 protocol version (there is no session). Nothing was sent; use a client on protocol 2026-07-28, or this server over stdio.'
        : 'and this client cannot show approval forms, so it cannot approve costly calls. Nothing was sent; use a client that supports form elicitation.';
      throw new RefusedError(`${tool.name} needs a person's approval in a client form (APPMGMT_REQUIRE_HUMAN_CONFIRMATION=true), ${why}`);
    }
    trail.stage = 'local_check';
    tool.gate.check?.(request, ctx.config);
    if (confirm !== true) return warn(tool, request, ctx, key, slot, user, payer, trail, caller.approval.kind !== 'none');
    if (caller.approval.kind !== 'rounds') return act(tool, request, ctx, key, slot, caller.approval, trail, payer);
    const { retry } = caller.approval;
    if (!retry?.state) return askRound(tool, request, ctx, key, slot, trail, payer);
    trail.stage = 'approval_state';
    const state = checkState(retry.state, key, now(), config.approvalTimeoutMs);
    trail.stage = 'approval_reused';
    const claimed = await store.claimOnce(state.nonce, CONFIRM_WINDOW_MS, user);
    if (!claimed.ok && claimed.why === 'used') {
      throw new RefusedError('This approval was already used: an approval allows one call. Nothing was sent; call again without confirm to start over.');
    }
    if (!claimed.ok) {
      trail.stage = 'approval_limit';
      throw new RefusedError(
        `Refused: this user answered ${claimed.claims} approval ${claimed.claims === 1 ? 'form' : 'forms'} within the last 10 minutes, the most the server takes in that time. Nothing was sent; wait a few minutes, then call ${tool.name} again with confirm: true for a fresh form.`,
      );
    }
    // A warning can be declined once: the answer uses it up, so asking again needs a fresh warning
    // (issue 25: one warning declined round after round filled the store with claims).
    await answeredApproval(trail, () => judgeAnswer(retry.answer), async (refusal) => {
      if (!(await closeWarning(key, slot, state.nonce))) return refusal;
      return new RefusedError(`${refusal.message} The warning is closed: to ask again, call ${tool.name} without confirm for a fresh one.`);
    });
    // The take needs the warning this round was asked for, still pending: a store that forgot the
    // claim (or a newer warning for the same arguments) can only refuse.
    return act(tool, request, ctx, key, slot, { kind: 'none' }, trail, payer, state.nonce);
  }

  /**
   * Records a person's answer to an approval form: `judge` throws (a RefusedError) unless they
   * approved; `declined` may close what the answer refused, and says what to throw then.
   */
  async function answeredApproval(trail: CallTrail, judge: () => Promise<void> | void, declined?: (refusal: Error) => Promise<Error>): Promise<void> {
    try {
      await judge();
    } catch (error) {
      const refusal = error instanceof Error && declined ? await declined(error) : error;
      await trail.approvalAnswered(false, error instanceof Error ? error.message : undefined);
      throw refusal;
    }
    await trail.approvalAnswered(true);
  }

  /**
   * Uses up the warning bound to approval round `round`, sending nothing. False when there was none
   * to use up (a newer warning or form replaced it) or the store failed: the warning then stays as it is.
   */
  async function closeWarning(key: string, slot: string, round: string): Promise<boolean> {
    try {
      const taken = await store.take(key, slot, round);
      if (taken.ok) await settle(key, { kind: 'refused' });
      return taken.ok;
    } catch (error) {
      log.warn(`gate: could not close a declined warning: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    }
  }

  /** The first round of a 2026-07-28 approval: binds the pending warning to this round, and sends the form. */
  async function askRound(tool: GatedTool, request: Record<string, unknown>, ctx: ToolContext, key: string, slot: string, trail: CallTrail, payer: Payer): Promise<ToolResult | AskApproval> {
    const nonce = nodeCrypto().randomUUID();
    const ready = await store.bind(key, slot, nonce);
    if (!ready.ok) return notTaken(tool, ready, key, trail);
    trail.stage = 'warning_failed';
    const warning = await allowance.shown(tool, request, await tool.gate.warn(request, ctx), ctx, payer);
    await trail.approvalAsked(warning.cost);
    return { ask: { message: `${warning.action}. ${warning.cost}`, state: { key, nonce, at: now() } } };
  }

  async function warn(tool: GatedTool, request: Record<string, unknown>, ctx: ToolContext, key: string, slot: string, user: string, payer: Payer, trail: CallTrail, form: boolean): Promise<ToolResult> {
    const running = await store.inFlight(key);
    if (running) return refused(trail, 'in_flight', inFlightResult(tool, running.since));
    trail.stage = 'warning_failed';
    const warning = await allowance.shown(tool, request, await tool.gate.warn(request, ctx), ctx, payer);
    const earlier = await store.unknownOutcome(key);
    const done = await store.completed(key);
    const requestId = tool.gate.requestId ? (earlier?.requestId ?? newRequestId()) : undefined;
    const at = now();
    const recorded = await store.warn(key, slot, { at, ...(requestId ? { requestId } : {}) }, user);
    if (!recorded.ok) {
      return recorded.why === 'in_flight'
        ? refused(trail, 'in_flight', inFlightResult(tool, recorded.inFlight.since))
        : refused(trail, 'store_full', fullResult(tool, recorded.records));
    }
    await trail.warned(warning.cost, requestId);
    return { ...warningResult(tool, warning, earlier, done), view: warningView(tool, { request, warning, at, scoped: ctx.config.appId !== undefined, form }) };
  }

  async function act(
    tool: GatedTool,
    request: Record<string, unknown>,
    ctx: ToolContext,
    key: string,
    slot: string,
    approval: ApprovalChannel,
    trail: CallTrail,
    payer: Payer,
    round?: string,
  ): Promise<ToolResult> {
    // Before the warning is taken: a confirmation that cannot be recorded leaves it pending.
    await trail.confirmed();
    trail.stage = 'not_sent';
    const taken = await store.take(key, slot, round);
    if (!taken.ok) return notTaken(tool, taken, key, trail);
    const requestId = taken.pending.requestId;
    const stopHeartbeat = every(HEARTBEAT_MS, () => void store.touch(key).catch((error: unknown) => log.warn(`gate heartbeat failed: ${String(error)}`)));
    let hold = NO_HOLD;
    try {
      if (approval.kind === 'inline') {
        trail.stage = 'warning_failed';
        const warning = await allowance.shown(tool, request, await tool.gate.warn(request, ctx), ctx, payer);
        await trail.approvalAsked(warning.cost);
        await answeredApproval(trail, () => askInline(approval, `${warning.action}. ${warning.cost}`, ctx.signal, config.approvalTimeoutMs));
        trail.stage = 'not_sent';
      }
      hold = await allowance.reserve(tool, request, ctx, payer, trail);
      const result = await trail.sending(() => tool.run(request, requestId ? { ...ctx, requestId } : ctx));
      const summary = sanitize(tool.gate.done?.(result) ?? DONE_UNSAID, MAX_SUMMARY_CHARS);
      await trail.answered('success', { summary });
      await hold.kept(result);
      await settle(key, { kind: 'clean', completed: { at: now(), summary } });
      return doneView(tool, result.structured ? { ...result, structured: { confirmation_needed: false, ...result.structured } } : result, summary);
    } catch (error) {
      const refusal = error instanceof ApiError ? tool.gate.refusals?.[error.status] : undefined;
      if (error instanceof ApiError && refusal) {
        await trail.answered('refused', { status: error.status, summary: refusal.why, upstream: reasonOf(error.body) });
        await hold.release();
        await settle(key, { kind: 'refused' });
        return refusedResult(error, refusal);
      }
      if (sentNothing(error)) {
        // A sure refusal by the service is its answer; anything else stopped before sending (recorded by call).
        if (error instanceof ApiError && trail.sent) await trail.answered('refused', { status: error.status, upstream: reasonOf(error.body) });
        await hold.release();
        await settle(key, { kind: 'refused' });
        throw error;
      }
      const record: UnknownOutcome = { at: now(), what: unknownWhat(error, log, tool.name), ...(requestId ? { requestId } : {}) };
      await trail.answered('unknown', { status: error instanceof ApiError ? error.status : undefined, summary: record.what });
      await hold.unknown();
      await settle(key, { kind: 'unknown', record });
      return unknownResult(tool, record);
    } finally {
      stopHeartbeat();
    }
  }

  /**
   * Ends a call in the store. A store that fails here cannot change what already happened, so the
   * caller still gets the call's own outcome; the in-flight marker then expires by its TTL.
   */
  async function settle(key: string, settlement: Settlement): Promise<void> {
    await store.settle(key, settlement).catch((error: unknown) => log.warn(`gate: could not record the end of a call: ${error instanceof Error ? error.message : String(error)}`));
  }

  /** Why a confirmation took no warning; a call done cleanly within the window is named, so it is not repeated by mistake. */
  async function notTaken(tool: GatedTool, taken: Exclude<Taken, { ok: true }>, key: string, trail: CallTrail): Promise<ToolResult> {
    if (taken.why === 'in_flight') return refused(trail, 'in_flight', inFlightResult(tool, taken.inFlight.since));
    if (taken.why === 'other_round') return refused(trail, 'other_round', otherRoundResult(tool));
    const done = await store.completed(key);
    return done ? refused(trail, 'already_done', doneResult(tool, done)) : refused(trail, 'no_pending_warning', noWarningResult(tool, taken.otherArguments));
  }

  /** A refusal the gate answers with (not throws): recorded with its reason and the answer's own first sentence. */
  async function refused(trail: CallTrail, reason: RefusalReason, result: ToolResult): Promise<ToolResult> {
    await trail.refused(reason, new Error(result.text));
    return result;
  }

  return { call };
}

/** What a completed call did, for a tool whose gate does not say. */
const DONE_UNSAID = 'the service answered';

/** Errors that prove nothing happened: raised before sending (a store that did not answer, too), or a definite refusal by the service. */
function sentNothing(error: unknown): boolean {
  if (error instanceof InputError || error instanceof ConfigError || error instanceof RefusedError || error instanceof StateStoreUnavailableError) return true;
  return error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 409;
}

function unknownWhat(error: unknown, log: Log, tool: string): string {
  if (error instanceof UnreachableError) {
    return error.kind === 'timeout' ? `no whole answer within ${duration(error.timeoutMs ?? 0)}` : 'the connection failed or dropped';
  }
  if (error instanceof ApiError) return `the service answered ${error.status}`;
  if (error instanceof CancelledError) return 'the call was cancelled while the request was on its way';
  if (error instanceof UnexpectedAnswerError) return `the answer was not the expected one (${error.detail})`;
  if (error instanceof AnswerTooLargeError) return 'the answer was too large to read';
  log.error(`${tool} failed after its request may have gone out: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return 'an internal error after the request may have gone out';
}

const time = (ms: number) => new Date(ms).toISOString();

function warningResult(tool: GatedTool, warning: Warning, earlier: UnknownOutcome | undefined, done: Completed | undefined): ToolResult {
  const lines = ['CONFIRMATION NEEDED. Nothing was sent.'];
  if (done) lines.push(`ALREADY DONE: this exact call (same arguments) was carried out at ${time(done.at)}: ${done.summary}. Confirming this warning does it a SECOND time.`);
  if (earlier) {
    const check = tool.gate.requestId
      ? 'This attempt reuses its request id, so the service will not run it twice if the earlier one went through (it remembers the id for 10 minutes).'
      : 'Check whether it took effect before confirming again.';
    lines.push(`Earlier attempt: a confirmed call with these arguments at ${time(earlier.at)} ended with an unknown outcome (${earlier.what}). ${check}`);
  }
  lines.push(`${warning.action}.`, ...warning.details, `Cost: ${warning.cost}`);
  const attempts = [done ? `${time(done.at)}: done: ${done.summary}` : undefined, earlier ? `${time(earlier.at)}: ${earlier.what}` : undefined].filter(Boolean);
  const next = `Show this to the user; only if they agree, call ${tool.name} again with the same arguments plus confirm: true within 10 minutes.`;
  return {
    text: lines.join('\n'),
    next,
    structured: {
      confirmation_needed: true,
      action: warning.action,
      cost: warning.cost,
      ...(attempts.length ? { earlier_attempt: attempts.join('; ') } : {}),
    },
  };
}

function otherRoundResult(tool: GatedTool): ToolResult {
  return {
    isError: true,
    text: 'NOT SENT: this approval was given for an earlier warning or form of these arguments; a newer warning or form replaced it, and an approval acts only on the one it was asked for.',
    next: `Call ${tool.name} again with confirm: true to get a fresh form for the pending warning, or without confirm for a fresh warning.`,
  };
}

function fullResult(tool: GatedTool, records: number): ToolResult {
  return {
    isError: true,
    text: `NOT RECORDED: the confirmation gate's store is full (${records} records, a cap that protects every user's pending warnings), so no warning was recorded and nothing was sent. Each user keeps at most ${MAX_PENDING_PER_USER} pending warnings; records expire within 10 minutes.`,
    next: `Try ${tool.name} again in a few minutes; if this persists, tell the server's operator.`,
  };
}

function inFlightResult(tool: GatedTool, since: number): ToolResult {
  return {
    isError: true,
    text: `NOT SENT: an identical ${tool.name} call (same arguments) has been running since ${time(since)}.`,
    next: 'Wait for that call to answer; do not repeat it.',
  };
}

function noWarningResult(tool: GatedTool, otherArguments: boolean): ToolResult {
  const other = otherArguments ? ' The latest warning of this tool was for other arguments.' : '';
  return {
    isError: true,
    text: `NOT SENT: confirm: true needs a pending warning for exactly these arguments, and there is none (a warning allows one call and expires after 10 minutes).${other}`,
    next: `Call ${tool.name} again without confirm to get a fresh warning, and show it to the user.`,
  };
}

/**
 * A confirmation repeated after the call was done: says what was done, when, that nothing was sent
 * now, and that starting over would do it a second time (a model that thinks the first call failed
 * must not be led to a second campaign).
 */
function doneResult(tool: GatedTool, done: Completed): ToolResult {
  const at = time(done.at);
  return {
    isError: true,
    text: `NOT SENT: this exact call (same arguments) was already carried out at ${at}: ${done.summary}. Nothing was sent now. Calling ${tool.name} again without confirm starts a NEW, second one: a fresh warning, and once confirmed it is done again.`,
    next: `Tell the user it was done at ${at} (${done.summary}); do not call ${tool.name} again unless they want it done a second time.`,
  };
}

/** A status the tool's service documents as a sure refusal: nothing changed, and which refusal it was. */
function refusedResult(error: ApiError, refusal: Refusal): ToolResult {
  const reason = reasonOf(error.body);
  return {
    isError: true,
    text: `REFUSED (${error.status}): ${refusal.why}. Nothing changed.${reason ? ` The service said: ${quote(reason, 300)}` : ''}`,
    next: refusal.next,
  };
}

function unknownResult(tool: GatedTool, record: UnknownOutcome): ToolResult {
  const repeat = tool.gate.requestId
    ? 'A repeat is safe only through a fresh warning: it reuses the same request id, which the service deduplicates for 10 minutes.'
    : 'Do not simply call again: a new attempt needs a fresh warning and confirmation.';
  return {
    isError: true,
    text: `OUTCOME UNKNOWN: ${record.what}. ${tool.gate.unknownOutcome} ${repeat}`,
    next: `Check as described above before calling ${tool.name} again without confirm.`,
  };
}
