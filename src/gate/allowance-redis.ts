import { EPOCH_CHECK, script } from './redis-scripts.js';
import { KEY_PREFIX, type RedisGateStore } from './redis-store.js';
import { MAX_CALLS_PER_DAY, type AllowanceStore, type CountedCall, type Ledger, type Usage } from './allowance-store.js';

/**
 * The daily limits' ledgers in the gate's Redis (APPMGMT_STATE_URL), shared by every replica. A
 * ledger is one hash: `used` (the sum), `calls` (how many), and per call `e:<id>` (the call as JSON),
 * `a:<id>` (its amount), `s:<id>` (its state), `c:<id>` (a created campaign's id). Beside it, one
 * counter per unit and day holds every user's sum. A grant with a limit of its own has a ledger of
 * the same shape, which the counter does not sum. All expire a day after their day ends.
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
 * KEYS: epoch, ledger, total, and the grant's ledger if it is counted. ARGV: seen epoch, fresh epoch,
 * call id, call JSON, amount, limit ('' for none), total limit ('' for none), most calls a ledger
 * holds, how long the keys are kept (ms; a duration, so that a replica's clock and Redis's need not
 * agree), the grant's limit. Checks in the order user, total, grant, calls.
 * Answers 'over' with which limit, or 'reserved' with the sums after: ledger:total[:grant].
 * Sums are formatted with %.0f: Lua's own number-to-string would write 1e+15.
 */
const RESERVE = script(`${EPOCH_CHECK}
local amount = tonumber(ARGV[5])
local used = tonumber(redis.call('HGET', KEYS[2], 'used') or '0')
if ARGV[6] ~= '' and used + amount > tonumber(ARGV[6]) then return {'over', 'user'} end
local total = tonumber(redis.call('GET', KEYS[3]) or '0')
if ARGV[7] ~= '' and total + amount > tonumber(ARGV[7]) then return {'over', 'total'} end
local ledgers = {KEYS[2]}
if KEYS[4] then
  if tonumber(redis.call('HGET', KEYS[4], 'used') or '0') + amount > tonumber(ARGV[10]) then return {'over', 'grant'} end
  ledgers[2] = KEYS[4]
end
for _, ledger in ipairs(ledgers) do
  if tonumber(redis.call('HGET', ledger, 'calls') or '0') >= tonumber(ARGV[8]) then return {'over', 'calls'} end
end
local sums = {}
for i, ledger in ipairs(ledgers) do
  redis.call('HSET', ledger, 'e:' .. ARGV[3], ARGV[4], 'a:' .. ARGV[3], ARGV[5], 's:' .. ARGV[3], 'sending')
  redis.call('HINCRBY', ledger, 'calls', 1)
  sums[i] = string.format('%.0f', redis.call('HINCRBY', ledger, 'used', ARGV[5]))
  redis.call('PEXPIRE', ledger, ARGV[9])
end
total = redis.call('INCRBY', KEYS[3], ARGV[5])
redis.call('PEXPIRE', KEYS[3], ARGV[9])
table.insert(sums, 2, string.format('%.0f', total))
return {'reserved', table.concat(sums, ':')}
`);

/**
 * KEYS: ledger, total, and the grant's ledger if the call was counted there. ARGV: call id.
 * Uncounts the call wherever it still is (the total with the ledger); answers the ledger's sum
 * after ('gone' when it no longer has the call) and the grant's ('gone' likewise).
 */
const RELEASE = script(`
local function uncount(ledger)
  local amount = redis.call('HGET', ledger, 'a:' .. ARGV[1])
  if not amount then return 'gone', nil end
  redis.call('HDEL', ledger, 'e:' .. ARGV[1], 'a:' .. ARGV[1], 's:' .. ARGV[1], 'c:' .. ARGV[1])
  redis.call('HINCRBY', ledger, 'calls', -1)
  return string.format('%.0f', redis.call('HINCRBY', ledger, 'used', '-' .. amount)), amount
end
local used, amount = uncount(KEYS[1])
if amount and redis.call('EXISTS', KEYS[2]) == 1 then redis.call('DECRBY', KEYS[2], amount) end
local granted = 'gone'
if KEYS[3] then granted = uncount(KEYS[3]) end
return {used, granted}
`);

/** KEYS: the ledgers the call was counted in. ARGV: call id, state, campaign id ('' for none). Changes only a call still there. */
const SETTLE = script(`
for _, ledger in ipairs(KEYS) do
  if redis.call('HEXISTS', ledger, 'a:' .. ARGV[1]) == 1 then
    redis.call('HSET', ledger, 's:' .. ARGV[1], ARGV[2])
    if ARGV[3] ~= '' then redis.call('HSET', ledger, 'c:' .. ARGV[1], ARGV[3]) end
  end
end
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
    async reserve({ ledger, grant, call, limit, grantLimit, totalLimit, keepForMs }) {
      const { id, state: _, ...rest } = call;
      if (grant && grantLimit === undefined) throw new TypeError('a grant ledger is counted only against its own limit');
      const args = [checkedId(id), JSON.stringify(rest), call.amount, limit ?? '', totalLimit ?? '', MAX_CALLS_PER_DAY, Math.max(1, Math.ceil(keepForMs)), grantLimit ?? ''];
      const [outcome, value] = (await store.script(RESERVE, [...keysOf(ledger), ...grantKey(ledger, grant)], args, true)) as [string, string | undefined];
      if (outcome === 'over') return { ok: false, over: value === 'total' || value === 'grant' || value === 'calls' ? value : 'user' };
      const [used, total, grantUsed] = (value ?? '').split(':').map(Number);
      return { ok: true, used: used ?? 0, total: total ?? 0, ...(grant ? { grantUsed: grantUsed ?? 0 } : {}) };
    },
    async release({ ledger, grant }, id) {
      const [used, grantUsed] = (await store.script(RELEASE, [...keysOf(ledger), ...grantKey(ledger, grant)], [checkedId(id)], false)) as [string, string];
      if (used === 'gone') return undefined;
      return { used: Number(used), ...(grantUsed !== 'gone' ? { grantUsed: Number(grantUsed) } : {}) };
    },
    async settle({ ledger, grant }, id, state, campaign) {
      await store.script(SETTLE, [keysOf(ledger)[0], ...grantKey(ledger, grant)], [checkedId(id), state, campaign ?? ''], false);
    },
  };
}

/** The grant's ledger key, if there is one: same unit and day as the user's. */
function grantKey(ledger: Ledger, grant: Ledger | undefined): string[] {
  if (!grant) return [];
  if (grant.unit !== ledger.unit || grant.day !== ledger.day) throw new TypeError("a grant's ledger has its user's unit and day");
  return [keysOf(grant)[0]];
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
