import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { evalScript } from '../gate/redis-scripts.js';
import { type Log, silentLog } from '../log.js';
import { redactor } from '../text.js';
import { GRANT_TTL_MS, MAX_GRANTS_PER_SUBJECT, MAX_USED_REFRESH, type Grant, type GrantDoc } from './grant.js';
import { AuthStoreUnavailableError } from './errors.js';
import { MAX_CLIENTS, MAX_CODES_PER_SUBJECT, REVOKED_TTL_MS, type AuthStore, type CodeRecord, type StoredClient } from './store.js';

/**
 * The authorization server's records in Redis (APPMGMT_STATE_URL), shared by every replica, beside
 * the gate's under their own prefix. It fails closed as the gate's store does: no offline queue, no
 * replayed commands, every method rejects within the deadline while Redis is away, so nothing is
 * issued and no token is accepted until it answers. A grant is one hash (its fixed part as JSON,
 * its token digests as fields), so rotating a refresh token is one script over one key.
 */

export const AUTH_KEY_PREFIX = 'appmgmt:auth:';
/** A sign-in step should fail fast, not hang, while Redis is away. */
const COMMAND_TIMEOUT_MS = 1_000;
const CONNECT_TIMEOUT_MS = 5_000;

interface Script {
  lua: string;
  sha: string;
}
const script = (lua: string): Script => ({ lua, sha: createHash('sha1').update(lua).digest('hex') });

/** KEYS: registrations index, client. ARGV: now, until, member, record, ttl, cap. */
const ADD_CLIENT = script(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[6]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('SET', KEYS[2], ARGV[4], 'PX', ARGV[5])
return 1
`);

/** KEYS: the subject's codes, code. ARGV: now, until, digest, record, ttl, cap, prefix. */
const PUT_CODE = script(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local n = redis.call('ZCARD', KEYS[1])
local cap = tonumber(ARGV[6])
if n >= cap then
  for _, old in ipairs(redis.call('ZRANGE', KEYS[1], 0, n - cap)) do
    redis.call('DEL', ARGV[7] .. 'code:' .. old)
    redis.call('ZREM', KEYS[1], old)
  end
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('SET', KEYS[2], ARGV[4], 'PX', ARGV[5])
return 1
`);

/** KEYS: code, spent marker. ARGV: spent TTL, prefix, revoked TTL. */
const REDEEM = script(`
local record = redis.call('GET', KEYS[1])
if record then
  redis.call('DEL', KEYS[1])
  redis.call('SET', KEYS[2], cjson.decode(record).grant.id, 'PX', ARGV[1])
  return {'code', record}
end
local grant = redis.call('GET', KEYS[2])
if grant then
  redis.call('DEL', ARGV[2] .. 'grant:' .. grant)
  redis.call('SET', ARGV[2] .. 'revoked:' .. grant, '1', 'PX', ARGV[3])
  return {'reused', grant}
end
return {'unknown'}
`);

/** KEYS: grant, subject's grants, revoked marker. ARGV: id, createdAt, ttl, cap, prefix, revoked TTL, then field/value pairs. */
const PUT_GRANT = script(`
if redis.call('EXISTS', KEYS[3]) == 1 then return {'revoked'} end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 7))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
for _, member in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
  if redis.call('EXISTS', ARGV[5] .. 'grant:' .. member) == 0 then redis.call('ZREM', KEYS[2], member) end
end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
local answer = {'ok'}
local n = redis.call('ZCARD', KEYS[2])
local cap = tonumber(ARGV[4])
if n > cap then
  for _, old in ipairs(redis.call('ZRANGE', KEYS[2], 0, n - cap - 1)) do
    redis.call('DEL', ARGV[5] .. 'grant:' .. old)
    redis.call('SET', ARGV[5] .. 'revoked:' .. old, '1', 'PX', ARGV[6])
    redis.call('ZREM', KEYS[2], old)
    answer[#answer + 1] = old
  end
end
return answer
`);

/**
 * KEYS: grant, revoked marker. ARGV: presented digest, access digest, access end, refresh digest,
 * sealed ('' to keep), narrow ('1'), now, ttl, used kept, revoked TTL.
 */
