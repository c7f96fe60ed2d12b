import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { ConfigError, StateStoreUnavailableError } from '../errors.js';
import { type Log, silentLog } from '../log.js';
import { duration, type Redact, redactor } from '../text.js';
import { evalScript, SETTLE, TAKE, WARN } from './redis-scripts.js';
import { CONFIRM_WINDOW_MS, IN_FLIGHT_TTL_MS, type GateStore, type InFlight, type Pending, type Taken, type UnknownOutcome } from './store.js';

/**
 * The gate's state in Redis (APPMGMT_STATE_URL), shared by every replica. Each record is one key with
 * a TTL no longer than the confirmation window; each decision (warn, take, claim) is one atomic step.
 * It fails closed: when Redis is away or slow, every method rejects within `commandTimeoutMs` with a
 * StateStoreUnavailableError, and nothing is queued to run later.
 *
 * Client: ioredis 6.0.0, because failing closed is configuration there (no offline queue, no replay
 * of unanswered commands, a per-command timeout, reconnect backoff) and it needs no connect step.
 */

/** Every key starts with this, so the gate's records never collide with other data in the database. */
export const KEY_PREFIX = 'appmgmt:gate:';
/** How long one method waits for Redis by default: a confirmation should fail fast, not hang, while Redis is away. */
export const COMMAND_TIMEOUT_MS = 1_000;
/** Reconnect backoff: quick after a blip, capped so a store recovers within seconds of Redis returning. */
const RECONNECT_FIRST_MS = 50;
const RECONNECT_MAX_MS = 2_000;
/** A TCP connection not open by then is dropped and tried again; methods stop waiting far sooner. */
const CONNECT_TIMEOUT_MS = 5_000;
/** What the gate passes as keys and slots (gate/key.ts): no argument or credential can reach Redis. */
const SHA256_HEX = /^[0-9a-f]{64}$/;

type Kind = 'pending' | 'latest' | 'running' | 'unknown' | 'claimed';

export interface RedisStoreOptions {
  /** redis://[user:password@]host:port/db, or rediss:// for TLS. */
  url: string;
  /** Stamps `since` of in-flight markers; expiry is Redis's own clock. */
  now?: () => number;
  /** The TTL of every record; at most CONFIRM_WINDOW_MS. */
  ttlMs?: number;
  commandTimeoutMs?: number;
  log?: Log;
}

/**
 * A GateStore over Redis. Connects in the background and reconnects with backoff after an outage.
 * Every method rejects with StateStoreUnavailableError when Redis does not answer in time.
 * @throws ConfigError when `url` is not a redis:// or rediss:// URL; RangeError when `ttlMs` is outside (0, CONFIRM_WINDOW_MS].
 */
