// The social calendar (MCP Apps view of list_social_posts): one week of posts, Monday to Sunday in
// UTC, today marked, each post's status in words, and the approved posts not yet handed over for
// publishing highlighted and counted. Other weeks come from the result itself when it lists every
// matching post; otherwise the view calls list_social_posts again through the host for that week.
import { factsOf, startView, textOf, viewOf, type ToolResultLike, type View } from './shared/app.js';
import { kindOf, outcome } from './shared/confirm.js';
import { byId, h } from './shared/dom.js';

const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;
/** 1 January 1970 was a Thursday, day 3 of a week that starts on Monday. */
const EPOCH_WEEKDAY = 3;
const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The status start_scheduling_posts takes (src/tools/social/calendar.ts APPROVED). */
const APPROVED = 'approved';
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

interface Post {
  id: string;
  platform: string;
  /** Epoch ms, NaN when the service gave no valid time. */
  at: number;
  scheduledAt: string;
  local?: string;
  zone?: string;
  status: string;
  title: string;
  caption: string;
}

/** One week's posts as list_social_posts gave them, when the view asks the server for each week. */
interface WeekLoad {
  posts: Post[];
  /** The skip of the next call; undefined once every matching post of the week is here. */
  skip?: number;
  loading: boolean;
  error?: string;
}

interface Calendar {
  view: View;
  facts: Record<string, unknown>;
  appId?: string;
  /** The model's status and platform filters, kept for every week asked for. */
  filters: Record<string, string>;
  /** The model's from/until, as epoch ms. */
  from?: number;
  until?: number;
  /** Midnight UTC of the result's `today`; NaN when it has none. */
  today: number;
  /** The posts the result lists. */
  listed: Post[];
  /** The result lists every matching post: weeks are cut from it and no call is needed. */
  complete: boolean;
  weeks: Map<number, WeekLoad>;
  /** Midnight UTC of the Monday shown. */
  week: number;
}

const main = byId('calendar');

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const records = (value: unknown): Array<Record<string, unknown>> => (Array.isArray(value) ? value.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null) : []);
const count = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Midnight UTC of the Monday of the week holding `ms`. */
function weekOf(ms: number): number {
  const day = Math.floor(ms / DAY_MS);
  return (day - (((day + EPOCH_WEEKDAY) % 7) + 7) % 7) * DAY_MS;
}

const dayKey = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const timeOf = (ms: number) => new Date(ms).toISOString().slice(11, 16);
function dayName(ms: number, withWeekday = true): string {
  const date = new Date(ms);
  const weekday = WEEKDAYS[(date.getUTCDay() + 6) % 7];
  return `${withWeekday ? `${weekday} ` : ''}${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]}`;
}
const isoOf = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
/** An ISO 8601 date or instant as list_social_posts reads it: without an offset, UTC. */
function instantOf(value: unknown): number | undefined {
  const raw = text(value).trim();
  if (!raw) return undefined;
  const ms = Date.parse(raw.length > 10 && !/(Z|[+-]\d{2}:\d{2})$/i.test(raw) ? `${raw}Z` : raw);
  return Number.isFinite(ms) ? ms : undefined;
}

/** The posts of one list_social_posts result, each with the caption its view data gives. */
function postsOf(result: ToolResultLike): Post[] {
  const shown = records(viewOf(result).posts);
  return records(factsOf(result).posts).map((row, index) => {
    const id = text(row.id);
    const extra = shown[index];
    return {
      id,
      platform: text(row.platform),
      at: Date.parse(text(row.scheduled_at)),
      scheduledAt: text(row.scheduled_at),
      local: text(row.scheduled_local_at) || undefined,
      zone: text(row.scheduled_timezone) || undefined,
      status: text(row.status),
      title: text(row.title),
      // The view data lists the same posts in the same order; the id check guards against a mismatch.
      caption: extra && text(extra.id) === id ? text(extra.caption) : '',
    };
  });
}

