/**
 * The decoded views of a text: what it says once URL-, JSON- and HTML-escapes are undone (until
 * nothing changes), and what its hex and base64 runs hold. Redaction asks whether any view holds a
 * credential instead of chasing each encoding an echo can take (issue 16). Every step is one pass of
 * a linear regex or a Buffer decode, and the number of views is fixed, so the cost is linear.
 */

/** Escapes are undone this many times at most: enough for an echo encoded twice or three times over. */
const MAX_UNESCAPE_ROUNDS = 4;
/** A hex or base64 run shorter than this cannot hold a credential of the length views look for. */
const MIN_RUN = 12;

const PERCENT = /%([0-9A-Fa-f]{2})/g;
// One backslash escape: \uXXXX, \xXX, or any single character (\/ \" \\ \n ...).
const BACKSLASH = /\\(?:u([0-9A-Fa-f]{4})|x([0-9A-Fa-f]{2})|([\s\S]))/g;
// One HTML character reference: decimal, hex or named; the closing semicolon is optional, as browsers read it.
const ENTITY = /&(?:#([0-9]{1,7})|#[xX]([0-9A-Fa-f]{1,6})|([A-Za-z][A-Za-z0-9]{1,31}));?/g;
const WHITESPACE = /\s+/g;
// Runs are greedy single classes: each start scans at most MIN_RUN characters when it fails.
const HEX_RUN = new RegExp(`[0-9A-Fa-f]{${MIN_RUN},}`, 'g');
const BASE64_RUN = new RegExp(`[A-Za-z0-9+/_-]{${MIN_RUN},}`, 'g');

/** Named references for the characters a credential can contain (and the ones that escape others). */
const NAMED: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", sol: '/', bsol: '\\', colon: ':', semi: ';', period: '.',
  comma: ',', equals: '=', plus: '+', minus: '-', hyphen: '-', dash: '-', lowbar: '_', UnderBar: '_', num: '#',
  percnt: '%', excl: '!', quest: '?', commat: '@', dollar: '$', ast: '*', midast: '*', lpar: '(', rpar: ')',
  lsqb: '[', lbrack: '[', rsqb: ']', rbrack: ']', lcub: '{', lbrace: '{', rcub: '}', rbrace: '}', verbar: '|',
  vert: '|', tilde: '~', Hat: '^', grave: '`', nbsp: ' ', Tab: '\t', NewLine: '\n',
};

function codePoint(value: number): string {
  return value <= 0x10ffff ? String.fromCodePoint(value) : '';
}

function urlDecode(text: string): string {
  return text.includes('%') ? text.replace(PERCENT, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))) : text;
}

function jsonUnescape(text: string): string {
  if (!text.includes('\\')) return text;
  return text.replace(BACKSLASH, (_, u?: string, x?: string, other?: string) => {
    if (u) return String.fromCharCode(parseInt(u, 16));
    if (x) return String.fromCharCode(parseInt(x, 16));
    return other === 'n' ? '\n' : other === 't' ? '\t' : other === 'r' ? '\r' : other!;
  });
}

function htmlUnescape(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(ENTITY, (whole, decimal?: string, hex?: string, name?: string) => {
    if (decimal) return codePoint(parseInt(decimal, 10));
    if (hex) return codePoint(parseInt(hex, 16));
    return NAMED[name!] ?? NAMED[name!.toLowerCase()] ?? whole;
  });
}

/** URL-decoded, JSON- and HTML-unescaped, round after round until nothing changes (or the round limit). */
export function unescaped(text: string): string {
  let current = text;
  for (let round = 0; round < MAX_UNESCAPE_ROUNDS; round++) {
    const next = htmlUnescape(jsonUnescape(urlDecode(current)));
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
