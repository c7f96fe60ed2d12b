import { EPOCH_CHECK, script } from './redis-scripts.js';
import { KEY_PREFIX, type RedisGateStore } from './redis-store.js';
import { MAX_CALLS_PER_DAY, type AllowanceStore, type CountedCall, type Ledger, type Usage } from './allowance-store.js';

/**
 * The daily limits' ledgers in the gate's Redis (APPMGMT_STATE_URL), shared by every replica. A
 * ledger is one hash: `used` (the sum), `calls` (how many), and per call `e:<id>` (the call as JSON),
 * `a:<id>` (its amount), `s:<id>` (its state), `c:<id>` (a created campaign's id). Beside it, one
 * counter per unit and day holds every user's sum. Both expire a day after their day ends.
 *
 * A reservation is one script behind the gate's epoch check: a Redis that lost its memory refuses
 * spending for the gate's grace period, and no reservation can slip in between the check and the
 * count. Releases and settlements act only on a call still in its ledger, so after a loss they do
 * nothing rather than drive a sum below zero.
 */

/** What the gate passes as a user: a SHA-256 hex digest (gate/key.ts scopeDigest). */
const SHA256_HEX = /^[0-9a-f]{64}$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** A reservation's id: a UUID. */
const CALL_ID = /^[0-9a-f-]{36}$/;

/**
 * KEYS: epoch, ledger, total. ARGV: seen epoch, fresh epoch, call id, call JSON, amount, limit ('' for
 * none), total limit ('' for none), most calls a ledger holds, how long both keys are kept (ms; a
 duration, so that a replica's clock and Redis's need not agree).
 * Answers 'over' with which limit, or 'reserved' with the ledger's and the total's sums after.
 * Sums are formatted with %.0f: Lua's own number-to-string would write 1e+15.
 */
const RESERVE = script(`${EPOCH_CHECK}
local amount = tonumber(ARGV[5])
local used = tonumber(redis.call('HGET', KEYS[2], 'used') or '0')
if ARGV[6] ~= '' and used + amount > tonumber(ARGV[6]) then return {'over', 'user'} end
local total = tonumber(redis.call('GET', KEYS[3]) or '0')
if ARGV[7] ~= '' and total + amount > tonumber(ARGV[7]) then return {'over', 'total'} end
if tonumber(redis.call('HGET', KEYS[2], 'calls') or '0') >= tonumber(ARGV[8]) then return {'over', 'calls'} end
redis.call('HSET', KEYS[2], 'e:' .. ARGV[3], ARGV[4], 'a:' .. ARGV[3], ARGV[5], 's:' .. ARGV[3], 'sending')
redis.call('HINCRBY', KEYS[2], 'calls', 1)
used = redis.call('HINCRBY', KEYS[2], 'used', ARGV[5])
total = redis.call('INCRBY', KEYS[3], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[9])
redis.call('PEXPIRE', KEYS[3], ARGV[9])
return {'reserved', string.format('%.0f', used) .. ':' .. string.format('%.0f', total)}
`);

/** KEYS: ledger, total. ARGV: call id. Uncounts the call if it is still there; answers the ledger's sum after, or 'gone'. */
const RELEASE = script(`
local amount = redis.call('HGET', KEYS[1], 'a:' .. ARGV[1])
if not amount then return 'gone' end
redis.call('HDEL', KEYS[1], 'e:' .. ARGV[1], 'a:' .. ARGV[1], 's:' .. ARGV[1], 'c:' .. ARGV[1])
redis.call('HINCRBY', KEYS[1], 'calls', -1)
local used = redis.call('HINCRBY', KEYS[1], 'used', '-' .. amount)
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('DECRBY', KEYS[2], amount) end
return string.format('%.0f', used)
`);

/** KEYS: ledger. ARGV: call id, state, campaign id ('' for none). Changes only a call still there. */
const SETTLE = script(`
if redis.call('HEXISTS', KEYS[1], 'a:' .. ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 's:' .. ARGV[1], ARGV[2])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'c:' .. ARGV[1], ARGV[3]) end
return 1
`);

/** KEYS: ledger, total. The ledger's fields and the total. */
const USAGE = script(`
return {redis.call('HGETALL', KEYS[1]), redis.call('GET', KEYS[2]) or '0'}
`);

/** The allowance's store over the gate's Redis store: the same connection, deadline and epoch. */
export function createRedisAllowanceStore(store: Pick<RedisGateStore, 'script'>): AllowanceStore {
  return {
    async usage(ledger) {
      return parseUsage(await store.script(USAGE, keysOf(ledger), [], false));
    },
    async reserve({ ledger, call, limit, totalLimit, keepForMs }) {
      const { id, state: _, ...rest } = call;
      const args = [checkedId(id), JSON.stringify(rest), call.amount, limit ?? '', totalLimit ?? '', MAX_CALLS_PER_DAY, Math.max(1, Math.ceil(keepForMs))];
      const [outcome, value] = (await store.script(RESERVE, keysOf(ledger), args, true)) as [string, string | undefined];
      if (outcome === 'over') return { ok: false, over: value === 'total' ? 'total' : value === 'calls' ? 'calls' : 'user' };
      const [used, total] = (value ?? '').split(':').map(Number);
      return { ok: true, used: used ?? 0, total: total ?? 0 };
    },
    async release(ledger, id) {
      const answer = await store.script(RELEASE, keysOf(ledger), [checkedId(id)], false);
      return answer === 'gone' ? undefined : Number(answer);
    },
    async settle(ledger, id, state, campaign) {
      await store.script(SETTLE, [keysOf(ledger)[0]!], [checkedId(id), state, campaign ?? ''], false);
    },
  };
}

/** The ledger's key and its unit's total for the day. @throws TypeError for a user that is not a digest or a malformed day. */
function keysOf({ user, unit, day }: Ledger): [string, string] {
  if (!SHA256_HEX.test(user) || !DAY.test(day)) throw new TypeError('allowance ledgers are keyed by a SHA-256 hex digest and a YYYY-MM-DD day');
  return [`${KEY_PREFIX}allowance:${unit}:${user}:${day}`, `${KEY_PREFIX}allowance:${unit}:total:${day}`];
}

function checkedId(id: string): string {
  if (!CALL_ID.test(id)) throw new TypeError('allowance call ids are UUIDs');
  return id;
}

/** The ledger's calls (oldest first) from its hash fields, and the sums. */
function parseUsage(answer: unknown): Usage {
  const [flat, total] = answer as [string[], string];
  const fields = new Map<string, string>();
  for (let i = 0; i + 1 < flat.length; i += 2) fields.set(flat[i]!, flat[i + 1]!);
  const calls: CountedCall[] = [];
  for (const [field, json] of fields) {
    if (!field.startsWith('e:')) continue;
    const id = field.slice(2);
    const state = fields.get(`s:${id}`);
    const campaign = fields.get(`c:${id}`);
    calls.push({
      ...(JSON.parse(json) as Omit<CountedCall, 'id' | 'state'>),
      id,
      state: state === 'done' || state === 'unknown' ? state : 'sending',
      ...(campaign ? { campaign } : {}),
    });
  }
  calls.sort((a, b) => a.at - b.at);
  return { used: Number(fields.get('used') ?? 0), calls, total: Number(total) };
}
