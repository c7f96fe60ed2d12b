// The social calendar (MCP Apps view of list_social_posts): one week of posts, Monday to Sunday in
// the person's time zone, today marked, each post's status in words, and the approved posts not yet handed over for
// publishing highlighted and counted. Other weeks come from the result itself when it lists every
// matching post; otherwise the view calls list_social_posts again through the host for that week.
// This file starts the view and draws the page; social-calendar/ holds the week arithmetic
// (weeks.ts), the result read into a calendar (calendar.ts), the loading of weeks (loading.ts), the
// week grid (grid.ts) and the hand-over of approved posts (hand-over.ts).
import { startView, type View } from './shared/app.js';
import { kindOf, outcome } from './shared/confirm.js';
import { byId, h, named } from './shared/dom.js';
import { calendarOf, count, records, text, type Calendar } from './social-calendar/calendar.js';
import { APPROVED, dayItem, navigation, plural, untimed, weekState, type WeekActions } from './social-calendar/grid.js';
import { waitingBanner } from './social-calendar/hand-over.js';
import { load, weekPosts } from './social-calendar/loading.js';
import { count as figure, dateTime } from './shared/format.js';
import { dayKey, dayStart } from './social-calendar/weeks.js';

const main = byId('calendar');

/** What the person reads first: the counts, the approved posts waiting, and the button that hands them over. */
function header(calendar: Calendar, view: View): HTMLElement {
  const { facts } = calendar;
  // Statuses and filters are the service's and the model's text: each isolated for right-to-left text.
  const statuses = records(facts.by_status).map((item) => [`${figure(count(item.count) ?? 0)} `, named(text(item.name))]);
  const total = count(facts.total);
  const scope = Object.entries(calendar.filters).map(([key, value]) => [`${key} `, named(value)]);
  if (calendar.from !== undefined) scope.push([`from ${dateTime(calendar.from)}`]);
  if (calendar.until !== undefined) scope.push([`until ${dateTime(calendar.until)} (excluded)`]);
  const list = (parts: Array<Array<Node | string>>) => parts.flatMap((part, index) => [index ? ', ' : '', ...part]);
  return h(
    'header',
    {},
    h('h1', {}, 'Social calendar', calendar.appId ? h('span', { class: 'app' }, ' · ', named(calendar.appId)) : null),
    view.fullscreenButton(),
    total === undefined ? null : h('p', { class: 'muted totals' }, `${plural(total, 'post')} on the calendar${statuses.length ? ': ' : ''}`, ...list(statuses), '.'),
    scope.length ? h('p', { class: 'muted scope' }, 'Listed: ', ...list(scope), '.') : null,
    waitingBanner(calendar),
  );
}

let weekSection: HTMLElement = h('section');
/** The calendar on the page: a week that loads after the host handed over a newer result is not drawn. */
let current: Calendar | undefined;

/** Draws a week that finished (or started) loading, unless a newer result replaced its calendar. */
function redraw(calendar: Calendar): void {
  if (calendar === current) showWeek(calendar);
}

const actions: WeekActions = { showWeek, load: (calendar, week) => load(calendar, week, redraw) };

function showWeek(calendar: Calendar): void {
  const { posts, load } = weekPosts(calendar);
  const days = [...Array(7).keys()].map((index) => dayStart(calendar.week, index));
  const waiting = posts.filter((post) => post.status === APPROVED).length;
  const next = h(
    'section',
    { class: 'week-section', 'data-week': dayKey(calendar.week) },
    navigation(calendar, actions),
    h('p', { class: 'week-summary' }, `This week: ${plural(posts.length, 'post')}${load?.skip ? ' so far' : ''}${waiting ? `, ${figure(waiting)} approved not handed over` : ''}.`),
    h('ol', { class: 'week' }, ...days.map((day) => dayItem(calendar, day, posts))),
    weekState(calendar, load, actions),
    untimed(calendar),
  );
  weekSection.replaceWith(next);
  weekSection = next;
}

await startView(
  'social-calendar',
  {
    result(result, view) {
      const kind = kindOf(result);
      if (kind !== 'done') {
        current = undefined;
        main.replaceChildren(h('h1', {}, 'Social calendar'), outcome(kind === 'warning' ? 'refused' : kind, result));
        return;
      }
      const calendar = calendarOf(result, view);
      current = calendar;
      weekSection = h('section');
      main.replaceChildren(header(calendar, view), weekSection);
      showWeek(calendar);
      void load(calendar, calendar.week, redraw);
    },
    cancelled() {
      current = undefined;
      main.replaceChildren(outcome('cancelled', 'the listing was cancelled before it answered.'));
    },
  },
  { fullscreen: true },
);
