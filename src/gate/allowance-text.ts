import { money } from '../tools/format.js';
import type { CountedCall, Unit, Usage } from './allowance-store.js';

/**
 * How the daily limits read (gate/allowance.ts): the sentence every warning's cost gains, the
 * refusal with the day's calls, and check_connection's line. Amounts are in the units a person
 * reads (currency, turns), times in UTC with the zone named.
 */

/**
 * The limits that apply to one call: its unit, the operator's limit per user and, for money, for all
 * users together; for an OAuth grant, the lower limit the person chose for it when connecting.
 */
export interface Limits {
  unit: Unit;
  /** The operator's limit per user: for a grant, per person (every connection of theirs together). */
  user?: number | undefined;
  total?: number | undefined;
  /** The limit the person chose at consent for this connection alone. */
  grant?: number | undefined;
  /** The caller is an OAuth grant: their own limit counts every connection of theirs together. */
  viaGrant?: boolean | undefined;
}

/** Today's use before a call: the user's ledger (with the sum of all users), and the grant's when it has a limit of its own. */
export interface Tally {
  user: Usage;
  grant?: Usage | undefined;
}

/** Which limit a call would go over. */
export type Over = 'user' | 'total' | 'grant' | 'calls';

/** The variable that sets each of the operator's limits: only the operator can change them. */
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

/** "the 50.00 a day chosen for this connection" / "your 100.00 a day": a limit and whose it is. */
function limitText(unit: Unit, limit: number, whose: 'user' | 'grant', viaGrant: boolean | undefined): string {
  const amount = unit === 'micros' ? money(limit) : `${limit} AI turns`;
  if (whose === 'grant') return `the ${amount} a day chosen for this connection when connecting`;
  return `your ${amount} a day${viaGrant ? ', all your connections together' : ''}`;
}

/** The limit of the caller's own that leaves the least after `amount` (the operator's on a tie: connecting again cannot change that one). */
function bindingOf(limits: Limits, tally: Tally, amount: number): 'user' | 'grant' | undefined {
  const left = (limit: number | undefined, used: number) => (limit === undefined ? undefined : limit - used - amount);
  const user = left(limits.user, tally.user.used);
  const grant = left(limits.grant, tally.grant?.used ?? 0);
  if (grant !== undefined && (user === undefined || grant < user)) return 'grant';
  return user === undefined ? undefined : 'user';
}

/**
 * What a warning adds to its cost: "Daily limit: uses 25.00 of your 100.00 a day (60.00 left today;
 * the day ends 00:00 UTC)." It names the caller's limit that binds (the operator's per user, or the
 * one the person chose for this connection), then the server's for all users. `tally` is before this call.
 */
export function allowanceSentence(limits: Limits, tally: Tally, amount: number): string {
  const uses = amount === 0 ? 'uses nothing' : `uses ${amountText(limits.unit, amount)}`;
  const ends = 'the day ends 00:00 UTC';
  // Never below zero: a limit lowered during the day can leave more used than it allows.
  const left = (limit: number, used: number) => Math.max(0, limit - used - amount);
  const shown = (n: number) => (limits.unit === 'micros' ? money(n) : String(n));
  const binding = bindingOf(limits, tally, amount);
  if (!binding) return `Daily limit: ${uses} of the ${money(limits.total!)} a day this server allows all its users together (${money(left(limits.total!, tally.user.total))} left today; ${ends}).`;
  const limit = binding === 'grant' ? limits.grant! : limits.user!;
  const used = binding === 'grant' ? (tally.grant?.used ?? 0) : tally.user.used;
  const server = limits.total === undefined ? '' : `; this server's limit for all users together, ${money(limits.total)} a day, has ${money(left(limits.total, tally.user.total))} left after it`;
  return `Daily limit: ${uses} of ${limitText(limits.unit, limit, binding, limits.viaGrant)} (${shown(left(limit, used))} left today; ${ends})${server}.`;
}

export interface RefusalFacts {
  tool: string;
  limits: Limits;
  over: Over;
  /** The caller's day so far (before this call). */
  tally: Tally;
  amount: number;
  now: number;
  /** When the day ends (ms since epoch). */
  resetsAt: number;
  /** Refused at the warning (nothing asked of anyone) or just before sending (the warning is used up). */
  stage: 'warning' | 'confirm';
}

/**
 * The refusal of a call over a limit: which limit, what is used today and by which of the caller's
 * calls (never another user's), when it resets, and who can change it, and how.
 */
