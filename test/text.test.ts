import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mapStrings, quote, redactor, reworded, sanitize, sentence, sentText, strip } from '../src/text.js';
import { headerWording } from '../src/transports/http.js';

const SECRET = 'pat_Zx9-secret+/value_42';

describe('sanitize', () => {
  it('replaces controls by spaces, removes hidden characters, folds whitespace and trims to the limit', () => {
    expect(sanitize('a\u0000b\nc\u202Ed\t\te', 100)).toBe('a b cd e');
    expect(sanitize('x'.repeat(50), 10)).toBe(`${'x'.repeat(9)}…`);
  });

  it.each([
    ['Unicode tag characters', '\u{e0001}\u{e0049}\u{e0067}\u{e006e}\u{e007f}'],
    ['bidi embeddings and overrides', '\u202a\u202b\u202c\u202d\u202e'],
    ['bidi isolates and the Arabic letter mark', '\u2066\u2067\u2068\u2069\u061c'],
    ['zero-width and joiner characters', '\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff'],
  ])('strips %s', (_name, hidden) => {
    expect(sanitize(`safe${hidden}text`)).toBe('safetext');
    expect(strip(`line one${hidden}\nline two`)).toBe('line one\nline two');
  });

  it('never cuts a character in half', () => {
    const cut = sanitize('🙂'.repeat(20), 8); // 8 - 1 UTF-16 units would end inside an emoji
    expect(cut.endsWith('…')).toBe(true);
    expect(Buffer.from(cut).toString()).toBe(cut); // a lone surrogate would not survive UTF-8
  });
});

describe('quote', () => {
  it('keeps upstream text inside its own quotes, whatever quote marks it carries', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), fc.constantFrom('"', '\u201c', '\u201d', '\uff02', '\u2033', '\\"'), (text, mark) => {
        const quoted = quote(`${text}${mark} and then ${mark}${text}`);
        expect(quoted.startsWith('"') && quoted.endsWith('"')).toBe(true);
        expect(quoted.slice(1, -1)).not.toMatch(/["\u201c\u201d\uff02\u2033]/);
      }),
    );
  });
});

describe('sentence', () => {
  it('adds a full stop only where none ends the text', () => {
    expect(sentence('"Done."')).toBe('"Done."');
    expect(sentence('Done')).toBe('Done.');
  });
});

describe('redactor', () => {
  const redact = redactor([SECRET, 'key_demo_owner']);
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  const b64url = (text: string) => Buffer.from(text).toString('base64url');

  it.each([
    ['as is', SECRET],
    ['URL-encoded', encodeURIComponent(SECRET)],
    ['JSON-escaped', JSON.stringify({ echoed: SECRET }).slice(1, -1)],
    ['base64', b64(SECRET)],
    ['base64 of Bearer <secret>', b64(`Bearer ${SECRET}`)],
    ['base64url of user:<secret>', b64url(`user:${SECRET}`)],
    ['base64 at the third alignment', b64(`ab${SECRET}`)],
    ['split by spaces', SECRET.split('').join(' ')],
    ['split by zero-width characters', SECRET.split('').join('\u200b')],
    ['split by tag characters and newlines', SECRET.split('').join('\u{e0020}\n')],
  ])('redacts a secret %s', (_name, form) => {
    const out = redact(`before ${form} after`);
    expect(out).toContain('[redacted]');
    expect(out).not.toContain(SECRET);
    expect(out).not.toContain(form);
    expect(out.startsWith('before ')).toBe(true);
  });

  it('never leaves the start of a secret at the end of a trimmed text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), fc.integer({ min: 12, max: 80 }), (prefix, max) => {
        const out = redact(sanitize(`${prefix} ${SECRET} trailing words`, max));
        for (let length = 4; length <= SECRET.length; length++) {
          expect(out.replace(/\[redacted\]/g, '')).not.toContain(`${SECRET.slice(0, length)}…`);
        }
      }),
    );
  });

  it('leaves short configured values alone: four characters would match ordinary words', () => {
    expect(redactor(['abc'])('abc abcd')).toBe('abc abcd');
  });

  it('redacts keys and values at any depth, and stops at a sane depth', () => {
    const deep = { [SECRET]: [{ note: `x ${SECRET}` }] };
    expect(JSON.stringify(mapStrings(deep, redact))).not.toContain(SECRET);
    let nested: unknown = 'leaf';
    for (let i = 0; i < 200; i++) nested = [nested];
    expect(JSON.stringify(mapStrings(nested, redact))).toContain('[too deep]');
  });

  it('copies only the objects and arrays on the way to a change, and never changes its input', () => {
    const input = { a: { keep: ['x', 1, null] }, b: [{ s: 'short' }, { s: 'a long string' }], [`k${SECRET}`]: true };
    const before = structuredClone(input);
    const cut = (text: string) => (text.length > 6 ? `${text.slice(0, 5)}…` : text);
    const out = mapStrings(input, cut, (key) => key);
    expect(input).toEqual(before);
    expect(out).toEqual({ a: { keep: ['x', 1, null] }, b: [{ s: 'short' }, { s: 'a lon…' }], [`k${SECRET}`]: true });
    expect(out.a).toBe(input.a); // nothing in it changed
    expect(out.b[0]).toBe(input.b[0]);
    expect(out.b).not.toBe(input.b);
    expect(out).not.toBe(input);
    // A key that changes copies its object, keeping the order of the keys.
    const keyed = mapStrings(input, (text) => text, redactor([SECRET]));
    expect(Object.keys(keyed)).toEqual(['a', 'b', 'k[redacted]']);
    expect(keyed.a).toBe(input.a);
    expect(mapStrings(before, (text) => text)).toBe(before);
  });
});

