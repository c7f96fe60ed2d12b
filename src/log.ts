import { limit, strip } from './text.js';

/** Logging to stderr only: stdout belongs to the MCP protocol. */
export type Level = 'debug' | 'info' | 'warn' | 'error';

export interface Log {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

const ORDER: Record<Level, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** One entry's characters: our messages are far shorter; more is upstream text, cut before redaction reads it. */
const MAX_ENTRY_CHARS = 8_000;

/**
 * A logger writing one entry per message to `write` (stderr by default). Every entry passes through
 * `redact`, so a configured secret never reaches a log even when upstream text echoes it, and loses
 * hidden characters; continuation lines are indented, so logged text can never pose as an entry.
 */
export function createLog(options: {
  level?: Level;
  redact?: (text: string) => string;
  write?: (line: string) => void;
} = {}): Log {
  const min = ORDER[options.level ?? 'info'];
  const redact = options.redact ?? ((text: string) => text);
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const emit = (level: Level) => (message: string) => {
    if (ORDER[level] >= min) write(`[app-management-mcp] ${level}: ${redact(strip(limit(message, MAX_ENTRY_CHARS))).replace(/\r\n?|\n/g, '\n    ')}\n`);
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}

export const silentLog: Log = { debug() {}, info() {}, warn() {}, error() {} };

/** `log` with `redact` applied first: one caller's own secrets never reach the shared log. */
export function redactingLog(log: Log, redact: (text: string) => string): Log {
  const shown = (message: string) => redact(limit(message, MAX_ENTRY_CHARS));
  return {
    debug: (message) => log.debug(shown(message)),
    info: (message) => log.info(shown(message)),
    warn: (message) => log.warn(shown(message)),
    error: (message) => log.error(shown(message)),
  };
}