export function createRedisStore({ url, now = Date.now, ttlMs = CONFIRM_WINDOW_MS, commandTimeoutMs = COMMAND_TIMEOUT_MS, log = silentLog }: RedisStoreOptions): GateStore {
  if (!(ttlMs > 0 && ttlMs <= CONFIRM_WINDOW_MS)) throw new RangeError(`ttlMs must be in (0, ${CONFIRM_WINDOW_MS}], not ${ttlMs}`);
  const { label, redact } = describeUrl(url);
  const redis = new Redis(url, {
    enableOfflineQueue: false, // a command goes out now or never: a replayed `take` could act for a caller who was told no
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0, // commands awaiting an answer fail as soon as the connection drops
    commandTimeout: commandTimeoutMs, // also lets the client forget a command that never answers
    connectTimeout: CONNECT_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(RECONNECT_FIRST_MS * 2 ** (attempt - 1), RECONNECT_MAX_MS),
    connectionName: 'app-management-mcp',
  });
  const connection = watchConnection(redis, label, redact, log);
  let closed = false;

  /** Runs `command` once connected, all within the deadline; any failure becomes StateStoreUnavailableError. */
  async function run<T>(command: () => Promise<T>): Promise<T> {
    if (closed) throw new StateStoreUnavailableError('the store was closed');
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new StateStoreUnavailableError(`no answer from Redis within ${duration(commandTimeoutMs)}`)), commandTimeoutMs);
    });
    try {
      await Promise.race([connection.ready(), deadline]);
      return await Promise.race([command(), deadline]);
    } catch (error) {
      if (error instanceof StateStoreUnavailableError) throw error;
      const refused = error instanceof Error && error.name === 'ReplyError';
      const detail = `gate state store ${label}: ${redact(summary(error))}`;
      if (refused) log.warn(detail);
      else log.debug(detail);
      throw new StateStoreUnavailableError(refused ? 'Redis refused the command' : 'the connection to Redis dropped', { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }

  const get = <T>(kind: Kind, key: string) => run(async () => parse<T>(await redis.get(name(kind, key))));

  /** `take`, or with 'peek' what it would answer now, changing nothing. */
  async function takeOrPeek(key: string, slot: string, mode: 'take' | 'peek'): Promise<Taken> {
    const keys = [name('running', key), name('pending', key), name('latest', slot)];
    const args = [JSON.stringify({ since: now() } satisfies InFlight), key, Math.min(IN_FLIGHT_TTL_MS, ttlMs), `${KEY_PREFIX}pending:`, mode];
    const [outcome, value] = await run(async () => reply(await evalScript(redis, TAKE, keys, args)));
    if (outcome === 'in_flight') return { ok: false, why: 'in_flight', inFlight: parse<InFlight>(value)! };
    if (outcome === 'taken') return { ok: true, pending: parse<Pending>(value)! };
    return { ok: false, why: 'no_warning', otherArguments: value === 'other_arguments' };
  }

  return {
    inFlight: (key) => get<InFlight>('running', key),
    unknownOutcome: (key) => get<UnknownOutcome>('unknown', key),
    async warn(key, slot, pending) {
      const keys = [name('running', key), name('pending', key), name('latest', slot)];
      const [outcome, running] = await run(async () => reply(await evalScript(redis, WARN, keys, [JSON.stringify(pending), key, ttlMs])));
      return outcome === 'in_flight' ? { ok: false, inFlight: parse<InFlight>(running)! } : { ok: true };
    },
    take: (key, slot) => takeOrPeek(key, slot, 'take'),
    peek: (key, slot) => takeOrPeek(key, slot, 'peek'),
    async touch(key) {
      await run(() => redis.pexpire(name('running', key), Math.min(IN_FLIGHT_TTL_MS, ttlMs))); // PEXPIRE does nothing to a missing key
    },
    async settle(key, settlement) {
      const record = settlement.kind === 'unknown' ? JSON.stringify(settlement.record) : '';
      await run(() => evalScript(redis, SETTLE, [name('running', key), name('unknown', key)], [settlement.kind, record, ttlMs]));
    },
    async claimOnce(token, claimTtlMs) {
      const key = name('claimed', createHash('sha256').update(token).digest('hex'));
      const ttl = Math.max(1, Math.min(claimTtlMs, ttlMs));
      return (await run(() => redis.set(key, '1', 'PX', ttl, 'NX'))) === 'OK';
    },
    async ping() {
      await run(() => redis.ping());
    },
    async close() {
      connection.closing();
      if (redis.status === 'ready') await run(() => redis.quit()).catch(() => undefined);
      closed = true;
      redis.disconnect();
    },
  };
}

/**
 * Tells when the connection can take a command, and logs each outage once (without the password).
 * A method waits only while a connection is being opened; between reconnect attempts it fails at once.
 */
function watchConnection(redis: Redis, label: string, redact: Redact, log: Log) {
  let outage = false;
  let closing = false;
  const lost = (why: string) => {
    if (!outage && !closing) log.warn(`gate state store ${label} is unreachable (${why}); gated tools are refused while it reconnects in the background`);
    outage = true;
  };
  redis.on('error', (error: Error) => lost(redact(summary(error))));
  redis.on('close', () => lost('the connection closed'));
  redis.on('ready', () => {
    if (outage) log.info(`gate state store ${label} answers again`);
    outage = false;
  });
  let opening: Promise<void> | undefined;
  return {
    /** Our own close(): no outage to report. */
    closing() {
      closing = true;
    },
    ready(): Promise<void> {
      switch (redis.status) {
        case 'ready':
          return Promise.resolve();
        case 'wait':
        case 'connecting':
        case 'connect':
          return (opening ??= nextOpen(redis).finally(() => (opening = undefined)));
        case 'end':
          return Promise.reject(new StateStoreUnavailableError('the store was closed'));
        default:
          return Promise.reject(new StateStoreUnavailableError('not connected to Redis; reconnecting'));
      }
    },
  };
}

/** The outcome of the connection attempt under way: ready, or closed again. */
function nextOpen(redis: Redis): Promise<void> {
  return new Promise((resolve, reject) => {
    const ready = () => {
      redis.off('close', closed);
      resolve();
    };
    const closed = () => {
      redis.off('ready', ready);
      reject(new StateStoreUnavailableError('not connected to Redis; reconnecting'));
    };
    redis.once('ready', ready).once('close', closed);
  });
}

/** The record's key. @throws TypeError when `hash` is not a SHA-256 hex digest. */
function name(kind: Kind, hash: string): string {
  if (!SHA256_HEX.test(hash)) throw new TypeError(`gate store keys must be SHA-256 hex digests (gate/key.ts), not ${hash.length} other characters`);
  return `${KEY_PREFIX}${kind}:${hash}`;
}

/** An error in a few words; a failed connect to several addresses is an AggregateError with no message. */
function summary(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.message || (error as NodeJS.ErrnoException).code || error.name;
}

function decodedOr(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function parse<T>(text: string | null | undefined): T | undefined {
  return text == null ? undefined : (JSON.parse(text) as T);
}

/** A script's answer: an outcome word and an optional value. @throws Error on any other shape. */
function reply(value: unknown): [string, string | undefined] {
  if (!Array.isArray(value) || typeof value[0] !== 'string') throw new Error('the gate script answered in an unexpected shape');
  return [value[0], typeof value[1] === 'string' ? value[1] : undefined];
}

/** The URL as it may appear in logs (no user or password), and a redactor for the password. */
function describeUrl(url: string): { label: string; redact: Redact } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError('APPMGMT_STATE_URL is not a URL; expected redis://host:port/db.');
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new ConfigError('APPMGMT_STATE_URL must start with redis:// (or rediss:// for TLS), e.g. redis://127.0.0.1:6379/0.');
  }
  const path = parsed.pathname === '/' ? '' : parsed.pathname;
  const password = parsed.password ? [parsed.password, decodedOr(parsed.password)] : [];
  return { label: `${parsed.protocol}//${parsed.host}${path}`, redact: redactor(password) };
}
