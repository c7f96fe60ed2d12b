/**
 * The gate's state behind one interface: pending warnings, in-flight markers and unknown outcomes,
 * each keyed by a call's hash (gate/key.ts). The in-process store below serves one process; a
 * shared store lets several replicas see the same state. Every operation that decides whether a
 * request may go out (`warn`, `take`) is atomic.
 */

/** How long a warning stays valid, and the longest any record lives. */
export const CONFIRM_WINDOW_MS = 10 * 60_000;
/** A running call refreshes its in-flight marker this often (gate.ts)... */
export const HEARTBEAT_MS = 60_000;
/** ...so the marker outlives long calls, but not by long a replica that died mid-call. */
export const IN_FLIGHT_TTL_MS = 3 * HEARTBEAT_MS;

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

export type Taken =
  | { ok: true; pending: Pending }
  | { ok: false; why: 'in_flight'; inFlight: InFlight }
  /** No pending warning for these arguments; `otherArguments` when the latest warning of the tool was for others. */
  | { ok: false; why: 'no_warning'; otherArguments: boolean };

export type Settlement =
  /** A clean answer: the earlier unknown outcome, if any, is settled too. */
  | { kind: 'clean' }
  /** Nothing went out, or the service refused for sure: the earlier record stays as it was. */
  | { kind: 'refused' }
  | { kind: 'unknown'; record: UnknownOutcome };

/** Keys and slots are SHA-256 hex digests (gate/key.ts): no argument or credential reaches a store. */
export interface GateStore {
  inFlight(key: string): Promise<InFlight | undefined>;
  unknownOutcome(key: string): Promise<UnknownOutcome | undefined>;
  /** Records a warning for `key` (replacing an older one) unless `key` is in flight; `slot` remembers it as the tool's latest. */
  warn(key: string, slot: string, pending: Pending): Promise<{ ok: true } | { ok: false; inFlight: InFlight }>;
  /** Atomically: refuses when `key` is in flight; otherwise takes its warning (single use) and marks `key` in flight. */
  take(key: string, slot: string): Promise<Taken>;
  /** What `take` would answer now, taking nothing (before asking a person to approve). */
  peek(key: string, slot: string): Promise<Taken>;
  /** Keeps the in-flight marker of a running call alive for another IN_FLIGHT_TTL_MS. */
  touch(key: string): Promise<void>;
  /** Ends a call: removes its in-flight marker and records what is known of the outcome. */
  settle(key: string, settlement: Settlement): Promise<void>;
  /**
   * Claims a one-time token (a signed approval round's nonce): true the first time, false after, so
   * an approval can never be replayed. The claim is forgotten after `ttlMs` (at most the window).
   */
  claimOnce(token: string, ttlMs: number): Promise<boolean>;
  /** Resolves when the store answers (for readiness checks); rejects when it does not. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Caps of the in-process store: oldest records are dropped first. Each record is a hash and a few numbers. */
export const MAX_RECORDS = 10_000;

interface Options {
  now: () => number;
  ttlMs?: number;
  maxRecords?: number;
}

/** A map whose entries expire after `ttlMs` and whose oldest entries go first beyond `max`. */
function expiringMap<V>(now: () => number, ttlMs: number, max: number) {
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
      for (const [oldest, entry] of entries) {
        if (entries.size <= max && entry.expires >= now()) break;
        entries.delete(oldest);
      }
    },
    delete: (key: string) => entries.delete(key),
    get size() {
      return entries.size;
    },
  };
}

/** The default store: one process's memory. Operations run without awaiting in between, so each is atomic. */
export function createMemoryStore({ now, ttlMs = CONFIRM_WINDOW_MS, maxRecords = MAX_RECORDS }: Options): GateStore & { sizes(): Record<string, number> } {
  const pending = expiringMap<Pending>(now, ttlMs, maxRecords);
  const latest = expiringMap<string>(now, ttlMs, maxRecords);
  const running = expiringMap<InFlight>(now, ttlMs, maxRecords);
  const unknown = expiringMap<UnknownOutcome>(now, ttlMs, maxRecords);
  const claimed = expiringMap<true>(now, ttlMs, maxRecords);
  function peek(key: string, slot: string): Taken {
    const inFlight = running.get(key);
    if (inFlight) return { ok: false, why: 'in_flight', inFlight };
    const record = pending.get(key);
    if (record) return { ok: true, pending: record };
    const other = latest.get(slot);
    return { ok: false, why: 'no_warning', otherArguments: other !== undefined && other !== key && pending.get(other) !== undefined };
  }
  return {
    inFlight: async (key) => running.get(key),
    unknownOutcome: async (key) => unknown.get(key),
    async warn(key, slot, record) {
      const inFlight = running.get(key);
      if (inFlight) return { ok: false, inFlight };
      pending.set(key, record);
      latest.set(slot, key);
      return { ok: true };
    },
    async take(key, slot) {
      const taken = peek(key, slot);
      if (taken.ok) {
        pending.delete(key);
        running.set(key, { since: now() }, IN_FLIGHT_TTL_MS);
      }
      return taken;
    },
    peek: async (key, slot) => peek(key, slot),
    async touch(key) {
      const inFlight = running.get(key);
      if (inFlight) running.set(key, inFlight, IN_FLIGHT_TTL_MS);
    },
    async settle(key, settlement) {
      running.delete(key);
      if (settlement.kind === 'clean') unknown.delete(key);
      if (settlement.kind === 'unknown') unknown.set(key, settlement.record);
    },
    async claimOnce(token, claimTtlMs) {
      if (claimed.get(token)) return false;
      claimed.set(token, true, claimTtlMs);
      return true;
    },
    ping: async () => undefined,
    close: async () => undefined,
    sizes: () => ({ pending: pending.size, latest: latest.size, running: running.size, unknown: unknown.size, claimed: claimed.size }),
  };
}
