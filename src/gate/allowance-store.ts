/**
 * What the daily limits remember (gate/allowance.ts), behind one interface: in the process by
 * default, in Redis beside the gate's records for several replicas (allowance-redis.ts). A ledger
 * is one user's count of one unit on one UTC day; a call of an OAuth grant with a limit of its own
 * is counted in the grant's ledger too. `reserve` decides and records in one atomic step.
 */

/** What a limit counts: micros of new daily budget, or AI turns. */
export type Unit = 'micros' | 'turns';

/** One user's (or one grant's) count of one unit on one UTC day. `user` is a digest of their scope (gate/key.ts scopeDigest). */
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

/** Where one call is counted: the user's ledger (which the total of all users sums) and, for a grant with a limit of its own, the grant's. */
export interface Books {
  ledger: Ledger;
  /** Same unit and day as `ledger`; never part of the total. */
  grant?: Ledger | undefined;
}

export interface Reservation extends Books {
  call: CountedCall;
  /** The user's limit, if any: the sum after this call may not exceed it. */
  limit?: number | undefined;
  /** The grant's own limit: required with a grant ledger. */
  grantLimit?: number | undefined;
  /** The limit on all users' sum, if any. */
  totalLimit?: number | undefined;
  /** How long from now the ledgers are kept: until a day after their own ends, so a late release still finds them. */
  keepForMs: number;
}

export type Reserved =
  | { ok: true; used: number; total: number; grantUsed?: number }
  /** Over the user's limit, the total limit, the grant's, or MAX_CALLS_PER_DAY (checked in this order). */
  | { ok: false; over: 'user' | 'total' | 'grant' | 'calls' };

/** The sums after a release: the user's, and the grant's when it was counted there. */
export interface Released {
  used: number;
  grantUsed?: number;
}

export interface AllowanceStore {
  usage(ledger: Ledger): Promise<Usage>;
  /** Atomically: refuses when the call would go over a limit; otherwise counts it in every ledger of `books`. */
  reserve(reservation: Reservation): Promise<Reserved>;
  /** Uncounts a call that surely spent nothing; answers the sums after, or undefined when the user's ledger no longer has it (forgotten). */
  release(books: Books, id: string): Promise<Released | undefined>;
  /** Records what became of a counted call (and, for a created campaign, its id). */
  settle(books: Books, id: string, state: Exclude<CallState, 'sending'>, campaign?: string): Promise<void>;
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
  const bookOf = (ledger: Ledger, keepUntil: number): Book => books.get(nameOf(ledger)) ?? { used: 0, calls: new Map<string, CountedCall>(), keepUntil };
  function sweep(): void {
    const t = now();
    for (const map of [books, totals]) for (const [name, entry] of map) if (entry.keepUntil < t) map.delete(name);
  }
  /** Takes call `id` out of `ledger`'s book: its sum after, or undefined when it is not there. */
  function uncount(ledger: Ledger, id: string): { used: number; amount: number } | undefined {
    const book = books.get(nameOf(ledger));
    const call = book?.calls.get(id);
    if (!book || !call) return undefined;
    book.calls.delete(id);
    book.used -= call.amount;
    return { used: book.used, amount: call.amount };
  }
  return {
    async usage(ledger) {
      const book = books.get(nameOf(ledger));
      return { used: book?.used ?? 0, calls: [...(book?.calls.values() ?? [])].map((call) => ({ ...call })), total: totals.get(totalOf(ledger))?.used ?? 0 };
    },
    async reserve({ ledger, grant, call, limit, grantLimit, totalLimit, keepForMs }) {
      sweep();
      const keepUntil = now() + keepForMs;
      const book = bookOf(ledger, keepUntil);
      const granted = grant && bookOf(grant, keepUntil);
      const total = totals.get(totalOf(ledger)) ?? { used: 0, keepUntil };
      if (limit !== undefined && book.used + call.amount > limit) return { ok: false, over: 'user' };
      if (totalLimit !== undefined && total.used + call.amount > totalLimit) return { ok: false, over: 'total' };
      if (granted && granted.used + call.amount > grantLimit!) return { ok: false, over: 'grant' };
      if (book.calls.size >= MAX_CALLS_PER_DAY || (granted?.calls.size ?? 0) >= MAX_CALLS_PER_DAY) return { ok: false, over: 'calls' };
      for (const [name, counted] of [[nameOf(ledger), book], ...(granted ? [[nameOf(grant), granted] as const] : [])] as const) {
        counted.calls.set(call.id, { ...call });
        counted.used += call.amount;
        books.set(name, { ...counted, keepUntil });
      }
      total.used += call.amount;
      totals.set(totalOf(ledger), { ...total, keepUntil });
      return { ok: true, used: book.used, total: total.used, ...(granted ? { grantUsed: granted.used } : {}) };
    },
    async release({ ledger, grant }, id) {
      const granted = grant && uncount(grant, id);
      const own = uncount(ledger, id);
      if (!own) return undefined;
      const total = totals.get(totalOf(ledger));
      if (total) total.used -= own.amount;
      return { used: own.used, ...(granted ? { grantUsed: granted.used } : {}) };
    },
    async settle({ ledger, grant }, id, state, campaign) {
      for (const where of grant ? [ledger, grant] : [ledger]) {
        const call = books.get(nameOf(where))?.calls.get(id);
        if (!call) continue;
        call.state = state;
        if (campaign !== undefined) call.campaign = campaign;
      }
    },
  };
}
