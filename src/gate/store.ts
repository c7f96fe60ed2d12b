/**
 * The gate's state behind one interface: pending warnings, in-flight markers, unknown outcomes and
 * completed calls, each keyed by a call's hash (gate/key.ts). The in-process store below serves one process; a
 * shared store lets several replicas see the same state. Every operation that decides whether a
 * request may go out (`warn`, `take`, `bind`, `claimOnce`) is atomic.
 */

/** How long a warning stays valid, and the longest any record lives. */
export const CONFIRM_WINDOW_MS = 10 * 60_000;
/** A running call refreshes its in-flight marker this often (gate.ts)... */
export const HEARTBEAT_MS = 60_000;
/** ...so the marker outlives long calls, but not by long a replica that died mid-call. */
export const IN_FLIGHT_TTL_MS = 3 * HEARTBEAT_MS;

/** Each user's pending warnings beyond this: their own oldest goes, never another user's. */
export const MAX_PENDING_PER_USER = 100;
/**
 * Each user's answered approval forms within the window (their claimed nonces): a person answers
 * far fewer. Beyond it that user's answers are refused until older claims expire; nothing of theirs
 * or anyone else's is pushed out, and the claims take no room from anyone's warnings (issue 25).
 */
export const MAX_CLAIMS_PER_USER = 100;

export interface Pending {
  at: number;
  /** For tools whose service deduplicates by X-Request-ID: the id the confirmed call will send. */
  requestId?: string;
}

export interface UnknownOutcome {
  at: number;
  /** What happened, e.g. "no answer within 30 s". */
  what: string;
  requestId?: string;
}

export interface InFlight {
  since: number;
}

/** A confirmed call that ended with a clean answer: when, and what it did in our own words (never its arguments). */
export interface Completed {
  at: number;
  /** E.g. "created campaign cmp_1"; at most MAX_SUMMARY_CHARS. */
  summary: string;
}

/** A completed call's summary is trimmed to this: a line of our own text and an id or two. */
export const MAX_SUMMARY_CHARS = 200;

export type Taken =
  | { ok: true; pending: Pending }
  | { ok: false; why: 'in_flight'; inFlight: InFlight }
  /** No pending warning for these arguments; `otherArguments` when the latest warning of the tool was for others. */
  | { ok: false; why: 'no_warning'; otherArguments: boolean }
  /** A pending warning exists, but it is not the one this approval round was asked for (a newer warning or form replaced it). */
  | { ok: false; why: 'other_round' };

export type Warned = { ok: true } | { ok: false; why: 'in_flight'; inFlight: InFlight } | { ok: false; why: 'full'; records: number };

/** A one-time token claimed; already claimed (`used`); or refused, the user having MAX_CLAIMS_PER_USER claims in force (`full`). */
export type Claimed = { ok: true } | { ok: false; why: 'used' } | { ok: false; why: 'full'; claims: number };

export type Settlement =
  /** A clean answer: the earlier unknown outcome, if any, is settled too; `completed` is kept for the window. */
  | { kind: 'clean'; completed?: Completed }
  /** Nothing went out, or the service refused for sure: the earlier record stays as it was. */
  | { kind: 'refused' }
  | { kind: 'unknown'; record: UnknownOutcome };

/** What /readyz says of the store beyond "it answers". */
export interface StoreHealth {
  /** One sentence per thing that weakens or stops the gate (an eviction policy, lost memory); empty when all is well. */
  problems: string[];
  /** While set, gated calls are refused until this time (ms since epoch): the store lost its memory. */
  refusingUntil?: number;
}

/**
 * Keys, slots and scopes are SHA-256 hex digests (gate/key.ts): no argument or credential reaches a
 * store. `scope` is the digest of the caller's gate scope: caps and claims are kept per user.
 */