const ROTATE = script(`
local live = redis.call('HGET', KEYS[1], 'refresh')
if not live then return {'unknown'} end
local used = redis.call('HGET', KEYS[1], 'used') or ''
if live == ARGV[1] then
  local list = {}
  for digest in string.gmatch(used, '%x+') do list[#list + 1] = digest end
  list[#list + 1] = live
  while #list > tonumber(ARGV[9]) do table.remove(list, 1) end
  redis.call('HSET', KEYS[1], 'refresh', ARGV[4], 'used', table.concat(list, ' '), 'access', ARGV[2], 'access_exp', ARGV[3], 'refreshed_at', ARGV[7])
  if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'sealed', ARGV[5]) end
  if ARGV[6] == '1' then redis.call('HSET', KEYS[1], 'narrowed', '1') end
  redis.call('PEXPIRE', KEYS[1], ARGV[8])
  local answer = redis.call('HGETALL', KEYS[1])
  table.insert(answer, 1, 'ok')
  return answer
end
for digest in string.gmatch(used, '%x+') do
  if digest == ARGV[1] then
    redis.call('DEL', KEYS[1])
    redis.call('SET', KEYS[2], '1', 'PX', ARGV[10])
    return {'reused'}
  end
end
return {'unknown'}
`);

/** KEYS: grant, revoked marker. ARGV: revoked TTL. */
const REVOKE = script(`
local fields = redis.call('HGETALL', KEYS[1])
redis.call('DEL', KEYS[1])
redis.call('SET', KEYS[2], '1', 'PX', ARGV[1])
return fields
`);

export interface RedisAuthStoreOptions {
  url: string;
  now?: () => number;
  log?: Log;
  commandTimeoutMs?: number;
  maxClients?: number;
}

/**
 * An AuthStore over Redis. Connects in the background and reconnects with backoff.
 * Every method rejects with AuthStoreUnavailableError when Redis does not answer in time.
 */
