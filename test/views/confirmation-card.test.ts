import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { browserAvailable, frameOf, hostPage, startBrowser, type Browsing, type HostPage } from './browser.js';

const ARGS = {
  app_id: 'app_demo',
  campaign_type: 'SMART',
  daily_budget_micros: 5_000_000,
  landing_page: 'https://demo-planner.sandbox.test/',
};

describe.skipIf(!browserAvailable)('the confirmation card in headless Chromium', () => {
  let browsing: Browsing;
  let host: HostPage;
  beforeAll(async () => {
    browsing = await startBrowser();
  });
  afterAll(() => browsing?.close());
  beforeEach(async () => {
    host = await hostPage(browsing);
  });
  afterEach(() => host?.close());

  it('shows the warning of a real create_ad_campaign call: the action, every line to be sent, the cost and the exact expiry', async () => {
    const { result, frames } = await host.open('create_ad_campaign', { ...ARGS, campaign_name: 'Spring sale' });
    const card = frames[0]!;
    const facts = result.structuredContent as { action: string; cost: string };
    const shown = result._meta?.['app-management/view'] as { details: string[]; expires_at: string };
    await expect.poll(() => card.locator('.action').textContent()).toBe(facts.action);
    expect(await card.locator('.cost-value').textContent()).toBe(facts.cost);
    expect(facts.cost).toMatch(/daily budget 5\.00 .*roughly 152\.00 a month/);
    // Every line of the warning: the request's fields ("- name: value") nested under the line that introduces them.
    const fields = shown.details.filter((line) => line.startsWith('- '));
    expect(fields.length).toBeGreaterThanOrEqual(4);
    expect(await card.locator('.details .fields li').allTextContents()).toEqual(fields.map((line) => line.slice(2)));
    expect(await card.locator('.details > li').count()).toBe(shown.details.length - fields.length);
    expect(shown.details.join('\n')).toContain('Spring sale');
    // The warning's own expiry, in the page's time zone (UTC here).
    const expires = new Date(shown.expires_at);
    const time = `${String(expires.getUTCHours()).padStart(2, '0')}:${String(expires.getUTCMinutes()).padStart(2, '0')}`;
    expect(await card.locator('.expiry').textContent()).toContain(`Approve by ${time} UTC`);
    expect(host.posts()).toBe(0);
    await host.screenshot('confirmation-card', 'light');
  });

  it('sends exactly one POST when Approve is clicked twice, and shows the created campaign', async () => {
    const { frames } = await host.open('create_ad_campaign', { ...ARGS, campaign_name: 'Approve twice' });
    const card = frames[0]!;
    await card.locator('.approve').click();
    await card.locator('.approve').click({ force: true });
    await card.locator('.outcome').waitFor();
    expect(await card.locator('.outcome-title').textContent()).toBe('Done');
    expect(await card.locator('.outcome-text').textContent()).toMatch(/cmp_\w+/);
    expect(host.posts()).toBe(1);
  });

  it('sends one POST when two cards for the same warning are both approved', async () => {
    const { frames } = await host.open('create_ad_campaign', { ...ARGS, campaign_name: 'Two cards' }, { copies: 2 });
    for (const card of frames) await card.locator('.approve').waitFor();
    await Promise.all(frames.map((card) => card.locator('.approve').click()));
    for (const card of frames) await card.locator('.outcome').waitFor();
    const titles = await Promise.all(frames.map((card) => card.locator('.outcome-title').textContent()));
    expect(titles.sort()).toEqual(['Done', 'Not done']);
    expect(host.posts()).toBe(1);
  });

  it('shows a hostile campaign name as its characters and runs nothing', async () => {
    const hostile = '<img src=x onerror=window.__pwned=1>';
    const { frames } = await host.open('create_ad_campaign', { ...ARGS, campaign_name: hostile });
    const card = frames[0]!;
    await card.locator('.details li').first().waitFor();
    expect((await card.locator('.details li').allTextContents()).join('\n')).toContain(hostile);
    expect(await card.locator('.action').textContent()).toContain(hostile);
    expect(await card.locator('img').count()).toBe(0);
    expect(await frameOf(host.page).evaluate('window.__pwned')).toBeUndefined();
  });

  it("follows the host's theme and colour variables, and is pictured dark", async () => {
    const { frames } = await host.open('create_ad_campaign', { ...ARGS, campaign_name: 'Spring sale' }, { theme: 'dark', variables: { '--color-background-primary': 'rgb(1, 2, 3)' } });
    await frames[0]!.locator('.action').waitFor();
    const look = await frameOf(host.page).evaluate('({ theme: document.documentElement.getAttribute("data-theme"), background: getComputedStyle(document.documentElement).backgroundColor })');
    expect(look).toEqual({ theme: 'dark', background: 'rgb(1, 2, 3)' });
  });

  it('sends nothing on Cancel and says so', async () => {
    const { frames } = await host.open('create_ad_campaign', { ...ARGS, campaign_name: 'Cancelled one' });
    const card = frames[0]!;
    await card.locator('.cancel').click();
    expect(await card.locator('.outcome-title').textContent()).toBe('Cancelled');
    expect(await card.locator('.approve').isDisabled()).toBe(true);
    expect(host.posts()).toBe(0);
  });

  it('shows the outcome when the host opens it for a confirmation the model sent itself', async () => {
    await host.harness.client.callTool({ name: 'create_ad_campaign', arguments: { ...ARGS, campaign_name: 'Model confirmed' } });
    const { frames } = await host.open('create_ad_campaign', { ...ARGS, campaign_name: 'Model confirmed', confirm: true });
    await frames[0]!.locator('.outcome').waitFor();
    expect(await frames[0]!.locator('.outcome-title').textContent()).toBe('Done');
    expect(await frames[0]!.locator('.approve').count()).toBe(0);
    expect(host.posts()).toBe(1);
  });
});

describe.skipIf(!browserAvailable)('the confirmation card pictured dark', () => {
  it('writes docs/views/confirmation-card-dark.png from a real warning', async () => {
    const browsing = await startBrowser();
    const host = await hostPage(browsing, { theme: 'dark' });
    try {
      const { frames } = await host.open('create_ad_campaign', { ...ARGS, campaign_name: 'Spring sale' }, { theme: 'dark' });
      await frames[0]!.locator('.action').waitFor();
      expect(await frameOf(host.page).evaluate('document.documentElement.getAttribute("data-theme")')).toBe('dark');
      await host.screenshot('confirmation-card', 'dark');
    } finally {
      await host.close();
      await browsing.close();
    }
  });
});
