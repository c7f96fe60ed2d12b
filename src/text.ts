/**
 * Every string a model or a log may see passes through here: untrusted text is stripped of
 * characters that hide, reorder or control it, trimmed, and quoted as data; configured secrets are
 * redacted in the forms an echo can take.
 */

import { unescaped } from './views.js';

// C0 and C1 controls (other than the whitespace that sanitize collapses) and DEL: replaced by a space.
const CONTROL = /[\u0000-\u0008\u000e-\u001f\u007f-\u009f]/g;
// Characters that are invisible or reorder text: soft hyphen, Arabic letter mark, Mongolian vowel
// separator, zero-width and joiner characters (U+200B–U+200F, U+2060–U+2064, U+FEFF), bidi
// embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), and Unicode tag characters
// (U+E0000–U+E007F), which can carry a hidden message. Removed outright.
const INVISIBLE = /[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u{e0000}-\u{e007f}]/gu;
const INVISIBLE_CLASS = '[\\s\\u00ad\\u061c\\u180e\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff\\u{e0000}-\\u{e007f}]';
// Quote marks, and the marks that look like one, that could pass for the end of our own quotes:
// double quotes and their curly, low, reversed, prime, ditto and fullwidth look-alikes
// (U+02BA U+02DD U+02EE U+201C-U+201F U+2033 U+2036 U+3003 U+301D-U+301F U+FF02), guillemets
// (U+00AB U+00BB U+2039 U+203A), ornaments (U+275B-U+2760, U+1F676-U+1F678), and the single
// quotes and primes an eye takes for one (U+02B9 U+02BB-U+02BD U+2018-U+201B U+2032 U+2035 U+FF07,
// U+2E42). All fold to an apostrophe, which our quotes never use.
const QUOTES = /["\u00ab\u00bb\u02b9-\u02bd\u02dd\u02ee\u2018-\u201f\u2032\u2033\u2035\u2036\u2039\u203a\u275b-\u2760\u2e42\u3003\u301d-\u301f\uff02\uff07\u{1f676}-\u{1f678}]/gu;

export const ELLIPSIS = '\u2026';

// Either of the two above, in one search: most texts hold neither, and are then returned as they are.
const STRIPPED = new RegExp(`${CONTROL.source}|${INVISIBLE.source}`, 'u');
// Printable ASCII words between single spaces: what sanitize returns unchanged, as most ids and titles are.
const PLAIN_LINE = /^[\x21-\x7e]+(?: [\x21-\x7e]+)*$/;
const SURROGATE = /[\ud800-\udfff]/;

/** Removes hidden and reordering characters and control characters; keeps line breaks. */
export function strip(text: string): string {
  if (!STRIPPED.test(text)) return text;
  return text.replace(INVISIBLE, '').replace(CONTROL, ' ');
}

/** Untrusted text made safe to show: one line, nothing hidden, at most `max` code points. */
export function sanitize(text: string, max = 200): string {
  const clean = PLAIN_LINE.test(text) ? text : strip(text).replace(/\s+/g, ' ').trim();
  if (clean.length <= max) return clean;
  // Without surrogates, code units are code points: the cut needs no list of characters.
  if (!SURROGATE.test(clean)) return `${clean.slice(0, max - 1).trimEnd()}${ELLIPSIS}`;
  // Count code points, so the cut never splits a surrogate pair (half an emoji is not text).
  const chars = Array.from(clean);
  return chars.length <= max ? clean : `${chars.slice(0, max - 1).join('').trimEnd()}${ELLIPSIS}`;
}

/** Untrusted text as quoted data: it can never close its own quotes. */
export function quote(text: string | null | undefined, max = 200): string {
  return `"${sanitize(text ?? '', max).replace(QUOTES, "'")}"`;
}

// What JSON.stringify leaves as it is but a reader cannot see or read in place: DEL and C1 controls,
// the invisible and reordering characters, and the line and paragraph separators.
const UNSEEN = /[\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|\udb40[\udc00-\udc7f]/g;
const escapeUnit = (unit: string) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * A value a warning says is sent, written as the JSON string that carries it: quote marks, line
 * breaks and backslashes as JSON escapes them, and characters a reader could not see as \u
 * escapes, which JSON reads as the same characters. Nothing is folded or collapsed, so "exactly what
 * is sent" is exactly that (issue 29); it can never close its own quotes. Past `max` characters the
 * string stops, an ellipsis follows its closing quote, and `whole` is false.
 */
export function sentText(value: string, max: number): { text: string; whole: boolean } {
  const chars = Array.from(value);
  const whole = chars.length <= max;
  const json = JSON.stringify(whole ? value : chars.slice(0, max).join('')).replace(UNSEEN, (found) => found.split('').map(escapeUnit).join(''));
  return { text: whole ? json : `${json}${ELLIPSIS}`, whole };
}

/** An ID the API wrote: shown bare when it looks like an ID, otherwise as quoted data. */
export function idText(value: string): string {
  const clean = sanitize(value, 100);
  return /^[\w.:@-]{1,100}$/.test(clean) ? clean : quote(clean, 100);
}

/** Text with a sentence after it: no doubled full stop when the text already ends one. */
export function sentence(text: string): string {
  return /[.!?\u2026]["']?$/.test(text) ? text : `${text}.`;
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

/** Answers up to this long are searched whole for secrets before their strings are redacted one by one: ordinary answers, not hostile ones. */
const MAX_WHOLE_SEARCH_CHARS = 256 * 1024;

export type Redact = ((text: string) => string) & {
  /**
   * False when no form of any secret is anywhere in `text` or its unescaped view: every string
   * inside it (a JSON answer's values and keys) would come back from redaction unchanged, so a
   * caller may skip redacting them one by one. Absent: always redact.
   */
  mayHold?: (text: string) => boolean;
  /**
   * True when redaction would return every one of `texts` unchanged: one search of them all
   * together (mayHold, and the cut-secret check), instead of one redaction per string. False when
   * it cannot tell.
   */
  unchangedAll?: (texts: readonly string[]) => boolean;
};

/**
 * Text as the service wrote it, cut to `max` UTF-16 units (an ellipsis marks the cut; never half a
 * character). The first thing done to every upstream string, so nothing after it sees more.
 */
export function limit(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  // A high surrogate at the cut would leave half a character.
  if (end > 0 && /[\ud800-\udbff]/.test(text[end - 1]!)) end--;
  return `${text.slice(0, end)}${ELLIPSIS}`;
}

/** Shorter secrets are not redacted: four characters would match ordinary words. */
const MIN_SECRET = 4;
/** Shorter secrets are not looked for in decoded views: decoded noise would hold them by chance. */
const MIN_VIEW_SECRET = 8;
/** A base64 run must be at least this long to count as an encoded secret. */
const MIN_BASE64_CORE = 6;
const REDACTED = '[redacted]';
/** What stands in for a text whose decoded views hold a credential. */
export const WITHHELD = '[withheld: this text contained a credential]';

/**
 * A function that replaces every configured secret with [redacted], in the forms an upstream echo can
 * take: as is, split by whitespace or invisible characters, URL-encoded, JSON-escaped, and base64 or
 * base64url at any byte alignment (so `Bearer <secret>` and `user:<secret>` encodings are caught
 * too). A text cut short by our own trimming never ends in the first characters of a secret. A text
 * that still holds a secret in any decoded view (URL, JSON or HTML escapes undone, hex or base64
 * runs decoded, case folded) is withheld whole.
 */
export function redactor(secrets: readonly string[]): Redact {
  const unique = [...new Set(secrets)].filter((secret) => secret.length >= MIN_SECRET).sort((a, b) => b.length - a.length);
  if (unique.length === 0) return (text) => text;
  const patterns = unique.flatMap(patternsFor);
  const cores = unique.flatMap(base64Cores);
  const encoded = cores.length ? new RegExp(cores.map(escape).join('|'), 'g') : undefined;
  const needles = viewNeedles(unique);
  const searches = [...patterns, ...(encoded ? [encoded] : [])].map((pattern) => new RegExp(pattern.source, pattern.flags.replace('g', '')));
  const redact: Redact = (text) => {
    let out = text;
    for (const pattern of patterns) out = out.replace(pattern, REDACTED);
    if (encoded) out = redactRuns(out, encoded);
    if (needles.plain.length > 0 && out.length >= MIN_VIEW_SECRET && holdsNeedle(viewsOf(out), needles)) return WITHHELD;
    return cutPrefixes(out, unique);
  };
  redact.mayHold = (text) => {
    // A large answer is cut string by string first (api/schemas.ts); searching it whole could cost more than that.
    if (text.length > MAX_WHOLE_SEARCH_CHARS) return true;
    const views = viewsOf(text);
    return holdsNeedle(views, needles) || views.some((view) => searches.some((search) => search.test(view)));
  };
  redact.unchangedAll = (texts) => {
    // Joined by line breaks, which no secret holds: each text stays a whole part of the joined one, so
    // whatever redaction finds in one, the search finds in the whole. A trailing backslash would
    // escape the line break in the unescaped view, so such a text is redacted on its own.
    if (texts.some((text) => text.endsWith('\\'))) return false;
    const joined = texts.join('\n');
    return !redact.mayHold!(joined) && cutPrefixes(joined, unique) === joined;
  };
  return redact;
}

/**
 * `redact`, then `wording` (a rewrite of our own words, such as the names HTTP callers are shown for
 * credentials), keeping redact's one-search checks: a text the wording would change counts as one
 * that redaction changes. Without them every string of every HTTP result was redacted on its own.
 */
export function reworded(redact: Redact, wording: (text: string) => string): Redact {
  const out: Redact = (text) => wording(redact(text));
  const { mayHold, unchangedAll } = redact;
  if (mayHold) out.mayHold = (text) => wording(text) !== text || mayHold(text);
  // The wording's patterns match names without line breaks, so the joined texts change exactly when one of them does.
  if (unchangedAll) {
    out.unchangedAll = (texts) => {
      const joined = texts.join('\n');
      return wording(joined) === joined && unchangedAll(texts);
    };
  }
  return out;
}

/**
 * What the decoded views of a text (views.ts) are searched for, precomputed so that a text is
 * searched rather than decoded: each long secret case-folded (and its UTF-8 bytes read as Latin-1),
 * for the text and its unescaped view; its hex, lower case, for those views with whitespace removed
 * (hex is read case-insensitively, and a run wrapped across lines joins); and the alignment-free
 * cores of its base64 and base64url (base64Cores), exact, for the same whitespace-free views. The
 * same holds for the secret's URL- and JSON-escaped forms inside hex or base64. Searching costs a
 * few native passes over the text, where decoding every run at every alignment cost tens of
 * microseconds per string on every answer (issue 19's bench).
 */
interface Needles {
  plain: string[];
  hex: string[];
  base64: string[];
  /**
   * The hex and base64 needles with any whitespace allowed between their characters, as one search
   * each: for a text of ordinary length, one pass of these costs a tenth of removing its whitespace
   * (a string copy with a cut at every space) and searching the result.
   */
  spaced?: { hex: RegExp; base64: RegExp | undefined };
}

function viewNeedles(secrets: string[]): Needles {
  const long = secrets.filter((secret) => secret.length >= MIN_VIEW_SECRET);
  const forms = [...new Set(long.flatMap((secret) => [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)]))];
  const hex = [...new Set(forms.map((form) => Buffer.from(form, 'utf8').toString('hex')))];
  const base64 = [...new Set(forms.flatMap(base64Cores))];
  // Only `\s*` between two literal characters: one way to match, so no backtracking.
  const spaced = (needles: string[], flags: string) => new RegExp(needles.map((needle) => Array.from(needle, escape).join('\\s*')).join('|'), flags);
  return {
    plain: [...new Set(long.flatMap((secret) => [secret, Buffer.from(secret, 'utf8').toString('latin1')]).map((needle) => needle.toLowerCase()))],
    hex,
    base64,
    ...(hex.length > 0 ? { spaced: { hex: spaced(hex, 'i'), base64: base64.length > 0 ? spaced(base64, '') : undefined } } : {}),
  };
}

const WHITESPACE_RUN = /\s+/g;
/**
 * Views up to this long are searched with the spaced needles; a longer one has its whitespace
 * removed first, which costs the same at any length, while a spaced search of a hostile text (long
 * runs of a needle's first characters) could cost a multiple of that.
 */
const MAX_SPACED_SEARCH_CHARS = 32 * 1024;

/** A text, and its unescaped view when that differs. */
function viewsOf(text: string): string[] {
  const view = unescaped(text);
  return view === text ? [text] : [text, view];
}

function holdsNeedle(views: string[], needles: Needles): boolean {
  if (needles.plain.length === 0 || views[0]!.length < MIN_VIEW_SECRET) return false;
  for (const view of views) {
    const lower = view.toLowerCase();
    if (needles.plain.some((needle) => lower.includes(needle))) return true;
    if (needles.spaced && view.length <= MAX_SPACED_SEARCH_CHARS) {
      if (needles.spaced.hex.test(view) || needles.spaced.base64?.test(view)) return true;
      continue;
    }
    const joined = view.replace(WHITESPACE_RUN, '');
    const joinedLower = joined.toLowerCase();
    if (needles.hex.some((needle) => joinedLower.includes(needle))) return true;
    if (needles.base64.some((needle) => joined.includes(needle))) return true;
  }
  return false;
}

/** Whitespace and invisible characters, which the split pattern allows between a secret's characters. */
const SPLITTING = new RegExp(`^${INVISIBLE_CLASS}$`, 'u');

/**
 * The secret split by whitespace or invisible characters, and its literal encodings. The secret's
 * own whitespace is left out of the split pattern: a character the `[...]*` between letters also
 * matches would make the regex backtrack quadratically over a long run of it.
 */
function patternsFor(secret: string): RegExp[] {
  const letters = Array.from(secret).filter((char) => !SPLITTING.test(char));
  const split = letters.length >= MIN_SECRET ? [new RegExp(letters.map(escape).join(`${INVISIBLE_CLASS}*`), 'gu')] : [];
  const literal = new Set([secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)]);
  if (split.length > 0) literal.delete(secret); // the split pattern matches it as is
  return [...split, ...[...literal].map((form) => new RegExp(escape(form), 'g'))];
}

const BASE64_CHAR = /[A-Za-z0-9+/_=-]/;

/**
 * Replaces the whole base64 run around each encoded secret. The run is widened by hand rather than
 * by a regex with a leading `[…]*`, which backtracks quadratically on long runs (a data URL).
 */
function redactRuns(text: string, encoded: RegExp): string {
  // Most texts hold no encoded secret: one search answers that without the regex copy and iterator matchAll makes.
  if (text.search(encoded) === -1) return text;
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

/**
 * A trimmed text that ends in the start of a secret: that start is redacted too. Each ellipsis is
 * checked against the few characters before it (never more than the longest secret), so the cost
 * stays linear however many ellipses and long words the text holds.
 */
function cutPrefixes(text: string, secrets: string[]): string {
  if (!text.includes(ELLIPSIS)) return text;
  const reach = secrets[0]!.length - 1;
  const chars = new Set(secrets.flatMap((secret) => [...secret]));
  let out = '';
  let from = 0;
  for (let at = text.indexOf(ELLIPSIS); at !== -1; at = text.indexOf(ELLIPSIS, at + 1)) {
    const length = secretStartBefore(text, at, Math.max(from, at - reach), secrets, chars);
    if (length === 0) continue;
    out += `${text.slice(from, at - length)}${REDACTED}`;
    from = at;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** The length of the longest start of a secret (at least MIN_SECRET) ending at `end`, or 0. */
function secretStartBefore(text: string, end: number, floor: number, secrets: string[], chars: Set<string>): number {
  // Only the characters secrets are made of can be part of one: a run of ellipses stops at once.
  let word = end;
  while (word > floor && chars.has(text[word - 1]!)) word--;
  if (end - word < MIN_SECRET) return 0;
  for (const secret of secrets) {
    for (let length = Math.min(secret.length - 1, end - word); length >= MIN_SECRET; length--) {
      // The first character rules out almost every length before a comparison of the rest.
      if (text[end - length] === secret[0] && text.startsWith(secret.slice(0, length), end - length)) return length;
    }
  }
  return 0;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** Nesting beyond this is replaced: upstream JSON could be deep enough to exhaust the stack. */
const MAX_DEPTH = 64;

/**
 * A JSON value with `fix` applied to every string and `fixKey` (by default `fix`) to every key (an
 * echo can hide in either); values nested deeper than 64 levels become "[too deep]". An object or
 * array in which nothing changed is returned as it is, not copied: most answers have nothing to
 * cut or redact, and copying every object of them was most of the cost (issue 31).
 */
export function mapStrings<T>(value: T, fix: (text: string) => string, fixKey: (text: string) => string = fix): T {
  return mapDeep(value, fix, fixKey, 0);
}

function mapDeep<T>(value: T, fix: (text: string) => string, fixKey: (text: string) => string, depth: number): T {
  if (typeof value === 'string') return fix(value) as T;
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[too deep]' as T;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const fixed = mapDeep(item, fix, fixKey, depth + 1);
      if (out) out.push(fixed);
      else if (fixed !== item) (out = value.slice(0, i)).push(fixed);
    }
    return (out ?? value) as T;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  let out: Record<string, unknown> | undefined;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const item = record[key];
    const fixedKey = fixKey(key);
    const fixed = mapDeep(item, fix, fixKey, depth + 1);
    if (!out && (fixedKey !== key || fixed !== item)) {
      out = {};
      for (const earlier of keys.slice(0, i)) out[earlier] = record[earlier];
    }
    if (out) out[fixedKey] = fixed;
  }
  return (out ?? value) as T;
}
