import { money } from '../tools/format.js';
import type { CountedCall, Unit, Usage } from './allowance-store.js';

/**
 * How the daily limits read (gate/allowance.ts): the sentence every warning's cost gains, the
 * refusal with the day's calls, and check_connection's line. Amounts are in the units a person
 * reads (currency, turns), times in UTC with the zone named.
 */

/** The limits that apply to one call: its unit, the caller's limit and, for money, the server's for all users. */
export interface Limits {
  unit: Unit;
  user?: number | undefined;
  total?: number | undefined;
}

/** Which limit a call would go over. */
export type Over = 'user' | 'total' | 'calls';

/** The variable that sets each limit: only the operator can change it. */
export const LIMIT_VARIABLES = {
  user: { micros: 'APPMGMT_SPEND_LIMIT_DAILY_MICROS', turns: 'APPMGMT_CREDIT_TURNS_DAILY' },
  total: 'APPMGMT_SPEND_LIMIT_TOTAL_DAILY_MICROS',
} as const;

/** A refusal lists this many of the day's calls, the newest; the rest are counted in one line. */
export const MAX_LISTED_CALLS = 10;

const HOUR_MS = 3_600_000;

/** "25.00" or "1 AI turn" / "3 AI turns". */
export function amountText(unit: Unit, amount: number): string {
  return unit === 'micros' ? money(amount) : `${amount} AI turn${amount === 1 ? '' : 's'}`;
}

/** "in 5 h 12 min", "in 40 min", "in under a minute". */
export function untilText(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return 'in under a minute';
  const hours = Math.floor(ms / HOUR_MS);
  const rest = minutes - hours * 60;
  return `in ${hours ? `${hours} h` : ''}${hours && rest ? ' ' : ''}${rest ? `${rest} min` : ''}`;
}

/**
 * What a warning adds to its cost: "Daily limit: uses 25.00 of your 100.00 a day (60.00 left today;
 * the day ends 00:00 UTC)." `usage` is before this call.
 */
export function allowanceSentence(limits: Limits, usage: Usage, amount: number): string {
  const uses = amount === 0 ? 'uses nothing' : `uses ${amountText(limits.unit, amount)}`;
  const ends = 'the day ends 00:00 UTC';
  // Never below zero: a limit lowered during the day can leave more used than it allows.
  const left = (limit: number, used: number) => Math.max(0, limit - used - amount);
  if (limits.unit === 'turns') return `Daily limit: ${uses} of your ${limits.user} AI turns a day (${left(limits.user!, usage.used)} left today; ${ends}).`;
  if (limits.user === undefined) return `Daily limit: ${uses} of the ${money(limits.total!)} a day this server allows all its users together (${money(left(limits.total!, usage.total))} left today; ${ends}).`;
  const server = limits.total === undefined ? '' : `; this server's limit for all users together, ${money(limits.total)} a day, has ${money(left(limits.total, usage.total))} left after it`;
  return `Daily limit: ${uses} of your ${money(limits.user)} a day (${money(left(limits.user, usage.used))} left today; ${ends})${server}.`;
}

export interface RefusalFacts {
  tool: string;
  limits: Limits;
  over: Over;
  /** The caller's day so far (before this call). */
  usage: Usage;
  amount: number;
  now: number;
  /** When the day ends (ms since epoch). */
  resetsAt: number;
  /** Refused at the warning (nothing asked of anyone) or just before sending (the warning is used up). */
  stage: 'warning' | 'confirm';
}

/**
 * The refusal of a call over a limit: which limit, what is used today and by which of the caller's
 * calls (never another user's), when it resets, and that only the operator can change it, and how.
 */
