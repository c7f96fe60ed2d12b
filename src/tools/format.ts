import type { Config } from '../config.js';
import { strip } from '../text.js';
import type { ToolContext } from './define.js';

/** Shared formatting for text the model reads: money, counts, next calls, token estimates. */

/**
 * Micros of the account currency as units: two decimals for whole cents (25500000 -> "25.50"), more
 * when a figure needs them, so a budget under one unit never reads "0.00" (500 -> "0.0005").
 */
export function money(micros: number): string {
  const units = (micros / 1_000_000).toFixed(6).replace(/0+$/, '');
  const [whole, fraction = ''] = units.split('.');
  return `${whole}.${fraction.padEnd(2, '0')}`;
}

/** Average days per month, for "roughly per month" estimates. */
export const DAYS_PER_MONTH = 30.4;

/** The text with its first letter in upper case: a sentence built from optional parts. */
export function capitalized(text: string): string {
  return text ? `${text[0]!.toUpperCase()}${text.slice(1)}` : text;
}

/** "1 group" / "3 groups". */
export function plural(count: number, noun: string, pluralNoun = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : pluralNoun}`;
}

type Args = Record<string, string | number | boolean | undefined>;

/**
 * A call for the model to make next, as the tool name and its arguments in JSON. app_id is left out
 * when the server is scoped to one app (the tools then have no app_id input).
 */
export function nextCall(config: Pick<Config, 'appId'>, tool: string, args: Args = {}): string {
  const shown = Object.entries(args).filter(([name, value]) => value !== undefined && !(name === 'app_id' && config.appId));
  if (shown.length === 0) return tool;
  return `${tool} ${JSON.stringify(Object.fromEntries(shown.map(([name, value]) => [name, typeof value === 'string' ? strip(value) : value])))}`;
}

/** What a next step needs: the caller's app scope (for app_id) and the tools they are offered. */
export type Steps = Pick<ToolContext, 'config' | 'offered'>;

/**
 * The step that calls `tool`: `say(call)` when this caller is offered it; otherwise a sentence saying
 * that what it does is not offered here, and why (never the tool's name: calling it would fail).
 */
export function stepTo(ctx: Steps, tool: string, args: Args, say: (call: string) => string): string {
  return ctx.offered.has(tool) ? say(nextCall(ctx.config, tool, args)) : ctx.offered.missing(tool);
}

/** A pointer to `tool` beside the main step: `say(call)` when this caller is offered it, else ''. */
export function aside(ctx: Steps, tool: string, args: Args, say: (call: string) => string): string {
  return ctx.offered.has(tool) ? say(nextCall(ctx.config, tool, args)) : '';
}

/**
 * The leading items whose costs add up to at most `budget`, and always the first: a result shows the
 * most important rows that fit its token budget and says how many it left out.
 */
export function fitBudget<T>(items: readonly T[], budget: number, cost: (item: T) => number): T[] {
  const kept: T[] = [];
  let used = 0;
  for (const item of items) {
    used += cost(item);
    if (used > budget && kept.length > 0) break;
    kept.push(item);
  }
  return kept;
}

/** What a run of ASCII characters is made of: letters, digits, punctuation, or neither (whitespace, controls). */
const OTHER = 0;
const LETTER = 1;
const DIGIT = 2;
const PUNCTUATION = 3;
/** Characters per token of a run of each kind. */
const UNITS_PER_TOKEN = [1, 4, 3, 3];
const ASCII_KIND = Array.from({ length: 0x80 }, (_, code) => {
  const char = String.fromCharCode(code);
  if (/[A-Za-z]/.test(char)) return LETTER;
  if (/[0-9]/.test(char)) return DIGIT;
  return /[!-/:-@[-`{-~]/.test(char) ? PUNCTUATION : OTHER;
});

/**
 * A rough token count (o200k-like) for keeping results within a budget without shipping a
 * tokenizer: ~4 letters, 3 digits or 3 punctuation marks a token, each non-ASCII unit 1.
 * It errs high on JSON and English and roughly matches random IDs. One pass over the UTF-16 units,
 * with no regex and no array of runs: it runs on every row of every list result.
 */
export function approxTokens(text: string): number {
  let total = 0;
  let kind = OTHER;
  let length = 0;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    const next = code > 0x7f ? OTHER : ASCII_KIND[code]!;
    if (next !== kind) {
      if (length > 0) total += Math.ceil(length / UNITS_PER_TOKEN[kind]!);
      kind = next;
      length = 0;
    }
    if (code > 0x7f) total += 1;
    else if (kind !== OTHER) length += 1;
  }
  if (length > 0) total += Math.ceil(length / UNITS_PER_TOKEN[kind]!);
  return total;
}

/**
 * Today's date for results whose dates a model reads relative to now ("next week", "last month"),
 * from the injected clock. UTC: the service states no time zone of its own (service facts).
 */
export function today(now: number): string {
  return new Date(now).toISOString().slice(0, 10);
}

/** "Today is 2026-11-25 (UTC)." */
export function todayLine(now: number): string {
  return `Today is ${today(now)} (UTC).`;
}

const DAY_MS = 86_400_000;
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** A week, Monday to Sunday, in UTC: from its Monday (included) until the next Monday (excluded), as dates. */
export interface Week {
  from: string;
  until: string;
}

/** This week and the coming one, Monday to Sunday in UTC, around `now`. */
export function weeksOf(now: number): { this_week: Week; next_week: Week } {
  const day = Math.floor(now / DAY_MS) * DAY_MS;
  const monday = day - ((new Date(day).getUTCDay() + 6) % 7) * DAY_MS;
  const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return {
    this_week: { from: date(monday), until: date(monday + 7 * DAY_MS) },
    next_week: { from: date(monday + 7 * DAY_MS), until: date(monday + 14 * DAY_MS) },
  };
}

/**
 * Today with its weekday, and next week's range as the tools take it (issue 29): "next week" is the
 * coming Monday to Sunday, in UTC, the zone every result states, so no model computes it alone.
 */
export function weekLine(now: number): string {
  const { next_week } = weeksOf(now);
  const sunday = new Date(Date.parse(next_week.until) - DAY_MS).toISOString().slice(0, 10);
  return `Today is ${WEEKDAYS[new Date(now).getUTCDay()]} ${today(now)} (UTC); next week, Monday ${next_week.from} to Sunday ${sunday}, is from ${next_week.from} until ${next_week.until}.`;
}
