/** Shared formatting for text the model reads. */

// C0/C1 controls, DEL, and bidi overrides that could disguise text; newlines become spaces.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]+/g;

/** Untrusted text made safe to show: one line, no control characters, at most `max` characters. */
export function sanitize(text: string, max = 200): string {
  const clean = text.replace(CONTROL, ' ').replace(/\s+/g, ' ').trim();
  if (clean.length <= max) return clean;
  // Count code points, so the cut never splits a surrogate pair (half an emoji is not text).
  const chars = Array.from(clean);
  return chars.length <= max ? clean : `${chars.slice(0, max - 1).join('').trimEnd()}…`;
}

/** Untrusted text as quoted data. */
export function quote(text: string | null | undefined, max = 200): string {
  return `"${sanitize(text ?? '', max).replace(/"/g, "'")}"`;
}

/** Micros of the account currency as units with two decimals: 25500000 -> "25.50". */
export function money(micros: number): string {
  return (micros / 1_000_000).toFixed(2);
}

/** Average days per month, for "roughly per month" estimates. */
export const DAYS_PER_MONTH = 30.4;

/** "1 group" / "3 groups". */
export function plural(count: number, noun: string, pluralNoun = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : pluralNoun}`;
}

/** A function that replaces every configured secret with [redacted]. Longest first, so overlaps go whole. */
export function redactor(secrets: string[]): (text: string) => string {
  const sorted = [...new Set(secrets)].filter(Boolean).sort((a, b) => b.length - a.length);
  if (sorted.length === 0) return (text) => text;
  return (text) => sorted.reduce((out, secret) => out.split(secret).join('[redacted]'), text);
}

/** An ID the API wrote: shown bare when it looks like an ID, otherwise as quoted data. */
export function idText(value: string): string {
  return /^[\w.:@-]{1,100}$/.test(value) ? value : quote(value, 100);
}

/**
 * A rough token count (o200k-like) for keeping results within a budget without shipping a
 * tokenizer: ~4 letters, 3 digits or 3 punctuation marks a token, each non-ASCII unit 1.
 * It errs high on JSON and English and roughly matches random IDs.
 */
export function approxTokens(text: string): number {
  let total = 0;
  for (const run of text.match(/[A-Za-z]+|[0-9]+|[!-/:-@[-`{-~]+|[^\x00-\x7f]/g) ?? []) {
    const per = /^[A-Za-z]/.test(run) ? 4 : /^[0-9]/.test(run) ? 3 : /^[\x00-\x7f]/.test(run) ? 3 : 1;
    total += Math.ceil(run.length / per);
  }
  return total;
}
