import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterEach, describe, expect, it } from 'vitest';
import {
  MAX_SETTING_VALUE_CHARS,
  MAX_SETTINGS_DEPTH,
  MAX_SETTINGS_ENTRIES,
  MAX_SETTINGS_JSON_CHARS,
} from '../../../src/tools/campaigns/campaign-settings.js';
import type { Config } from '../../../src/config.js';
import { connect, type Harness } from '../../helpers.js';

/**
 * Issue 16, section 5: the warning of create_ad_campaign shows every value of the pass-through
 * campaign_settings that is sent, or the call is refused before any warning, naming the bound; a
 * money-like key anywhere in the settings is shown in the cost line and checked against the cap.
 */

const SMART = {
  app_id: 'app_demo',
  campaign_name: 'Settings probe',
  campaign_type: 'SMART',
  daily_budget_micros: 5_000_000,
  landing_page: 'https://example.com/',
};

/** The attack of the issue: 23 keys, a second daily budget among the hidden ones, and a nested bid ceiling. */
function twentyThreeKeys(): Record<string, unknown> {
  const settings: Record<string, unknown> = { language_code: 'en' };
  for (let i = 1; i <= 20; i++) settings[`option_${i}`] = `value ${i}`;
  settings.daily_budget_micros = 900_000_000_000;
  settings.bidding = { strategy: 'MAXIMIZE_CLICKS', bid_ceiling_micros: 900_000_000_000 };
  return settings;
}

