/** The sandbox's injected clock: time moves only when told, so tests never sleep. */
export interface SandboxClock {
  now(): number;
  advance(ms: number): void;
  set(ms: number): void;
}

export const DEFAULT_START = Date.parse('2026-11-02T09:00:00.000Z');

export function createManualClock(start = DEFAULT_START): SandboxClock {
  let current = start;
  return {
    now: () => current,
    advance: (ms) => {
      if (!(ms >= 0)) throw new RangeError('advance needs a non-negative number of ms');
      current += ms;
    },
    set: (ms) => {
      current = ms;
    },
  };
}

/** Wall-clock time, for the sandbox when a person uses it interactively. */
export function createRealClock(): SandboxClock {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    advance: (ms) => {
      offset += ms;
    },
    set: (ms) => {
      offset = ms - Date.now();
    },
  };
}
