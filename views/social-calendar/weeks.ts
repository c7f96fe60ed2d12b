// Week arithmetic in UTC for the social calendar: the Monday that starts the week holding an instant,
// and the day names, times and ISO strings the calendar writes. Every day and time here is UTC, as
// list_social_posts reads them; nothing depends on the browser's own time zone.

export const DAY_MS = 86_400_000;
export const WEEK_MS = 7 * DAY_MS;
/** 1 January 1970 was a Thursday, day 3 of a week that starts on Monday. */
const EPOCH_WEEKDAY = 3;
const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Midnight UTC of the Monday of the week holding `ms`. */
export function weekOf(ms: number): number {
  const day = Math.floor(ms / DAY_MS);
  return (day - (((day + EPOCH_WEEKDAY) % 7) + 7) % 7) * DAY_MS;
}

export const dayKey = (ms: number) => new Date(ms).toISOString().slice(0, 10);
export const timeOf = (ms: number) => new Date(ms).toISOString().slice(11, 16);
export function dayName(ms: number, withWeekday = true): string {
  const date = new Date(ms);
  const weekday = WEEKDAYS[(date.getUTCDay() + 6) % 7];
  return `${withWeekday ? `${weekday} ` : ''}${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]}`;
}
export const isoOf = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
