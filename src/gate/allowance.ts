import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Config } from '../config.js';
import { describeError, RefusedError } from '../errors.js';
import type { Log } from '../log.js';
import type { CallTrail } from '../observe/audit.js';
import { idText } from '../text.js';
import type { Cost, GatedTool, ToolContext, ToolResult, Warning } from '../tools/define.js';
import { money } from '../tools/format.js';
import { MAX_CALLS_PER_DAY, type AllowanceStore, type CountedCall, type Ledger, type Usage } from './allowance-store.js';
import { allowanceSentence, amountText, changeSentence, refusalText, untilText, type Limits, type Over } from './allowance-text.js';

/**
 * The daily limits (issue 28): a ceiling per user and UTC day on the new daily budget that confirmed
 * calls commit (a created campaign's budget, a resumed one's, a budget's increase), optionally one
 * for all users together, and a count of AI turns (builder chat messages, conflict resolutions).
 *
 * - Every warning of a counted tool shows the allowance in its cost line; a call that would go over
 *   is refused at the warning, before anyone is asked anything.
 * - Just before a confirmed call is sent (after the gate took its warning and any approval), its
 *   amount is reserved in one atomic step of the store, which refuses when it would go over: with
 *   Redis, one script across replicas, behind the gate's epoch check.
 * - A sure refusal (nothing sent, or a status the service documents as a refusal) releases the
 *   amount; a success keeps it, and so does an unknown outcome, which may have been spent. No later
 *   read releases it: a campaign found missing afterwards may still appear (the ad platform can
 *   time out after accepting it), so only the day's end gives it back.
 *
 * The day is the UTC day: it ends at the same moment for every user and replica, a person can be
 * told when it resets, and "today" in the audit trail is a date prefix. Its cost: a user may commit a
 * limit's worth just before midnight and again just after.
 *
 * Limits are read from the caller's configuration (ctx.config), so whatever narrows one caller's
 * configuration (a grant) narrows their limit.
 */

/** Refused because the call would go over a daily limit; the message lists the day's calls. */
export class OverLimitError extends RefusedError {
  override name = 'OverLimitError';
}

const DAY_MS = 86_400_000;

/** The UTC day of `ms`, as YYYY-MM-DD. */
export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** When the UTC day of `ms` ends (the next 00:00 UTC), in ms since epoch. */
export function dayEnd(ms: number): number {
  return (Math.floor(ms / DAY_MS) + 1) * DAY_MS;
}

type LimitSettings = Pick<Config, 'spendLimitDailyMicros' | 'spendLimitTotalDailyMicros' | 'creditTurnsDaily'>;

/** The limits a call of a tool with `cost` is held to, or undefined when none applies. */
export function limitsOf(cost: Cost, config: LimitSettings): Limits | undefined {
  const { spendLimitDailyMicros: user, spendLimitTotalDailyMicros: total, creditTurnsDaily: turns } = config;
  if (cost === 'money' && (user !== undefined || total !== undefined)) return { unit: 'micros', user, total };
  if (cost === 'credits' && turns !== undefined) return { unit: 'turns', user: turns };
  return undefined;
}

/** What a counted call does once it has an outcome. */
export interface Hold {
  /** A clean answer: the amount stays counted (and a created campaign's id is noted). */
  kept(result: ToolResult): Promise<void>;
  /** An unknown outcome: the amount stays counted, as it may have been spent. */
  unknown(): Promise<void>;
  /** Nothing was sent, or the service refused for sure: the amount is given back. */
  release(): Promise<void>;
}

/** A call that counts nothing (no limit applies, or it commits nothing). */
export const NO_HOLD: Hold = { kept: async () => undefined, unknown: async () => undefined, release: async () => undefined };

/** check_connection's line about the limits, and the same facts for scripts (DailyLimitsSchema). */
export interface AllowanceReport {
  text: string;
  facts?: z.infer<typeof DailyLimitsSchema>;
}

const Used = z.strictObject({ limit: z.number(), used: z.number(), left: z.number() });

