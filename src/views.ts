/**
 * A text with its URL-, JSON- and HTML-escapes undone, until nothing changes: the view redaction
 * searches for a secret (text.ts searches hex and base64 for the secret's own encodings rather than
 * decoding them). Every step is one pass of a linear regex, and the rounds are bounded.
 */

/** Escapes are undone this many times at most: enough for an echo encoded twice or three times over. */
const MAX_UNESCAPE_ROUNDS = 4;

const PERCENT = /%([0-9A-Fa-f]{2})/g;
// One backslash escape: \uXXXX, \xXX, or any single character (\/ \" \\ \n ...).
const BACKSLASH = /\\(?:u([0-9A-Fa-f]{4})|x([0-9A-Fa-f]{2})|([\s\S]))/g;
// One HTML character reference: decimal, hex or named; the closing semicolon is optional, as browsers read it.
const ENTITY = /&(?:#([0-9]{1,7})|#[xX]([0-9A-Fa-f]{1,6})|([A-Za-z][A-Za-z0-9]{1,31}));?/g;

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