function calendarOf(result: ToolResultLike, view: View): Calendar {
  const args = view.toolArguments() ?? {};
  const facts = factsOf(result);
  const listed = postsOf(result);
  const filters: Record<string, string> = {};
  for (const key of ['status', 'platform']) if (text(args[key])) filters[key] = text(args[key]);
  const from = instantOf(args.from);
  const until = instantOf(args.until);
  const today = Date.parse(text(facts.today));
  const skip = count(args.skip) ?? 0;
  const inRange = (ms: number) => (from === undefined || ms >= from) && (until === undefined || ms < until);
  // Today's week, unless the listing covers another stretch of time: then where it starts.
  const firstTimed = listed.find((post) => Number.isFinite(post.at))?.at;
  const opening = Number.isFinite(today) && inRange(today) ? today : (from ?? firstTimed ?? (Number.isFinite(today) ? today : Date.now()));
  return {
    view,
    facts,
    appId: text(args.app_id) || undefined,
    filters,
    from,
    until,
    today,
    listed,
    complete: skip === 0 && count(facts.next_skip) === undefined,
    weeks: new Map(),
    week: weekOf(opening),
  };
}

/** What the person reads first: the counts, the approved posts waiting, and the button that hands them over. */
function header(calendar: Calendar): HTMLElement {
  const { facts } = calendar;
  const statuses = records(facts.by_status).map((item) => `${count(item.count) ?? 0} ${text(item.name)}`);
  const total = count(facts.total);
  const scope = Object.entries(calendar.filters).map(([key, value]) => `${key} ${value}`);
  if (calendar.from !== undefined) scope.push(`from ${dayName(calendar.from)} ${timeOf(calendar.from)}`);
  if (calendar.until !== undefined) scope.push(`until ${dayName(calendar.until)} ${timeOf(calendar.until)} (excluded)`);
  return h(
    'header',
    {},
    h('h1', {}, 'Social calendar', calendar.appId ? h('span', { class: 'app' }, ` · ${calendar.appId}`) : null),
    total === undefined ? null : h('p', { class: 'muted totals' }, `${plural(total, 'post')} on the calendar${statuses.length ? `: ${statuses.join(', ')}` : ''}.`),
    scope.length ? h('p', { class: 'muted scope' }, `Listed: ${scope.join(', ')}.`) : null,
    waitingBanner(calendar),
  );
}

function waitingBanner(calendar: Calendar): HTMLElement | null {
  const waiting = count(calendar.facts.approved_waiting) ?? 0;
  if (waiting === 0) return null;
  const where = calendar.from !== undefined || calendar.until !== undefined ? 'in the listed range' : 'on the calendar';
  const banner = h(
    'section',
    { class: 'waiting-banner' },
    h('p', {}, h('strong', { class: 'waiting-count' }, String(waiting)), ` approved ${waiting === 1 ? 'post' : 'posts'} ${where} ${waiting === 1 ? 'is' : 'are'} not handed over for publishing yet. They are marked below.`),
  );
  const range = calendar.facts.schedule_range as Record<string, unknown> | undefined;
  const scheduledFrom = instantOf(range?.scheduled_from);
  const scheduledUntil = instantOf(range?.scheduled_until);
  if (calendar.appId && scheduledFrom !== undefined && scheduledUntil !== undefined) {
    banner.append(handOver(calendar.view, { app_id: calendar.appId, scheduled_from: text(range!.scheduled_from), scheduled_until: text(range!.scheduled_until) }, scheduledFrom, scheduledUntil));
  }
  return banner;
}

/** The button that calls start_scheduling_posts (not gated: it costs nothing): one call, whatever the clicks. */
function handOver(view: View, args: Record<string, string>, from: number, until: number): HTMLElement {
  const button = h('button', { type: 'button', class: 'hand-over primary' }, 'Hand them over for publishing');
  const status = h('p', { class: 'muted sending', hidden: true }, 'Starting…');
  const part = h(
    'div',
    { class: 'hand-over-part' },
    h('p', { class: 'muted' }, `Starts scheduling the approved posts from ${dayName(from)} ${timeOf(from)} until ${dayName(until)} ${timeOf(until)} UTC (excluded). Proposals stay unpublished. Nothing is sent until you press.`),
    h('div', { class: 'buttons' }, button),
    status,
  );
  let pressed = false;
  button.addEventListener('click', async () => {
    if (pressed) return;
    pressed = true;
    button.disabled = true;
    status.hidden = false;
    const result = await view.call('start_scheduling_posts', args);
    status.hidden = true;
    const kind = kindOf(result);
    part.append(outcome(kind, textOf(result)));
    // The grid shows the statuses as listed; the job changes them only once it completes.
    if (kind === 'done') part.append(h('p', { class: 'muted after' }, 'The posts below keep the status they were listed with until the job completes; ask for the calendar again then.'));
  });
  return part;
}

