import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DAYS_PER_MONTH } from '../../src/tools/format.js';
import { connect } from '../helpers.js';
import { listRow } from '../tools/campaigns/fixtures.js';
import { browserAvailable, confirmations, doublePress, frameOf, HOST_VARIABLES, hostPage, NARROW_WIDTH, SHORT_HEIGHT, startBrowser, UI_CAPABILITIES, viewHarness, WIDE_WIDTH, type Browsing, type HostPage } from './browser.js';

const APP = 'app_demo';
const LIST_PATH = `/api/apps/${APP}/adnet-ads/campaigns`;
const HOSTILE = '<img src=x onerror=window.__pwned=1>';

interface Row {
  campaign_id: string;
  name: string;
  type: string;
  status: string;
  daily_budget?: number;
  cost?: number;
  conversions?: number;
}

/** Money as the view writes it for the test host's en-US locale (two decimals, thousands grouped). */
const money = (value: number) => value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
/** An enum in words, as the view shows it ("PERFORMANCE_MAX" -> "Performance max"). */
const words = (value: string) => `${value.charAt(0)}${value.slice(1).replace(/_/g, ' ').toLowerCase()}`;
/** The result's text as a view shows it: without the next step written for the model. */
const textOf = (result: unknown) => ((result as { content: Array<{ text: string }> }).content)[0]!.text.replace(/\nNext: [\s\S]*$/, '');
/** Several frames and an axe run each on a shared 2-core machine: more than the default 20 s. */
const MANY_FRAMES_TIMEOUT_MS = 60_000;
const rowsOf = (result: unknown) => (result as { structuredContent: { campaigns: Row[] } }).structuredContent.campaigns;
/** What the view sent to the service: POSTs to one campaign action. */
const posts = (host: HostPage, action: 'pause' | 'resume') => host.harness.sandbox.requests.filter((request) => request.method === 'POST' && request.rawPath.endsWith(`/${action}`)).length;
const rowSelector = (id: string) => `tr[data-campaign="${id}"]`;

/** A list row as the service answers it, for scripted pages. */
const serviceRow = (i: number, extra: Record<string, unknown> = {}) =>
  listRow(i, { impressions: 100 * i, clicks: i, cost_micros: i * 1_500_000, conversions: i % 4, metrics_pending: false, ...extra });

/** The line of get_ad_campaign's text that explains `status` ("PAUSED: not serving; …."). */
async function statusLineOfText(host: HostPage, campaignId: string): Promise<string> {
  const { text } = await host.harness.call('get_ad_campaign', { app_id: APP, campaign_id: campaignId });
  const line = text.split('\n').find((candidate) => /^(ENABLED|PAUSED|REMOVED): /.test(candidate))!;
  return line.replace(/^[A-Z]+/, (status) => words(status));
}

