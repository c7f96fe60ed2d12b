import { unescaped } from '../src/views.js';

/**
 * Every decoded view of a text, computed the slow, obvious way: the tests' oracle for redaction,
 * which searches for a secret's encodings instead (src/text.ts). A hex or base64 run shorter than
 * MIN_RUN cannot hold a credential of the length views look for.
 */
const MIN_RUN = 12;
const WHITESPACE = /\s+/g;
const HEX_RUN = new RegExp(`[0-9A-Fa-f]{${MIN_RUN},}`, 'g');
const BASE64_RUN = new RegExp(`[A-Za-z0-9+/_-]{${MIN_RUN},}`, 'g');

export { unescaped };

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
