import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/http.js';
import { connect } from '../helpers.js';
import { browserAvailable, confirmations, frameOf, HOST_VARIABLES, hostPage, NARROW_WIDTH, SHORT_HEIGHT, startBrowser, UI_CAPABILITIES, WIDE_WIDTH, type Browsing, type HostPage } from './browser.js';

const ARGS = {
  app_id: 'app_demo',
  campaign_type: 'SMART',
  daily_budget_micros: 5_000_000,
  landing_page: 'https://demo-planner.sandbox.test/',
};
const DELETE = { app_id: 'app_demo', campaign_id: 'cmp_quiet' };
const MINUTE = 60_000;

/** Several frames and an axe run each on a shared 2-core machine: more than the default 20 s. */
const MANY_FRAMES_TIMEOUT_MS = 60_000;

describe.skipIf(!browserAvailable)('the confirmation card in headless Chromium', () => {
  // One browser for the file, one page and one server for most tests.
  let browsing: Browsing;
  let host: HostPage;
  /** Requests sent to the service before the test: one page and one server serve every test of this file. */
  let before: number;
  const posts = () => host.posts() - before;
  beforeAll(async () => {
    browsing = await startBrowser();
    host = await hostPage(browsing);
  });
  afterAll(async () => {
    await host?.close();
    await browsing?.close();
  });
  beforeEach(async () => {
    await host.clear();
    before = host.posts();
  });

  it('shows the warning of a real create_ad_campaign call: the action, the amount for the locale, every line to be sent, the cost and the expiry in the person\'s zone', async () => {
    const { result, frames } = await host.open('create_ad_campaign', { ...ARGS, campaign_name: 'Spring sale' });
    const card = frames[0]!;
    const facts = result.structuredContent as { action: string; cost: string };
    const shown = result._meta?.['app-management/view'] as { details: string[]; expires_at: string };
    // The gate's action line for a person: the campaign type in words.
    expect(facts.action).toContain('Create SMART ad campaign');
    await expect.poll(() => card.locator('.action').textContent()).toBe(facts.action.replace('SMART', 'smart'));
    expect(await card.locator('.kicker').textContent()).toBe('Needs your approval · nothing sent yet');
    expect(await card.locator('.amount').textContent()).toBe('Daily budget 5.00 in the account currency');
    // The gate's cost sentence, its amounts as the locale writes them (en-US: grouped, two decimals).
    expect(facts.cost).toMatch(/^daily budget 5\.00 in the account currency, roughly 152\.00 a month; real money once it serves\./);
    expect(await card.locator('.cost-value').textContent()).toBe(facts.cost);
    // Every line of the warning: the request's fields ("- name: value") for a person, nested under the line that introduces them,
    // and every line exactly as the gate wrote it behind "Exactly as written".
    const fields = shown.details.filter((line) => line.startsWith('- '));
    expect(fields).toEqual(['- campaign_name: "Spring sale"', '- campaign_type: "SMART"', '- daily_budget_micros: 5000000 (5.00 a day)', '- landing_page: "https://demo-planner.sandbox.test/"']);
    expect(await card.locator('.details .fields li').allTextContents()).toEqual(['Campaign name Spring sale', 'Campaign type Smart', 'Daily budget 5.00 a day', 'Landing page https://demo-planner.sandbox.test/']);
    expect(await card.locator('.details > li').count()).toBe(shown.details.length - fields.length);
    expect(await card.locator('.exact pre').textContent()).toBe(shown.details.join('\n'));
    // The warning's own expiry: the sandbox's 09:00 plus ten minutes, in the person's zone (UTC here), the zone named.
    expect(shown.expires_at).toBe('2026-11-02T09:10:00.000Z');
    expect(await card.locator('.expiry').textContent()).toBe('Approve by 9:10 AM UTC, when the warning lapses.');
    expect(await card.locator('.approve').textContent()).toBe('Create campaign');
    expect(await card.locator('.approve').getAttribute('class')).toContain('primary');
    expect(posts()).toBe(0);
    await host.screenshot('confirmation-card', 'light');
  });

  it('works in a host that sends no toolInfo and no tool input and refuses early messages: the warning, a working button, one request, the outcome in one line with the focus on it', async () => {
    const { frames, index } = await host.open('create_ad_campaign', { ...ARGS, campaign_name: 'Strict host' }, { host: 'strict' });
    const card = frames[0]!;
    await card.locator('.approve').click();
    await card.locator('.outcome').waitFor();
    expect(await card.locator('.outcome-title').textContent()).toBe('Done');
    expect(await card.locator('.outcome-text').textContent()).toMatch(/^Created campaign cmp_\w+, status \w+\.$/);
    // Folded: the request is behind "What was asked", and the focus is on the outcome.
    expect(await card.locator('.approve').count()).toBe(0);
    expect(await card.locator('details.asked .action').count()).toBe(1);
    expect(await frameOf(host.page, index).evaluate('document.activeElement.className')).toBe('outcome');
    expect(posts()).toBe(1);
    const record = await host.record(index);
    expect(record.early).toEqual([]);
    expect(record.modes).toEqual(['inline']);
    expect(record.told).toEqual([expect.stringMatching(/^The person approved create_ad_campaign in the confirmation card\. Done: Created campaign cmp_\w+/)]);
  });

  it('locks on the first press: both buttons disabled at once, and a double press sends the host one call with confirm: true', async () => {
    const { frames, index } = await host.open('create_ad_campaign', { ...ARGS, campaign_name: 'Approve twice' });
    const card = frames[0]!;
    await card.locator('.approve').waitFor();
    // A second press, before any answer, as a click and as an event dispatched to the button (which reaches a disabled button's listeners).
    const locked = await frameOf(host.page, index).evaluate(`(() => {
      const approve = document.querySelector('.approve');
      approve.click();
      const locked = [approve.disabled, document.querySelector('.cancel').disabled];
      approve.click();
      approve.dispatchEvent(new MouseEvent('click', { bubbles: true }));
      document.querySelector('.cancel').dispatchEvent(new MouseEvent('click', { bubbles: true }));
      return locked;
    })()`);
    expect(locked).toEqual([true, true]);
    // Every press was dispatched before the first answer: once an outcome shows, the host has seen every call.
    await card.locator('.outcome').first().waitFor();
    const record = await host.record(index);
    expect(confirmations(record)).toEqual([{ name: 'create_ad_campaign', arguments: { ...ARGS, campaign_name: 'Approve twice', confirm: true } }]);
    expect(record.calls).toHaveLength(1);
    expect(await card.locator('.outcome-title').textContent()).toBe('Done');
    expect(posts()).toBe(1);
  });

  it('sends one POST when two cards for the same warning are both approved', async () => {
    const { frames } = await host.open('create_ad_campaign', { ...ARGS, campaign_name: 'Two cards' }, { copies: 2 });
    for (const card of frames) await card.locator('.approve').waitFor();
    await Promise.all(frames.map((card) => card.locator('.approve').dispatchEvent('click')));
    for (const card of frames) await card.locator('.outcome').waitFor();
    const titles = await Promise.all(frames.map((card) => card.locator('.outcome-title').textContent()));
    expect(titles.sort()).toEqual(['Done', 'Not done']);
    expect(posts()).toBe(1);
  }, MANY_FRAMES_TIMEOUT_MS);

  it('never shows a warning as done: without view data or toolInfo it shows the warning and sends nothing', async () => {
    const bare = await host.harness.client.callTool({ name: 'create_ad_campaign', arguments: { ...ARGS, campaign_name: 'Bare warning' } });
    const { _meta: _dropped, ...withoutViewData } = bare;
    const { frames } = await host.open('create_ad_campaign', { ...ARGS, campaign_name: 'Bare warning' }, { host: 'strict', result: withoutViewData });
    const card = frames[0]!;
    await card.locator('.confirmation').waitFor();
    expect(await card.locator('.action').textContent()).toContain('Bare warning');
    expect(await card.locator('.approve').count()).toBe(0);
    expect(await card.locator('.confirmation').textContent()).toContain('Answer in the chat to approve or cancel');
    expect(await card.locator('.outcome').count()).toBe(0);
    expect(posts()).toBe(0);
  });

  it('names a delete by its verb in red', async () => {
    const { frames, index } = await host.open('delete_ad_campaign', DELETE);
    const card = frames[0]!;
    await card.locator('.approve').waitFor();
    expect(await card.locator('.approve').textContent()).toBe('Delete campaign');
    expect(await card.locator('.approve').getAttribute('class')).toContain('danger');
    const colours = (await frameOf(host.page, index).evaluate(`(() => { const style = getComputedStyle(document.querySelector('.approve')); return [style.backgroundColor, style.color]; })()`)) as string[];
    // The fallback red (#cf222e) under white text.
    expect(colours).toEqual(['rgb(207, 34, 46)', 'rgb(255, 255, 255)']);
  });

  it('shows a hostile campaign name as its characters, isolated, and runs nothing', async () => {
    const hostile = '<img src=x onerror=window.__pwned=1> \u05e9\u05dc\u05d5\u05dd';
    const { frames } = await host.open('create_ad_campaign', { ...ARGS, campaign_name: hostile });
    const card = frames[0]!;
    await card.locator('.details li').first().waitFor();
    expect((await card.locator('.details li').allTextContents()).join('\n')).toContain(hostile);
    expect(await card.locator('.details .fields bdi').first().textContent()).toBe(hostile);
    expect(await card.locator('.action bdi').textContent()).toBe(`"${hostile}"`);
    expect(await card.locator('img').count()).toBe(0);
    expect(await frameOf(host.page).evaluate('window.__pwned')).toBeUndefined();
  });

  it('sends nothing on Cancel, folds to one line and tells the model', async () => {
    const { frames, index } = await host.open('create_ad_campaign', { ...ARGS, campaign_name: 'Cancelled one' });
    const card = frames[0]!;
    await card.locator('.cancel').click();
    expect(await card.locator('.outcome-line').textContent()).toBe('Cancelled: nothing was sent; the warning lapses on its own.');
    expect(await card.locator('.cancel').count()).toBe(0);
    expect((await host.record(index)).told).toEqual(['The person cancelled create_ad_campaign in the confirmation card: nothing was sent.']);
    expect(posts()).toBe(0);
  });

  it('shows the outcome when the host opens it for a confirmation the model sent itself', async () => {
    await host.harness.client.callTool({ name: 'create_ad_campaign', arguments: { ...ARGS, campaign_name: 'Model confirmed' } });
    const { frames } = await host.open('create_ad_campaign', { ...ARGS, campaign_name: 'Model confirmed', confirm: true });
    await frames[0]!.locator('.outcome').waitFor();
    expect(await frames[0]!.locator('.outcome-title').textContent()).toBe('Done');
    expect(await frames[0]!.locator('.approve').count()).toBe(0);
    expect(posts()).toBe(1);
  });

  it('says a cancelled call was cancelled instead of waiting for ever', async () => {
    const { frames } = await host.open('create_ad_campaign', { ...ARGS, campaign_name: 'Never answered' }, { cancelled: true });
    await frames[0]!.locator('.outcome').waitFor();
    expect(await frames[0]!.locator('.outcome-line').textContent()).toBe('Cancelled: the call was cancelled before it answered; nothing was sent.');
  });

  it('offers nothing to press once the warning has lapsed, as when a host shows an old result again', async () => {
    const warning = await host.harness.client.callTool({ name: 'create_ad_campaign', arguments: { ...ARGS, campaign_name: 'Too late' } });
    const view = warning._meta!['app-management/view'] as Record<string, unknown>;
    const old = { ...warning, _meta: { 'app-management/view': { ...view, expires_at: new Date(host.harness.sandbox.clock.now() - MINUTE).toISOString() } } };
    const { frames } = await host.open('create_ad_campaign', { ...ARGS, campaign_name: 'Too late' }, { result: old });
    await frames[0]!.locator('.expiry').waitFor();
    expect(await frames[0]!.locator('.expiry').textContent()).toBe('This warning lapsed at 8:59 AM UTC: nothing was sent.');
    expect(await frames[0]!.locator('.approve').count()).toBe(0);
  });

  it("follows the host's locale and time zone: every amount the card shows (the budget, the cost sentence, the fields, the outcome) as the locale writes it", async () => {
    const { result, frames } = await host.open('create_ad_campaign', { ...ARGS, daily_budget_micros: 1_234_567_890_000, campaign_name: 'Berlin' }, { locale: 'de-DE', timeZone: 'Europe/Berlin' });
    const card = frames[0]!;
    await card.locator('.amount').waitFor();
    expect(await card.locator('.amount').textContent()).toBe('Daily budget 1.234.567,89 in the account currency');
    expect(await card.locator('.expiry').textContent()).toBe('Approve by 10:10 MEZ, when the warning lapses.');
    // The gate writes its amounts for the model ("1234567.89"); the card, for the person.
    expect((result.structuredContent as { cost: string }).cost).toContain('daily budget 1234567.89 in the account currency, roughly 37530863.86 a month');
    expect(await card.locator('.cost-value').textContent()).toMatch(/^daily budget 1\.234\.567,89 in the account currency, roughly 37\.530\.863,86 a month; /);
    expect(await card.locator('.details .fields li').nth(2).textContent()).toBe('Daily budget 1.234.567,89 a day');
    expect(await card.locator('.cost-value').textContent()).not.toMatch(/\d\.\d\d(?!\d)/);
    // A budget with a fraction of a cent is shown as sent, never rounded.
    const tiny = await host.open('create_ad_campaign', { ...ARGS, daily_budget_micros: 15_000, campaign_name: 'Tiny' }, { locale: 'de-DE' });
    await tiny.frames[0]!.locator('.amount').waitFor();
    expect(await tiny.frames[0]!.locator('.amount').textContent()).toBe('Daily budget 0,015 in the account currency');
    expect(await tiny.frames[0]!.locator('.details .fields li').nth(2).textContent()).toBe('Daily budget 0,015 a day');
    expect(await tiny.frames[0]!.locator('.cost-value').textContent()).toMatch(/^daily budget 0,015 in the account currency \(under 1,00 a day: /);
  });

  it("shows the done summary of a budget applied in the locale's figures, its statuses in words", async () => {
    const listed = await host.harness.client.callTool({ name: 'list_campaign_suggestions', arguments: { app_id: 'app_demo', campaign_id: 'cmp_demo' } });
    const budget = (listed.structuredContent as { high: Array<{ recommendation_resource_name?: string; recommended_daily_budget_micros?: number }> }).high.find((fact) => fact.recommendation_resource_name)!;
    const apply = { app_id: 'app_demo', campaign_id: 'cmp_demo', recommendation_resource_name: budget.recommendation_resource_name!, recommended_daily_budget_micros: budget.recommended_daily_budget_micros! };
    const warning = await host.harness.client.callTool({ name: 'apply_budget_recommendation', arguments: apply });
    const shown = warning._meta?.['app-management/view'] as { action: string; cost: string } | undefined;
    expect(shown?.action).toMatch(/daily budget 20\.00 → 35\.00$/);
    expect(shown?.cost).toMatch(/roughly \+456\.00 a month \(about 1064\.00 a month in all\)/);
    const { frames } = await host.open('apply_budget_recommendation', apply, { locale: 'de-DE', result: warning });
    const card = frames[0]!;
    expect(await card.locator('.action').textContent()).toMatch(/daily budget 20,00 → 35,00$/);
    expect(await card.locator('.cost-value').textContent()).toMatch(/roughly \+456,00 a month \(about 1\.064,00 a month in all\)/);
    await card.locator('.approve').click();
    await card.locator('.outcome').waitFor();
    expect(await card.locator('.outcome-line').textContent()).toBe('Done: Applied the recommendation; daily budget now 35,00.');
    const created = await host.open('create_ad_campaign', { ...ARGS, campaign_name: 'Statuses' });
    await created.frames[0]!.locator('.approve').click();
    await created.frames[0]!.locator('.outcome').waitFor();
    expect(await created.frames[0]!.locator('.outcome-text').textContent()).toMatch(/^Created campaign cmp_\w+, status (enabled|paused)\.$/);
  });

  it("fits its first screen in a host's small maxHeight: the action, cost and buttons at once, what will be sent folded behind a disclosure", async () => {
    const { frames, index } = await host.open('create_ad_campaign', { ...ARGS, campaign_name: 'Short host' }, { maxHeight: SHORT_HEIGHT });
    const card = frames[0]!;
    await card.locator('.approve').waitFor();
    expect(await host.firstScreen(['.action', '.amount', '.cost', '.expiry', '.approve', '.cancel'], index)).toMatchObject({ outside: [] });
    expect(await card.locator('details.request').getAttribute('open')).toBeNull();
    // The disclosure opens to every field, and the page then scrolls inside the host's height.
    await card.locator('details.request > summary').click();
    await card.locator('.details .fields li').first().waitFor();
    expect(await card.locator('.details .fields li').count()).toBe(4);
    expect(await host.firstScreen(['.action'], index)).toEqual({ height: SHORT_HEIGHT, outside: [], scrolls: true });
    // A host that gives the height the card needs sees the request open.
    const tall = await host.open('create_ad_campaign', { ...ARGS, campaign_name: 'Tall host' }, { maxHeight: 2_000 });
    await tall.frames[0]!.locator('.approve').waitFor();
    expect(await tall.frames[0]!.locator('details.request').getAttribute('open')).toBe('');
  });

  it('has no WCAG 2.2 AA violation, light and dark, at 360 and 720 px, with and without host variables, before and after deciding; nothing is cut off at 360 px', async () => {
    const warning = await host.harness.client.callTool({ name: 'delete_ad_campaign', arguments: DELETE });
    const variants = [];
    for (const theme of ['light', 'dark'] as const) {
      for (const width of [NARROW_WIDTH, WIDE_WIDTH]) {
        for (const variables of [undefined, HOST_VARIABLES]) variants.push({ theme, width, variables });
      }
    }
    for (const variant of variants) await host.open('delete_ad_campaign', DELETE, { ...variant, result: warning });
    const violations: string[] = [];
    for (const [index, variant] of variants.entries()) {
      await frameOf(host.page, index).locator('.approve').waitFor();
      violations.push(...(await host.axe(index)).map((line) => `${JSON.stringify(variant)} ${line}`));
    }
    // Decided: the outcome and the folded request are checked too.
    await frameOf(host.page, 0).locator('.cancel').click();
    await frameOf(host.page, 4).locator('.cancel').click();
    violations.push(...(await host.axe(0)), ...(await host.axe(4)));
    expect(violations).toEqual([]);
    expect(await host.overflow(0)).toEqual([]);
  }, MANY_FRAMES_TIMEOUT_MS);

  it('writes docs/views/confirmation-card-dark.png and the 360 px picture from real warnings', async () => {
    const { frames, index } = await host.open('create_ad_campaign', { ...ARGS, campaign_name: 'Spring sale' }, { theme: 'dark' });
    await frames[0]!.locator('.action').waitFor();
    expect(await frameOf(host.page, index).evaluate('document.documentElement.getAttribute("data-theme")')).toBe('dark');
    await host.screenshot('confirmation-card', 'dark', index);
    await host.clear();
    const narrow = await host.open('delete_ad_campaign', DELETE, { width: NARROW_WIDTH });
    await narrow.frames[0]!.locator('.approve').waitFor();
    expect(await host.overflow(narrow.index)).toEqual([]);
    await host.screenshot('confirmation-card', 'light', narrow.index);
  });

  it("in a host that also shows approval forms: says beforehand that the client's own form follows, asks it once, and sends one request", async () => {
    const sandbox = await startSandbox({ control: true });
    const harness = await connect({ sandbox, capabilities: { ...UI_CAPABILITIES, elicitation: { form: {} } } as never, clock: { now: () => sandbox.clock.now(), sleep: async () => undefined } });
    const forms: string[] = [];
    harness.client.setRequestHandler(ElicitRequestSchema, async (request) => {
      forms.push(request.params.message);
      return { action: 'accept', content: { approve: true } };
    });
    const formHost = await hostPage(browsing, { harness });
    try {
      const { frames } = await formHost.open('create_ad_campaign', { ...ARGS, campaign_name: 'Form host' });
      const card = frames[0]!;
      expect(await card.locator('.form-note').textContent()).toBe('Your app then shows its own approval form: approve there to send. Nothing is sent before that.');
      await card.locator('.approve').click();
      await card.locator('.outcome').waitFor();
      expect(await card.locator('.outcome-title').textContent()).toBe('Done');
      expect(forms).toHaveLength(1);
      expect(forms[0]).toContain('Form host');
      expect(formHost.posts()).toBe(1);
    } finally {
      await formHost.close();
      await sandbox.close();
    }
  });
});
