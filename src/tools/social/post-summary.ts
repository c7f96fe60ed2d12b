import type { SocialPost } from '../../api/schemas.js';
import { idText, quote, sanitize } from '../../text.js';
import { plural, stepTo, type Steps, type Week } from '../format.js';
import { APPROVED, DAY_MS, floorDay, isoOf, MAX_PER_RUN } from './calendar.js';

/** The summary list_social_posts gives of a whole calendar: counts, rows, the range to schedule. */

/** The statuses the calendar shows, in a post's order of life; list_social_posts' description names each (test/descriptions.test.ts). */
export const KNOWN_STATUSES = ['proposal', APPROVED, 'scheduled', 'published', 'failed'];
/** Distinct names kept per count list; a calendar could carry any number of odd statuses. */
const MAX_NAMES = 8;
const TITLE_MAX = 60;

export interface PostFacts {
  id: string;
  platform: string;
  scheduled_at: string;
  scheduled_local_at?: string;
  scheduled_timezone?: string;
  status: string;
  title: string;
}

export interface Named {
  name: string;
  count: number;
}

export interface ScheduleRange {
  /** Approved posts in the listed range (or the whole calendar) not yet handed over. */
  waiting: number;
  scheduled_from?: string;
  scheduled_until?: string;
  /** More than one run's worth waits: the range covers only the first ones. */
  capped?: boolean;
}

const timeOf = (post: SocialPost) => Date.parse(post.scheduled_at ?? '');
const statusOf = (post: SocialPost) => sanitize(post.status ?? 'unknown', 30).toLowerCase() || 'unknown';

export function countsOf(posts: SocialPost[]): { byStatus: Named[]; byPlatform: Named[] } {
  return {
    byStatus: tally(posts.map(statusOf), KNOWN_STATUSES),
    byPlatform: tally(posts.map((post) => sanitize(post.platform ?? 'unknown', 20).toLowerCase() || 'unknown'), ['instagram', 'linkedin']),
  };
}

/** Counts per name, known names first; names beyond MAX_NAMES are summed under "other". */
function tally(names: string[], known: string[]): Named[] {
  const counts = new Map<string, number>(known.map((name) => [name, 0]));
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  const present = [...counts].filter(([, count]) => count > 0).map(([name, count]) => ({ name, count }));
  if (present.length <= MAX_NAMES) return present;
  const other = present.slice(MAX_NAMES - 1).reduce((sum, { count }) => sum + count, 0);
  return [...present.slice(0, MAX_NAMES - 1), { name: 'other', count: other }];
}

/** The approved posts among `posts` and a range for start_scheduling_posts that holds at most one run's worth. */
export function scheduleRange(posts: SocialPost[], start: number | undefined, end: number | undefined): ScheduleRange {
  const times = posts
    .filter((post) => statusOf(post) === APPROVED)
    .map(timeOf)
    .filter(Number.isFinite)
    .sort((a, b) => a - b);
  if (times.length === 0) return { waiting: 0 };
  const from = start ?? floorDay(times[0]!);
  let until = end ?? floorDay(times.at(-1)!) + DAY_MS;
  let capped = false;
  if (times.length > MAX_PER_RUN) {
    // Everything before the first post that does not fit: a day boundary when one lies after `from`.
    const first = times[MAX_PER_RUN]!;
    const cut = floorDay(first) > from ? floorDay(first) : first;
    if (cut > from && cut < until) [until, capped] = [cut, true];
  }
  return { waiting: times.length, scheduled_from: isoOf(from), scheduled_until: isoOf(until), ...(capped ? { capped } : {}) };
}

export function postFacts(post: SocialPost): PostFacts {
  const at = timeOf(post);
  return {
    id: sanitize(post.id ?? '', 100),
    platform: sanitize(post.platform ?? 'unknown', 20),
    scheduled_at: Number.isFinite(at) ? isoOf(at) : sanitize(post.scheduled_at ?? 'not set', 40),
    ...(post.scheduled_local_at ? { scheduled_local_at: sanitize(post.scheduled_local_at, 40) } : {}),
    ...(post.scheduled_timezone ? { scheduled_timezone: sanitize(post.scheduled_timezone, 60) } : {}),
    status: statusOf(post),
    title: sanitize(post.title ?? '', TITLE_MAX),
  };
}

