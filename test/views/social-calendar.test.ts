import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_WORLD } from '../../src/sandbox/default-world.js';
import { DEFAULT_POSTS } from '../../src/sandbox/default-world-social.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import { parseWorld, type WorldInput } from '../../src/sandbox/world.js';
import { connect } from '../helpers.js';
import { browserAvailable, frameOf, HOST_VARIABLES, hostPage, NARROW_WIDTH, SHORT_HEIGHT, startBrowser, UI_CAPABILITIES, viewHarness, WIDE_WIDTH, type Browsing, type HostPage } from './browser.js';

type FrameLocator = import('playwright-core').Frame;

const APP = { app_id: 'app_demo' };
const POSTS_PATH = '/api/apps/app_demo/social-calendar/posts';
const HOSTILE = '<img src=x onerror=window.__pwned=1>';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Enough weeks to walk past any calendar these tests seed; a view that never gets there fails instead of looping. */
const MAX_WEEKS = 16;

interface Row {
  id: string;
  scheduled_at: string;
  status: string;
  title: string;
}
interface Facts {
  today: string;
  approved_waiting: number;
  posts: Row[];
  next_skip?: number;
  schedule_range?: { scheduled_from: string; scheduled_until: string };
}
interface Shown {
  id: string;
  day: string;
  time: string;
  status: string;
  waiting: boolean;
  title: string;
}

type NewPost = NonNullable<WorldInput['posts']>[number];
const post = (id: string, offset: number, extra: Partial<NewPost> = {}): NewPost => ({
  id,
  app_id: 'app_demo',
  platform: 'linkedin',
  title: `Post ${id}`,
  body: `Caption of ${id}`,
  scheduled_at: offset,
  status: 'proposal',
  ...extra,
});

/** The file's one host page: each calendarHost puts a fresh server and sandbox behind it. */
let shared: HostPage | undefined;

/** The host page over a fresh sandbox holding `extra` posts too (today is the sandbox's 2026-11-02). */
async function calendarHost(browsing: Browsing, extra: NewPost[] = []): Promise<{ host: HostPage; sandbox: Sandbox; close(): Promise<void> }> {
  const world = parseWorld({ ...DEFAULT_WORLD, posts: [...DEFAULT_POSTS!, ...extra] });
  const sandbox = await startSandbox({ control: true, world });
  const harness = await viewHarness(sandbox);
  if (shared) await shared.reset(harness);
  else shared = await hostPage(browsing, { harness });
  return { host: shared, sandbox, close: () => sandbox.close() };
}

/** A time as the view writes it for the en-US host in `timeZone` ("9:00 AM"). */
const clock = (iso: string, timeZone = 'UTC') => new Intl.DateTimeFormat('en-US', { timeZone, hour: 'numeric', minute: '2-digit' }).format(new Date(iso));
/** Several frames and an axe run each on a shared 2-core machine: more than the default 20 s. */
const MANY_FRAMES_TIMEOUT_MS = 60_000;

const reads = (sandbox: Sandbox) => sandbox.requests.filter((request) => request.method === 'GET' && request.rawPath === POSTS_PATH).length;
/** The UTC day and time a post's structuredContent timestamp falls on. */
const expectedOf = (row: Row) => ({ id: row.id, day: new Date(row.scheduled_at).toISOString().slice(0, 10), time: clock(row.scheduled_at) });

/** The posts of the week on screen, each with the day it sits under, once the week has loaded. */
async function shownWeek(view: FrameLocator): Promise<Shown[]> {
  await expect.poll(() => view.locator('.loading').count()).toBe(0);
  return view.locator('.week .post').evaluateAll((items) =>
    items.map((item) => ({
      id: item.getAttribute('data-id') ?? '',
      day: item.closest('.day')?.getAttribute('data-day') ?? '',
      time: item.querySelector('.time')?.textContent ?? '',
      status: item.getAttribute('data-status') ?? '',
      waiting: item.classList.contains('waiting'),
      title: item.querySelector('.title')?.textContent ?? '',
    })),
  );
}

