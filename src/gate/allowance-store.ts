/**
 * What the daily limits remember (gate/allowance.ts), behind one interface: in the process by
 * default, in Redis beside the gate's records for several replicas (allowance-redis.ts). A ledger
 * is one user's count of one unit on one UTC day; `reserve` decides and records in one atomic step.
 */

/** What a limit counts: micros of new daily budget, or AI turns. */
export type Unit = 'micros' | 'turns';

/** One user's count of one unit on one UTC day. `user` is the gate's digest of their scope (gate/key.ts scopeDigest). */
export interface Ledger {
  user: string;
  unit: Unit;
  /** YYYY-MM-DD, UTC. */
  day: string;
}

/** What became of a counted call so far. */
export type CallState = 'sending' | 'done' | 'unknown';

/** One confirmed call counted in a ledger: ids and numbers of our own, never an argument's free text. */
export interface CountedCall {
  /** The reservation's random id. */
  id: string;
  tool: string;
  app?: string;
  /** The campaign it acted on; for a created one, its new id once the service gave it. */
  campaign?: string;
  /** Micros, or turns. */
  amount: number;
  /** When it was reserved (ms since epoch). */
  at: number;
  state: CallState;
}

export interface Usage {
  /** The ledger's sum. */
  used: number;
  /** Its calls, oldest first. */
  calls: CountedCall[];
  /** The sum of every user's ledger of this unit and day. */
  total: number;
}

export interface Reservation {
  ledger: Ledger;
  call: CountedCall;
  /** The user's limit, if any: the sum after this call may not exceed it. */
  limit?: number | undefined;
  /** The limit on all users' sum, if any. */
  totalLimit?: number | undefined;
  /** How long from now the ledger is kept: until a day after its own ends, so a late release still finds it. */
  keepForMs: number;
}

export type Reserved =
  | { ok: true; used: number; total: number }
  /** Over the user's limit, the total limit, or MAX_CALLS_PER_DAY. */
  | { ok: false; over: 'user' | 'total' | 'calls' };

export interface AllowanceStore {
  usage(ledger: Ledger): Promise<Usage>;
  /** Atomically: refuses when the call would go over a limit; otherwise counts it. */
  reserve(reservation: Reservation): Promise<Reserved>;
  /** Uncounts a call that surely spent nothing; answers the ledger's sum after, or undefined when the call is not there (forgotten). */
  release(ledger: Ledger, id: string): Promise<number | undefined>;
  /** Records what became of a counted call (and, for a created campaign, its id). */
  settle(ledger: Ledger, id: string, state: Exclude<CallState, 'sending'>, campaign?: string): Promise<void>;
}

/**
 * Counted calls per ledger beyond this are refused: far more than a person confirms in a day, and
 * it bounds what one user can make the store hold.
 */
export const MAX_CALLS_PER_DAY = 1_000;

interface Book {
  used: number;
  calls: Map<string, CountedCall>;
  keepUntil: number;
}

/**
 * The in-process store. Each operation runs without awaiting in between, so `reserve` is atomic.
 * Ledgers of past days are dropped once kept long enough.
 */
export function createMemoryAllowanceStore({ now }: { now: () => number }): AllowanceStore {
  const books = new Map<string, Book>();
  const totals = new Map<string, { used: number; keepUntil: number }>();
  const nameOf = ({ user, unit, day }: Ledger) => `${unit}:${user}:${day}`;
  const totalOf = ({ unit, day }: Ledger) => `${unit}:${day}`;
  function sweep(): void {
    const t = now();
    for (const map of [books, totals]) for (const [name, entry] of map) if (entry.keepUntil < t) map.delete(name);
  }
  return {
    async usage(ledger) {
      const book = books.get(nameOf(ledger));
      return { used: book?.used ?? 0, calls: [...(book?.calls.values() ?? [])].map((call) => ({ ...call })), total: totals.get(totalOf(ledger))?.used ?? 0 };
    },
    async reserve({ ledger, call, limit, totalLimit, keepForMs }) {
      sweep();
      const keepUntil = now() + keepForMs;
      const book = books.get(nameOf(ledger)) ?? { used: 0, calls: new Map<string, CountedCall>(), keepUntil };
      const total = totals.get(totalOf(ledger)) ?? { used: 0, keepUntil };
      if (limit !== undefined && book.used + call.amount > limit) return { ok: false, over: 'user' };
      if (totalLimit !== undefined && total.used + call.amount > totalLimit) return { ok: false, over: 'total' };
      if (book.calls.size >= MAX_CALLS_PER_DAY) return { ok: false, over: 'calls' };
      book.calls.set(call.id, { ...call });
      book.used += call.amount;
      total.used += call.amount;
      books.set(nameOf(ledger), { ...book, keepUntil });
      totals.set(totalOf(ledger), { ...total, keepUntil });
      return { ok: true, used: book.used, total: total.used };
    },
    async release(ledger, id) {
      const book = books.get(nameOf(ledger));
      const call = book?.calls.get(id);
      if (!book || !call) return undefined;
      book.calls.delete(id);
      book.used -= call.amount;
      const total = totals.get(totalOf(ledger));
      if (total) total.used -= call.amount;
      return book.used;
    },
    async settle(ledger, id, state, campaign) {
      const call = books.get(nameOf(ledger))?.calls.get(id);
      if (!call) return;
      call.state = state;
      if (campaign !== undefined) call.campaign = campaign;
    },
  };
}