/** check_connection's `daily_limits`: what each limit is, what is used of it today and what is left. */
export const DailyLimitsSchema = z
  .strictObject({
    day: z.string().describe('Today, UTC (YYYY-MM-DD).'),
    resets_at: z.string().describe('When the day ends: the next 00:00 UTC.'),
    spend: Used.optional().describe('Your new daily budget committed today, currency units.'),
    spend_all_users: Used.optional().describe("All users' together, currency units."),
    ai_turns: Used.optional().describe('Your AI turns today.'),
  })
  .describe('Set when a daily limit applies to you.');

export interface AllowanceDeps {
  store: AllowanceStore;
  now: () => number;
  log: Log;
  newId?: () => string;
}

export type Allowance = ReturnType<typeof createAllowance>;

export function createAllowance({ store, now, log, newId = randomUUID }: AllowanceDeps) {
  /**
   * The warning, its cost line telling the allowance, when a limit applies.
   * @throws OverLimitError when the call would go over; RefusedError when its amount is not known.
   */
  async function shown(tool: GatedTool, request: Record<string, unknown>, warning: Warning, ctx: ToolContext, user: string): Promise<Warning> {
    const limits = limitsOf(tool.cost, ctx.config);
    if (!limits) return warning;
    const amount = await amountOf(tool, request, ctx, limits, warning);
    const t = now();
    const usage = await store.usage({ user, unit: limits.unit, day: dayOf(t) });
    const over = overOf(limits, usage, amount);
    if (over) throw new OverLimitError(refusalText({ tool: tool.name, limits, over, usage, amount, now: t, resetsAt: dayEnd(t), stage: 'warning' }));
    return { ...warning, cost: `${warning.cost} ${allowanceSentence(limits, usage, amount)}` };
  }

  /**
   * Counts what the confirmed call commits, just before it is sent: atomically, refusing when it
   * would go over. A read it needs (a campaign's budget) that fails is a refusal: nothing was sent.
   * @throws OverLimitError; RefusedError when the amount cannot be read; the store's errors.
   */
  async function reserve(tool: GatedTool, request: Record<string, unknown>, ctx: ToolContext, user: string, trail: CallTrail): Promise<Hold> {
    const limits = limitsOf(tool.cost, ctx.config);
    if (!limits) return NO_HOLD;
    const amount = await amountOf(tool, request, ctx, limits);
    if (amount === 0) return NO_HOLD;
    const t = now();
    const ledger: Ledger = { user, unit: limits.unit, day: dayOf(t) };
    const call: CountedCall = { id: newId(), tool: tool.name, ...idsOf(request), amount, at: t, state: 'sending' };
    const reserved = await store.reserve({ ledger, call, limit: limits.user, totalLimit: limits.total, keepForMs: dayEnd(t) + DAY_MS - t });
    if (!reserved.ok) {
      const usage = await store.usage(ledger);
      throw new OverLimitError(refusalText({ tool: tool.name, limits, over: reserved.over, usage, amount, now: t, resetsAt: dayEnd(t), stage: 'confirm' }));
    }
    const counting = { day: ledger.day, unit: ledger.unit, counted: amount, ...(limits.user !== undefined ? { limit: limits.user } : {}) };
    await trail.counted('reserved', { ...counting, used: reserved.used });
    const logged = (what: string) => (error: unknown) => log.warn(`daily limit: could not record ${what} of a ${tool.name} call (${amountText(ledger.unit, amount)} stays counted): ${String(error)}`);
    return {
      kept: (result) => store.settle(ledger, call.id, 'done', call.campaign ?? createdCampaign(result)).catch(logged('the success')),
      unknown: () => store.settle(ledger, call.id, 'unknown').catch(logged('the unknown outcome')),
      release: async () => {
        const used = await store.release(ledger, call.id).catch(logged('the release'));
        if (typeof used === 'number') await trail.counted('released', { ...counting, used });
      },
    };
  }

  /** The allowance of the caller of `config` today, for check_connection; undefined when no limit applies. */
  async function report(user: string, config: LimitSettings): Promise<AllowanceReport | undefined> {
    const spend = limitsOf('money', config);
    const turns = limitsOf('credits', config);
    if (!spend && !turns) return undefined;
    const t = now();
    const resetsAt = dayEnd(t);
    try {
      const spent = spend && (await store.usage({ user, unit: 'micros', day: dayOf(t) }));
      const used = turns && (await store.usage({ user, unit: 'turns', day: dayOf(t) }));
      return reportOf(spend, spent, turns, used, t, resetsAt);
    } catch (error) {
      return { text: `Daily limits: set, but today's use could not be read (${error instanceof Error ? error.message : String(error)}).` };
    }
  }

  return { shown, reserve, report };
}

