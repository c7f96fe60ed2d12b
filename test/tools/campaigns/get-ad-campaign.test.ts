import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connect, type Harness } from '../../helpers.js';
import { APP, CAMPAIGN, CAMPAIGN_PATH, resultTokens } from './fixtures.js';

describe('get_ad_campaign', () => {
  let h: Harness;
  // A fixed day before the fixture's learning period ends (2026-10-17).
  let now = Date.parse('2026-10-10T09:00:00Z');
  beforeAll(async () => {
    h = await connect({ clock: { now: () => now, sleep: async () => undefined } });
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  const get = (campaign_id = 'cmp_1') => h.call('get_ad_campaign', { app_id: APP, campaign_id });

  it('gets one campaign with the bearer token and shows status, budget, ad platform state and targeting', async () => {
    h.sandbox.script({ status: 200, body: CAMPAIGN });
    const result = await get();
    expect(h.sandbox.requests).toHaveLength(1);
    const [request] = h.sandbox.requests;
    expect(request?.method).toBe('GET');
    expect(request?.rawPath).toBe(CAMPAIGN_PATH());
    expect(request?.query).toBe('');
    expect(request?.headers.authorization).toBe(`Bearer ${h.config.accessToken}`);
    expect(result.isError).toBe(false);
    expect(result.text).toMatchInlineSnapshot(`
      "Campaign cmp_1 ("Spring sale"), PERFORMANCE_MAX, on app app_demo: ENABLED; daily budget 20.00 a day, roughly 608.00 a month.
      ENABLED: serving once the ad platform allows it; it spends up to about the daily budget each day.
      Ad platform: adnet id 7100000001; primary status LIMITED (CAMPAIGN_BUDGET_LIMITED); review REVIEWED; serving SERVING (read with review: it can lag behind).
      Landing page "https://shop.example.com/spring"; geo targets 2840, 2826; phone "+14155550100".
      Learning period: ends 2026-10-17T09:00:00Z; last changed 2026-11-01T09:00:00Z.
      The service returns no ad text for a campaign (keyword themes, headlines, descriptions, business name), no images or sitelinks, and no pause date: last changed is its latest change of any kind. A copy of it needs those from the user.
      Next: See what to improve with list_campaign_suggestions {"app_id":"app_demo","campaign_id":"cmp_1"}."
    `);
    expect(result.structured).toEqual({
      campaign_id: 'cmp_1',
      name: 'Spring sale',
      type: 'PERFORMANCE_MAX',
      status: 'ENABLED',
      daily_budget: 20,
      adnet_campaign_id: '7100000001',
      primary_status: 'LIMITED',
      primary_status_reasons: ['CAMPAIGN_BUDGET_LIMITED'],
      review_status: 'REVIEWED',
      serving_status: 'SERVING',
      landing_page: 'https://shop.example.com/spring',
      geo_targets: ['2840', '2826'],
      geo_target_count: 2,
      phone_number: '+14155550100',
      learning_ends_at: '2026-10-17T09:00:00Z',
      updated_date: '2026-11-01T09:00:00Z',
      next: 'See what to improve with list_campaign_suggestions {"app_id":"app_demo","campaign_id":"cmp_1"}.',
    });
  });

  it.each([
    ['PAUSED', 'paused'],
    ['REMOVED', 'deleted'],
  ])('gives a %s campaign one status even while the ad platform still reports SERVING', async (status, done) => {
    h.sandbox.script({ status: 200, body: { ...CAMPAIGN, status, serving_status: 'SERVING' } });
    const result = await get();
    expect(result.text).toContain(`serving status SERVING was synced before the campaign was ${done}: it does not serve`);
    expect(result.text).not.toMatch(/serving SERVING/);
    expect(result.text).not.toContain('serving once the ad platform allows it');
  });

  it('says a REMOVED campaign is deleted and that nothing more is needed', async () => {
    h.sandbox.script({ status: 200, body: { ...CAMPAIGN, status: 'REMOVED' } });
    const result = await get();
    expect(result.text).toContain('on app app_demo: REMOVED (deleted, kept for reporting); daily budget 20.00');
    expect(result.text).toContain('REMOVED: deleted for good; kept only for reporting and cannot be changed.');
    expect(result.structured?.next).toBe('Nothing more: the campaign is deleted (REMOVED) and kept only for reporting.');
  });

  it('says what a just-created campaign does not have yet', async () => {
    h.sandbox.script({
      status: 200,
      body: { ...CAMPAIGN, status: 'PAUSED', adnet_campaign_id: '', review_status: '', serving_status: '', primary_status: '', primary_status_reasons: [], phone_number: '', learning_ends_at: null },
    });
    const result = await get();
    expect(result.text).toContain('PAUSED: not serving; nothing new is spent until it is resumed.');
    expect(result.text).toContain('Ad platform: adnet id: still being pushed to the ad platform; primary status not given; review not synced yet; serving status not given');
    expect(result.text).toContain('phone none.');
    expect(result.text).toContain('Learning period: not started;');
    expect(result.structured).not.toHaveProperty('learning_ends_at');
  });

  it('says the learning period ended once its date has passed', async () => {
    now = Date.parse('2026-11-02T09:00:00Z');
    h.sandbox.script({ status: 200, body: CAMPAIGN });
    const result = await h.call('get_ad_campaign', { app_id: APP, campaign_id: 'cmp_1' });
    now = Date.parse('2026-10-10T09:00:00Z');
    expect(result.text).toContain('Learning period: ended 2026-10-17T09:00:00Z;');
  });

  it('bounds long geo target lists and untrusted text', async () => {
    const geo = Array.from({ length: 500 }, (_, i) => String(20_000 + i));
    h.sandbox.script({ status: 200, body: { ...CAMPAIGN, geo_targets: geo, campaign_name: 'N'.repeat(255), landing_page: `https://x.example.com/${'p'.repeat(2000)}`, primary_status_reasons: Array(100).fill('R'.repeat(100)) } });
    const result = await get();
    expect(result.text).toContain(', …and 480 more;');
    expect(result.structured?.geo_targets).toHaveLength(20);
    expect(result.structured?.geo_target_count).toBe(500);
    expect(resultTokens(result)).toBeLessThan(2_000);
  });

  it('reads the default world campaign with its primary status', async () => {
    const result = await get('cmp_demo');
    expect(result.structured).toMatchObject({ campaign_id: 'cmp_demo', status: 'ENABLED', primary_status: 'LIMITED', daily_budget: 20 });
  });

  it.each([
    [401, /^401: The access token is missing, invalid or expired/],
    [403, /^403: Not allowed: the token needs access to this app/],
    [404, /^404: App or campaign not found\. campaign_id is the service's id, not the adnet campaign ID\. list_ad_campaigns shows it\./],
  ])('explains %i', async (status, expected) => {
    h.sandbox.script({ status, body: { detail: 'Refused' } });
    const result = await get();
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(expected);
  });

  it('encodes the campaign id so it cannot change the path', async () => {
    h.sandbox.script({ status: 200, body: CAMPAIGN });
    await get('c/../x');
    expect(h.sandbox.requests[0]?.rawPath).toBe(CAMPAIGN_PATH('c%2F..%2Fx'));
  });
});