const weekShown = async (view: FrameLocator) => (await view.locator('.week-section').getAttribute('data-week'))!;

/** Moves one week and waits for it to be drawn. */
async function move(view: FrameLocator, direction: 'previous' | 'next'): Promise<void> {
  const before = Date.parse(await weekShown(view));
  await view.locator(`.${direction}`).click();
  const after = new Date(before + (direction === 'next' ? 7 : -7) * DAY).toISOString().slice(0, 10);
  await expect.poll(() => weekShown(view)).toBe(after);
}

/**
 * Every post the view shows from the week of `first` to the week of `last` (YYYY-MM-DD), reached with
 * Previous and Next alone; `more` presses "Show more" (twice, fast) wherever a week has more.
 */
async function walk(view: FrameLocator, first: string, last: string, more?: () => Promise<void>): Promise<{ seen: Shown[]; weeks: Set<string> }> {
  const weeks = new Set([await weekShown(view)]);
  for (let step = 0; (await weekShown(view)) > first; step += 1) {
    expect(step).toBeLessThan(MAX_WEEKS);
    await move(view, 'previous');
    weeks.add(await weekShown(view));
  }
  const seen: Shown[] = [];
  for (let step = 0; ; step += 1) {
    expect(step).toBeLessThan(MAX_WEEKS);
    await shownWeek(view);
    while (more && (await view.locator('.more').count()) > 0) await more();
    seen.push(...(await shownWeek(view)));
    const sunday = new Date(Date.parse(await weekShown(view)) + 6 * DAY).toISOString().slice(0, 10);
    if (sunday >= last) return { seen, weeks };
    await move(view, 'next');
    weeks.add(await weekShown(view));
  }
}