describe.skipIf(!browserAvailable)('the campaigns view in headless Chromium', () => {
  let browsing: Browsing;
  let host: HostPage;
  // One browser and one page for the file; each test gets a fresh server and sandbox behind the page.
  beforeAll(async () => {
    browsing = await startBrowser();
    host = await hostPage(browsing);
  });
  afterAll(async () => {
    await host?.close();
    await browsing?.close();
  });
  beforeEach(async () => {
    await host.reset(await viewHarness());
  });

  it("shows every campaign of a real list_ad_campaigns result with the figures of its structuredContent, the period as it states it, and each status in the server's words", async () => {
    const { result, frames } = await host.open('list_ad_campaigns', { app_id: APP, include_metrics: true });
    const view = frames[0]!;
    const facts = result.structuredContent as { count: number; metrics_period: string; today: string };
    const rows = rowsOf(result);
    expect(rows.length).toBeGreaterThanOrEqual(2);
    await view.locator('table.campaigns').waitFor();
    expect(await view.locator('tbody tr[data-campaign]').count()).toBe(rows.length);
    for (const row of rows) {
      const tr = view.locator(rowSelector(row.campaign_id));
      expect(await tr.locator('.name').textContent()).toBe(row.name);
      expect(await tr.locator('.meta').textContent()).toBe(`${words(row.type)} · ${row.campaign_id}`);
      expect(await tr.locator('.status').textContent()).toBe(words(row.status));
      expect(await tr.locator('.budget').textContent()).toBe(money(row.daily_budget!));
      expect(await tr.locator('.spend').textContent()).toBe(money(row.cost!));
      expect(await tr.locator('.conversions').textContent()).toBe(String(row.conversions));
      expect(await tr.locator('.per-conversion').textContent()).toBe(row.conversions! > 0 ? money(row.cost! / row.conversions!) : '—');
    }
    expect(rows.some((row) => row.cost! > 0 && row.conversions! > 0)).toBe(true);
    expect(await view.locator('h1').textContent()).toBe(`${facts.count} campaigns on app ${APP}`);
    // The period exactly as the result states it: the service names none, and the view says so.
    expect(facts.metrics_period).toBe('not stated by the service');
    expect(await view.locator('.period').textContent()).toContain('Totals for a period not stated by the service, as of Nov 2, 2026; amounts in the account currency.');
    expect(facts.today).toBe('2026-11-02');
    // The status explained in the very words get_ad_campaign's text gives the model.
    expect(await view.locator('ul.statuses li[data-status="ENABLED"]').textContent()).toBe(await statusLineOfText(host, rows[0]!.campaign_id));
    await host.screenshot('campaigns', 'light');
  });

  it('draws one bar pair per campaign, each bar as long as its figure against the largest one', async () => {
    host.harness.sandbox.script({ method: 'GET', path: LIST_PATH, status: 200, body: [1, 2, 3, 4, 5].map((i) => serviceRow(i)) });
    const { result, frames } = await host.open('list_ad_campaigns', { app_id: APP, include_metrics: true });
    const rows = rowsOf(result);
    await frames[0]!.locator('.spend-chart').waitFor();
    const bars = (await frameOf(host.page).evaluate(`[...document.querySelectorAll('.spend-chart .pair')].map((pair) => ({
      id: pair.getAttribute('data-campaign'),
      spend: pair.querySelector('.bar.spend').getBoundingClientRect().width,
      conversions: pair.querySelector('.bar.conversions').getBoundingClientRect().width,
    }))`)) as Array<{ id: string; spend: number; conversions: number }>;
    expect(bars.map((pair) => pair.id)).toEqual(rows.map((row) => row.campaign_id));
    const longest = { spend: Math.max(...bars.map((pair) => pair.spend)), conversions: Math.max(...bars.map((pair) => pair.conversions)) };
    const largest = { spend: Math.max(...rows.map((row) => row.cost!)), conversions: Math.max(...rows.map((row) => row.conversions!)) };
    expect(longest.spend).toBeGreaterThan(50);
    rows.forEach((row, index) => {
      expect(bars[index]!.spend / longest.spend).toBeCloseTo(row.cost! / largest.spend, 2);
      expect(bars[index]!.conversions / longest.conversions).toBeCloseTo(row.conversions! / largest.conversions, 2);
    });
    // A campaign with no conversions has a bar of no length, not a missing one.
    expect(bars.find((pair) => pair.id === 'cmp_4')!.conversions).toBe(0);
  });

  it('marks the rows whose metrics the service has not computed yet as pending, not as zero spend', async () => {
    host.harness.sandbox.script({ method: 'GET', path: LIST_PATH, status: 200, body: [serviceRow(1), serviceRow(2, { cost_micros: 0, conversions: 0, metrics_pending: true })] });
    const { frames } = await host.open('list_ad_campaigns', { app_id: APP, include_metrics: true });
    const view = frames[0]!;
    await view.locator('.spend-chart').waitFor();
    expect(await view.locator(`${rowSelector('cmp_2')} .spend`).textContent()).toBe('pending');
    expect(await view.locator(`${rowSelector('cmp_1')} .spend`).textContent()).toBe(money(1.5));
    expect(await view.locator('.pair[data-campaign="cmp_2"] .bar.spend').getAttribute('data-value')).toBe('pending');
    expect(await view.locator('.period').textContent()).toContain('Rows marked pending: their metrics are not available yet');
  });

  it('reaches every row: the next page is list_ad_campaigns called again through the host with its skip', async () => {
    const all = Array.from({ length: 30 }, (_, i) => serviceRow(i + 1));
    host.harness.sandbox.script({ method: 'GET', path: LIST_PATH, status: 200, body: all, times: 2 });
    const { result, frames } = await host.open('list_ad_campaigns', { app_id: APP });
    const view = frames[0]!;
    const first = rowsOf(result);
    const nextSkip = (result.structuredContent as { next_skip: number }).next_skip;
    expect(nextSkip).toBe(first.length);
    await view.locator('button.more').waitFor();
    expect(await view.locator('tbody tr[data-campaign]').count()).toBe(first.length);
    await view.locator('button.more').click();
    await expect.poll(() => view.locator('tbody tr[data-campaign]').count()).toBe(30);
    const shown = await view.locator('tbody tr[data-campaign]').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-campaign')));
    expect(shown).toEqual(all.map((row) => row.id));
    expect(host.harness.sandbox.requests.filter((request) => request.rawPath === LIST_PATH)).toHaveLength(2);
    expect(await view.locator('button.more').count()).toBe(0);
  });

  it('shows spend and conversions after "Show spend and conversions", from one list_ad_campaigns call with include_metrics: true', async () => {
    const { frames } = await host.open('list_ad_campaigns', { app_id: APP });
    const view = frames[0]!;
    await view.locator('button.show-metrics').waitFor();
    expect(await view.locator('button.show-metrics').textContent()).toBe('Show spend and conversions');
    expect(await view.locator('.spend-chart').count()).toBe(0);
    expect(await view.locator('td.spend').count()).toBe(0);
    await view.locator('button.show-metrics').click();
    await view.locator('.spend-chart').waitFor();
    const metricsCalls = host.harness.sandbox.requests.filter((request) => request.rawPath === LIST_PATH && request.query === 'include_metrics=true');
    expect(metricsCalls).toHaveLength(1);
    const expected = rowsOf(await host.harness.client.callTool({ name: 'list_ad_campaigns', arguments: { app_id: APP, include_metrics: true } }));
    expect(await view.locator('td.spend').allTextContents()).toEqual(expected.map((row) => money(row.cost!)));
    expect(await view.locator('.pair').count()).toBe(expected.length);
    expect(await view.locator('button.show-metrics').count()).toBe(0);
  });

  it('sends one pause when Pause is pressed twice, shows the outcome, and reads the row back as PAUSED', async () => {
    const { frames } = await host.open('list_ad_campaigns', { app_id: APP });
    const view = frames[0]!;
    await view.locator(`${rowSelector('cmp_quiet')} button.pause`).waitFor();
    // Two presses before any answer can come back.
    await frameOf(host.page).evaluate(`(() => { const button = document.querySelector('tr[data-campaign="cmp_quiet"] button.pause'); button.click(); button.click(); })()`);
    await expect.poll(() => view.locator(`${rowSelector('cmp_quiet')} .status`).textContent()).toBe('Paused');
    expect(posts(host, 'pause')).toBe(1);
    expect(await view.locator('tr.detail .outcome-title').textContent()).toBe('Done');
    expect(await view.locator('tr.detail .outcome-text').textContent()).toContain('Paused campaign cmp_quiet');
    expect((await host.record()).told).toEqual(['The person paused campaign cmp_quiet in the campaigns view.']);
    // The row now offers Resume, and the legend explains PAUSED in the server's words.
    expect(await view.locator(`${rowSelector('cmp_quiet')} button.resume`).count()).toBe(1);
    expect(await view.locator('ul.statuses li[data-status="PAUSED"]').textContent()).toBe(await statusLineOfText(host, 'cmp_quiet'));
    expect(posts(host, 'pause')).toBe(1);
  });

  it('resumes through the confirmation panel: nothing is sent before Approve; Resume and Approve each lock on the first press, so the host sees one warning call and one confirm: true', async () => {
    await host.harness.call('pause_ad_campaign', { app_id: APP, campaign_id: 'cmp_quiet' });
    const { frames, index } = await host.open('list_ad_campaigns', { app_id: APP });
    const view = frames[0]!;
    const args = { app_id: APP, campaign_id: 'cmp_quiet' };
    expect(await doublePress(view.locator(`${rowSelector('cmp_quiet')} button.resume`))).toBe(true);
    await view.locator('tr.detail .approve').waitFor();
    expect((await host.record(index)).calls).toEqual([{ name: 'resume_ad_campaign', arguments: args }]);
    expect(await view.locator('tr.detail .cost-value').textContent()).toContain('10.00');
    expect(posts(host, 'resume')).toBe(0);
    expect(await doublePress(view.locator('tr.detail .approve'))).toBe(true);
    await view.locator('tr.detail .outcome').waitFor();
    expect(confirmations(await host.record(index))).toEqual([{ name: 'resume_ad_campaign', arguments: { ...args, confirm: true } }]);
    expect(await view.locator('tr.detail .outcome-title').textContent()).toBe('Done');
    await expect.poll(() => view.locator(`${rowSelector('cmp_quiet')} .status`).textContent()).toBe('Enabled');
    expect(posts(host, 'resume')).toBe(1);
  });

  it('sends one resume when two views of the list both resume the same campaign and both approve', async () => {
    await host.harness.call('pause_ad_campaign', { app_id: APP, campaign_id: 'cmp_quiet' });
    const { frames } = await host.open('list_ad_campaigns', { app_id: APP }, { copies: 2 });
    // Dispatched: the first view's panel grows its frame and moves the second while Playwright aims.
    for (const view of frames) await view.locator(`${rowSelector('cmp_quiet')} button.resume`).dispatchEvent('click');
    for (const view of frames) await view.locator('tr.detail .approve').waitFor();
    await Promise.all(frames.map((view) => view.locator('tr.detail .approve').dispatchEvent('click')));
    for (const view of frames) await view.locator('tr.detail .outcome').waitFor();
    expect(posts(host, 'resume')).toBe(1);
    const titles = await Promise.all(frames.map((view) => view.locator('tr.detail .outcome-title').textContent()));
    expect(titles).toContain('Done');
  }, MANY_FRAMES_TIMEOUT_MS);

  it('shows get_ad_campaign as a card: status in words, budget a day and a month, landing page as text, the ad platform statuses', async () => {
    const { result, frames } = await host.open('get_ad_campaign', { app_id: APP, campaign_id: 'cmp_demo' });
    const card = frames[0]!;
    const facts = result.structuredContent as Record<string, unknown> & { primary_status_reasons: string[]; daily_budget: number };
    const text = (result.content as Array<{ text: string }>)[0]!.text;
    await card.locator('.campaign-card').waitFor();
    expect(await card.locator('h1.name').textContent()).toBe(facts.name);
    expect(await card.locator('.state').textContent()).toBe(text.split('\n').find((line) => line.startsWith(`${facts.status}: `))!.replace(String(facts.status), words(String(facts.status))));
    const monthly = Math.round(facts.daily_budget * DAYS_PER_MONTH * 100) / 100;
    expect(await card.locator('.budget').textContent()).toBe(`${money(facts.daily_budget)} a day, about ${money(monthly)} a month`);
    expect(text).toContain(`daily budget ${money(facts.daily_budget)} a day, roughly ${money(monthly)} a month`);
    expect(await card.locator('.landing').textContent()).toBe(facts.landing_page);
    expect(await card.locator('a').count()).toBe(0);
    expect(facts.primary_status_reasons.length).toBeGreaterThan(0);
    expect(await card.locator('.primary').textContent()).toBe(`${words(String(facts.primary_status))} (${facts.primary_status_reasons.map(words).join(', ')})`);
    expect(await card.locator('.review').textContent()).toBe(words(String(facts.review_status)));
    expect(text).toContain(`; ${await card.locator('.serving').textContent()}.`);
    expect(await card.locator('button.pause').count()).toBe(1);
  });

  it('pauses from the card once, refreshes it, then resumes it through the panel', async () => {
    const { frames } = await host.open('get_ad_campaign', { app_id: APP, campaign_id: 'cmp_quiet' });
    const card = frames[0]!;
    await card.locator('button.pause').waitFor();
    await frameOf(host.page).evaluate(`(() => { const button = document.querySelector('button.pause'); button.click(); button.click(); })()`);
    await expect.poll(() => card.locator('.campaign-card .status').getAttribute('data-status')).toBe('PAUSED');
    expect(await card.locator('.activity .outcome-title').textContent()).toBe('Done');
    expect(await card.locator('.meaning').textContent()).toBe(': not serving; nothing new is spent until it is resumed.');
    expect(posts(host, 'pause')).toBe(1);
    await card.locator('button.resume').click();
    await card.locator('.activity .approve').click();
    await expect.poll(() => card.locator('.campaign-card .status').getAttribute('data-status')).toBe('ENABLED');
    expect(posts(host, 'resume')).toBe(1);
  });

  it("fits its first screen in a host's small maxHeight: the heading, the fullscreen button and the first campaign at once, the rest by scrolling; the app and ids isolated", async () => {
    const { frames, index } = await host.open('list_ad_campaigns', { app_id: APP, include_metrics: true }, { maxHeight: SHORT_HEIGHT });
    const view = frames[0]!;
    await view.locator('table.campaigns').waitFor();
    expect(await host.firstScreen(['h1', 'button.fullscreen', 'tbody tr'], index)).toEqual({ height: SHORT_HEIGHT, outside: [], scrolls: true });
    expect(await view.locator('h1 bdi').textContent()).toBe(APP);
    expect(await view.locator('tbody tr .meta bdi').first().textContent()).toMatch(/^cmp_/);
    // A host that gives the list its height offers no fullscreen for two campaigns.
    const tall = await host.open('list_ad_campaigns', { app_id: APP, include_metrics: true }, { maxHeight: 2_000 });
    await tall.frames[0]!.locator('table.campaigns').waitFor();
    expect(await tall.frames[0]!.locator('button.fullscreen').count()).toBe(0);
  });

  it("shows a failed read as the server's error text, with no table and no button", async () => {
    host.harness.sandbox.script({ method: 'GET', path: LIST_PATH, status: 404, body: { detail: 'App not found' } });
    const { result, frames } = await host.open('list_ad_campaigns', { app_id: APP });
    const view = frames[0]!;
    await view.locator('.outcome').waitFor();
    expect(result.isError).toBe(true);
    expect(await view.locator('.outcome-title').textContent()).toBe('Not done');
    expect(await view.locator('.outcome-full').textContent()).toBe(textOf(result));
    expect(await view.locator('table, button').count()).toBe(0);
  });

  it('shows a campaign with a hostile name as its characters, in the table, the chart and the card, and runs nothing', async () => {
    const create = { app_id: APP, campaign_name: HOSTILE, campaign_type: 'SMART', daily_budget_micros: 5_000_000, landing_page: 'https://demo-planner.sandbox.test/' };
    const warned = await host.harness.call('create_ad_campaign', create);
    expect(warned.structured?.confirmation_needed).toBe(true);
    const created = await host.harness.call('create_ad_campaign', { ...create, confirm: true });
    expect(created.isError).toBe(false);
    const { result, frames } = await host.open('list_ad_campaigns', { app_id: APP, include_metrics: true });
    const hostile = rowsOf(result).find((row) => row.name === HOSTILE)!;
    expect(hostile).toBeDefined();
    const view = frames[0]!;
    await view.locator(rowSelector(hostile.campaign_id)).waitFor();
    expect(await view.locator(`${rowSelector(hostile.campaign_id)} .name`).textContent()).toBe(HOSTILE);
    expect(await view.locator(`.pair[data-campaign="${hostile.campaign_id}"] .name`).textContent()).toBe(HOSTILE);
    const { frames: cards } = await host.open('get_ad_campaign', { app_id: APP, campaign_id: hostile.campaign_id });
    const card = cards[0]!;
    await card.locator('.campaign-card').waitFor();
    expect(await card.locator('h1.name').textContent()).toBe(HOSTILE);
    for (const index of [0, 1]) {
      const frame = frameOf(host.page, index);
      expect(await frame.evaluate('document.querySelectorAll("img").length')).toBe(0);
      expect(await frame.evaluate('window.__pwned')).toBeUndefined();
    }
  });

  it('works in a host that sends no toolInfo and no tool input: the app from the view data, Pause sends one request', async () => {
    const { frames, index } = await host.open('list_ad_campaigns', { app_id: APP }, { host: 'strict' });
    const view = frames[0]!;
    await view.locator(`${rowSelector('cmp_quiet')} button.pause`).click();
    await expect.poll(() => view.locator(`${rowSelector('cmp_quiet')} .status`).textContent()).toBe('Paused');
    expect(posts(host, 'pause')).toBe(1);
    const record = await host.record(index);
    expect(record.early).toEqual([]);
    expect(record.modes).toEqual(['inline', 'fullscreen']);
  });

  it('has no WCAG 2.2 AA violation, light and dark, at 360 and 720 px, with and without host variables, for the list and the card; nothing is cut off at 360 px', async () => {
    const list = await host.harness.client.callTool({ name: 'list_ad_campaigns', arguments: { app_id: APP, include_metrics: true } });
    const one = await host.harness.client.callTool({ name: 'get_ad_campaign', arguments: { app_id: APP, campaign_id: 'cmp_demo' } });
    const violations: string[] = [];
    let index = 0;
    for (const [tool, args, result] of [['list_ad_campaigns', { app_id: APP, include_metrics: true }, list], ['get_ad_campaign', { app_id: APP, campaign_id: 'cmp_demo' }, one]] as const) {
      for (const theme of ['light', 'dark'] as const) {
        for (const width of [NARROW_WIDTH, WIDE_WIDTH]) {
          for (const variables of [undefined, HOST_VARIABLES]) {
            const opened = await host.open(tool, args, { theme, width, variables, result });
            await opened.frames[0]!.locator(tool === 'get_ad_campaign' ? '.campaign-card' : '.spend-chart').waitFor();
            violations.push(...(await host.axe(index)).map((line) => `${tool} ${theme} ${width} ${variables ? 'host' : 'own'}: ${line}`));
            if (width === NARROW_WIDTH) expect(await host.overflow(index), `${tool} ${theme}`).toEqual([]);
            index += 1;
          }
        }
      }
      await host.clear();
      index = 0;
    }
    expect(violations).toEqual([]);
  }, MANY_FRAMES_TIMEOUT_MS);

  it('writes docs/views/campaigns-dark.png and the 360 px picture from a real list with metrics', async () => {
    const dark = await host.open('list_ad_campaigns', { app_id: APP, include_metrics: true }, { theme: 'dark' });
    await dark.frames[0]!.locator('.spend-chart').waitFor();
    expect(await frameOf(host.page, dark.index).evaluate('document.documentElement.getAttribute("data-theme")')).toBe('dark');
    await host.screenshot('campaigns', 'dark', dark.index);
    await host.clear();
    const narrow = await host.open('list_ad_campaigns', { app_id: APP, include_metrics: true }, { width: NARROW_WIDTH });
    await narrow.frames[0]!.locator('.spend-chart').waitFor();
    await host.screenshot('campaigns', 'light', narrow.index);
  });
});