describe('create_ad_campaign campaign_settings', () => {
  let h: Harness;
  afterEach(() => h.close());

  const create = (settings: unknown, extra: Record<string, unknown> = {}) => h.call('create_ad_campaign', { ...SMART, ...extra, campaign_settings: settings });

  /** Refused on the warning and on a confirm, with nothing sent: not even the warning's read. */
  async function refused(settings: unknown, message: RegExp) {
    const warning = await create(settings);
    expect(warning.isError).toBe(true);
    expect(warning.text).toMatch(message);
    expect(warning.text).toContain('Nothing was sent.');
    expect(warning.text).not.toContain('CONFIRMATION NEEDED');
    const confirmed = await create(settings, { confirm: true });
    expect(confirmed.isError).toBe(true);
    expect(confirmed.text).not.toMatch(/^Created/);
    expect(h.sandbox.requests).toEqual([]);
    return warning;
  }

  it('refuses the 23 keys with a hidden daily budget of 900000000000 and a nested bid ceiling, naming the limit', async () => {
    h = await connect();
    await refused(twentyThreeKeys(), new RegExp(`^Invalid input: campaign_settings: at most (${MAX_SETTINGS_JSON_CHARS} characters|${MAX_SETTINGS_ENTRIES} keys)`));
    expect(h.sandbox.simulation.inspect().campaigns.filter((c) => c.campaign_name === 'Settings probe')).toEqual([]);
  });

  it('refuses a second daily budget in the settings however few keys there are, so the cost line cannot be wrong', async () => {
    h = await connect();
    await refused({ daily_budget_micros: 900_000_000_000 }, /^Invalid input: campaign_settings\.daily_budget_micros: the budget is set by daily_budget_micros only/);
    await refused({ nested: { dailyBudget: 900_000 } }, /^Invalid input: campaign_settings\.nested\.dailyBudget: the budget is set by daily_budget_micros only/);
  });

  it(`refuses more than ${MAX_SETTINGS_ENTRIES} keys and list items, nested ones counted`, async () => {
    h = await connect();
    const many = Object.fromEntries(Array.from({ length: MAX_SETTINGS_ENTRIES + 1 }, (_, i) => [`k${i}`, i]));
    await refused(many, new RegExp(`^Invalid input: campaign_settings: at most ${MAX_SETTINGS_ENTRIES} keys and list items in all`));
    const nested = { a: Array.from({ length: MAX_SETTINGS_ENTRIES }, (_, i) => i) };
    await refused(nested, new RegExp(`at most ${MAX_SETTINGS_ENTRIES} keys and list items in all`));
  });

  it(`refuses nesting deeper than ${MAX_SETTINGS_DEPTH} levels`, async () => {
    h = await connect();
    await refused({ a: { b: { c: { d: { e: 'four' } } } } }, new RegExp(`^Invalid input: campaign_settings\\.a\\.b\\.c\\.d: nests deeper than ${MAX_SETTINGS_DEPTH} levels`));
    expect((await create({ a: { b: { c: { d: 'three levels' } } } })).text).toMatch(/^CONFIRMATION NEEDED/);
  });

  it(`refuses a value longer than ${MAX_SETTING_VALUE_CHARS} characters and settings longer than ${MAX_SETTINGS_JSON_CHARS} as JSON`, async () => {
    h = await connect();
    await refused({ note: 'v'.repeat(MAX_SETTING_VALUE_CHARS + 1) }, new RegExp(`^Invalid input: campaign_settings\\.note: at most ${MAX_SETTING_VALUE_CHARS} characters per value`));
    const wide = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`key_${i}`, 'w'.repeat(MAX_SETTING_VALUE_CHARS)]));
    await refused(wide, new RegExp(`^Invalid input: campaign_settings: at most ${MAX_SETTINGS_JSON_CHARS} characters as JSON`));
  });

  it('refuses values the warning could not show as sent: line breaks, hidden characters, double quotes', async () => {
    h = await connect();
    for (const value of ['two\nlines', 'hidden\u202eturn', 'say "hi"', 'a  b']) {
      await refused({ note: value }, /^Invalid input: campaign_settings\.note: must be one line of plain text/);
    }
  });

  it('refuses an amount whose unit is unknown (not a whole number of micros)', async () => {
    h = await connect();
    await refused({ max_bid: 12.5 }, /^Invalid input: campaign_settings\.max_bid: an amount inside campaign_settings must be a whole number in a key ending in _micros/);
    await refused({ target: { cost: '900' } }, /^Invalid input: campaign_settings\.target\.cost: an amount/);
  });

  it('shows a nested bid ceiling in the cost line of the text and of the structured warning', async () => {
    h = await connect();
    const warning = await create({ language_code: 'en', bidding: { strategy: 'MAXIMIZE_CLICKS', bid_ceiling_micros: 3_000_000 } });
    expect(warning.text).toMatch(/^CONFIRMATION NEEDED/);
    const cost = 'daily budget 5.00 in the account currency, roughly 152.00 a month; also sent, money-like settings: campaign_settings.bidding.bid_ceiling_micros 3000000 (3.00); real money once it serves.';
    expect(warning.text).toContain(`Cost: ${cost}`);
    expect(warning.structured?.cost).toBe(cost);
    expect(warning.text).toContain('- campaign_settings: 2 keys: "language_code": "en", "bidding": {"strategy": "MAXIMIZE_CLICKS", "bid_ceiling_micros": 3000000}');
  });

  it('applies APPMGMT_MAX_DAILY_BUDGET_MICROS to every amount in the settings', async () => {
    h = await connect({ config: { maxDailyBudgetMicros: 10_000_000 } satisfies Partial<Config> });
    const warning = await refused({ bidding: { bid_ceiling_micros: 900_000_000_000 } }, /^Refused: campaign_settings\.bidding\.bid_ceiling_micros 900000000000 \(900000\.00\) is above the cap of 10000000 \(10\.00\) set by APPMGMT_MAX_DAILY_BUDGET_MICROS/);
    expect(warning.text).not.toContain('5.00');
    await refused({ bid_steps_micros: [1_000_000, 900_000_000_000] }, /^Refused: campaign_settings\.bid_steps_micros\[1\] 900000000000 \(900000\.00\) is above the cap/);
    const atCap = await create({ bidding: { bid_ceiling_micros: 10_000_000 }, bid_steps_micros: [1_000_000] });
    expect(atCap.text).toMatch(/^CONFIRMATION NEEDED/);
    expect(atCap.structured?.cost).toContain('campaign_settings.bidding.bid_ceiling_micros 10000000 (10.00), campaign_settings.bid_steps_micros[0] 1000000 (1.00)');
  });

  it('shows settings at every limit whole, says the body is exactly what is sent, and stays under 2,000 tokens', async () => {
    h = await connect();
    const settings: Record<string, unknown> = {
      bidding: { strategy: 'TARGET_CPA', target_cpa_micros: 2_000_000, extra: { x_micros: 1 } },
      list: ['a', 'b'],
    };
    for (let i = 0; Object.keys(settings).length < 9; i++) settings[`key_${i}`] = `${'v'.repeat(60)}${i}`;
    expect(JSON.stringify(settings).length).toBeLessThanOrEqual(MAX_SETTINGS_JSON_CHARS);
    const warning = await create(settings);
    expect(warning.text).toMatch(/^CONFIRMATION NEEDED/);
    expect(warning.text).toContain('Request body (exactly what is sent):');
    for (const [key, value] of Object.entries(settings)) {
      expect(warning.text).toContain(`"${key}": `);
      if (typeof value === 'string') expect(warning.text).toContain(`"${value}"`);
    }
    expect(warning.text).toContain('"extra": {"x_micros": 1}');
    expect(warning.text).not.toContain('more');
    expect(warning.structured?.cost).toContain('campaign_settings.bidding.target_cpa_micros 2000000 (2.00), campaign_settings.bidding.extra.x_micros 1 (0.000001)');
    expect(countTokens(`${warning.text}\n${JSON.stringify(warning.structured)}`)).toBeLessThan(2_000);
    h.sandbox.script({ method: 'POST', status: 200, body: { id: 'cmp_new', campaign_name: 'Settings probe', status: 'PAUSED', daily_budget_micros: 5_000_000 } });
    await create(settings, { confirm: true });
    expect(h.sandbox.requests.find((request) => request.method === 'POST')?.body).toMatchObject({ campaign_settings: settings });
  });

  it("names fields a long list shortens instead of claiming the lines are exactly what is sent", async () => {
    h = await connect();
    const headlines = Array.from({ length: 50 }, (_, i) => `Headline number ${i} `.padEnd(100, 'x'));
    const warning = await h.call('create_ad_campaign', { ...SMART, headlines });
    expect(warning.text).toContain('Request body (what is sent; shortened here, sent in full as given: headlines):');
    expect(warning.text).not.toContain('exactly what is sent');
  });
});