/** The posts of the week shown, and whether more of them wait for a call. */
function weekPosts(calendar: Calendar): { posts: Post[]; load?: WeekLoad } {
  const { week } = calendar;
  if (calendar.complete) return { posts: calendar.listed.filter((post) => post.at >= week && post.at < week + WEEK_MS) };
  const load = calendar.weeks.get(week);
  return { posts: load?.posts ?? [], load };
}

/** The part of the week inside the model's from/until: what the view asks for; undefined when none is. */
function askedRange(calendar: Calendar, week: number): { from: number; until: number } | undefined {
  const from = Math.max(week, calendar.from ?? week);
  const until = Math.min(week + WEEK_MS, calendar.until ?? week + WEEK_MS);
  return from < until ? { from, until } : undefined;
}

/** Asks the server for the week's next page of posts: one call, and none while one is under way. */
async function load(calendar: Calendar, week: number): Promise<void> {
  const range = askedRange(calendar, week);
  if (calendar.complete || !range || !calendar.appId) return;
  let entry = calendar.weeks.get(week);
  if (!entry) calendar.weeks.set(week, (entry = { posts: [], skip: 0, loading: false }));
  if (entry.loading || entry.skip === undefined) return;
  entry.loading = true;
  if (calendar === current) showWeek(calendar);
  const args = { app_id: calendar.appId, ...calendar.filters, from: isoOf(range.from), until: isoOf(range.until), ...(entry.skip ? { skip: entry.skip } : {}) };
  const result = await calendar.view.call('list_social_posts', args);
  entry.loading = false;
  if (result.isError) entry.error = textOf(result);
  else {
    entry.error = undefined;
    entry.posts.push(...postsOf(result));
    entry.skip = count(factsOf(result).next_skip);
  }
  if (calendar === current && calendar.week === week) showWeek(calendar);
}

function postItem(post: Post): HTMLElement {
  const waiting = post.status === APPROVED;
  const localDay = post.local?.slice(0, 10);
  const localText = post.local && post.zone && post.zone !== 'UTC'
    ? `Local ${localDay && localDay !== dayKey(post.at) ? `${dayName(Date.parse(localDay), false)} ` : ''}${post.local.slice(11, 16)} ${post.zone}`
    : undefined;
  return h(
    'li',
    { class: `post${waiting ? ' waiting' : ''}`, 'data-id': post.id, 'data-status': post.status },
    h(
      'div',
      { class: 'post-head' },
      h('time', { class: 'time', datetime: post.scheduledAt }, Number.isFinite(post.at) ? timeOf(post.at) : 'no time'),
      h('span', { class: 'platform' }, PLATFORM_NAMES[post.platform] ?? post.platform),
      h('span', { class: 'badge status', 'data-status': post.status }, STATUS_WORDS[post.status] ?? (post.status || 'unknown')),
    ),
    h('p', { class: 'title' }, post.title || '(no title)'),
    post.caption ? h('p', { class: 'caption' }, post.caption) : null,
    localText ? h('p', { class: 'local muted' }, localText) : null,
  );
}

function dayItem(calendar: Calendar, day: number, posts: Post[]): HTMLElement {
  const today = day === calendar.today;
  const mine = posts.filter((post) => post.at >= day && post.at < day + DAY_MS);
  return h(
    'li',
    { class: `day${today ? ' today' : ''}${mine.length ? '' : ' empty'}`, 'data-day': dayKey(day), ...(today ? { 'aria-current': 'date' } : {}) },
    h('h2', { class: 'day-name' }, dayName(day), today ? h('span', { class: 'badge today-badge' }, 'Today') : null),
    mine.length ? h('ul', { class: 'posts' }, ...mine.map(postItem)) : h('p', { class: 'muted none' }, 'No posts'),
  );
}

