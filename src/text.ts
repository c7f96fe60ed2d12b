/**
 * Every string a model or a log may see passes through here: untrusted text is stripped of
 * characters that hide, reorder or control it, trimmed, and quoted as data; configured secrets are
 * redacted in the forms an echo can take.
 */

// C0 and C1 controls (other than the whitespace that sanitize collapses) and DEL: replaced by a space.
const CONTROL = /[\u0000-\u0008\u000e-\u001f\u007f-\u009f]/g;
// Characters that are invisible or reorder text: soft hyphen, Arabic letter mark, Mongolian vowel
// separator, zero-width and joiner characters (U+200B–U+200F, U+2060–U+2064, U+FEFF), bidi
// embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), and Unicode tag characters
// (U+E0000–U+E007F), which can carry a hidden message. Removed outright.
const INVISIBLE = /[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u{e0000}-\u{e007f}]/gu;
const INVISIBLE_CLASS = '[\\s\\u00ad\\u061c\\u180e\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff\\u{e0000}-\\u{e007f}]';
// Quote marks that could look like the end of our own quotes.
const QUOTES = /["\u201c\u201d\u201e\u201f\u2033\uff02]/g;

export const ELLIPSIS = '…';

/** Removes hidden and reordering characters and control characters; keeps line breaks. */
export function strip(text: string): string {
  return text.replace(INVISIBLE, '').replace(CONTROL, ' ');
}

/** Untrusted text made safe to show: one line, nothing hidden, at most `max` code points. */
export function sanitize(text: string, max = 200): string {
  const clean = strip(text).replace(/\s+/g, ' ').trim();
  if (clean.length <= max) return clean;
  // Count code points, so the cut never splits a surrogate pair (half an emoji is not text).
  const chars = Array.from(clean);
  return chars.length <= max ? clean : `${chars.slice(0, max - 1).join('').trimEnd()}${ELLIPSIS}`;
}

/** Untrusted text as quoted data: it can never close its own quotes. */
export function quote(text: string | null | undefined, max = 200): string {
  return `"${sanitize(text ?? '', max).replace(QUOTES, "'")}"`;
}

/** An ID the API wrote: shown bare when it looks like an ID, otherwise as quoted data. */
export function idText(value: string): string {
  const clean = sanitize(value, 100);
  return /^[\w.:@-]{1,100}$/.test(clean) ? clean : quote(clean, 100);
}

/** Text with a sentence after it: no doubled full stop when the text already ends one. */
export function sentence(text: string): string {
  return /[.!?…]["']?$/.test(text) ? text : `${text}.`;
}

/** A length of time as a person reads it: "300 ms", "12 s", "15 min", "2 min 5 s". */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  return rest ? `${minutes} min ${rest} s` : `${minutes} min`;
}

export type Redact = (text: string) => string;

/** Shorter secrets are not redacted: four characters would match ordinary words. */
const MIN_SECRET = 4;
/** A base64 run must be at least this long to count as an encoded secret. */
const MIN_BASE64_CORE = 6;
const REDACTED = '[redacted]';

/**
 * A function that replaces every configured secret with [redacted], in the forms an upstream echo can
 * take: as is, split by whitespace or invisible characters, URL-encoded, JSON-escaped, and base64 or
 * base64url at any byte alignment (so `Bearer <secret>` and `user:<secret>` encodings are caught
 * too). A text cut short by our own trimming never ends in the first characters of a secret.
 */
export function redactor(secrets: readonly string[]): Redact {
  const unique = [...new Set(secrets)].filter((secret) => secret.length >= MIN_SECRET).sort((a, b) => b.length - a.length);
  if (unique.length === 0) return (text) => text;
  const patterns = unique.flatMap(patternsFor);
  const cores = unique.flatMap(base64Cores);
  const encoded = cores.length ? new RegExp(cores.map(escape).join('|'), 'g') : undefined;
  return (text) => {
    let out = text;
    for (const pattern of patterns) out = out.replace(pattern, REDACTED);
    if (encoded) out = redactRuns(out, encoded);
    return cutPrefixes(out, unique);
  };
}

function patternsFor(secret: string): RegExp[] {
  const split = Array.from(secret).map(escape).join(`${INVISIBLE_CLASS}*`);
  const literal = new Set([encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)]);
  literal.delete(secret);
  return [new RegExp(split, 'gu'), ...[...literal].map((form) => new RegExp(escape(form), 'g'))];
}

const BASE64_CHAR = /[A-Za-z0-9+/_=-]/;

/**
 * Replaces the whole base64 run around each encoded secret. The run is widened by hand rather than
 * by a regex with a leading `[…]*`, which backtracks quadratically on long runs (a data URL).
 */
function redactRuns(text: string, encoded: RegExp): string {
  const spans: Array<[number, number]> = [];
  for (const match of text.matchAll(encoded)) {
    let start = match.index;
    let end = start + match[0].length;
    if (spans.length > 0 && start < spans[spans.length - 1]![1]) continue;
    while (start > 0 && BASE64_CHAR.test(text[start - 1]!)) start--;
    while (end < text.length && BASE64_CHAR.test(text[end]!)) end++;
    spans.push([start, end]);
  }
  if (spans.length === 0) return text;
  let out = '';
  let from = 0;
  for (const [start, end] of spans) {
    out += `${text.slice(from, start)}${REDACTED}`;
    from = end;
  }
  return out + text.slice(from);
}

/**
 * The part of base64(secret) that does not depend on the bytes around it, for each of the three
 * alignments a secret can have inside a longer encoded string, in base64 and base64url.
 */
function base64Cores(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const cores = new Set<string>();
  for (let pad = 0; pad < 3; pad++) {
    const encoded = Buffer.concat([Buffer.alloc(pad), bytes]).toString('base64').replace(/=+$/, '');
    const core = encoded.slice(Math.ceil((pad * 4) / 3), Math.floor(((pad + bytes.length) * 8) / 6));
    if (core.length >= MIN_BASE64_CORE) {
      cores.add(core);
      cores.add(core.replace(/\+/g, '-').replace(/\//g, '_'));
    }
  }
  return [...cores];
}

/** A trimmed text that ends in the start of a secret: that start is redacted too. */
function cutPrefixes(text: string, secrets: string[]): string {
  if (!text.includes(ELLIPSIS)) return text;
  return text.replace(/(\S+)\u2026/g, (match, before: string) => {
    for (const secret of secrets) {
      for (let length = Math.min(secret.length - 1, before.length); length >= MIN_SECRET; length--) {
        if (before.endsWith(secret.slice(0, length))) return `${before.slice(0, before.length - length)}${REDACTED}${ELLIPSIS}`;
      }
    }
    return match;
  });
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** Nesting beyond this is replaced: upstream JSON could be deep enough to exhaust the stack. */
const MAX_DEPTH = 64;

/**
 * A JSON value with `fix` applied to every string, keys included (an echo can hide in either).
 * Objects and arrays are copied; values nested deeper than 64 levels become "[too deep]".
 */
export function mapStrings<T>(value: T, fix: (text: string) => string, depth = 0): T {
  if (typeof value === 'string') return fix(value) as T;
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[too deep]' as T;
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, fix, depth + 1)) as T;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[fix(key)] = mapStrings(item, fix, depth + 1);
  return out as T;
}
