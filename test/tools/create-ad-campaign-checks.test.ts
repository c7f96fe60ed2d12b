import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect, type Harness } from '../helpers.js';

// Issue 17: every local rule is checked before any is reported, money and places are checked
// before the warning, and an asset the service refuses is refused naming what it accepts.

const FILES = 'https://files.sandbox.test';

const PMAX = {
  app_id: 'app_demo',
  campaign_name: 'Launch',
  campaign_type: 'PERFORMANCE_MAX',
  daily_budget_micros: 15_000_000,
  landing_page: 'https://demo-planner.sandbox.test/',
  geo_targets: ['2840'],
  logo_url: `${FILES}/logo.png`,
  images: [
    { url: `${FILES}/wide.png`, kind: 'MARKETING_IMAGE' },
    { url: `${FILES}/square.png`, kind: 'SQUARE_MARKETING_IMAGE' },
  ],
  headlines: ['Plan your week', 'Simple planning', 'Try it today'],
  descriptions: ['Plan everything in one place.', 'Start in a minute.'],
};

describe('create_ad_campaign checks before the warning', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await connect();
  });
  afterEach(() => h.close());

  const create = (args: Record<string, unknown>) => h.call('create_ad_campaign', args);

  it('reports every failing PERFORMANCE_MAX rule in one answer and sends nothing, not even the read', async () => {
    const args = {
      ...PMAX,
      daily_budget_micros: 15,
      geo_targets: ['US', '2276'],
      logo_url: undefined,
      images: undefined,
      sitelinks: [{ text: 'Pricing' }],
      phone_number: '555-0100',
    };
    for (const result of [await create(args), await create({ ...args, confirm: true })]) {
      expect(result.isError).toBe(true);
      expect(result.text.split('\n').slice(0, 7)).toEqual([
        'Invalid input, 6 problems. Nothing was sent. Fix all of them, then call again:',
        expect.stringMatching(/^- daily_budget_micros: 15 is /),
        expect.stringMatching(/^- phone_number: must be E\.164/),
        expect.stringMatching(/^- geo_targets\[0\] "US": /),
        expect.stringMatching(/^- logo_url: required for PERFORMANCE_MAX/),
        expect.stringMatching(/^- images: .*MARKETING_IMAGE and SQUARE_MARKETING_IMAGE are missing\.$/),
        expect.stringMatching(/^- sitelinks\[0\]: has only text/),
      ]);
    }
    expect(h.sandbox.requests).toHaveLength(0);
  });

  it('lists at most 12 problems and counts the rest', async () => {
    const result = await create({ ...PMAX, geo_targets: Array.from({ length: 20 }, (_, i) => `city ${i}`) });
    const lines = result.text.split('\n');
    expect(lines[0]).toBe('Invalid input, 20 problems. Nothing was sent. Fix all of them, then call again:');
    expect(lines.filter((line) => line.startsWith('- geo_targets['))).toHaveLength(12);
    expect(lines).toContain('- and 8 more');
  });

  it('says what a logo and an image must be when they are missing', async () => {
    const result = await create({ ...PMAX, logo_url: undefined, images: [{ url: `${FILES}/wide.png`, kind: 'MARKETING_IMAGE' }] });
    expect(result.text).toContain(
      '- logo_url: required for PERFORMANCE_MAX: the address of an image file (not a web page) of at most 5 MB that the service can fetch, at least 128x128.',
    );
    expect(result.text).toMatch(/- images: .*each the address of an image file \(not a web page\) of at most 5 MB .*; SQUARE_MARKETING_IMAGE is missing\./);
  });

  it('lists a budget above the cap with the input problems instead of answering them one by one', async () => {
    await h.close();
    h = await connect({ config: { maxDailyBudgetMicros: 10_000_000 } });
    const result = await create({ ...PMAX, geo_targets: ['FR'] });
    expect(result.text).toMatch(/^Invalid input, 1 problem\. Nothing was sent\./);
    expect(result.text).toContain('- geo_targets[0] "FR": geo_targets are numeric geo target constant ids, e.g. 2250 (France).');
    expect(result.text).toMatch(/- also Refused: daily_budget_micros 15000000 \(15\.00 a day\) is above the cap of 10000000/);
  });

  describe('money', () => {
    it('refuses 15 micros a day, naming 15000000 = 15.00 a day', async () => {
      const result = await create({ ...PMAX, daily_budget_micros: 15 });
      expect(result.isError).toBe(true);
      expect(result.text).toBe(
        'Invalid input: daily_budget_micros: 15 is 0.000015 of the account currency a day, too small to be a daily budget. Amounts are micros (1000000 = 1.00): if 15 a day was meant, pass 15000000 = 15.00 a day. Nothing was sent.',
      );
      expect(h.sandbox.requests).toHaveLength(0);
    });

    it('flags a budget under one unit a day in the cost line, and leaves the minimum to the ad platform', async () => {
      const result = await create({ ...PMAX, daily_budget_micros: 500_000 });
      expect(result.isError).toBe(false);
      expect(result.structured?.cost).toBe(
        'daily budget 0.50 in the account currency (under 1.00 a day: check this is meant; 1000000 micros = 1.00), roughly 15.20 a month; real money once it serves.',
      );
    });

    it('refuses an applied recommendation of 15 micros before any read, pointing to the figure the suggestion shows', async () => {
      const args = { app_id: 'app_demo', campaign_id: 'cmp_demo', recommendation_resource_name: 'customers/1/campaignBudgetRecommendations/2', recommended_daily_budget_micros: 15 };
      const result = await h.call('apply_budget_recommendation', args);
      expect(result.text).toBe(
        'Invalid input: recommended_daily_budget_micros: 15 is 0.000015 a day, too small to be a recommended budget: pass the micros the suggestion shows, unchanged (1000000 = 1.00, so 15.00 a day is 15000000). Nothing was sent.',
      );
      expect(h.sandbox.requests).toHaveLength(0);
    });

    it('does not flag a budget of one unit or more', async () => {
      const result = await create({ ...PMAX, daily_budget_micros: 1_000_000 });
      expect(result.structured?.cost).toBe('daily budget 1.00 in the account currency, roughly 30.40 a month; real money once it serves.');
    });
  });

  describe('places', () => {
    it("refuses a country code with the example 2840 (United States)", async () => {
      const result = await create({ ...PMAX, geo_targets: ['US'] });
      expect(result.isError).toBe(true);
      expect(result.text).toBe(
        'Invalid input: geo_targets[0] "US": geo_targets are numeric geo target constant ids, e.g. 2840 (United States). Nothing was sent.',
      );
      expect(h.sandbox.requests).toHaveLength(0);
    });

    it('refuses a place name it cannot map, pointing to where ids come from', async () => {
      const result = await create({ ...PMAX, geo_targets: ['2840', 'California'] });
      expect(result.text).toBe(
        `Invalid input: geo_targets[1] "California": geo_targets are numeric geo target constant ids, e.g. 2840 (United States); other places' ids are in the ad platform's geo target list. Nothing was sent.`,
      );
    });

    it('names well-known places in the warning, and says which ids it cannot name', async () => {
      const named = await create({ ...PMAX, geo_targets: ['2840', '2276'] });
      expect(named.text).toContain('- geo_targets: 2 items: 2840 = United States, 2276 = Germany\n');
      const city = await create({ ...PMAX, geo_targets: ['2840', '1014221'] });
      expect(city.text).toContain(
        "- geo_targets: 2 items: 2840 = United States, 1014221 (1 id without a name: not a country this server knows; the ad platform's geo target list names it)",
      );
    });
  });

  describe('assets the service refuses (default sandbox world)', () => {
    it('names the host the service fetches from when the logo is on another one', async () => {
      const args = { ...PMAX, logo_url: 'https://cdn.example.com/logo.png' };
      expect((await create(args)).text).toMatch(/^CONFIRMATION NEEDED/);
      const result = await create({ ...args, confirm: true });
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(/^422: /);
      expect(result.text).toContain('- body.logo_url: The logo could not be fetched: it is on another host; the service fetches images only from files.sandbox.test');
    });

    it('names every image the service left out, and why, when a required slot ends up empty', async () => {
      const args = { ...PMAX, images: [PMAX.images[0], { url: 'https://cdn.example.com/square.png', kind: 'SQUARE_MARKETING_IMAGE' }] };
      await create(args);
      const result = await create({ ...args, confirm: true });
      expect(result.text).toMatch(/^400: /);
      expect(result.text).toContain(
        'SQUARE_MARKETING_IMAGE https://cdn.example.com/square.png was left out: it is on another host; the service fetches images only from files.sandbox.test',
      );
    });
  });
});