export function refusalText({ tool, limits, over, usage, amount, now, resetsAt, stage }: RefusalFacts): string {
  const sent = stage === 'warning' ? 'Nothing was sent, and nobody was asked to confirm it.' : 'Nothing was sent; the warning is used up.';
  return [
    `REFUSED: ${overSentence(tool, limits, over, usage, amount)} ${sent}`,
    ...callLines(limits.unit, usage, now, over === 'total'),
    `The limit resets at 00:00 UTC (${new Date(resetsAt).toISOString()}), ${untilText(resetsAt - now)}.`,
    `${changeSentence(limits.unit, over)} Tell the user; ${leftOf(limits, over, usage) > 0 ? 'until then only a call that fits in what is left can go through' : 'no such call can go through before then'}.`,
  ].join('\n');
}

/** What is left today of the limit a call went over. */
function leftOf(limits: Limits, over: Over, usage: Usage): number {
  if (over === 'calls') return 0;
  return Math.max(0, over === 'total' ? limits.total! - usage.total : limits.user! - usage.used);
}

function overSentence(tool: string, limits: Limits, over: Over, usage: Usage, amount: number): string {
  const call = `this ${tool} call would ${limits.unit === 'micros' ? `commit ${money(amount)} of new daily budget` : `use ${amountText('turns', amount)}`}`;
  if (over === 'calls') return `you have ${usage.calls.length} calls counted today, the most one day holds.`;
  if (over === 'total') {
    const total = limits.total!;
    return `over this server's daily spending limit for all its users together: ${call}, and ${money(usage.total)} of the server's ${money(total)} a day is already committed today, so ${money(Math.max(0, total - usage.total))} is left.`;
  }
  const limit = limits.user!;
  const left = Math.max(0, limit - usage.used);
  if (limits.unit === 'turns') return `over your daily limit of AI turns: ${call}, and ${usage.used} of your ${limit} a day are used today, so ${left} ${left === 1 ? 'is' : 'are'} left.`;
  return `over your daily spending limit: ${call}, and ${money(usage.used)} of your ${money(limit)} a day is already committed today, so ${money(left)} is left.`;
}

/** The caller's calls of the day, newest last, at most MAX_LISTED_CALLS of them. */
function callLines(unit: Unit, usage: Usage, now: number, othersCount: boolean): string[] {
  const day = new Date(now).toISOString().slice(0, 10);
  const others = othersCount ? " Other users' calls count too, and are not shown." : '';
  if (usage.calls.length === 0) return [`You have ${unit === 'micros' ? 'committed nothing' : 'used no AI turn'} today (${day}, UTC).${others}`];
  const shown = usage.calls.slice(-MAX_LISTED_CALLS);
  const earlier = usage.calls.slice(0, -MAX_LISTED_CALLS);
  const lines = [`Your calls counted today (${day}, UTC), ${amountText(unit, usage.used)} in all:${others}`];
  if (earlier.length) lines.push(`- ${earlier.length} earlier calls: ${amountText(unit, earlier.reduce((sum, call) => sum + call.amount, 0))}`);
  return [...lines, ...shown.map((call) => `- ${callLine(unit, call)}`)];
}

const STATE_TEXT: Record<CountedCall['state'], string> = {
  done: 'done',
  unknown: 'outcome unknown: counted, as it may have been spent',
  sending: 'no outcome recorded yet: counted, as it may be spent',
};

/** "10:04 UTC create_ad_campaign on app app_demo, campaign cmp_0001: 25.00 (done)". */
function callLine(unit: Unit, call: CountedCall): string {
  const time = new Date(call.at).toISOString().slice(11, 16);
  const where = [call.app ? ` on app ${call.app}` : '', call.campaign ? `, campaign ${call.campaign}` : ''].join('');
  return `${time} UTC ${call.tool}${where}: ${amountText(unit, call.amount)} (${STATE_TEXT[call.state]})`;
}

/** Who can change a limit, and how. */
export function changeSentence(unit: Unit, over: Over | 'any'): string {
  const variable = over === 'total' ? LIMIT_VARIABLES.total : over === 'calls' ? undefined : LIMIT_VARIABLES.user[unit];
  if (!variable) return "Only the server's operator can help; no confirmation, approval or assistant can change it.";
  return `Only the server's operator can change it (${variable} in the server's configuration, then a restart); no confirmation, approval or assistant can raise it.`;
}
