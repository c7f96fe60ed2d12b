import { nodeCrypto } from '../node-crypto.js';
import { z } from 'zod';
import type { Config } from '../config.js';
import { describeError, RefusedError } from '../errors.js';
import type { Log } from '../log.js';
import type { CallTrail } from '../observe/audit.js';
import { idText } from '../text.js';
import type { Cost, GatedTool, ToolContext, ToolResult, Warning } from '../tools/define.js';
import { money } from '../tools/format.js';
import { MAX_CALLS_PER_DAY, type AllowanceStore, type Books, type CountedCall } from './allowance-store.js';
import { allowanceSentence, amountText, changeSentence, refusalText, untilText, type Limits, type Over, type Tally } from './allowance-text.js';
import { scopeDigest } from './key.js';

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
 * The operator's limits are read from the caller's configuration (ctx.config). They count per
 * person: the service token's gate scope, the same whether the person sends it in a header or gave
 * it at consent, so connecting twice does not give anyone the limit twice. A grant may carry lower
 * limits the person chose at consent; those count per grant, in a ledger of the grant's own, in the
 * same atomic step. The lower one binds.
 */

/** Refused because the call would go over a daily limit (`over` says which); the message lists the day's calls. */
export class OverLimitError extends RefusedError {
  override name = 'OverLimitError';
  constructor(
    readonly over: Over,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Whose ledgers a call counts in. `person`: the scope the operator's per-user limits count per (the
 * gate scope of the service token, gate/key.ts gateScope, however the person connects). `grant`: an
 * OAuth grant, with the limits its person chose for it at consent.
 */
export interface Payer {
  person: string;
  grant?: { scope: string; spendMicros?: number | undefined; turns?: number | undefined } | undefined;
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

/** The limits a call of a tool with `cost` is held to (the operator's, and a grant's own), or undefined when none applies. */
export function limitsOf(cost: Cost, config: LimitSettings, grant?: Payer['grant']): Limits | undefined {
  const { spendLimitDailyMicros: user, spendLimitTotalDailyMicros: total, creditTurnsDaily: turns } = config;
  const viaGrant = grant !== undefined;
  if (cost === 'money' && (user !== undefined || total !== undefined || grant?.spendMicros !== undefined)) return { unit: 'micros', user, total, grant: grant?.spendMicros, viaGrant };
  if (cost === 'credits' && (turns !== undefined || grant?.turns !== undefined)) return { unit: 'turns', user: turns, grant: grant?.turns, viaGrant };
  return undefined;
}

/** The ledgers of `payer` for `unit` on `day`: the person's, and the grant's when it has a limit of its own. */
function booksOf(payer: Payer, limits: Limits, day: string): Books {
  const ledger = (scope: string) => ({ user: scopeDigest(scope), unit: limits.unit, day });
  return { ledger: ledger(payer.person), grant: limits.grant !== undefined && payer.grant ? ledger(payer.grant.scope) : undefined };
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
    spend_this_connection: Used.optional().describe("This connection's, against the limit chosen when connecting, currency units."),
    ai_turns: Used.optional().describe('Your AI turns today.'),
    ai_turns_this_connection: Used.optional().describe("This connection's AI turns today, against the limit chosen when connecting."),
  })
  .describe('Set when a daily limit applies to you.');

export interface AllowanceDeps {
  store: AllowanceStore;
  now: () => number;
  log: Log;
  newId?: () => string;
}

export type Allowance = ReturnType<typeof createAllowance>;

export function createAllowance({ store, now, log, newId = () => nodeCrypto().randomUUID() }: AllowanceDeps) {
  /**
   * The warning, its cost line telling the allowance, when a limit applies.
   * @throws OverLimitError when the call would go over; RefusedError when its amount is not known.
   */
  async function shown(tool: GatedTool, request: Record<string, unknown>, warning: Warning, ctx: ToolContext, payer: Payer): Promise<Warning> {
    const limits = limitsOf(tool.cost, ctx.config, payer.grant);
    if (!limits) return warning;
    const amount = await amountOf(tool, request, ctx, limits, warning);
    const t = now();
    const tally = await tallyOf(booksOf(payer, limits, dayOf(t)));
    const over = overOf(limits, tally, amount);
    if (over) throw new OverLimitError(over, refusalText({ tool: tool.name, limits, over, tally, amount, now: t, resetsAt: dayEnd(t), stage: 'warning' }));
    return { ...warning, cost: `${warning.cost} ${allowanceSentence(limits, tally, amount)}` };
  }

  /** Today's use in `books`. */
  async function tallyOf(books: Books): Promise<Tally> {
    const [user, grant] = await Promise.all([store.usage(books.ledger), books.grant && store.usage(books.grant)]);
    return { user, grant };
  }

  /**
   * Counts what the confirmed call commits, just before it is sent: atomically, refusing when it
   * would go over. A read it needs (a campaign's budget) that fails is a refusal: nothing was sent.
   * @throws OverLimitError; RefusedError when the amount cannot be read; the store's errors.
   */
  async function reserve(tool: GatedTool, request: Record<string, unknown>, ctx: ToolContext, payer: Payer, trail: CallTrail): Promise<Hold> {
    const limits = limitsOf(tool.cost, ctx.config, payer.grant);
    if (!limits) return NO_HOLD;
    const amount = await amountOf(tool, request, ctx, limits);
    if (amount === 0) return NO_HOLD;
    const t = now();
    const books = booksOf(payer, limits, dayOf(t));
    const call: CountedCall = { id: newId(), tool: tool.name, ...idsOf(request), amount, at: t, state: 'sending' };
    const reserved = await store.reserve({ ...books, call, limit: limits.user, grantLimit: limits.grant, totalLimit: limits.total, keepForMs: dayEnd(t) + DAY_MS - t });
    if (!reserved.ok) {
      const tally = await tallyOf(books);
      throw new OverLimitError(reserved.over, refusalText({ tool: tool.name, limits, over: reserved.over, tally, amount, now: t, resetsAt: dayEnd(t), stage: 'confirm' }));
    }
    const counting = {
      day: books.ledger.day,
      unit: limits.unit,
      counted: amount,
      ...(limits.user !== undefined ? { limit: limits.user } : {}),
      ...(limits.grant !== undefined ? { grant_limit: limits.grant } : {}),
    };
    const grantUsed = (sums: { grantUsed?: number }) => (sums.grantUsed !== undefined ? { grant_used: sums.grantUsed } : {});
    await trail.counted('reserved', { ...counting, used: reserved.used, ...grantUsed(reserved) });
    const logged = (what: string) => (error: unknown) => log.warn(`daily limit: could not record ${what} of a ${tool.name} call (${amountText(limits.unit, amount)} stays counted): ${String(error)}`);
    return {
      kept: (result) => store.settle(books, call.id, 'done', call.campaign ?? createdCampaign(result)).catch(logged('the success')),
      unknown: () => store.settle(books, call.id, 'unknown').catch(logged('the unknown outcome')),
      release: async () => {
        const released = await store.release(books, call.id).catch(logged('the release'));
        if (released) await trail.counted('released', { ...counting, used: released.used, ...grantUsed(released) });
      },
    };
  }

  /** The allowance of `payer` under `config` today, for check_connection; undefined when no limit applies. */
  async function report(payer: Payer, config: LimitSettings): Promise<AllowanceReport | undefined> {
    const spend = limitsOf('money', config, payer.grant);
    const turns = limitsOf('credits', config, payer.grant);
    if (!spend && !turns) return undefined;
    const t = now();
    const resetsAt = dayEnd(t);
    try {
      const spent = spend && (await tallyOf(booksOf(payer, spend, dayOf(t))));
      const used = turns && (await tallyOf(booksOf(payer, turns, dayOf(t))));
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
    `Refused: the service did not give the daily budget this ${tool.name} call would commit, so it cannot be counted against the daily spending limit, and a limit never lets an amount it cannot count pass. Nothing was sent. ${changeSentence('micros', limits.user !== undefined ? 'user' : limits.total !== undefined ? 'total' : 'grant', limits.viaGrant)}`,
  );
}

/**
 * Which limit `amount` more would go over, if any, in the store's order: the operator's first, so a
 * refusal never suggests connecting again when that would not help. A call that commits nothing never does.
 */
function overOf(limits: Limits, tally: Tally, amount: number): Over | undefined {
  if (amount === 0) return undefined;
  const { user, grant } = tally;
  if (limits.user !== undefined && user.used + amount > limits.user) return 'user';
  if (limits.total !== undefined && user.total + amount > limits.total) return 'total';
  if (limits.grant !== undefined && (grant?.used ?? 0) + amount > limits.grant) return 'grant';
  if (user.calls.length >= MAX_CALLS_PER_DAY || (grant?.calls.length ?? 0) >= MAX_CALLS_PER_DAY) return 'calls';
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
function reportOf(spend: Limits | undefined, spent: Tally | undefined, turns: Limits | undefined, used: Tally | undefined, now: number, resetsAt: number): AllowanceReport {
  const parts: string[] = [];
  const facts: NonNullable<AllowanceReport['facts']> = { day: dayOf(now), resets_at: new Date(resetsAt).toISOString() };
  if (spend && spent) parts.push(...unitParts(spend, spent, facts));
  if (turns && used) parts.push(...unitParts(turns, used, facts));
  const chosen = spend?.grant !== undefined || turns?.grant !== undefined;
  const who = chosen
    ? "Only the server's operator can change the server's limits; the person chose this connection's when connecting, and can connect again to choose others."
    : "Only the server's operator can change them.";
  return { text: `Daily limits (UTC day; it ends 00:00 UTC, ${untilText(resetsAt - now)}): ${parts.join('; ')}. ${who}`, facts };
}

/** One unit's parts of check_connection's line, its facts set in `facts`: the operator's limit per user, the server's for all users, the connection's own. */
function unitParts(limits: Limits, tally: Tally, facts: NonNullable<AllowanceReport['facts']>): string[] {
  const isMoney = limits.unit === 'micros';
  const shown = (n: number) => (isMoney ? money(n) : String(n));
  const value = (n: number) => (isMoney ? n / 1_000_000 : n);
  const what = isMoney ? 'new daily budget' : 'AI turns';
  const parts: string[] = [];
  const lefts: number[] = [];
  /** Records one limit's facts under `name`; "(L left)". */
  const measure = (name: keyof typeof facts, limit: number, usedToday: number) => {
    const left = Math.max(0, limit - usedToday);
    lefts.push(left);
    (facts as Record<string, unknown>)[name] = { limit: value(limit), used: value(usedToday), left: value(left) };
    return `(${shown(left)} left)`;
  };
  if (limits.user !== undefined) {
    const left = measure(isMoney ? 'spend' : 'ai_turns', limits.user, tally.user.used);
    parts.push(`${what} ${shown(tally.user.used)} of your ${shown(limits.user)}${isMoney ? ' committed today' : ''}${limits.viaGrant ? ', all your connections together' : ''} ${left}`);
  }
  if (limits.total !== undefined) parts.push(`${money(tally.user.total)} of this server's ${money(limits.total)} for all users together ${measure('spend_all_users', limits.total, tally.user.total)}`);
  if (limits.grant !== undefined) {
    const others = lefts.length;
    const left = measure(isMoney ? 'spend_this_connection' : 'ai_turns_this_connection', limits.grant, tally.grant?.used ?? 0);
    const most = others > 0 ? `, so at most ${shown(Math.min(...lefts))} more today` : '';
    parts.push(`this connection's ${what} ${shown(tally.grant?.used ?? 0)} of the ${shown(limits.grant)} chosen when connecting ${left}${most}`);
  }
  return parts;
}
