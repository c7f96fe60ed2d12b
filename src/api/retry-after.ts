/** How long an upstream asks us to wait before a retry, read from every header ky honours too. */

/** In ky's order: the first one present decides. */
const WAIT_HEADERS = ['retry-after', 'ratelimit-reset', 'x-ratelimit-retry-after', 'x-ratelimit-reset', 'x-rate-limit-reset'];

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)$/;
const INFINITY = /^\+?infinity$/i;
// IMF-fixdate, RFC 850 and asctime dates all start with the day's name; Date.parse alone reads "1" as 2001.
const HTTP_DATE = /^[a-z]{3,9},?\s/i;
/** A reset number this large is a point in time (2001-09-09 in seconds), not a wait. */
const EPOCH_SECONDS = 1e9;
/** ... and this large, a point in time in milliseconds. */
const EPOCH_MS = 1e12;

/**
 * The wait the headers ask for, in ms (0 for a past time); `Infinity` when the upstream says
 * "never"; undefined when no header is present or the first present one is unreadable (NaN,
 * empty, garbage), so the caller falls back to its own backoff.
 */
export function requestedWaitMs(headers: { get(name: string): string | null | undefined }, now: number): number | undefined {
  const name = WAIT_HEADERS.find((candidate) => headers.get(candidate) != null);
  if (name === undefined) return undefined;
  // Retry-After is delta seconds or a date (RFC 9110); the rate-limit family may also send an epoch time.
  return parseWait(headers.get(name) ?? '', name !== 'retry-after', now);
}

/** One header value as a wait in ms; see requestedWaitMs. */
export function parseWait(value: string, epochAllowed: boolean, now: number): number | undefined {
  const text = value.trim();
  if (INFINITY.test(text)) return Infinity;
  if (NUMBER.test(text)) {
    const number = Number(text);
    if (epochAllowed && number >= EPOCH_MS) return Math.max(0, number - now);
    if (epochAllowed && number >= EPOCH_SECONDS) return Math.max(0, number * 1000 - now);
    return Math.max(0, number * 1000);
  }
  if (HTTP_DATE.test(text)) {
    const at = Date.parse(text);
    if (!Number.isNaN(at)) return Math.max(0, at - now);
  }
  return undefined;
}

/** A wait as the whole seconds a person is told to wait; undefined for "never". */
export function waitSeconds(waitMs: number | undefined): number | undefined {
  return waitMs === undefined || !Number.isFinite(waitMs) ? undefined : Math.ceil(waitMs / 1000);
}
