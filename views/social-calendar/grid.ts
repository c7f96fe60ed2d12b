// The social calendar's week grid: the week's navigation, one item per day (today marked) with its
// posts, each post's status in words and the approved ones not handed over highlighted, the line that
// says a week is loading, failed or has more posts, and the posts without a valid time. The buttons
// here draw and load weeks through the WeekActions the page gives them.
import { h, named } from '../shared/dom.js';
import { count, day as dayName, time, zone } from '../shared/format.js';
import type { Calendar, Post, WeekLoad } from './calendar.js';
import { askedRange } from './loading.js';
import { dayKey, dayStart } from './weeks.js';

/** The status start_scheduling_posts takes (src/tools/social/calendar.ts APPROVED). */
export const APPROVED = 'approved';
/** Each known status in words; any other status shows as the service wrote it. */
const STATUS_WORDS: Record<string, string> = {
  proposal: 'Proposal, not approved',
  approved: 'Approved, not handed over',
  scheduled: 'Scheduled',
  failed: 'Failed',
  published: 'Published',
};

/** Platform names as the platforms write them; any other shows as the service wrote it. */
const PLATFORM_NAMES: Record<string, string> = { instagram: 'Instagram', linkedin: 'LinkedIn' };

/** What the week's buttons do, given by the page: draw the calendar's week, and ask the server for one of its weeks. */
export interface WeekActions {
  showWeek(calendar: Calendar): void;
  load(calendar: Calendar, week: number): Promise<void>;
}

export const plural = (n: number, word: string) => `${count(n)} ${word}${n === 1 ? '' : 's'}`;

function postItem(post: Post): HTMLElement {
  const waiting = post.status === APPROVED;
  // The time where the post is published, when that zone is not the person's own.
  const localText = post.local && post.zone && post.zone !== zone() ? [`${post.local.slice(11, 16)} in `, named(post.zone), ' when it is published'] : undefined;
  return h(
    'li',
    { class: `post${waiting ? ' waiting' : ''}`, 'data-id': post.id, 'data-status': post.status },
    h(
      'div',
      { class: 'post-head' },
      h('time', { class: 'time', datetime: post.scheduledAt }, Number.isFinite(post.at) ? time(post.at) : 'no time'),
      h('span', { class: 'platform' }, PLATFORM_NAMES[post.platform] ?? post.platform),
      h('span', { class: 'badge status', 'data-status': post.status }, STATUS_WORDS[post.status] ?? (post.status || 'unknown')),
    ),
    h('p', { class: 'title' }, named(post.title || '(no title)')),
    post.caption ? h('p', { class: 'caption', dir: 'auto' }, post.caption) : null,
    localText ? h('p', { class: 'local muted' }, ...localText) : null,
  );
}

export function dayItem(calendar: Calendar, day: number, posts: Post[]): HTMLElement {
  const today = day === calendar.today;
  const mine = posts.filter((post) => post.at >= day && post.at < dayStart(day, 1));
  return h(
    'li',
    { class: `day${today ? ' today' : ''}${mine.length ? '' : ' empty'}`, 'data-day': dayKey(day), ...(today ? { 'aria-current': 'date' } : {}) },
    h('h2', { class: 'day-name' }, dayName(day), today ? h('span', { class: 'badge today-badge' }, 'Today') : null),
    mine.length ? h('ul', { class: 'posts' }, ...mine.map(postItem)) : h('p', { class: 'muted none' }, 'No posts'),
  );
}

export function navigation(calendar: Calendar, actions: WeekActions): HTMLElement {
  const go = (weeks: number) => () => {
    calendar.week = dayStart(calendar.week, weeks * 7);
    actions.showWeek(calendar);
    void actions.load(calendar, calendar.week);
  };
  const previous = h('button', { type: 'button', class: 'previous', 'aria-label': 'Previous week' }, '‹ Previous');
  const next = h('button', { type: 'button', class: 'next', 'aria-label': 'Next week' }, 'Next ›');
  previous.addEventListener('click', go(-1));
  next.addEventListener('click', go(1));
  const { week } = calendar;
  const timed = calendar.listed.filter((post) => Number.isFinite(post.at));
  const around = calendar.complete
    ? `${plural(timed.filter((post) => post.at < week).length, 'post')} before this week, ${count(timed.filter((post) => post.at >= dayStart(week, 7)).length)} after.`
    : 'Each week is asked for when you open it.';
  return h(
    'nav',
    { class: 'week-nav' },
    previous,
    h('span', { class: 'week-label' }, `${dayName(week, false)} – ${dayName(dayStart(week, 6), false)} ${dayKey(dayStart(week, 6)).slice(0, 4)}`),
    next,
    h('p', { class: 'muted zone' }, `Days and times in your time zone, ${zone()}. ${around}`),
  );
}

/** Loading, an error, or the rest of a week that did not fit one answer. */
export function weekState(calendar: Calendar, load: WeekLoad | undefined, actions: WeekActions): HTMLElement | null {
  if (calendar.complete) return null;
  if (!askedRange(calendar, calendar.week)) return h('p', { class: 'muted outside' }, 'This week is outside the listed range.');
  if (!calendar.asked) return h('p', { class: 'muted' }, 'Other weeks cannot be asked for: the result does not say which call it answers.');
  if (!load || load.loading) return h('p', { class: 'muted loading' }, 'Loading this week…');
  const retry = (label: string, kind: string) => {
    const button = h('button', { type: 'button', class: kind }, label);
    button.addEventListener('click', () => void loadFrom(calendar, button, actions));
    return button;
  };
  if (load.error) return h('div', { class: 'week-error' }, h('pre', {}, load.error), retry('Try again', 'retry'));
  if (load.skip !== undefined) return h('div', { class: 'buttons' }, retry('Show more posts of this week', 'more'));
  return null;
}

/** A button that asks for the week's next page: disabled on the first press, so one press is one call. */
function loadFrom(calendar: Calendar, button: HTMLButtonElement, actions: WeekActions): Promise<void> {
  button.disabled = true;
  return actions.load(calendar, calendar.week);
}

export function untimed(calendar: Calendar): HTMLElement | null {
  const posts = calendar.listed.filter((post) => !Number.isFinite(post.at));
  if (posts.length === 0) return null;
  return h('section', { class: 'untimed' }, h('h2', {}, 'Without a valid time'), h('ul', { class: 'posts' }, ...posts.map(postItem)));
}
