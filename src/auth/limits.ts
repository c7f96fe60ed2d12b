import { MAX_CREDIT_TURNS_DAILY } from '../config.js';
import { money } from '../tools/format.js';

/**
 * The daily limits a person may choose for one connection at consent (issue 28): what they type,
 * read exactly. An amount is currency units with at most two decimals ("50", "50.00"), turned into
 * micros by integer arithmetic on its digits, so no floating point ever rounds it. Each is at most
 * the operator's limit per person when one is set; empty means none of the connection's own.
 */

/** Up to 9 digits before the point (under a billion units a day, the operator's own bound), at most 2 after. */
const AMOUNT = /^(\d{1,9})(?:\.(\d{1,2}))?$/;
/** A whole number of turns. */
const TURNS = /^\d{1,4}$/;
/** Far longer than any answer the fields take: refused before anything else reads it. */
export const MAX_LIMIT_CHARS = 40;

const MICROS_PER_UNIT = 1_000_000;

/** What a limit field says: no limit (empty), a value, or why it cannot be used. */
export type ChosenLimit = { value?: number } | { error: string };

/** The daily spending limit typed as `text`, in micros; `most`: the operator's limit per person. */
export function spendLimitOf(text: string, most: number | undefined): ChosenLimit {
  const typed = checked(text);
  if (typed === undefined) return { error: 'The daily spending limit is too long: enter an amount such as 50 or 50.00, or leave it empty.' };
  if (typed === '') return {};
  const parts = AMOUNT.exec(typed);
  if (!parts) return { error: 'Enter the daily spending limit as an amount such as 50 or 50.00 (digits, at most two after the point), or leave it empty.' };
  const micros = Number(parts[1]) * MICROS_PER_UNIT + Number((parts[2] ?? '').padEnd(6, '0'));
  if (most !== undefined && micros > most) {
    return { error: `The daily spending limit can be at most ${money(most)}: this server's limit for each person. Enter ${money(most)} or less, or leave it empty to keep the server's.` };
  }
  return { value: micros };
}

/** The daily limit of AI turns typed as `text`; `most`: the operator's limit per person. */
export function turnsLimitOf(text: string, most: number | undefined): ChosenLimit {
  const typed = checked(text);
  if (typed === undefined) return { error: 'The daily limit of AI turns is too long: enter a whole number such as 20, or leave it empty.' };
  if (typed === '') return {};
  if (!TURNS.test(typed)) return { error: 'Enter the daily limit of AI turns as a whole number such as 20, or leave it empty.' };
  const turns = Number(typed);
  const ceiling = most ?? MAX_CREDIT_TURNS_DAILY;
  if (turns > ceiling) {
    return { error: `The daily limit of AI turns can be at most ${ceiling}${most !== undefined ? ": this server's limit for each person" : ''}. Enter ${ceiling} or less, or leave it empty.` };
  }
  return { value: turns };
}

/** The text trimmed, or undefined when it is too long to be an answer. */
function checked(text: string): string | undefined {
  return text.length > MAX_LIMIT_CHARS ? undefined : text.trim();
}