/** `- post_1 instagram 2026-11-03T17:00:00Z (local 2026-11-03 12:00 America/New_York) approved "Launch day"` */
export function postLine(facts: PostFacts): string {
  const local = facts.scheduled_local_at?.replace(/^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2}(\.\d+)?)?$/, '$1 $2');
  const zone = facts.scheduled_timezone ? zoneText(facts.scheduled_timezone) : undefined;
  const where = local ? ` (local ${[local, zone].filter(Boolean).join(' ')})` : zone ? ` (${zone})` : '';
  return `- ${facts.id ? idText(facts.id) : '(no id)'} ${idText(facts.platform)} ${facts.scheduled_at}${where} ${idText(facts.status)} ${quote(facts.title, TITLE_MAX)}`;
}

/** An IANA zone name (`America/New_York`) shown bare; anything else as quoted data. */
const zoneText = (zone: string) => (/^[A-Za-z][\w+-]*(\/[\w+-]+)*$/.test(zone) ? zone : quote(zone, 60));

export interface CalendarText {
  appId: string;
  total: number;
  counts: { byStatus: Named[]; byPlatform: Named[] };
  filters: { from?: number; until?: number; status?: string; platform?: string };
  matching: number;
  lines: string[];
  range: ScheduleRange;
  /** Today's date line: the user names ranges relative to it ("next week"). */
  today: string;
  /** Matching posts skipped before `lines`. */
  skip?: number;
}

export function describeCalendar({ appId, total, counts, filters, matching, lines, range, today, skip = 0 }: CalendarText): string {
  const list = (named: Named[]) => named.map(({ name, count }) => `${count} ${idText(name)}`).join(', ');
  const out = [
    `Social calendar of app ${idText(appId)}: ${plural(total, 'post')}${total ? ` (${list(counts.byStatus)}; ${list(counts.byPlatform)})` : ''}.`,
    today,
  ];
  const timed = filters.from !== undefined || filters.until !== undefined;
  const shown = [
    filters.from !== undefined ? `from ${isoOf(filters.from)}` : '',
    filters.until !== undefined ? `until ${isoOf(filters.until)}` : '',
    filters.status ? `status ${quote(filters.status, 40)}` : '',
    filters.platform ? `platform ${filters.platform}` : '',
  ].filter(Boolean);
  if (shown.length > 0) out.push(`${plural(matching, 'post')} match ${shown.join(', ')}${matching ? ', earliest first:' : '.'}`);
  else if (matching > 0) out.push('Earliest first:');
  if (skip > 0) out.push(lines.length ? `Posts ${skip + 1} to ${skip + lines.length} of them:` : `None after the first ${skip}: call again with a smaller skip.`);
  out.push(...lines);
  const hidden = matching - skip - lines.length;
  if (hidden > 0) out.push(`…and ${plural(hidden, 'more matching post')} not shown: call again with skip: ${skip + lines.length}, or narrow from/until, status or platform.`);
  if (range.waiting > 0) {
    const where = timed ? 'in this range' : 'on the calendar';
    out.push(`${plural(range.waiting, `${APPROVED} post`)} ${where} ${range.waiting === 1 ? 'is' : 'are'} not handed over for publishing yet.`);
    if (range.capped) {
      out.push(`One run takes at most ${MAX_PER_RUN}: schedule until ${range.scheduled_until} first, then continue from there.`);
    }
  }
  return out.join('\n');
}

/**
 * Start scheduling when approved posts wait; otherwise nothing (approving proposals happens in the
 * service). A range the caller did not give is this server's choice, and the step says so, with next
 * week's range, rather than offering more than was asked (issue 29).
 */
export function nextOf(ctx: Steps, appId: string, range: ScheduleRange, inRange: SocialPost[], given: boolean, nextWeek: Week): string {
  if (range.scheduled_from) {
    const args = { app_id: appId, scheduled_from: range.scheduled_from, scheduled_until: range.scheduled_until };
    const what = range.capped ? `the first ${MAX_PER_RUN} or fewer of the ${range.waiting} approved posts` : `the ${plural(range.waiting, 'approved post')}`;
    return stepTo(ctx, 'start_scheduling_posts', args, (call) =>
      given
        ? `Call ${call} to hand ${what} over for publishing.`
        : `No range was given, so this one is this server's choice: ${what} waiting, from ${range.scheduled_from} until ${range.scheduled_until}. If the user asked for less (next week is from ${nextWeek.from} until ${nextWeek.until}), list that range and schedule it instead; only to hand over ${range.capped ? 'these' : 'all of them'}, call ${call}.`,
    );
  }
  if (inRange.some((post) => statusOf(post) === 'proposal')) {
    return 'Nothing to schedule: proposals must be approved in the service first, and nothing more is needed here.';
  }
  return 'Nothing more is needed.';
}
