import { open } from 'node:fs/promises';
import { ConfigError } from '../errors.js';
import type { Log } from '../log.js';
import { limit, sanitize } from '../text.js';

/** Where the audit trail's lines go: a file of its own (APPMGMT_AUDIT_LOG), or stderr beside the log. */

/** Marks a trail line on stderr, where it shares the stream with the log. */
export const AUDIT_PREFIX = '[app-management-mcp] audit: ';
/** A trail file is created readable by its owner only: it says who spent what. */
export const AUDIT_FILE_MODE = 0o600;

/** Where lines go. `append` resolves once the line is durable (on disk, or handed to stderr) and rejects when it could not be written. */
export interface AuditSink {
  append(line: string): Promise<void>;
}

/**
 * Appends to `path`: opened per line (so a rotated or removed file is created again, 0600), written
 * in one write and fsynced before `append` resolves.
 */
export function fileSink(path: string): AuditSink {
  return {
    async append(line) {
      const handle = await open(path, 'a', AUDIT_FILE_MODE);
      try {
        const bytes = Buffer.from(line, 'utf8');
        const { bytesWritten } = await handle.write(bytes, 0, bytes.length);
        if (bytesWritten !== bytes.length) throw new Error(`wrote ${bytesWritten} of ${bytes.length} bytes`);
        await handle.sync();
      } finally {
        await handle.close();
      }
    },
  };
}

/** Writes each line to stderr after AUDIT_PREFIX, resolving once the stream took it. */
export function stderrSink(stream: Pick<NodeJS.WritableStream, 'write'> = process.stderr): AuditSink {
  return {
    append: (line) =>
      new Promise<void>((resolve, reject) => {
        stream.write(`${AUDIT_PREFIX}${line}`, (error?: Error | null) => (error ? reject(error) : resolve()));
      }),
  };
}

/** A path is shown this far in a start-up error. */
const MAX_PATH_CHARS = 200;

/**
 * Opens (creating 0600) the trail file at start-up, so a path that cannot be written stops the
 * server instead of refusing every spend later; warns when an existing file is readable by others.
 * @throws ConfigError naming APPMGMT_AUDIT_LOG and why.
 */
export async function checkAuditFile(path: string, log: Log): Promise<void> {
  let handle;
  try {
    handle = await open(path, 'a', AUDIT_FILE_MODE);
  } catch (error) {
    throw new ConfigError(`APPMGMT_AUDIT_LOG ${JSON.stringify(limit(path, MAX_PATH_CHARS))} cannot be opened for appending (${errorText(error)}); give a file in a directory this server can write to`);
  }
  try {
    const { mode } = await handle.stat();
    if ((mode & 0o077) !== 0 && (mode & 0o170000) === 0o100000) {
      log.warn(`the audit trail ${JSON.stringify(limit(path, MAX_PATH_CHARS))} is readable or writable by others (mode ${(mode & 0o777).toString(8)}); chmod 600 it`);
    }
  } finally {
    await handle.close();
  }
}

function errorText(error: unknown): string {
  return sanitize(error instanceof Error ? `${error.name}: ${error.message}` : String(error), 200);
}
