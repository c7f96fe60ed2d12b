import { constants, type Stats } from 'node:fs';
import { lstat, open, type FileHandle } from 'node:fs/promises';
import { ConfigError } from '../errors.js';
import type { Log } from '../log.js';
import { duration, limit, sanitize } from '../text.js';

/** Where the audit trail's lines go: a file of its own (APPMGMT_AUDIT_LOG), or stderr beside the log. */

/** Marks a trail line on stderr, where it shares the stream with the log. */
export const AUDIT_PREFIX = '[app-management-mcp] audit: ';
/** A trail file is created readable by its owner only: it says who spent what. */
export const AUDIT_FILE_MODE = 0o600;
/**
 * How the trail file is opened, for every line: appended to (and read, for its last byte), created
 * 0600, never through a symbolic link, and never waiting for a FIFO's reader (issue 25).
 */
const OPEN_FLAGS = constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;
/**
 * A line not written and flushed within this is a failed write: a trail on a stalled disk, or a
 * stderr nobody reads, must not hold every warning without end. (An fsync takes milliseconds.)
 */
export const AUDIT_WRITE_TIMEOUT_MS = 5_000;

/** Where lines go. `append` resolves once the line is durable (on disk, or handed to stderr) and rejects when it could not be written. */
export interface AuditSink {
  append(line: string): Promise<void>;
}

/** How a file sink opens its file for each line: fs.promises.open, unless a test watches the handle. */
export type OpenFile = (path: string, flags: number, mode: number) => Promise<FileHandle>;

/**
 * Appends to `path`: opened per line (so a rotated or removed file is created again, 0600), written
 * in one write and fsynced before `append` resolves. A path that became a symbolic link, a FIFO or
 * anything but a regular file is refused before anything is written. A line after a write that
 * failed half-way (a full disk) starts on a new line, so the fragment stands alone and every whole
 * line still parses.
 */
export function fileSink(path: string, openFile: OpenFile = open): AuditSink {
  return {
    async append(line) {
      const handle = await openFile(path, OPEN_FLAGS, AUDIT_FILE_MODE).catch((error: unknown) => {
        throw (error as NodeJS.ErrnoException).code === 'ELOOP' ? new Error('the audit trail path became a symbolic link; nothing was written through it') : error;
      });
      try {
        const found = await handle.stat();
        if (!found.isFile()) throw new Error(`the audit trail path is now ${kindOf(found)}, not a regular file; nothing was written to it`);
        const torn = found.size > 0 && !(await endsLine(handle, found.size));
        const bytes = Buffer.from(torn ? `\n${line}` : line, 'utf8');
        const { bytesWritten } = await handle.write(bytes, 0, bytes.length);
        if (bytesWritten !== bytes.length) throw new Error(`wrote ${bytesWritten} of ${bytes.length} bytes`);
        await handle.sync();
      } finally {
        await handle.close();
      }
    },
  };
}

/** Whether the file's last byte ends a line (a line cut short by a full disk does not). */
async function endsLine(handle: FileHandle, size: number): Promise<boolean> {
  const last = Buffer.alloc(1);
  const { bytesRead } = await handle.read(last, 0, 1, size - 1);
  return bytesRead === 1 && last[0] === 0x0a;
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

/** The same sink, each append failing once `ms` pass without it finishing (it may still finish later). */
export function deadlineSink(sink: AuditSink, ms = AUDIT_WRITE_TIMEOUT_MS): AuditSink {
  return {
    async append(line) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`the write did not finish within ${duration(ms)}`)), ms)));
      try {
        await Promise.race([sink.append(line), late]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** A path is shown this far in a start-up error. */
const MAX_PATH_CHARS = 200;

/**
 * Checks the trail file at start-up, so a path that cannot take the trail stops the server instead
 * of refusing every spend later: it must be a regular file (or one to create, 0600), never a
 * symbolic link (/dev/stdout is one: it would put JSON lines into the MCP stream), a FIFO (a write
 * waits for a reader), a device (/dev/null discards every line) or a socket. Warns when an
 * existing file is readable by others.
 * @throws ConfigError naming APPMGMT_AUDIT_LOG and why.
 */
export async function checkAuditFile(path: string, log: Log): Promise<void> {
  const shown = JSON.stringify(limit(path, MAX_PATH_CHARS));
  // lstat first: opening a FIFO would wait for a reader, and a link's target is not what was named.
  const found = await lstat(path).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(`APPMGMT_AUDIT_LOG ${shown} cannot be read (${errorText(error)}); give a file in a directory this server can write to`);
  });
  if (found && !found.isFile()) throw new ConfigError(`APPMGMT_AUDIT_LOG ${shown} is ${kindOf(found)}, not a regular file; ${remedy(found)}`);
  let handle: FileHandle;
  try {
    handle = await open(path, OPEN_FLAGS, AUDIT_FILE_MODE);
  } catch (error) {
    throw new ConfigError(`APPMGMT_AUDIT_LOG ${shown} cannot be opened for appending (${errorText(error)}); give a file in a directory this server can write to`);
  }
  try {
    const { mode } = await handle.stat();
    if ((mode & 0o077) !== 0) {
      log.warn(`the audit trail ${shown} is readable or writable by others (mode ${(mode & 0o777).toString(8)}); chmod 600 it`);
    }
  } finally {
    await handle.close();
  }
}

function kindOf(found: Stats): string {
  if (found.isSymbolicLink()) return 'a symbolic link';
  if (found.isFIFO()) return 'a FIFO';
  if (found.isSocket()) return 'a socket';
  if (found.isCharacterDevice() || found.isBlockDevice()) return 'a device';
  if (found.isDirectory()) return 'a directory';
  return 'not a file';
}

function remedy(found: Stats): string {
  if (found.isSymbolicLink()) return 'give the real path of the file (readlink -f prints it): the trail is never written through a link, which could lead to stdout, a device or a file not meant for it';
  if (found.isCharacterDevice() || found.isBlockDevice()) return 'give a file: /dev/null would discard the trail, and then every spend would be refused, and /dev/stdout or /dev/stderr would mix it into another stream (leave APPMGMT_AUDIT_LOG unset for stderr)';
  if (found.isDirectory()) return 'give the path of a file in it, such as audit.jsonl';
  return 'give a regular file: a write to a FIFO or a socket waits on whoever reads it';
}

function errorText(error: unknown): string {
  return sanitize(error instanceof Error ? `${error.name}: ${error.message}` : String(error), 200);
}