describe('redactor: one search for many strings', () => {
  const redact = redactor([SECRET, 'key_demo_owner']);
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  // Pieces a result's strings are made of: ordinary words, a secret's forms and halves, escapes and cuts.
  const piece = fc.constantFrom(
    'words ', SECRET, SECRET.slice(0, 9), SECRET.slice(9), encodeURIComponent(SECRET), b64(`Bearer ${SECRET}`), SECRET.split('').join('\u200b'),
    'key_demo_owner'.split('').join(' '), '\u2026', '\\', '%', '&amp;', '\n', 'pat_Zx9', 'key_dem', ' ', 'x',
  );
  const texts = fc.array(fc.array(piece, { maxLength: 6 }).map((parts) => parts.join('')), { maxLength: 6 });

  it('says unchanged only when redacting each string on its own would change none', () => {
    fc.assert(
      fc.property(texts, (list) => {
        const changes = list.some((text) => redact(text) !== text);
        if (redact.unchangedAll!(list)) expect(changes).toBe(false);
      }),
      { numRuns: 2_000 },
    );
  });

  // HTTP callers are shown header names where stdio users are shown variables (src/transports/http.ts).
  it('keeps its one search when a wording follows it: a string the wording would change counts as changed', () => {
    const shown = reworded(redact, headerWording);
    const wordy = fc.array(
      fc.array(fc.oneof(piece, fc.constantFrom('APPMGMT_ACCESS_TOKEN', 'APPMGMT_API_KEY', 'set APPMGMT_', '_TOKEN')), { maxLength: 6 }).map((parts) => parts.join('')),
      { maxLength: 6 },
    );
    fc.assert(
      fc.property(wordy, (list) => {
        for (const text of list) expect(shown(text)).toBe(headerWording(redact(text)));
        if (shown.unchangedAll!(list)) expect(list.every((text) => shown(text) === text)).toBe(true);
        if (list.some((text) => headerWording(text) !== text)) expect(shown.mayHold!(list.join('\n'))).toBe(true);
      }),
      { numRuns: 2_000 },
    );
    expect(shown.unchangedAll!(['Raise the daily budget', 'cmp_1'])).toBe(true);
    expect(shown.unchangedAll!(['Raise the daily budget', 'Set APPMGMT_ACCESS_TOKEN first.'])).toBe(false);
    expect(shown('Set APPMGMT_ACCESS_TOKEN first.')).toBe('Set the Authorization: Bearer header first.');
  });

  it('says unchanged for ordinary strings, so they are not redacted one by one', () => {
    expect(redact.unchangedAll!(['Raise the daily budget', 'cmp_1', 'Next: call list_ad_campaigns…'])).toBe(true);
    expect(redact.unchangedAll!(['fine', `echo ${SECRET.slice(0, 8)}…`])).toBe(false);
    expect(redact.unchangedAll!(['fine', b64(SECRET)])).toBe(false);
  });
});

describe('redactor speed', () => {
  it('stays linear on long base64-like runs such as data URLs', () => {
    const redact = redactor([SECRET]);
    const run = 'A'.repeat(200_000);
    const out = redact(`data:image/png;base64,${run}${Buffer.from(SECRET).toString('base64')}${run}`);
    // A regex that backtracks needs some 10^10 steps here and would never finish within the test timeout.
    expect(out).toBe('data:image/png;base64,[redacted]');
  });
});

describe('sentText', () => {
  it('shows a value as the JSON string that sends it: quote marks kept (escaped), nothing folded or collapsed', () => {
    const value = 'Say "hi"  twice\nthen \'bye\' \\ done';
    const shown = sentText(value, 100);
    expect(shown).toEqual({ text: JSON.stringify(value), whole: true });
    expect(JSON.parse(shown.text)).toBe(value);
  });

  it('escapes what a reader could not see, as JSON reads it back, and never leaves its quotes open', () => {
    const value = `a\u202eb\u200bc\u{e0041}d\u0085e\u2028f"`;
    const shown = sentText(value, 100);
    expect(shown.text).toBe('"a\\u202eb\\u200bc\\udb40\\udc41d\\u0085e\\u2028f\\""');
    expect(JSON.parse(shown.text)).toBe(value);
    expect(strip(shown.text)).toBe(shown.text);
  });

  it('stops after max characters, never inside a pair, with the ellipsis after the closing quote', () => {
    expect(sentText('abcdef', 3)).toEqual({ text: '"abc"…', whole: false });
    expect(sentText('ab😀cd', 3)).toEqual({ text: '"ab😀"…', whole: false });
  });
});
