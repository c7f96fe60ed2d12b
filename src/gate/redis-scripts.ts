import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * The Lua scripts that make each decision of the gate one atomic step in Redis, whatever the number
 * of replicas. Keys are passed in KEYS; values, the TTL and the key hash in ARGV. A GET of a missing
 * key is `false` in Lua.
 */

export interface Script {
  lua: string;
  sha: string;
}

export function script(lua: string): Script {
  return { lua, sha: createHash('sha1').update(lua).digest('hex') };
}

/**
 * The prologue of every decision: KEYS[1] is the store's epoch, ARGV[1] the epoch this replica saw,
 * ARGV[2] a fresh one. An epoch that is missing (Redis restarted empty, flushed, evicted it) or other
 * than the one seen means the store lost its memory: the script changes nothing but to write a new
 * epoch where there was none, and answers 'amnesia' with the epoch now in force.
 */
export const EPOCH_CHECK = `
local epoch = redis.call('GET', KEYS[1])
if epoch ~= ARGV[1] then
  if not epoch then
    epoch = ARGV[2]
    redis.call('SET', KEYS[1], epoch)
  end
  return {'amnesia', epoch}
end
`;

/** KEYS: epoch. ARGV: a fresh epoch. Writes it unless there is one; answers the epoch in force. */
export const SYNC_EPOCH = script(`
redis.call('SET', KEYS[1], ARGV[1], 'NX')
return redis.call('GET', KEYS[1])
`);

/**
 * KEYS: epoch, running, pending, latest slot, round, the user's warnings (a sorted set by time).
 * ARGV: seen epoch, fresh epoch, pending record, key hash, TTL ms, per-user cap, cap on the database's
 * keys, key prefix. A new warning is refused ('full') once the database holds the cap; beyond the
 * per-user cap, that user's oldest warnings (and their rounds) go. Scores are Redis's own clock.
 */
export const WARN = script(`${EPOCH_CHECK}
local running = redis.call('GET', KEYS[2])
if running then return {'in_flight', running} end
if redis.call('EXISTS', KEYS[3]) == 0 and redis.call('DBSIZE') >= tonumber(ARGV[7]) then return {'full'} end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ttl = tonumber(ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', now - ttl)
redis.call('SET', KEYS[3], ARGV[3], 'PX', ttl)
redis.call('DEL', KEYS[5])
redis.call('SET', KEYS[4], ARGV[4], 'PX', ttl)
-- Scores keep warning order even within one millisecond, so the oldest is always the one to go.
local newest = redis.call('ZRANGE', KEYS[6], -1, -1, 'WITHSCORES')
if newest[2] and tonumber(newest[2]) >= now then now = tonumber(newest[2]) + 0.01 end
redis.call('ZADD', KEYS[6], now, ARGV[4])
local over = redis.call('ZCARD', KEYS[6]) - tonumber(ARGV[6])
if over > 0 then
  local oldest = redis.call('ZPOPMIN', KEYS[6], over)
  for i = 1, #oldest, 2 do
    redis.call('DEL', ARGV[8] .. 'pending:' .. oldest[i], ARGV[8] .. 'round:' .. oldest[i])
  end
end
redis.call('PEXPIRE', KEYS[6], ttl)
return {'warned'}
`);

/**
 * KEYS: epoch, running, pending, latest slot, round. ARGV: seen epoch, fresh epoch, in-flight record,
 * key hash, in-flight TTL ms, key prefix, mode, round digest ('' for none). Modes: 'take' takes the
 * warning (with a round digest, only the warning bound to it); 'bind' answers the same, changing
 * nothing but to bind the pending warning to the round.
 * The last step reads the pending key of another call, named by the slot's value: fine on one Redis
 * server (the store's URL names a database, which Redis Cluster does not have).
 */
export const TAKE = script(`${EPOCH_CHECK}
local running = redis.call('GET', KEYS[2])
if running then return {'in_flight', running} end
local pending = redis.call('GET', KEYS[3])
if pending then
  if ARGV[7] == 'bind' then
    redis.call('SET', KEYS[5], ARGV[8], 'PX', math.max(1, redis.call('PTTL', KEYS[3])))
  elseif ARGV[8] ~= '' and redis.call('GET', KEYS[5]) ~= ARGV[8] then
    return {'other_round'}
  else
    redis.call('DEL', KEYS[3], KEYS[5])
    redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[5])
  end
  return {'taken', pending}
end
local latest = redis.call('GET', KEYS[4])
if latest and latest ~= ARGV[4] and redis.call('EXISTS', ARGV[6] .. 'pending:' .. latest) == 1 then
  return {'no_warning', 'other_arguments'}
end
return {'no_warning'}
`);

/**
 * KEYS: running, unknown outcome, completed call. ARGV: settlement kind, unknown-outcome record (for
 * 'unknown'), TTL ms, completed-call record ('' for none; for 'clean').
 */
export const SETTLE = script(`
redis.call('DEL', KEYS[1])
if ARGV[1] == 'clean' then
  redis.call('DEL', KEYS[2])
  if ARGV[4] ~= '' then redis.call('SET', KEYS[3], ARGV[4], 'PX', ARGV[3]) end
end
if ARGV[1] == 'unknown' then redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3]) end
return 'settled'
`);

/**
 * KEYS: the user's claims (a sorted set of nonce digests, each scored by when it expires, Redis's
 * clock). ARGV: nonce digest, TTL ms, per-user cap. Answers 'claimed' once per nonce, 'used' after,
 * and 'full' while the user has the cap of claims in force. One key per user, however many claims:
 * a user's rounds never take the room the database's cap keeps for anyone's warnings.
 */
export const CLAIM = script(`
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return {'used'} end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return {'full'} end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return {'claimed'}
`);

/**
 * Runs `script` by its SHA, which Redis knows after the first EVAL; sends the whole script only when
 * Redis answers NOSCRIPT (first use, a restarted server, SCRIPT FLUSH). A NOSCRIPT answer ran nothing,
 * so the fallback can never apply a decision twice.
 * @throws what the client throws: a connection error, or Redis's error reply.
 */
export async function evalScript(redis: Redis, { lua, sha }: Script, keys: string[], args: Array<string | number>): Promise<unknown> {
  try {
    return await redis.evalsha(sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof Error && error.message.startsWith('NOSCRIPT'))) throw error;
    return await redis.eval(lua, keys.length, ...keys, ...args);
  }
}
