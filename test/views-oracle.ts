/**
 * Every decoded view of a text, computed the slow, obvious way: the tests' oracle for redaction,
 * which searches for a secret's encodings instead (src/text.ts). A hex or base64 run shorter than
 * MIN_RUN cannot hold a credential of the length views look for.
 */
const MIN_RUN = 12;
const WHITESPACE = /\s+/g;
const HEX_RUN = new RegExp(`[0-9A-Fa-f]{${MIN_RUN},}`, 'g');
const BASE64_RUN = new RegExp(`[A-Za-z0-9+/_-]{${MIN_RUN},}`, 'g');

/** Rounds of unescaping before the oracle gives up: far more than any echo the tests build (three). */
const MAX_ROUNDS = 16;

/**
 * The HTML names of the characters a credential can hold, and of those that escape others: read off
 * the HTML standard's table of named character references, for the printable ASCII punctuation.
 */
const HTML_NAMES: Record<string, string> = {
  excl: '!', quot: '"', QUOT: '"', num: '#', dollar: '$', percnt: '%', amp: '&', AMP: '&', apos: "'", lpar: '(', rpar: ')',
  ast: '*', midast: '*', plus: '+', comma: ',', hyphen: '-', dash: '-', minus: '-', period: '.', sol: '/', colon: ':', semi: ';',
  lt: '<', LT: '<', equals: '=', gt: '>', GT: '>', quest: '?', commat: '@', lsqb: '[', lbrack: '[', bsol: '\\', rsqb: ']',
  rbrack: ']', Hat: '^', lowbar: '_', UnderBar: '_', grave: '`', DiacriticalGrave: '`', lcub: '{', lbrace: '{', verbar: '|',
  vert: '|', VerticalLine: '|', rcub: '}', rbrace: '}', tilde: '~', nbsp: '\u00a0', Tab: '\t', NewLine: '\n',
};
const isHex = (char: string | undefined) => char !== undefined && /^[0-9A-Fa-f]$/.test(char);
const isDigit = (char: string | undefined) => char !== undefined && char >= '0' && char <= '9';
const isLetterOrDigit = (char: string | undefined) => char !== undefined && /^[A-Za-z0-9]$/.test(char);

/**
 * One left-to-right reading of `text` that undoes every escape where it starts: `%XX` (one byte),
 * a backslash escape (`\uXXXX`, `\xXX`, `\n`, `\t`, `\r`, else the escaped character itself),
 * and an HTML reference (`&#D;`, `&#xH;`, `&name;`, the semicolon optional as browsers read it).
 */
function unescapeOnce(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const char = text[i]!;
    if (char === '%' && isHex(text[i + 1]) && isHex(text[i + 2])) {
      out += String.fromCharCode(Number.parseInt(text.slice(i + 1, i + 3), 16));
      i += 3;
    } else if (char === '\\' && i + 1 < text.length) {
      const next = text[i + 1]!;
      const hex = next === 'u' ? 4 : next === 'x' ? 2 : 0;
      const digits = text.slice(i + 2, i + 2 + hex);
      if (hex && digits.length === hex && [...digits].every(isHex)) {
        out += String.fromCharCode(Number.parseInt(digits, 16));
        i += 2 + hex;
      } else {
        out += next === 'n' ? '\n' : next === 't' ? '\t' : next === 'r' ? '\r' : next;
        i += 2;
      }
    } else if (char === '&') {
      const [decoded, length] = htmlReference(text, i);
      out += decoded;
      i += length;
    } else {
      out += char;
      i += 1;
    }
  }
  return out;
}

/** The character an HTML reference at `text[start]` (an `&`) stands for, and its length; `&` alone when it is none. */
function htmlReference(text: string, start: number): [string, number] {
  let end = start + 1;
  let value: string | undefined;
  if (text[end] === '#') {
    const hex = text[end + 1] === 'x' || text[end + 1] === 'X';
    end += hex ? 2 : 1;
    const from = end;
    while (end - from < (hex ? 6 : 7) && (hex ? isHex(text[end]) : isDigit(text[end]))) end++;
    if (end === from) return ['&', 1];
    const code = Number.parseInt(text.slice(from, end), hex ? 16 : 10);
    value = code <= 0x10ffff ? String.fromCodePoint(code) : '';
  } else {
    while (end - start <= 32 && isLetterOrDigit(text[end])) end++;
    const name = text.slice(start + 1, end);
    value = HTML_NAMES[name] ?? HTML_NAMES[name.toLowerCase()];
    if (value === undefined) return ['&', 1];
  }
  if (text[end] === ';') end++;
  return [value, end - start];
}

/** The text with URL-, JSON- and HTML-escapes undone, reading after reading, until nothing changes. */
export function unescaped(text: string): string {
  let current = text;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const next = unescapeOnce(current);
    if (next === current) break;
    current = next;
  }
  return current;
}

/**
 * The bytes of every hex run (whitespace removed first, so wrapped runs join), at both nibble
 * alignments, as Latin-1 text; runs are joined by a line break so no match spans two of them.
 */
export function hexDecoded(text: string): string {
  const out: string[] = [];
  for (const [run] of text.replace(WHITESPACE, '').matchAll(HEX_RUN)) {
    out.push(Buffer.from(run, 'hex').toString('latin1'), Buffer.from(run.slice(1), 'hex').toString('latin1'));
  }
  return out.join('\n');
}

/**
 * The bytes of every base64 or base64url run (whitespace removed first, so a run wrapped across
 * lines joins), at each of the four positions a run can start inside a quantum, as Latin-1 text.
 */
export function base64Decoded(text: string): string {
  const out: string[] = [];
  for (const [run] of text.replace(WHITESPACE, '').matchAll(BASE64_RUN)) {
    for (let offset = 0; offset < 4; offset++) out.push(Buffer.from(run.slice(offset), 'base64').toString('latin1'));
  }
  return out.join('\n');
}

/**
 * Every view of a text, case-folded: as is, unescaped, and the hex and base64 runs of both (each
 * unescaped once more, for an escape inside an encoding). At most ten views, each about as long as
 * the text.
 */
export function viewsOf(text: string): string[] {
  const views = new Set<string>([text]);
  const plain = unescaped(text);
  views.add(plain);
  for (const source of new Set([text, plain])) {
    for (const decoded of [hexDecoded(source), base64Decoded(source)]) {
      if (!decoded) continue;
      views.add(decoded);
      views.add(unescaped(decoded));
    }
  }
  return [...views].map((view) => view.toLowerCase());
}