describe.skipIf(!browserAvailable)('the social calendar in headless Chromium', () => {
  let browsing: Browsing;
  beforeAll(async () => {
    browsing = await startBrowser();
  });
  afterAll(async () => {
    await shared?.close();
    await browsing?.close();
  });

  it("puts every post of the real sandbox calendar under its day and time in the person's zone (UTC here) with its status, marks today and highlights the approved posts waiting", async () => {
    const opened = await calendarHost(browsing);
    try {
      const { result, frames } = await opened.host.open('list_social_posts', APP);
      const view = frames[0]!;
      const facts = result.structuredContent as unknown as Facts;
      expect(facts.next_skip).toBeUndefined();
      await view.locator('.week').waitFor();
      // It opens on the week of today, marked once.
      expect(await view.locator('.day.today').count()).toBe(1);
      expect(await view.locator('.day.today').getAttribute('data-day')).toBe(facts.today);
      expect(await view.locator('.day.today .today-badge').textContent()).toBe('Today');
      expect(await view.locator('.zone').textContent()).toContain('Days and times in your time zone, UTC.');
      // The count is the result's own, and it is the number of approved posts listed (no filter here).
      const approved = facts.posts.filter((row) => row.status === 'approved');
      expect(facts.approved_waiting).toBe(approved.length);
      expect(await view.locator('.waiting-count').textContent()).toBe(String(facts.approved_waiting));
      await opened.host.screenshot('social-calendar', 'light');

      const days = facts.posts.map((row) => expectedOf(row).day).sort();
      const { seen } = await walk(view, days[0]!, days.at(-1)!);
      expect(seen.map(({ id, day, time }) => ({ id, day, time })).sort((a, b) => a.id.localeCompare(b.id))).toEqual(facts.posts.map(expectedOf).sort((a, b) => a.id.localeCompare(b.id)));
      expect(seen.filter((shown) => shown.waiting).map((shown) => shown.id).sort()).toEqual(approved.map((row) => row.id).sort());
      for (const row of facts.posts) expect(seen.find((shown) => shown.id === row.id)).toMatchObject({ status: row.status, title: row.title });
      // Everything came with the one result: walking the weeks asked the server for nothing.
      expect(reads(opened.sandbox)).toBe(1);
      expect(opened.host.posts()).toBe(0);
    } finally {
      await opened.close();
    }
  });

  it("shows each post's caption from the view data and its status in words", async () => {
    const opened = await calendarHost(browsing);
    try {
      const { result, frames } = await opened.host.open('list_social_posts', APP);
      const view = frames[0]!;
      const captions = (result._meta?.['app-management/view'] as { posts: Array<{ id: string; caption: string }> }).posts;
      const launch = captions.find((shown) => shown.id === 'post_launch')!;
      expect(launch.caption).toBe('Demo Planner 2.0 is here.');
      const item = view.locator('.post[data-id="post_launch"]');
      expect(await item.locator('.caption').textContent()).toBe(launch.caption);
      expect(await item.locator('.badge.status').textContent()).toBe('Approved, not handed over');
      expect(await view.locator('.post[data-id="post_webinar"] .badge.status').textContent()).toBe('Scheduled');
      expect(await view.locator('.post[data-id="post_tips"] .badge.status').textContent()).toBe('Proposal, not approved');
    } finally {
      await opened.close();
    }
  });

  it('reaches every matching post by week when the result lists only the first ones, one read per new week and per "Show more" press', async () => {
    // 16 posts on one day of the third week (more than one answer lists) and 10 more spread over the weeks after.
    const crowded = Array.from({ length: 16 }, (_, i) => post(`post_crowd_${String(i).padStart(2, '0')}`, 15 * DAY + i * HOUR, { status: i % 3 === 0 ? 'approved' : 'proposal' }));
    const spread = Array.from({ length: 10 }, (_, i) => post(`post_later_${i}`, (22 + 4 * i) * DAY + 2 * HOUR, { platform: 'instagram' }));
    const opened = await calendarHost(browsing, [...crowded, ...spread]);
    try {
      // The whole matching list as a client pages it: the expected days come from these timestamps.
      const rows: Row[] = [];
      for (let skip: number | undefined = 0; skip !== undefined; ) {
        const page = await opened.host.harness.client.callTool({ name: 'list_social_posts', arguments: { ...APP, skip } });
        const facts = page.structuredContent as unknown as Facts;
        rows.push(...facts.posts);
        skip = facts.next_skip;
      }
      expect(rows).toHaveLength(DEFAULT_POSTS!.filter((seeded) => !seeded.deleted).length + crowded.length + spread.length);

      const before = reads(opened.sandbox);
      const { result, frames } = await opened.host.open('list_social_posts', APP);
      const view = frames[0]!;
      expect((result.structuredContent as unknown as Facts).next_skip).toBeDefined();
      await view.locator('.week').waitFor();
      let presses = 0;
      const more = async () => {
        const reading = reads(opened.sandbox);
        // Two clicks in one go, before the view can redraw.
        await view.locator('.more').evaluate((button) => {
          const clickable = button as unknown as { click(): void };
          clickable.click();
          clickable.click();
        });
        await expect.poll(() => view.locator('.loading').count()).toBe(0);
        expect(reads(opened.sandbox)).toBe(reading + 1);
        presses += 1;
      };
      const days = rows.map((row) => expectedOf(row).day).sort();
      const { seen, weeks } = await walk(view, days[0]!, days.at(-1)!, more);
      expect(presses).toBeGreaterThan(0);
      expect(weeks.size).toBeGreaterThan(3);
      expect(seen.map(({ id, day, time }) => ({ id, day, time })).sort((a, b) => a.id.localeCompare(b.id))).toEqual(rows.map(expectedOf).sort((a, b) => a.id.localeCompare(b.id)));
      // The model's call, one read per week opened (the first one included), one per "Show more"; a week seen again is not read again.
      expect(reads(opened.sandbox) - before).toBe(1 + weeks.size + presses);
      const walked = await weekShown(view);
      await move(view, 'previous');
      await move(view, 'next');
      expect(await weekShown(view)).toBe(walked);
      expect(reads(opened.sandbox) - before).toBe(1 + weeks.size + presses);
      expect(opened.host.posts()).toBe(0);
    } finally {
      await opened.close();
    }
  });

  it('opens on the week the listing starts when the model asked for a range without today, and says which range it lists', async () => {
    const opened = await calendarHost(browsing);
    try {
      const { result, frames } = await opened.host.open('list_social_posts', { ...APP, from: '2026-11-09', until: '2026-11-16' });
      const view = frames[0]!;
      const facts = result.structuredContent as unknown as Facts;
      expect(facts.posts.length).toBeGreaterThan(0);
      await view.locator('.week').waitFor();
      expect(await weekShown(view)).toBe('2026-11-09');
      expect(await view.locator('.day.today').count()).toBe(0);
      expect((await view.locator('.scope').textContent())?.replace(/\u202f/g, ' ')).toBe('Listed: from Nov 9, 2026, 12:00 AM UTC, until Nov 16, 2026, 12:00 AM UTC (excluded).');
      expect((await shownWeek(view)).map(({ id, day }) => ({ id, day }))).toEqual(facts.posts.map(expectedOf).map(({ id, day }) => ({ id, day })));
      expect(await view.locator('.waiting-count').textContent()).toBe(String(facts.approved_waiting));
    } finally {
      await opened.close();
    }
  });

  it("isolates the model's filters, the service's status names and the app for right-to-left text", async () => {
    const opened = await calendarHost(browsing);
    try {
      const filter = 'מאושר';
      const { result, frames } = await opened.host.open('list_social_posts', { ...APP, status: filter, platform: 'instagram' });
      const view = frames[0]!;
      await view.locator('.scope').waitFor();
      expect(await view.locator('.scope').textContent()).toBe(`Listed: status ${filter}, platform instagram.`);
      expect(await view.locator('.scope bdi').allTextContents()).toEqual([filter, 'instagram']);
      const statuses = (result.structuredContent as { by_status: Array<{ name: string }> }).by_status.map((item) => item.name);
      expect(statuses.length).toBeGreaterThan(0);
      expect(await view.locator('.totals bdi').allTextContents()).toEqual(statuses);
      expect(await view.locator('h1 .app bdi').textContent()).toBe('app_demo');
    } finally {
      await opened.close();
    }
  });

  it("fits its first screen in a host's small maxHeight: the counts, the approved posts waiting and the button that hands them over at once, the week by scrolling", async () => {
    const opened = await calendarHost(browsing);
    try {
      const { frames, index } = await opened.host.open('list_social_posts', APP, { maxHeight: SHORT_HEIGHT });
      await frames[0]!.locator('.week').waitFor();
      expect(await opened.host.firstScreen(['h1', 'button.fullscreen', '.totals', '.waiting-count', 'button.hand-over'], index)).toEqual({ height: SHORT_HEIGHT, outside: [], scrolls: true });
    } finally {
      await opened.close();
    }
  });

  it('shows the error text when the listing fails, and no calendar', async () => {
    const opened = await calendarHost(browsing);
    try {
      const { result, frames } = await opened.host.open('list_social_posts', { app_id: 'app_nope' });
      expect(result.isError).toBe(true);
      const view = frames[0]!;
      await view.locator('.outcome').waitFor();
      expect(await view.locator('.outcome-title').textContent()).toBe('Not done');
      expect(await view.locator('.outcome-full').textContent()).toBe((result.content as Array<{ text: string }>)[0]!.text.replace(/\nNext: [\s\S]*$/, ''));
      expect(await view.locator('.week').count()).toBe(0);
    } finally {
      await opened.close();
    }
  });

  it('shows a hostile caption and title as their characters, creates no element and runs nothing', async () => {
    const opened = await calendarHost(browsing, [post('post_hostile', DAY + HOUR, { title: HOSTILE, body: HOSTILE, status: 'approved' })]);
    try {
      const { frames } = await opened.host.open('list_social_posts', APP);
      const view = frames[0]!;
      const item = view.locator('.post[data-id="post_hostile"]');
      await item.waitFor();
      expect(await item.locator('.title').textContent()).toBe(HOSTILE);
      expect(await item.locator('.caption').textContent()).toBe(HOSTILE);
      expect(await view.locator('img').count()).toBe(0);
      expect(await frameOf(opened.host.page).evaluate('window.__pwned')).toBeUndefined();
    } finally {
      await opened.close();
    }
  });

  it('hands the approved posts over with one start_scheduling_posts request for the range the result names, however often the button is pressed', async () => {
    const opened = await calendarHost(browsing);
    try {
      const { result, frames } = await opened.host.open('list_social_posts', APP);
      const view = frames[0]!;
      const facts = result.structuredContent as unknown as Facts;
      await view.locator('.hand-over').click();
      await view.locator('.hand-over').click({ force: true });
      await view.locator('.hand-over-part .outcome').waitFor();
      expect(await view.locator('.hand-over-part .outcome-title').textContent()).toBe('Done');
      expect(await view.locator('.hand-over-part .outcome-text').textContent()).toMatch(/Scheduling started on app app_demo .*: job \S+\./);
      const sent = opened.sandbox.requests.filter((request) => request.method === 'POST');
      expect(sent).toHaveLength(1);
      expect(sent[0]!.body).toEqual(facts.schedule_range);
      expect(await view.locator('.hand-over').isDisabled()).toBe(true);
    } finally {
      await opened.close();
    }
  });

  it('gives two open calendars that both hand over the same job: the service returns the job in flight for the same range', async () => {
    const opened = await calendarHost(browsing);
    try {
      const { frames } = await opened.host.open('list_social_posts', APP, { copies: 2 });
      for (const view of frames) await view.locator('.hand-over').waitFor();
      // Pressed in both frames at once: DOM clicks, as two pointer clicks in one page would fight over scrolling.
      await Promise.all(frames.map((view) => view.locator('.hand-over').evaluate((button) => (button as unknown as { click(): void }).click())));
      const texts = await Promise.all(frames.map(async (view) => {
        await view.locator('.hand-over-part .outcome').waitFor();
        return view.locator('.hand-over-part .outcome-text').textContent();
      }));
      const jobs = texts.map((shown) => /: job (\S+)\./.exec(shown ?? '')?.[1]);
      expect(jobs[0]).toBeDefined();
      expect(jobs[1]).toBe(jobs[0]);
      // Each view sends once per press; the second start is answered with the first job, not a new one.
      expect(opened.host.posts()).toBe(2);
    } finally {
      await opened.close();
    }
  }, MANY_FRAMES_TIMEOUT_MS);

  it("puts each post under the day and time of the person's zone, with the zone named", async () => {
    // 20:30 UTC on Tuesday 3 November is 05:30 on Wednesday 4 November in Tokyo.
    const opened = await calendarHost(browsing, [post('post_tokyo', DAY + 11 * HOUR + 30 * 60_000)]);
    try {
      const { frames } = await opened.host.open('list_social_posts', APP, { timeZone: 'Asia/Tokyo' });
      const view = frames[0]!;
      const item = view.locator('.post[data-id="post_tokyo"]');
      await item.waitFor();
      expect(await item.evaluate((element) => element.closest('.day')?.getAttribute('data-day'))).toBe('2026-11-04');
      expect(await item.locator('.time').textContent()).toBe(clock('2026-11-03T20:30:00Z', 'Asia/Tokyo'));
      expect(await view.locator('.zone').textContent()).toContain('Days and times in your time zone, Asia/Tokyo.');
    } finally {
      await opened.close();
    }
  });

  it('works in a host that sends no toolInfo and no tool input: other weeks are read with the arguments in the view data', async () => {
    const crowded = Array.from({ length: 16 }, (_, i) => post(`post_strict_${String(i).padStart(2, '0')}`, 8 * DAY + i * HOUR));
    const opened = await calendarHost(browsing, crowded);
    try {
      const { frames, index } = await opened.host.open('list_social_posts', APP, { host: 'strict' });
      const view = frames[0]!;
      await view.locator('.week').waitFor();
      await move(view, 'next');
      expect((await shownWeek(view)).length).toBeGreaterThan(0);
      expect(await view.locator('.week-section').textContent()).not.toContain('cannot be asked for');
      const record = await opened.host.record(index);
      expect(record.early).toEqual([]);
      expect(record.modes).toEqual(['inline', 'fullscreen']);
    } finally {
      await opened.close();
    }
  });

  it('has no WCAG 2.2 AA violation, light and dark, at 360 and 720 px, with and without host variables; nothing is cut off at 360 px', async () => {
    const opened = await calendarHost(browsing);
    try {
      const result = await opened.host.harness.client.callTool({ name: 'list_social_posts', arguments: APP });
      const violations: string[] = [];
      let index = 0;
      for (const theme of ['light', 'dark'] as const) {
        for (const width of [NARROW_WIDTH, WIDE_WIDTH]) {
          for (const variables of [undefined, HOST_VARIABLES]) {
            const { frames } = await opened.host.open('list_social_posts', APP, { theme, width, variables, result });
            await frames[0]!.locator('.day.today').waitFor();
            violations.push(...(await opened.host.axe(index)).map((line) => `${theme} ${width} ${variables ? 'host' : 'own'}: ${line}`));
            if (width === NARROW_WIDTH) expect(await opened.host.overflow(index), theme).toEqual([]);
            index += 1;
          }
        }
      }
      expect(violations).toEqual([]);
    } finally {
      await opened.close();
    }
  }, MANY_FRAMES_TIMEOUT_MS);

  it('writes docs/views/social-calendar-dark.png and the 360 px picture from the real sandbox calendar', async () => {
    const opened = await calendarHost(browsing);
    try {
      const dark = await opened.host.open('list_social_posts', APP, { theme: 'dark' });
      await dark.frames[0]!.locator('.day.today').waitFor();
      expect(await frameOf(opened.host.page, dark.index).evaluate('document.documentElement.getAttribute("data-theme")')).toBe('dark');
      await opened.host.screenshot('social-calendar', 'dark', dark.index);
      await opened.host.clear();
      const narrow = await opened.host.open('list_social_posts', APP, { width: NARROW_WIDTH });
      await narrow.frames[0]!.locator('.day.today').waitFor();
      await opened.host.screenshot('social-calendar', 'light', narrow.index);
    } finally {
      await opened.close();
    }
  });
});

