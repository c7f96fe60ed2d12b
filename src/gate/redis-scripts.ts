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

function script(lua: string): Script {
  return { lua, sha: createHash('sha1').update(lua).digest('hex') };
}

/** KEYS: running, pending, latest slot. ARGV: pending record, key hash, TTL ms. */
export const WARN = script(`
local running = redis.call('GET', KEYS[1])
if running then return {'in_flight', running} end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[3])
redis.call('SET', KEYS[3], ARGV[2], 'PX', ARGV[3])
return {'warned'}
`);

/**
 * KEYS: running, pending, latest slot. ARGV: in-flight record, key hash, in-flight TTL ms, prefix of pending
 * keys, and 'take' (takes the warning) or 'peek' (answers the same, changes nothing).
 * The last step reads the pending key of another call, named by the slot's value: fine on one Redis
 * server (the store's URL names a database, which Redis Cluster does not have).
 */
export const TAKE = script(`
local running = redis.call('GET', KEYS[1])
if running then return {'in_flight', running} end
local pending = redis.call('GET', KEYS[2])
if pending then
  if ARGV[5] == 'take' then
    redis.call('DEL', KEYS[2])
    redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
  end
  return {'taken', pending}
end
local latest = redis.call('GET', KEYS[3])
if latest and latest ~= ARGV[2] and redis.call('EXISTS', ARGV[4] .. latest) == 1 then
  return {'no_warning', 'other_arguments'}
end
return {'no_warning'}
`);

/** KEYS: running, unknown outcome. ARGV: settlement kind, unknown-outcome record (for 'unknown'), TTL ms. */
export const SETTLE = script(`
redis.call('DEL', KEYS[1])
if ARGV[1] == 'clean' then redis.call('DEL', KEYS[2]) end
if ARGV[1] == 'unknown' then redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3]) end
return 'settled'
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