export interface GateStore {
  inFlight(key: string): Promise<InFlight | undefined>;
  unknownOutcome(key: string): Promise<UnknownOutcome | undefined>;
  /** The call of `key` that ended cleanly within the window, if any. */
  completed(key: string): Promise<Completed | undefined>;
  /**
   * Records a warning for `key` (replacing an older one, and any approval round bound to it) unless
   * `key` is in flight or the store is full; `slot` remembers it as the tool's latest. Beyond
   * MAX_PENDING_PER_USER warnings of `scope`, that user's oldest goes.
   */
  warn(key: string, slot: string, pending: Pending, scope: string): Promise<Warned>;
  /**
   * Atomically: refuses when `key` is in flight; otherwise takes its warning (single use) and marks
   * `key` in flight. With `round`, only a warning bound to that approval round (`bind`) is taken.
   */
  take(key: string, slot: string, round?: string): Promise<Taken>;
  /**
   * What `take` would answer now; when it would take, binds the pending warning to `round` (an
   * approval round's nonce), so that only this round's approved retry can take it.
   */
  bind(key: string, slot: string, round: string): Promise<Taken>;
  /** Keeps the in-flight marker of a running call alive for another IN_FLIGHT_TTL_MS. */
  touch(key: string): Promise<void>;
  /** Ends a call: removes its in-flight marker and records what is known of the outcome. */
  settle(key: string, settlement: Settlement): Promise<void>;
  /**
   * Claims a one-time token (a signed approval round's nonce) of `scope`: ok the first time, `used`
   * after, and `full` while that user has MAX_CLAIMS_PER_USER claims in force. A claim is forgotten
   * after `ttlMs` (at most the window), never to make room; a user's claims count as one record
   * toward the store's cap, so they can never take the room of anyone's warnings.
   */
  claimOnce(token: string, ttlMs: number, scope: string): Promise<Claimed>;
  /** Resolves when the store answers (for readiness checks); rejects when it does not. */
  ping(): Promise<void>;
  /** What keeps the gate from working fully; rejects when the store does not answer. */
  health(): Promise<StoreHealth>;
  close(): Promise<void>;
}

/**
 * The in-process store's cap on all its records together: beyond it new warnings are refused (not
 * older records evicted, which would let one caller erase another's). Each record is a hash and a few numbers.
 */
export const MAX_RECORDS = 10_000;

interface Options {
  now: () => number;
  ttlMs?: number;
  maxRecords?: number;
  maxPendingPerUser?: number;
  maxClaimsPerUser?: number;
}

/** A map whose entries expire after `ttlMs`; insertion order is age order. */
function expiringMap<V>(now: () => number, ttlMs: number) {
  const entries = new Map<string, { value: V; expires: number }>();
  return {
    get(key: string): V | undefined {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expires < now()) {
        entries.delete(key);
        return undefined;
      }
      return entry.value;
    },
    set(key: string, value: V, ms = ttlMs): void {
      entries.delete(key); // re-inserted last: insertion order is age order
      entries.set(key, { value, expires: now() + Math.min(ms, ttlMs) });
    },
    delete: (key: string) => entries.delete(key),
    /** Drops expired entries; returns how many are left. */
    sweep(): number {
      for (const [key, entry] of entries) if (entry.expires < now()) entries.delete(key);
      return entries.size;
    },
    /** The oldest live key. */
    oldest(): string | undefined {
      for (const key of entries.keys()) if (this.get(key) !== undefined) return key;
      return undefined;
    },
    get size() {
      return entries.size;
    },
  };
}

type ExpiringMap<V> = ReturnType<typeof expiringMap<V>>;

interface PendingRecord extends Pending {
  /** The approval round this warning is bound to, if any. */
  round?: string;
}

/**
 * The default store: one process's memory. Operations run without awaiting in between, so each is
 * atomic. Pending warnings and claims are kept per user: one user's flood of warnings can only push
 * out their own oldest, their claims stop at MAX_CLAIMS_PER_USER, and beyond MAX_RECORDS in all new
 * warnings are refused.
 */
