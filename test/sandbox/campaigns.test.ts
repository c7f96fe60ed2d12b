import { describe, expect, it } from 'vitest';
import { call, OWNER, paths, pmaxBody, smartBody, useSandbox } from './helpers.js';

const DAY = 86_400_000;

describe('sandbox 4.2 create ad campaign', () => {
  const s = useSandbox();
  const create = (body: unknown, token = OWNER, app = 'app_demo') => call(s.sandbox, 'POST', paths.campaigns(app), { token, body });
  const storedCampaigns = () => s.sandbox.simulation.inspect().campaigns.length;

  it('creates an ENABLED campaign when conversion tracking is verified', async () => {
    const answer = await create(smartBody());
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id: 'cmp_0001', campaign_type: 'SMART', status: 'ENABLED', daily_budget_micros: 5_000_000, phone_number: '' });
    expect(answer.body.adnet_campaign_id).toMatch(/^\d{10}$/);
    expect(answer.body.review_status).toBe('');
    const created = Date.parse(answer.body.created_date);
    expect(created).toBe(s.sandbox.clock.now());
    expect(Date.parse(answer.body.learning_ends_at) - created).toBe(14 * DAY);
  });

  it('creates a PAUSED campaign, with no learning period, when conversion tracking is not verified', async () => {
    const answer = await create(smartBody({ contains_eu_political_advertising: false }), 'pat_eu_owner', 'app_eu');
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe('PAUSED');
    expect(answer.body.learning_ends_at).toBeNull();
  });

  it('answers 400 with the platform reason for a budget under the currency minimum, and creates nothing', async () => {
    const before = storedCampaigns();
    const answer = await create(smartBody({ daily_budget_micros: 500_000 }));
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ detail: 'adnet: CAMPAIGN_BUDGET_BELOW_MINIMUM: daily budget 0.50 USD is below the minimum 1.00 USD' });
    expect(storedCampaigns()).toBe(before);
  });

  it('answers 400 for a landing page on an unreachable host', async () => {
    const answer = await create(smartBody({ landing_page: 'https://offline.example.test/spring' }));
    expect(answer.status).toBe(400);
    expect(answer.body.detail).toMatch(/^adnet: DESTINATION_NOT_WORKING: /);
  });

  it('answers 400 for a headline over 30 characters', async () => {
    const answer = await create(smartBody({ headlines: ['Plan your week', 'The planner for every single team'] }));
    expect(answer.status).toBe(400);
    expect(answer.body.detail).toMatch(/^adnet: TEXT_TOO_LONG: headline 2 .* 33 characters; the limit is 30$/);
  });

  it('answers 400 for ad text with a word the platform blocks', async () => {
    const answer = await create(smartBody({ descriptions: ['Guaranteed results in a week.', 'Start now.'] }));
    expect(answer.status).toBe(400);
    expect(answer.body.detail).toMatch(/^adnet: POLICY_VIOLATION: description 1 .*"guaranteed"/);
  });

  it('answers 400 for a phone number not in international format', async () => {
    const answer = await create(smartBody({ phone_number: '(415) 555-0123' }));
    expect(answer.status).toBe(400);
    expect(answer.body.detail).toMatch(/international format/);
    expect(storedCampaigns()).toBe(2);
  });

  it('keeps an E.164 phone number as the smart-campaign phone setting', async () => {
    const answer = await create(smartBody({ phone_number: '+14155550123' }));
    expect(answer.body.phone_number).toBe('+14155550123');
    const stored = s.sandbox.simulation.inspect().campaigns.find((c) => c.id === answer.body.id);
    expect(stored?.details.phone_asset).toBe('smart_campaign_setting');
  });

  it('answers 402 without a payment method, and creates nothing', async () => {
    const answer = await create(smartBody(), 'pat_free_owner', 'app_free');
    expect(answer.status).toBe(402);
    expect(answer.body.detail).toMatch(/payment method/);
    expect(storedCampaigns()).toBe(2);
  });

  it('answers 402 when the account is not in good standing', async () => {
    const answer = await create(smartBody(), 'pat_overdue_owner', 'app_overdue');
    expect(answer.status).toBe(402);
    expect(answer.body.detail).toMatch(/good standing/);
  });

  it('rejects an EU advertiser without the political advertising declaration', async () => {
    const answer = await create(smartBody(), 'pat_eu_owner', 'app_eu');
    expect(answer.status).toBe(422);
    expect(answer.body.detail[0].loc).toEqual(['body', 'contains_eu_political_advertising']);
  });

  it('keeps the EU declaration on file once a campaign was created with it', async () => {
    await create(smartBody({ contains_eu_political_advertising: false }), 'pat_eu_owner', 'app_eu');
    const again = await create(smartBody({ campaign_name: 'Second' }), 'pat_eu_owner', 'app_eu');
    expect(again.status).toBe(200);
  });

  it('answers validation failures with 422 and the 2.9 body', async () => {
    const answer = await create({ campaign_type: 'VIDEO', daily_budget_micros: 'ten', landing_page: 'not a url' });
    expect(answer.status).toBe(422);
    const locs = answer.body.detail.map((item: { loc: string[] }) => item.loc.join('.'));
    expect(locs).toEqual(expect.arrayContaining(['body.campaign_name', 'body.campaign_type', 'body.daily_budget_micros', 'body.landing_page']));
    for (const item of answer.body.detail) expect(Object.keys(item).sort()).toEqual(['loc', 'msg', 'type']);
  });

  it('answers 422 for a body that is not a JSON object', async () => {
    const answer = await create([1, 2]);
    expect(answer.status).toBe(422);
    expect(answer.body.detail[0].loc).toEqual(['body']);
  });

  it('answers 403 to a viewer of the app', async () => {
    const answer = await create(smartBody(), 'pat_demo_viewer');
    expect(answer.status).toBe(403);
  });

  it('creates a PERFORMANCE_MAX campaign with its phone number as a call asset', async () => {
    const answer = await create(pmaxBody({ phone_number: '+4930123456' }));
    expect(answer.status).toBe(200);
    const stored = s.sandbox.simulation.inspect().campaigns.find((c) => c.id === answer.body.id);
    expect(stored?.details.phone_asset).toBe('call_asset');
  });

  it('answers 409 when adnet does not answer, and the campaign may exist anyway', async () => {
    s.sandbox.simulation.scenario('adnet_unreachable');
    const answer = await create(smartBody());
    expect(answer.status).toBe(409);
    const stored = s.sandbox.simulation.inspect().campaigns.at(-1);
    expect(stored).toMatchObject({ id: 'cmp_0001', adnet_campaign_id: '' });
  });
});
