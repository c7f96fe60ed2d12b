/**
 * The two-step confirmation gate for tools whose cost is money or credits. A first call records a
 * warning; only a second call with `confirm: true` and the same arguments within the window acts,
 * once. A confirmed attempt whose outcome is unknown is remembered, and the next warning names it.
 */
export const CONFIRM_WINDOW_MS = 10 * 60_000;

export type Decision =
  | { proceed: true }
  | { proceed: false; why: 'first' | 'no_warning' | 'changed' | 'expired'; earlier?: Attempt };

type Why = Extract<Decision, { proceed: false }>['why'];

export interface Attempt {
  at: number;
  what: string;
}

export function createConfirmations(now: () => number, windowMs = CONFIRM_WINDOW_MS) {
  const warned = new Map<string, number>(); // key -> when warned
  const lastKeyOfTool = new Map<string, string>();
  const unknown = new Map<string, Attempt>(); // key -> last attempt with unknown outcome

  const keyOf = (tool: string, args: unknown) => `${tool}\u0000${canonical(args)}`;

  function prune(at: number) {
    for (const [key, time] of warned) if (at - time > windowMs) warned.delete(key);
  }

  return {
    /** Decides whether a call acts now; a call that does not act records a fresh warning. */
    check(tool: string, args: unknown, confirm: boolean | undefined): Decision {
      const at = now();
      const key = keyOf(tool, args);
      const issued = warned.get(key);
      prune(at);
      if (confirm === true && issued !== undefined && at - issued <= windowMs) {
        warned.delete(key); // consumed: a repeated confirm cannot act twice
        return { proceed: true };
      }
      const why: Why =
        confirm !== true
          ? 'first'
          : issued !== undefined
            ? 'expired'
            : lastKeyOfTool.has(tool) && lastKeyOfTool.get(tool) !== key
              ? 'changed'
              : 'no_warning';
      warned.set(key, at);
      lastKeyOfTool.set(tool, key);
      return { proceed: false, why, earlier: unknown.get(key) };
    },
    /** Remembers a confirmed attempt whose outcome is unknown (timeout, dropped connection, 5xx, 409). */
    recordUnknown(tool: string, args: unknown, what: string) {
      unknown.set(keyOf(tool, args), { at: now(), what });
    },
    /** Forgets an unknown attempt once a later attempt with the same arguments got a clear answer. */
    settle(tool: string, args: unknown) {
      unknown.delete(keyOf(tool, args));
    },
  };
}

export type Confirmations = ReturnType<typeof createConfirmations>;

/** JSON with sorted keys, so argument order never changes the identity of a call. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