describe('list_social_posts for a client with and without the extension', () => {
  it('gives the same text, structuredContent and view data either way, with bounded captions only in the view data', async () => {
    const sandbox = await startSandbox({ world: parseWorld({ ...DEFAULT_WORLD, posts: [...DEFAULT_POSTS!, post('post_long', DAY, { body: `Long ${'x'.repeat(5_000)}` })] }) });
    const plain = await connect({ sandbox });
    const withUi = await connect({ sandbox, capabilities: UI_CAPABILITIES });
    try {
      for (const args of [APP, { ...APP, status: 'approved' }, { ...APP, from: '2026-11-03', until: '2026-11-10', skip: 1 }]) {
        const [a, b] = [await plain.client.callTool({ name: 'list_social_posts', arguments: args }), await withUi.client.callTool({ name: 'list_social_posts', arguments: args })];
        expect(b).toEqual(a);
        const shown = (b._meta?.['app-management/view'] as { posts: Array<{ id: string; caption: string }> }).posts;
        expect(shown.map((row) => row.id)).toEqual((a.structuredContent as unknown as Facts).posts.map((row) => row.id));
        expect(JSON.stringify(a.content) + JSON.stringify(a.structuredContent)).not.toContain('Demo Planner 2.0 is here.');
      }
      const all = (await withUi.client.callTool({ name: 'list_social_posts', arguments: APP }))._meta?.['app-management/view'] as { posts: Array<{ id: string; caption: string }> };
      const long = all.posts.find((row) => row.id === 'post_long')!;
      expect(long.caption.startsWith('Long xxx')).toBe(true);
      expect(Array.from(long.caption)).toHaveLength(200);
    } finally {
      await withUi.close();
      await plain.close();
      await sandbox.close();
    }
  });
});