/**
 * The amount a call counts: one turn for a credit tool; for a money tool what it commits, from the
 * warning's own read when there is one, else read now.
 * @throws RefusedError when it is not known, or the read fails (nothing was sent).
 */
async function amountOf(tool: GatedTool, request: Record<string, unknown>, ctx: ToolContext, limits: Limits, warning?: Warning): Promise<number> {
  if (limits.unit === 'turns') return 1;
  let micros: number | undefined;
  try {
    micros = (warning?.commits ?? (await tool.gate.commits?.(request, ctx)))?.micros;
  } catch (error) {
    const why = describeError(error, tool.statusHints, ctx.config.timeoutMs)?.split('\n')[0] ?? 'an unexpected error';
    throw new RefusedError(
      `NOT SENT: just before sending, ${tool.name} reads the campaign's daily budget again to count it against the daily limit, and that read failed: ${why} Nothing was sent; call ${tool.name} again without confirm for a fresh warning.`,
      { cause: error },
    );
  }
  if (typeof micros === 'number' && Number.isSafeInteger(micros) && micros >= 0) return micros;
  throw new RefusedError(
    `Refused: the service did not give the daily budget this ${tool.name} call would commit, so it cannot be counted against the daily spending limit, and a limit never lets an amount it cannot count pass. Nothing was sent. ${changeSentence('micros', limits.user === undefined ? 'total' : 'user')}`,
  );
}

/** Which limit `amount` more would go over, if any. A call that commits nothing never does. */
function overOf(limits: Limits, usage: Usage, amount: number): Over | undefined {
  if (amount === 0) return undefined;
  if (limits.user !== undefined && usage.used + amount > limits.user) return 'user';
  if (limits.total !== undefined && usage.total + amount > limits.total) return 'total';
  if (usage.calls.length >= MAX_CALLS_PER_DAY) return 'calls';
  return undefined;
}

/** The app and campaign a call names: ids, shown as ids are. */
function idsOf(request: Record<string, unknown>): Pick<CountedCall, 'app' | 'campaign'> {
  const id = (value: unknown) => (typeof value === 'string' && value ? idText(value) : undefined);
  const app = id(request.app_id);
  const campaign = id(request.campaign_id);
  return { ...(app ? { app } : {}), ...(campaign ? { campaign } : {}) };
}

/** A created campaign's id, from the result's facts. */
function createdCampaign(result: ToolResult): string | undefined {
  const id = result.structured?.campaign_id;
  return typeof id === 'string' && id ? idText(id) : undefined;
}

/** check_connection's line: each limit with what is used and left today, and when the day ends. */
function reportOf(spend: Limits | undefined, spent: Usage | undefined, turns: Limits | undefined, used: Usage | undefined, now: number, resetsAt: number): AllowanceReport {
  const parts: string[] = [];
  const facts: NonNullable<AllowanceReport['facts']> = { day: dayOf(now), resets_at: new Date(resetsAt).toISOString() };
  const units = (micros: number) => micros / 1_000_000;
  if (spend && spent) {
    if (spend.user !== undefined) {
      const left = Math.max(0, spend.user - spent.used);
      parts.push(`new daily budget ${money(spent.used)} of your ${money(spend.user)} committed today (${money(left)} left)`);
      facts.spend = { limit: units(spend.user), used: units(spent.used), left: units(left) };
    }
    if (spend.total !== undefined) {
      const left = Math.max(0, spend.total - spent.total);
      parts.push(`${money(spent.total)} of this server's ${money(spend.total)} for all users together (${money(left)} left)`);
      facts.spend_all_users = { limit: units(spend.total), used: units(spent.total), left: units(left) };
    }
  }
  if (turns && used) {
    const left = Math.max(0, turns.user! - used.used);
    parts.push(`AI turns ${used.used} of your ${turns.user} (${left} left)`);
    facts.ai_turns = { limit: turns.user!, used: used.used, left };
  }
  return {
    text: `Daily limits (UTC day; it ends 00:00 UTC, ${untilText(resetsAt - now)}): ${parts.join('; ')}. Only the server's operator can change them.`,
    facts,
  };
}
