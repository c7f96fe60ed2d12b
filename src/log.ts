import { strip } from './text.js';

/** Logging to stderr only: stdout belongs to the MCP protocol. */
export type Level = 'debug' | 'info' | 'warn' | 'error';

export interface Log {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

const ORDER: Record<Level, number> = { debug: 0, info: 1, warn: 2, error: 3 };

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
    if (ORDER[level] >= min) write(`[app-management-mcp] ${level}: ${redact(strip(message)).replace(/\r\n?|\n/g, '\n    ')}\n`);
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}

export const silentLog: Log = { debug() {}, info() {}, warn() {}, error() {} };

/** `log` with `redact` applied first: one caller's own secrets never reach the shared log. */
export function redactingLog(log: Log, redact: (text: string) => string): Log {
  return {
    debug: (message) => log.debug(redact(message)),
    info: (message) => log.info(redact(message)),
    warn: (message) => log.warn(redact(message)),
    error: (message) => log.error(redact(message)),
  };
}