export function createRedisAuthStore({ url, now = Date.now, log = silentLog, commandTimeoutMs = COMMAND_TIMEOUT_MS, maxClients = MAX_CLIENTS }: RedisAuthStoreOptions): AuthStore {
  const parsed = new URL(url);
  const hide = redactor(parsed.password ? [parsed.password, decodeURIComponent(parsed.password)] : []);
  const label = `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  const redis = new Redis(url, {
    enableOfflineQueue: false, // a command goes out now or never: a replayed redemption could issue twice
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    commandTimeout: commandTimeoutMs,
    connectTimeout: CONNECT_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(50 * 2 ** (attempt - 1), 2_000),
    connectionName: 'app-management-mcp-auth',
  });
  // Requests arriving while it connects each wait for 'ready' once: many at once is normal load.
  redis.setMaxListeners(0);
  let outage = false;
  let closed = false;
  redis.on('error', (error: Error) => {
    if (!outage && !closed) log.warn(`sign-in store ${label} is unreachable (${hide(error.message || error.name)}); nothing is issued or accepted until it answers`);
    outage = true;
  });
  redis.on('ready', () => {
    if (outage) log.info(`sign-in store ${label} answers again`);
    outage = false;
  });

  async function run<T>(command: () => Promise<T>): Promise<T> {
    if (closed) throw new AuthStoreUnavailableError('the store was closed');
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new AuthStoreUnavailableError(`no answer from Redis within ${commandTimeoutMs / 1000} s`)), commandTimeoutMs);
    });
    try {
      if (redis.status !== 'ready') {
        if (!['wait', 'connecting', 'connect'].includes(redis.status)) throw new AuthStoreUnavailableError('not connected to Redis; reconnecting');
        if (redis.status === 'wait') void redis.connect().catch(() => undefined);
        await Promise.race([new Promise<void>((resolve, reject) => redis.once('ready', resolve).once('close', () => reject(new AuthStoreUnavailableError('not connected to Redis')))), deadline]);
      }
      return await Promise.race([command(), deadline]);
    } catch (error) {
      if (error instanceof AuthStoreUnavailableError) throw error;
      log.debug(`sign-in store ${label}: ${hide(error instanceof Error ? error.message : String(error))}`);
      throw new AuthStoreUnavailableError('the connection to Redis dropped', { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }
  const key = (kind: string, id: string) => `${AUTH_KEY_PREFIX}${kind}:${id}`;
  const clientKey = (clientId: string) => createHash('sha256').update(clientId).digest('hex');
  const evaluate = (lua: Script, keys: string[], args: Array<string | number>) => run(() => evalScript(redis, lua, keys, args)) as Promise<unknown[]>;

  return {
    async addClient(client, ttlMs) {
      const member = clientKey(client.clientId);
      const at = now();
      const answer = await run(() => evalScript(redis, ADD_CLIENT, [key('clients', 'index'), key('client', member)], [at, at + ttlMs, member, JSON.stringify(client), ttlMs, maxClients]));
      return answer === 1;
    },
    async client(clientId) {
      const text = await run(() => redis.get(key('client', clientKey(clientId))));
      return text ? (JSON.parse(text) as StoredClient) : undefined;
    },
    async putCode(hash, record, ttlMs) {
      const at = now();
      await evaluate(PUT_CODE, [key('codes', record.grant.subject), key('code', hash)], [at, at + ttlMs, hash, JSON.stringify(record), ttlMs, MAX_CODES_PER_SUBJECT, AUTH_KEY_PREFIX]);
    },
    async redeemCode(hash, spentTtlMs) {
      const [kind, value] = (await evaluate(REDEEM, [key('code', hash), key('spent', hash)], [spentTtlMs, AUTH_KEY_PREFIX, REVOKED_TTL_MS])) as [string, string?];
      if (kind === 'code') return { kind, record: JSON.parse(value!) as CodeRecord };
      if (kind === 'reused') return { kind, grantId: value! };
      return { kind: 'unknown' };
    },
    async putGrant(grant) {
      const answer = (await evaluate(
        PUT_GRANT,
        [key('grant', grant.id), key('subject', grant.subject), key('revoked', grant.id)],
        [grant.id, grant.createdAt, GRANT_TTL_MS, MAX_GRANTS_PER_SUBJECT, AUTH_KEY_PREFIX, REVOKED_TTL_MS, ...fieldsOf(grant)],
      )) as string[];
      return answer[0] === 'ok' ? answer.slice(1) : false;
    },
    async grant(id) {
      return grantOf(await run(() => redis.hgetall(key('grant', id))));
    },
    async rotate(id, presented, next, at) {
      const args = [presented, next.access.hash, next.access.expiresAt, next.refresh, next.sealed ?? '', next.narrow ? '1' : '', at, GRANT_TTL_MS, MAX_USED_REFRESH, REVOKED_TTL_MS];
      const [outcome, ...fields] = (await evaluate(ROTATE, [key('grant', id), key('revoked', id)], args)) as string[];
      if (outcome === 'ok') return { ok: true, grant: grantOf(pairs(fields))! };
      return { ok: false, why: outcome === 'reused' ? 'reused' : 'unknown' };
    },
    async revoke(id) {
      const fields = (await evaluate(REVOKE, [key('grant', id), key('revoked', id)], [REVOKED_TTL_MS])) as string[];
      return grantOf(pairs(fields));
    },
    async grantsOf(subject) {
      return run(() => redis.zrange(key('subject', subject), '0', '-1'));
    },
    async ping() {
      await run(() => redis.ping());
    },
    async close() {
      closed = true;
      if (redis.status === 'ready') await redis.quit().catch(() => undefined);
      redis.disconnect();
    },
  };
}

function fieldsOf(grant: Grant): string[] {
  const { sealed, access, refresh, narrowed, refreshedAt, ...doc } = grant;
  return ['doc', JSON.stringify(doc satisfies GrantDoc), 'sealed', sealed, 'refresh', refresh, 'used', '', 'access', access.hash, 'access_exp', String(access.expiresAt), 'narrowed', narrowed ? '1' : '', 'refreshed_at', String(refreshedAt)];
}

function pairs(flat: string[]): Record<string, string> {
  const record: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) record[flat[i]!] = flat[i + 1]!;
  return record;
}

function grantOf(fields: Record<string, string>): Grant | undefined {
  if (!fields.doc || !fields.refresh) return undefined;
  return {
    ...(JSON.parse(fields.doc) as GrantDoc),
    sealed: fields.sealed ?? '',
    access: { hash: fields.access ?? '', expiresAt: Number(fields.access_exp ?? 0) },
    refresh: fields.refresh,
    narrowed: fields.narrowed === '1',
    refreshedAt: Number(fields.refreshed_at ?? 0),
  };
}
