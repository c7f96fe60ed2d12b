// Weeks and days in the person's time zone (the host's, else the browser's) for the social calendar:
// the Monday that starts the week holding an instant, each day's start (a day is 23 or 25 hours when
// the clocks change), and the local date of an instant. The service reads instants, so the view asks
// for weeks by their start and end instants whatever the zone.
import { zone } from '../shared/format.js';

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The local date and time of `ms` in the person's zone, as numbers. */
function local(ms: number): { year: number; month: number; day: number; hour: number; minute: number; second: number } {
  const tz = zone();
  let format = formatters.get(tz);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formatters.set(tz, format);
  }
  const parts = Object.fromEntries(format.formatToParts(new Date(ms)).map((part) => [part.type, Number(part.value)]));
  return { year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour!, minute: parts.minute!, second: parts.second! };
}

/** How far the zone is ahead of UTC at `ms`, in ms. */
function offset(ms: number): number {
  const at = local(ms);
  return Date.UTC(at.year, at.month - 1, at.day, at.hour, at.minute, at.second) - Math.floor(ms / 1000) * 1000;
}

/** The instant local midnight starts the day `days` after the local date of `ms`. */
export function dayStart(ms: number, days = 0): number {
  const at = local(ms);
  const guess = Date.UTC(at.year, at.month - 1, at.day + days);
  // Twice: the offset at the guess may differ from the one at midnight when the clocks change that day.
  const first = guess - offset(guess);
  return guess - offset(first);
}

/** The start of the Monday of the week holding `ms`, in the person's zone. */
export function weekOf(ms: number): number {
  const at = local(ms);
  const weekday = (new Date(Date.UTC(at.year, at.month - 1, at.day)).getUTCDay() + 6) % 7;
  return dayStart(ms, -weekday);
}

/** The local date of `ms` as YYYY-MM-DD. */
export function dayKey(ms: number): string {
  const at = local(ms);
  return `${at.year}-${String(at.month).padStart(2, '0')}-${String(at.day).padStart(2, '0')}`;
}

export const isoOf = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