export function createMemoryStore({
  now,
  ttlMs = CONFIRM_WINDOW_MS,
  maxRecords = MAX_RECORDS,
  maxPendingPerUser = MAX_PENDING_PER_USER,
  maxClaimsPerUser = MAX_CLAIMS_PER_USER,
}: Options): GateStore & {
  sizes(): Record<string, number>;
} {
  const pending = expiringMap<PendingRecord>(now, ttlMs);
  const latest = expiringMap<string>(now, ttlMs);
  const running = expiringMap<InFlight>(now, ttlMs);
  const unknown = expiringMap<UnknownOutcome>(now, ttlMs);
  const done = expiringMap<Completed>(now, ttlMs);
  /** Per user: the keys of their pending warnings, oldest first. */
  const warningsOf = new Map<string, ExpiringMap<true>>();
  /** Per user: their claimed approval nonces. */
  const claimsOf = new Map<string, ExpiringMap<true>>();
  const perUser = (maps: Map<string, ExpiringMap<true>>, scope: string) => {
    let map = maps.get(scope);
    if (!map) maps.set(scope, (map = expiringMap<true>(now, ttlMs)));
    return map;
  };
  const sumOf = (maps: Map<string, ExpiringMap<true>>) => [...maps.values()].reduce((sum, map) => sum + map.size, 0);
  // A user's claims are one record, as in Redis (one sorted set each): however many rounds they answer, no one else's warning loses its room.
  const total = () => pending.size + latest.size + running.size + unknown.size + done.size + sumOf(warningsOf) + claimsOf.size;
  /** Drops what expired; only when the cap is near, so most warnings cost O(1). */
  function sweep(): number {
    for (const map of [pending, latest, running, unknown, done]) map.sweep();
    for (const maps of [warningsOf, claimsOf]) for (const [scope, map] of maps) if (map.sweep() === 0) maps.delete(scope);
    return total();
  }
  function peek(key: string, slot: string): Taken {
    const inFlight = running.get(key);
    if (inFlight) return { ok: false, why: 'in_flight', inFlight };
    const record = pending.get(key);
    if (record) return { ok: true, pending: withoutRound(record) };
    const other = latest.get(slot);
    return { ok: false, why: 'no_warning', otherArguments: other !== undefined && other !== key && pending.get(other) !== undefined };
  }
  return {
    inFlight: async (key) => running.get(key),
    unknownOutcome: async (key) => unknown.get(key),
    completed: async (key) => done.get(key),
    async warn(key, slot, record, scope) {
      const inFlight = running.get(key);
      if (inFlight) return { ok: false, why: 'in_flight', inFlight };
      if (pending.get(key) === undefined && total() >= maxRecords && sweep() >= maxRecords) return { ok: false, why: 'full', records: maxRecords };
      pending.set(key, { ...record });
      latest.set(slot, key);
      const mine = perUser(warningsOf, scope);
      mine.set(key, true);
      for (let oldest = mine.oldest(); mine.size > maxPendingPerUser && oldest !== undefined; oldest = mine.oldest()) {
        mine.delete(oldest);
        pending.delete(oldest);
      }
      return { ok: true };
    },
    async take(key, slot, round) {
      const taken = peek(key, slot);
      if (!taken.ok) return taken;
      if (round !== undefined && pending.get(key)?.round !== round) return { ok: false, why: 'other_round' };
      pending.delete(key);
      running.set(key, { since: now() }, IN_FLIGHT_TTL_MS);
      return taken;
    },
    async bind(key, slot, round) {
      const taken = peek(key, slot);
      const record = pending.get(key);
      if (taken.ok && record) record.round = round;
      return taken;
    },
    async touch(key) {
      const inFlight = running.get(key);
      if (inFlight) running.set(key, inFlight, IN_FLIGHT_TTL_MS);
    },
    async settle(key, settlement) {
      running.delete(key);
      if (settlement.kind === 'clean') unknown.delete(key);
      if (settlement.kind === 'clean' && settlement.completed) done.set(key, trimmed(settlement.completed));
      if (settlement.kind === 'unknown') unknown.set(key, settlement.record);
    },
    async claimOnce(token, claimTtlMs, scope) {
      const claims = perUser(claimsOf, scope);
      if (claims.get(token)) return { ok: false, why: 'used' };
      if (claims.size >= maxClaimsPerUser && claims.sweep() >= maxClaimsPerUser) return { ok: false, why: 'full', claims: maxClaimsPerUser };
      claims.set(token, true, claimTtlMs);
      return { ok: true };
    },
    ping: async () => undefined,
    health: async () => ({ problems: [] }),
    close: async () => undefined,
    sizes: () => ({ pending: pending.size, latest: latest.size, running: running.size, unknown: unknown.size, done: done.size, claimed: sumOf(claimsOf), total: total() }),
  };
}

/** What a store keeps of a completed call: its time and a summary no longer than MAX_SUMMARY_CHARS. */
export function trimmed({ at, summary }: Completed): Completed {
  return { at, summary: summary.slice(0, MAX_SUMMARY_CHARS) };
}

function withoutRound({ round: _, ...record }: PendingRecord): Pending {
  return record;
}