describe('list_ad_campaigns and get_ad_campaign for clients with and without the extension', () => {
  it('give the same text, structuredContent and view data either way, the view data with the call\'s arguments', async () => {
    const plain = await connect();
    const withUi = await connect({ capabilities: UI_CAPABILITIES, sandbox: plain.sandbox });
    try {
      for (const [name, args] of [
        ['list_ad_campaigns', { app_id: APP, include_metrics: true }],
        ['list_ad_campaigns', { app_id: APP }],
        ['get_ad_campaign', { app_id: APP, campaign_id: 'cmp_demo' }],
      ] as const) {
        const a = await plain.client.callTool({ name, arguments: args });
        const b = await withUi.client.callTool({ name, arguments: args });
        expect(b).toEqual(a);
        expect(a._meta?.['app-management/view']).toMatchObject({ app_id: APP, arguments: args });
      }
      const listed = await withUi.client.callTool({ name: 'list_ad_campaigns', arguments: { app_id: APP } });
      expect(listed._meta?.['app-management/view']).toMatchObject({
        statuses: [{ status: 'ENABLED', shown: 'ENABLED', meaning: 'serving once the ad platform allows it; it spends up to about the daily budget each day' }],
        metrics_pending: [],
      });
    } finally {
      await withUi.close();
      await plain.close();
    }
  });
});
