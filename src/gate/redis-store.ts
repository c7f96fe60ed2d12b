import { createHash, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { ConfigError, RefusedError, StateStoreUnavailableError } from '../errors.js';
import { type Log, silentLog } from '../log.js';
import { duration, type Redact, redactor } from '../text.js';
import { CLAIM, evalScript, SETTLE, SYNC_EPOCH, TAKE, WARN, type Script } from './redis-scripts.js';
import {
  CONFIRM_WINDOW_MS,
  IN_FLIGHT_TTL_MS,
  MAX_CLAIMS_PER_USER,
  MAX_PENDING_PER_USER,
  type Claimed,
  type GateStore,
  type Completed,
  type InFlight,
  type Pending,
  type StoreHealth,
  type Taken,
  type UnknownOutcome,
  type Warned,
  trimmed,
} from './store.js';

/**
 * The gate's state in Redis (APPMGMT_STATE_URL), shared by every replica. Each record is one key with
 * a TTL no longer than the confirmation window; each decision (warn, take, claim) is one atomic step.
 * It fails closed: when Redis is away or slow, every method rejects within `commandTimeoutMs` with a
 * StateStoreUnavailableError, and nothing is queued to run later.
 *
 * It relies on Redis keeping what it was told (maxmemory-policy noeviction, persistence), and checks:
 * an epoch key written once per store tells when Redis lost its memory (a restart without
 * persistence, a flush, an evicted key), and then every gated decision is refused for a grace period
 * as long as an earlier call may still run or its unknown outcome would have been remembered. Apart
 * from that, a lost key can only refuse: a confirm or an approval acts only by consuming its own
 * pending warning in one step.
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
/** The store's epoch: written once, kept without a TTL; its loss or change is how amnesia shows. */
export const EPOCH_KEY = `${KEY_PREFIX}epoch`;
/**
 * New warnings are refused once the database holds this many keys (each gate record is under 1 KB,
 * so ~100 MB at most), rather than letting Redis evict or refuse writes at random.
 */
export const MAX_STORE_KEYS = 100_000;
/** The longest amnesia grace, whatever the configured timeouts: beyond it a refusal helps nobody. */
export const MAX_AMNESIA_GRACE_MS = 30 * 60_000;

type Kind = 'pending' | 'latest' | 'running' | 'unknown' | 'done' | 'claims' | 'round' | 'warnings';

/**
 * How long gated calls are refused after the store lost its memory: as long as a call taken before
 * could still be running (an approval form, then the longest request), and at least the window in
 * which an unknown outcome or a warning would have been remembered; at most MAX_AMNESIA_GRACE_MS.
 */
export function amnesiaGraceMs(config: { timeoutMs: number; resolveTimeoutMs: number; approvalTimeoutMs: number }): number {
  const longestCall = config.approvalTimeoutMs + Math.max(config.timeoutMs, config.resolveTimeoutMs);
  return Math.min(MAX_AMNESIA_GRACE_MS, Math.max(CONFIRM_WINDOW_MS, IN_FLIGHT_TTL_MS, longestCall));
}

/** Gated calls refused because the store lost its memory: says why and when to retry. */
export class StateStoreAmnesiaError extends RefusedError {
  override name = 'StateStoreAmnesiaError';
  constructor(readonly lostAt: number, readonly until: number) {
    super(`${amnesiaSentence(lostAt, until)} Nothing was sent; retry after ${iso(until)}.`);
  }
}

/** What happened and until when gated calls are refused, for results, logs and /readyz. */
function amnesiaSentence(lostAt: number, until: number): string {
  return (
    `The confirmation gate's state store lost its memory (noticed at ${iso(lostAt)}: Redis restarted without persistence, or its keys were evicted or deleted). ` +
    `So that no earlier call can run twice, calls that need confirmation are refused until ${iso(until)}; read tools still work.`
  );
}

/** What CONFIG GET maxmemory-policy found: the policy, or why it could not be read (managed Redis often disables CONFIG). */
export type EvictionPolicy = { policy: string } | { unknown: string };

export type RedisGateStore = GateStore & {
  /** @throws StateStoreUnavailableError when Redis does not answer. */
  evictionPolicy(): Promise<EvictionPolicy>;
  /**
   * Runs a script of another part of the gate (allowance-redis.ts) on this store's connection and
   * deadline. A `decision` runs behind the epoch check (its Lua starts with EPOCH_CHECK, and gets
   * the epoch key first and two epochs first) and is refused during an amnesia grace, as the gate's
   * own decisions are; anything else runs as it is, at any time.
   * @throws StateStoreUnavailableError, or StateStoreAmnesiaError for a decision.
   */
  script(script: Script, keys: string[], args: Array<string | number>, decision: boolean): Promise<unknown>;
};

export interface RedisStoreOptions {
  /** redis://[user:password@]host:port/db, or rediss:// for TLS. */
  url: string;
  /** Stamps `since` of in-flight markers; expiry is Redis's own clock. */
  now?: () => number;
  /** The TTL of every record; at most CONFIRM_WINDOW_MS. */
  ttlMs?: number;
  commandTimeoutMs?: number;
  log?: Log;
  /** How long gated decisions are refused after the store lost its memory (amnesiaGraceMs). */
  graceMs?: number;
  /** Per-user caps on pending warnings and on claimed approval nonces, and the cap on the database's keys. */
  maxPendingPerUser?: number;
  maxClaimsPerUser?: number;
  maxKeys?: number;
}

/**
 * A GateStore over Redis. Connects in the background and reconnects with backoff after an outage.
 * Every method rejects with StateStoreUnavailableError when Redis does not answer in time.
 * @throws ConfigError when `url` is not a redis:// or rediss:// URL; RangeError when `ttlMs` is outside (0, CONFIRM_WINDOW_MS].
 */
export function createRedisStore({
  url,
  now = Date.now,
  ttlMs = CONFIRM_WINDOW_MS,
  commandTimeoutMs = COMMAND_TIMEOUT_MS,
  log = silentLog,
  graceMs = MAX_AMNESIA_GRACE_MS,
  maxPendingPerUser = MAX_PENDING_PER_USER,
  maxClaimsPerUser = MAX_CLAIMS_PER_USER,
  maxKeys = MAX_STORE_KEYS,
}: RedisStoreOptions): RedisGateStore {
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

  /** A plain read; during an amnesia grace it refuses at once, so a warning stops before it reads upstream. */
  const get = async <T>(kind: Kind, key: string) => {
    refuseWhileForgetful();
    return run(async () => parse<T>(await redis.get(name(kind, key))));
  };

  /** The epoch this store saw, and until when it refuses gated decisions after seeing it change. */
  let epoch: string | undefined;
  let amnesia: { lostAt: number; until: number } | undefined;
  const freshEpoch = () => randomBytes(32).toString('hex');

  /** Records that the store lost its memory; the epoch now in force is the one to expect from here on. */
  function forgot(current: string): StateStoreAmnesiaError {
    // Concurrent calls may all see the same loss: the first one starts the grace.
    if (current === epoch && amnesia && now() < amnesia.until) return new StateStoreAmnesiaError(amnesia.lostAt, amnesia.until);
    const lostAt = now();
    amnesia = { lostAt, until: lostAt + graceMs };
    if (epoch !== undefined) {
      log.warn(
        `gate state store ${label} lost its memory (its epoch key changed or vanished); gated calls are refused until ${iso(amnesia.until)}. Set maxmemory-policy noeviction and persistence (AOF or RDB) on Redis.`,
      );
    }
    epoch = current;
    return new StateStoreAmnesiaError(amnesia.lostAt, amnesia.until);
  }

  /** @throws StateStoreAmnesiaError while the grace after an amnesia lasts. */
  function refuseWhileForgetful(): void {
    if (amnesia && now() < amnesia.until) throw new StateStoreAmnesiaError(amnesia.lostAt, amnesia.until);
  }

  /** Reads the epoch in force (writing one where there is none); a change from the one seen is amnesia. */
  async function syncEpoch(): Promise<string> {
    const current = await run(async () => String(await evalScript(redis, SYNC_EPOCH, [EPOCH_KEY], [freshEpoch()])));
    if (epoch === undefined) epoch = current;
    else if (current !== epoch) forgot(current);
    return current;
  }

  /** Runs a decision script behind the epoch check. @throws StateStoreAmnesiaError when the store lost its memory. */
  async function decide(lua: Script, keys: string[], args: Array<string | number>): Promise<[string, string | undefined]> {
    refuseWhileForgetful();
    const seen = epoch ?? (await syncEpoch());
    refuseWhileForgetful();
    const answer = await run(async () => reply(await evalScript(redis, lua, [EPOCH_KEY, ...keys], [seen, freshEpoch(), ...args])));
    if (answer[0] === 'amnesia') throw forgot(answer[1] ?? '');
    return answer;
  }

  /** `take`, or with 'bind' what it would answer now, binding the pending warning to `round`. */
  async function takeOrBind(key: string, slot: string, mode: 'take' | 'bind', round: string | undefined): Promise<Taken> {
    const keys = [name('running', key), name('pending', key), name('latest', slot), name('round', key)];
    const digest = round === undefined ? '' : createHash('sha256').update(round).digest('hex');
    const args = [JSON.stringify({ since: now() } satisfies InFlight), key, Math.min(IN_FLIGHT_TTL_MS, ttlMs), KEY_PREFIX, mode, digest];
    const [outcome, value] = await decide(TAKE, keys, args);
    if (outcome === 'in_flight') return { ok: false, why: 'in_flight', inFlight: parse<InFlight>(value)! };
    if (outcome === 'taken') return { ok: true, pending: parse<Pending>(value)! };
    if (outcome === 'other_round') return { ok: false, why: 'other_round' };
    return { ok: false, why: 'no_warning', otherArguments: value === 'other_arguments' };
  }

  async function evictionPolicy(): Promise<EvictionPolicy> {
    return run(async () => {
      try {
        const answer = (await redis.config('GET', 'maxmemory-policy')) as unknown;
        const policy = Array.isArray(answer) ? answer[1] : undefined;
        return typeof policy === 'string' ? { policy } : { unknown: 'Redis gave no maxmemory-policy' };
      } catch (error) {
        if (error instanceof Error && error.name === 'ReplyError') return { unknown: `Redis refused CONFIG GET (${redact(summary(error)).slice(0, 200)})` };
        throw error;
      }
    });
  }

  // After every (re)connect: a restarted Redis without persistence shows at once, not at the next decision.
  redis.on('ready', () => void syncEpoch().catch((error: unknown) => log.debug(`gate state store ${label}: epoch check failed: ${summary(error)}`)));

  return {
    inFlight: (key) => get<InFlight>('running', key),
    unknownOutcome: (key) => get<UnknownOutcome>('unknown', key),
    completed: (key) => get<Completed>('done', key),
    async warn(key, slot, pending, scope): Promise<Warned> {
      const keys = [name('running', key), name('pending', key), name('latest', slot), name('round', key), name('warnings', scope)];
      const [outcome, running] = await decide(WARN, keys, [JSON.stringify(pending), key, ttlMs, maxPendingPerUser, maxKeys, KEY_PREFIX]);
      if (outcome === 'in_flight') return { ok: false, why: 'in_flight', inFlight: parse<InFlight>(running)! };
      if (outcome === 'full') return { ok: false, why: 'full', records: maxKeys };
      return { ok: true };
    },
    take: (key, slot, round) => takeOrBind(key, slot, 'take', round),
    bind: (key, slot, round) => takeOrBind(key, slot, 'bind', round),
    async touch(key) {
      await run(() => redis.pexpire(name('running', key), Math.min(IN_FLIGHT_TTL_MS, ttlMs))); // PEXPIRE does nothing to a missing key
    },
    async settle(key, settlement) {
      const record = settlement.kind === 'unknown' ? JSON.stringify(settlement.record) : '';
      const completed = settlement.kind === 'clean' && settlement.completed ? JSON.stringify(trimmed(settlement.completed)) : '';
      await run(() => evalScript(redis, SETTLE, [name('running', key), name('unknown', key), name('done', key)], [settlement.kind, record, ttlMs, completed]));
    },
    async claimOnce(token, claimTtlMs, scope): Promise<Claimed> {
      refuseWhileForgetful(); // no decision of any kind during the grace
      const digest = createHash('sha256').update(token).digest('hex');
      const ttl = Math.max(1, Math.min(claimTtlMs, ttlMs));
      const [outcome] = await run(async () => reply(await evalScript(redis, CLAIM, [name('claims', scope)], [digest, ttl, maxClaimsPerUser])));
      if (outcome === 'claimed') return { ok: true };
      return outcome === 'used' ? { ok: false, why: 'used' } : { ok: false, why: 'full', claims: maxClaimsPerUser };
    },
    async ping() {
      await run(() => redis.ping());
    },
    evictionPolicy,
    script: (script, keys, args, decision) => (decision ? decide(script, keys, args) : run(() => evalScript(redis, script, keys, args))),
    async health(): Promise<StoreHealth> {
      await run(() => redis.ping());
      const problems: string[] = [];
      const found = await evictionPolicy();
      if ('policy' in found && found.policy !== 'noeviction') problems.push(evictionProblem(found.policy));
      await syncEpoch();
      if (amnesia && now() < amnesia.until) {
        problems.push(amnesiaSentence(amnesia.lostAt, amnesia.until));
        return { problems, refusingUntil: amnesia.until };
      }
      return { problems };
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

/** Why an eviction policy other than noeviction weakens the gate, for logs and /readyz. */
export function evictionProblem(policy: string): string {
  return `Redis maxmemory-policy is ${policy}, not noeviction: under memory pressure Redis may drop the gate's records (an in-flight marker, an unknown outcome), and the gate can then only refuse for a while after noticing.`;
}

const iso = (ms: number) => new Date(ms).toISOString();

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