function navigation(calendar: Calendar): HTMLElement {
  const go = (weeks: number) => () => {
    calendar.week += weeks * WEEK_MS;
    showWeek(calendar);
    void load(calendar, calendar.week);
  };
  const previous = h('button', { type: 'button', class: 'previous', 'aria-label': 'Previous week' }, '‹ Previous');
  const next = h('button', { type: 'button', class: 'next', 'aria-label': 'Next week' }, 'Next ›');
  previous.addEventListener('click', go(-1));
  next.addEventListener('click', go(1));
  const { week } = calendar;
  const timed = calendar.listed.filter((post) => Number.isFinite(post.at));
  const around = calendar.complete
    ? `${plural(timed.filter((post) => post.at < week).length, 'post')} before this week, ${timed.filter((post) => post.at >= week + WEEK_MS).length} after.`
    : 'Each week is asked for when you open it.';
  return h(
    'nav',
    { class: 'week-nav' },
    previous,
    h('span', { class: 'week-label' }, `${dayName(week, false)} – ${dayName(week + 6 * DAY_MS, false)} ${new Date(week + 6 * DAY_MS).getUTCFullYear()}`),
    next,
    h('p', { class: 'muted zone' }, `Days and times in UTC. ${around}`),
  );
}

/** Loading, an error, or the rest of a week that did not fit one answer. */
function weekState(calendar: Calendar, load: WeekLoad | undefined): HTMLElement | null {
  if (calendar.complete) return null;
  if (!askedRange(calendar, calendar.week)) return h('p', { class: 'muted outside' }, 'This week is outside the listed range.');
  if (!calendar.appId) return h('p', { class: 'muted' }, 'Other weeks cannot be asked for: the host did not pass the app id.');
  if (!load || load.loading) return h('p', { class: 'muted loading' }, 'Loading this week…');
  const retry = (label: string, kind: string) => {
    const button = h('button', { type: 'button', class: kind }, label);
    button.addEventListener('click', () => void loadFrom(calendar, button));
    return button;
  };
  if (load.error) return h('div', { class: 'week-error' }, h('pre', {}, load.error), retry('Try again', 'retry'));
  if (load.skip !== undefined) return h('div', { class: 'buttons' }, retry('Show more posts of this week', 'more'));
  return null;
}

/** A button that asks for the week's next page: disabled on the first press, so one press is one call. */
function loadFrom(calendar: Calendar, button: HTMLButtonElement): Promise<void> {
  button.disabled = true;
  return load(calendar, calendar.week);
}

function untimed(calendar: Calendar): HTMLElement | null {
  const posts = calendar.listed.filter((post) => !Number.isFinite(post.at));
  if (posts.length === 0) return null;
  return h('section', { class: 'untimed' }, h('h2', {}, 'Without a valid time'), h('ul', { class: 'posts' }, ...posts.map(postItem)));
}

let weekSection: HTMLElement = h('section');
/** The calendar on the page: a week that loads after the host handed over a newer result is not drawn. */
let current: Calendar | undefined;

function showWeek(calendar: Calendar): void {
  const { posts, load } = weekPosts(calendar);
  const days = [...Array(7).keys()].map((index) => calendar.week + index * DAY_MS);
  const waiting = posts.filter((post) => post.status === APPROVED).length;
  const next = h(
    'section',
    { class: 'week-section', 'data-week': dayKey(calendar.week) },
    navigation(calendar),
    h('p', { class: 'week-summary' }, `This week: ${plural(posts.length, 'post')}${load?.skip ? ' so far' : ''}${waiting ? `, ${waiting} approved not handed over` : ''}.`),
    h('ol', { class: 'week' }, ...days.map((day) => dayItem(calendar, day, posts))),
    weekState(calendar, load),
    untimed(calendar),
  );
  weekSection.replaceWith(next);
  weekSection = next;
}

await startView('social-calendar', (result, view) => {
  if (result.isError) {
    current = undefined;
    main.replaceChildren(h('section', { class: 'outcome', 'data-kind': 'refused', role: 'status' }, h('h2', { class: 'outcome-title' }, 'The calendar could not be listed'), h('pre', { class: 'outcome-text' }, textOf(result))));
    return;
  }
  const calendar = calendarOf(result, view);
  current = calendar;
  weekSection = h('section');
  main.replaceChildren(header(calendar), weekSection);
  showWeek(calendar);
  void load(calendar, calendar.week);
});
