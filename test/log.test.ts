import { describe, expect, it } from 'vitest';
import { createLog } from '../src/log.js';
import { redactor, sanitize } from '../src/tools/format.js';

describe('log', () => {
  it('writes one prefixed line per message and redacts configured secrets', () => {
    const lines: string[] = [];
    const log = createLog({ level: 'info', write: (line) => lines.push(line), redact: redactor(['tok-secret', 'tok']) });
    log.info('sent Bearer tok-secret and tok');
    log.debug('hidden below the level');
    expect(lines).toEqual(['[app-management-mcp] info: sent Bearer [redacted] and [redacted]\n']);
  });
});

describe('sanitize', () => {
  it('removes control and bidi characters, folds whitespace and trims to the limit', () => {
    expect(sanitize('a\u0000b\nc\u202Ed\t\te', 100)).toBe('a b c d e');
    expect(sanitize('x'.repeat(50), 10)).toBe(`${'x'.repeat(9)}…`);
  });

  it('never cuts a character in half', () => {
    const cut = sanitize('🙂'.repeat(20), 8); // 8 - 1 UTF-16 units would end inside an emoji
    expect(cut.endsWith('…')).toBe(true);
    expect(Buffer.from(cut).toString()).toBe(cut); // a lone surrogate would not survive UTF-8
  });
});
