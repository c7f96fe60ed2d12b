import { describe, expect, it } from 'vitest';
import { createLog } from '../src/log.js';
import { redactor } from '../src/text.js';

describe('log', () => {
  it('writes one prefixed line per message and redacts configured secrets', () => {
    const lines: string[] = [];
    const log = createLog({ level: 'info', write: (line) => lines.push(line), redact: redactor(['tok-secret', 'key-1234']) });
    log.info('sent Bearer tok-secret and key-1234');
    log.debug('hidden below the level');
    expect(lines).toEqual(['[app-management-mcp] info: sent Bearer [redacted] and [redacted]\n']);
  });

  it('indents continuation lines, so logged text can never pose as an entry of its own', () => {
    const lines: string[] = [];
    const log = createLog({ write: (line) => lines.push(line) });
    log.warn('upstream said: ok\n[app-management-mcp] error: forged\r\nend');
    expect(lines).toEqual(['[app-management-mcp] warn: upstream said: ok\n    [app-management-mcp] error: forged\n    end\n']);
  });

  it('removes hidden characters and finds a secret split by them', () => {
    const lines: string[] = [];
    const log = createLog({ write: (line) => lines.push(line), redact: redactor(['tok-secret']) });
    log.info('a\u202eb \u{e0041}c tok\u200b-sec\u2060ret');
    expect(lines).toEqual(['[app-management-mcp] info: ab c [redacted]\n']);
  });
});