export function refusalText({ tool, limits, over, tally, amount, now, resetsAt, stage }: RefusalFacts): string {
  const sent = stage === 'warning' ? 'Nothing was sent, and nobody was asked to confirm it.' : 'Nothing was sent; the warning is used up.';
  const connection = over === 'grant';
  return [
    `REFUSED: ${overSentence(tool, limits, over, tally, amount)} ${sent}`,
    ...callLines(limits.unit, (connection ? tally.grant : undefined) ?? tally.user, now, { others: over === 'total', connection, viaGrant: limits.viaGrant }),
    `The limit resets at 00:00 UTC (${new Date(resetsAt).toISOString()}), ${untilText(resetsAt - now)}.`,
    `${changeSentence(limits.unit, over, limits.viaGrant)} Tell the user; ${leftOf(limits, over, tally) > 0 ? 'until then only a call that fits in what is left can go through' : 'no such call can go through before then'}.`,
  ].join('\n');
}

/** What is left today of the limit a call went over. */
function leftOf(limits: Limits, over: Over, tally: Tally): number {
  if (over === 'calls') return 0;
  if (over === 'grant') return Math.max(0, limits.grant! - (tally.grant?.used ?? 0));
  return Math.max(0, over === 'total' ? limits.total! - tally.user.total : limits.user! - tally.user.used);
}

function overSentence(tool: string, limits: Limits, over: Over, tally: Tally, amount: number): string {
  const call = `this ${tool} call would ${limits.unit === 'micros' ? `commit ${money(amount)} of new daily budget` : `use ${amountText('turns', amount)}`}`;
  const usage = tally.user;
  if (over === 'calls') return `you have ${usage.calls.length} calls counted today, the most one day holds.`;
  if (over === 'total') {
    const total = limits.total!;
    return `over this server's daily spending limit for all its users together: ${call}, and ${money(usage.total)} of the server's ${money(total)} a day is already committed today, so ${money(Math.max(0, total - usage.total))} is left.`;
  }
  const mine = over === 'user';
  const limit = mine ? limits.user! : limits.grant!;
  const used = mine ? usage.used : (tally.grant?.used ?? 0);
  const left = Math.max(0, limit - used);
  const whose = mine ? 'your' : 'its';
  const together = mine && limits.viaGrant ? ' (all your connections together)' : '';
  const which = mine ? 'your daily' : 'the daily';
  const chosen = mine ? '' : ' chosen for this connection when connecting';
  if (limits.unit === 'turns') return `over ${which} limit of AI turns${chosen}: ${call}, and ${used} of ${whose} ${limit} a day are used today${together}, so ${left} ${left === 1 ? 'is' : 'are'} left.`;
  return `over ${which} spending limit${chosen}: ${call}, and ${money(used)} of ${whose} ${money(limit)} a day is already committed today${together}, so ${money(left)} is left.`;
}

/** The calls of the day that count against the limit (the caller's own, or this connection's), newest last, at most MAX_LISTED_CALLS of them. */
function callLines(unit: Unit, usage: Usage, now: number, { others, connection, viaGrant }: { others: boolean; connection: boolean; viaGrant?: boolean | undefined }): string[] {
  const day = new Date(now).toISOString().slice(0, 10);
  const also = others ? " Other users' calls count too, and are not shown." : '';
  const when = `today (${day}, UTC${connection ? '' : viaGrant ? '; all your connections' : ''})`;
  if (usage.calls.length === 0) {
    const nothing = unit === 'micros' ? 'committed nothing' : 'used no AI turn';
    return [`${connection ? 'This connection has' : 'You have'} ${nothing} ${when}.${also}`];
  }
  const shown = usage.calls.slice(-MAX_LISTED_CALLS);
  const earlier = usage.calls.slice(0, -MAX_LISTED_CALLS);
  const lines = [`${connection ? "This connection's" : 'Your'} calls counted ${when}, ${amountText(unit, usage.used)} in all:${also}`];
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

/** Who can change a limit, and how: the operator's in the configuration, a connection's by the person connecting again. */
export function changeSentence(unit: Unit, over: Over, viaGrant?: boolean): string {
  if (over === 'grant') {
    return 'The person chose this limit for this connection when connecting the assistant; they can connect again and choose another on the consent page. No confirmation, approval or assistant can raise it.';
  }
  const variable = over === 'total' ? LIMIT_VARIABLES.total : over === 'calls' ? undefined : LIMIT_VARIABLES.user[unit];
  if (!variable) return "Only the server's operator can help; no confirmation, approval or assistant can change it.";
  const perPerson = over === 'user' && viaGrant ? ' Connecting again does not change it: it counts per person.' : '';
  return `Only the server's operator can change it (${variable} in the server's configuration, then a restart); no confirmation, approval or assistant can raise it.${perPerson}`;
}
