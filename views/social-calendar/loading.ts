// Loading the social calendar's weeks through the host: which posts the week shown holds (cut from the
// result when it lists every matching post, otherwise asked for), the part of a week inside the
// model's from/until, and the list_social_posts call for a week's next page, at most one at a time
// per week. Drawing is the page's: `load` hands the calendar back through `redraw` when it changes.
import { factsOf, textOf } from '../shared/app.js';
import { count, postsOf, type Calendar, type Post, type WeekLoad } from './calendar.js';
import { dayStart, isoOf } from './weeks.js';

/** Draws the calendar's week again; the page draws only the calendar it shows, and ignores any other. */
export type Redraw = (calendar: Calendar) => void;

/** The posts of the week shown, and whether more of them wait for a call. */
export function weekPosts(calendar: Calendar): { posts: Post[]; load?: WeekLoad } {
  const { week } = calendar;
  if (calendar.complete) return { posts: calendar.listed.filter((post) => post.at >= week && post.at < dayStart(week, 7)) };
  const load = calendar.weeks.get(week);
  return { posts: load?.posts ?? [], load };
}

/** The part of the week inside the model's from/until: what the view asks for; undefined when none is. */
export function askedRange(calendar: Calendar, week: number): { from: number; until: number } | undefined {
  const end = dayStart(week, 7);
  const from = Math.max(week, calendar.from ?? week);
  const until = Math.min(end, calendar.until ?? end);
  return from < until ? { from, until } : undefined;
}

/** Asks the server for the week's next page of posts: one call, and none while one is under way. */
export async function load(calendar: Calendar, week: number, redraw: Redraw): Promise<void> {
  const range = askedRange(calendar, week);
  if (calendar.complete || !range || !calendar.asked) return;
  let entry = calendar.weeks.get(week);
  if (!entry) calendar.weeks.set(week, (entry = { posts: [], skip: 0, loading: false }));
  if (entry.loading || entry.skip === undefined) return;
  entry.loading = true;
  redraw(calendar);
  const args = { app_id: calendar.appId, ...calendar.filters, from: isoOf(range.from), until: isoOf(range.until), ...(entry.skip ? { skip: entry.skip } : {}) };
  const result = await calendar.view.call('list_social_posts', args);
  entry.loading = false;
  if (result.isError) entry.error = textOf(result);
  else {
    entry.error = undefined;
    entry.posts.push(...postsOf(result));
    entry.skip = count(factsOf(result).next_skip);
  }
  // The person may have moved to another week meanwhile: that one is drawn already.
  if (calendar.week === week) redraw(calendar);
}
