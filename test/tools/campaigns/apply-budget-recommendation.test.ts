import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect, type Harness } from '../../helpers.js';
import { APP, CAMPAIGN, CAMPAIGN_PATH } from './fixtures.js';

const RESOURCE = 'customers/7100000001/recommendations/rec_budget_1';
const ARGS = { app_id: APP, campaign_id: 'cmp_1', recommendation_resource_name: RESOURCE, recommended_daily_budget_micros: 35_000_000 };
const PATH = `${CAMPAIGN_PATH()}/budget-recommendation/apply`;
const SUGGESTIONS_PATH = `${CAMPAIGN_PATH()}/optimization-suggestions`;
/** The suggestion list the warning reads: the recommendation, acting on cmp_1, at the amount of ARGS. */
const SUGGESTIONS = [
  {
    id: 'rec_budget_1',
    severity: 'high',
    title: 'Raise your budget',
    description: 'Limited by budget.',
    action: 'edit_budget',
    action_payload: { campaign_ids: ['cmp_1'], field: 'daily_budget_micros', value: 35_000_000 },
    source: 'adnet',
    recommendation_type: 'CAMPAIGN_BUDGET',
    recommendation_resource_name: RESOURCE,
    recommended_daily_budget_micros: 35_000_000,
  },
];

describe('apply_budget_recommendation', () => {
  let h: Harness;
  // A fresh server per test: the confirmation gate remembers warnings across calls.
  beforeEach(async () => {
    h = await connect();
  });
  afterEach(() => h.close());

  const apply = (extra: Record<string, unknown> = {}) => h.call('apply_budget_recommendation', { ...ARGS, ...extra });
  const writes = () => h.sandbox.requests.filter((request) => request.method !== 'GET');
  /** Scripts the warning's two reads: the campaign, then its suggestions. */
  function reads(campaign: Record<string, unknown> = CAMPAIGN, suggestions: unknown = SUGGESTIONS) {
    h.sandbox.script({ method: 'GET', path: CAMPAIGN_PATH(), status: 200, body: campaign });
    h.sandbox.script({ method: 'GET', path: SUGGESTIONS_PATH, status: 200, body: suggestions });
  }
  async function confirmed(answer: { status: number; body?: unknown }) {
    reads();
    await apply();
    h.sandbox.script({ method: 'POST', ...answer });
    return apply({ confirm: true });
  }

  it('first reads the current budget and warns with current → new and the monthly difference, sending no write', async () => {
    reads();
    const result = await apply();
    expect(h.sandbox.requests.map((r) => `${r.method} ${r.rawPath}`)).toEqual([`GET ${CAMPAIGN_PATH()}`, `GET ${SUGGESTIONS_PATH}`]);
    expect(result.isError).toBe(false);
    expect(result.text).toMatchInlineSnapshot(`
      "CONFIRMATION NEEDED. Nothing was sent.
      Apply the budget recommendation to campaign cmp_1 ("Spring sale") on app app_demo: daily budget 20.00 → 35.00.
      Request body (exactly what is sent):
      - recommendation_resource_name: "customers/7100000001/recommendations/rec_budget_1"
      - recommended_daily_budget_micros: 35000000 (35.00 a day)
      - recommendation_type: CAMPAIGN_BUDGET
      The amount confirms the recommendation's figure and cannot be another: the service applies the ad platform's current figure, and answers 409 if that changed meanwhile (or if the budget is shared with campaigns not managed here).
      If it is applied meanwhile, the service answers already_applied and changes nothing.
      Cost: daily budget 20.00 → 35.00 in the account currency: roughly +456.00 a month (about 1064.00 a month in all); real money while it serves.
      Next: Show this to the user; only if they agree, call apply_budget_recommendation again with the same arguments plus confirm: true within 10 minutes."
    `);
  });

  it('shows a lower budget as a monthly decrease, and notes a paused campaign spends nothing yet', async () => {
    reads({ ...CAMPAIGN, status: 'PAUSED', daily_budget_micros: 50_000_000 });
    const result = await apply();
    expect(result.structured?.cost).toBe('daily budget 50.00 → 35.00 in the account currency: roughly -456.00 a month (about 1064.00 a month in all); real money while it serves.');
    expect(result.text).toContain('The campaign is PAUSED: nothing is spent until it is resumed.');
  });

  it('confirmed, sends exactly one POST with the three documented body fields and reports the new budget', async () => {
    const result = await confirmed({ status: 200, body: { already_applied: false, daily_budget_micros: 35_000_000 } });
    expect(writes()).toHaveLength(1);
    const [request] = writes();
    expect(request?.method).toBe('POST');
    expect(request?.rawPath).toBe(PATH);
    expect(request?.headers.authorization).toBe(`Bearer ${h.config.accessToken}`);
    expect(request?.headers['content-type']).toMatch(/^application\/json/);
    expect(request?.body).toEqual({ recommendation_resource_name: RESOURCE, recommended_daily_budget_micros: 35_000_000, recommendation_type: 'CAMPAIGN_BUDGET' });
    expect(result.text).toMatchInlineSnapshot(`
      "Applied the budget recommendation to campaign cmp_1 on app app_demo: daily budget 35.00 a day, roughly 1064.00 a month; real money while it serves.
      Next: Read the campaign back with get_ad_campaign {"app_id":"app_demo","campaign_id":"cmp_1"} to see its budget and whether it serves."
    `);
    expect(result.structured).toMatchObject({ confirmation_needed: false, campaign_id: 'cmp_1', already_applied: false, daily_budget: 35 });
  });

  it('says so when the service answers already_applied: nothing changed', async () => {
    const result = await confirmed({ status: 200, body: { already_applied: true, daily_budget_micros: 35_000_000 } });
    expect(result.text).toMatch(/^Already applied: this recommendation was applied to campaign cmp_1 earlier; nothing changed now\. Now: daily budget 35\.00 a day/);
    expect(result.structured).toMatchObject({ already_applied: true, daily_budget: 35 });
  });

  it('answers a 409 as a sure refusal, saying which, not as an unknown outcome, and points at reading the suggestions again', async () => {
    const result = await confirmed({ status: 409, body: { detail: 'The recommended budget changed since it was read' } });
    expect(result.isError).toBe(true);
    expect(result.text).toMatchInlineSnapshot(`
      "REFUSED (409): the ad platform's recommended figure changed since it was read, or the campaign's budget is shared with campaigns not managed here. Nothing changed. The service said: "The recommended budget changed since it was read"
      Next: Read the suggestions again with list_campaign_suggestions for this campaign: a new figure needs a new warning with it. A shared budget can only be changed at the ad platform."
    `);
    expect(result.text).not.toMatch(/UNKNOWN|may or may not/);
    expect(result.structured).toEqual({ error: expect.stringMatching(/^REFUSED \(409\)/), next: expect.stringMatching(/^Read the suggestions again with list_campaign_suggestions/) });
    expect(writes()).toHaveLength(1);
    // Nothing is remembered as an unknown outcome: the next warning names no earlier attempt.
    reads();
    const warning = await apply();
    expect(warning.text).not.toMatch(/Earlier attempt|ALREADY DONE/);
  });

  it('keeps a 500 an unknown outcome', async () => {
    const result = await confirmed({ status: 500, body: { detail: 'boom' } });
    expect(result.text).toMatch(/^OUTCOME UNKNOWN: the service answered 500\. The budget may or may not have changed\. Read the campaign back with get_ad_campaign before trying again\./);
  });

  it.each([
    [404, /^404: App, campaign or recommendation not found\. Read the suggestions again/],
    [422, /^422: The service refused the request: pass recommendation_resource_name and recommended_daily_budget_micros exactly/],
    [400, /^400: The campaign's budget cannot be changed/],
  ])('explains %i on the confirmed call', async (status, expected) => {
    const result = await confirmed({ status, body: { detail: 'Refused' } });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(expected);
  });

  it.each([
    ['is not listed', [], /^Refused: no budget suggestion of campaign cmp_1 names "customers\/7100000001\/recommendations\/rec_budget_1" now/],
    ['acts on no campaign of the app', [{ ...SUGGESTIONS[0], action: null, action_payload: { campaign_ids: [] } }], /^Refused: this recommendation is for an ad-platform campaign not managed here/],
    ['acts on another campaign', [{ ...SUGGESTIONS[0], action_payload: { campaign_ids: ['cmp_2'] } }], /^Refused: this recommendation is for an ad-platform campaign not managed here/],
    ['shows another amount now', [{ ...SUGGESTIONS[0], recommended_daily_budget_micros: 40_000_000 }], /^Refused: recommended_daily_budget_micros 35000000 \(35\.00 a day\) is not this recommendation's figure: it recommends 40000000 \(40\.00 a day\) now\./],
  ])('refuses a recommendation that %s, remembering nothing', async (_case, suggestions, message) => {
    reads(CAMPAIGN, suggestions);
    const result = await apply();
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(message);
    expect(result.text).toContain('Nothing was sent.');
    expect((await apply({ confirm: true })).text).toMatch(/^NOT SENT: confirm: true needs a pending warning/);
    expect(writes()).toHaveLength(0);
  });

  it('refuses a deleted campaign in the warning, sending nothing', async () => {
    h.sandbox.script({ status: 200, body: { ...CAMPAIGN, status: 'REMOVED' } });
    const result = await apply();
    expect(result.text).toBe('Campaign cmp_1 is deleted (REMOVED): its budget cannot change. Nothing was sent.');
    expect(writes()).toHaveLength(0);
  });

  it.each([
    [{ recommended_daily_budget_micros: 0 }, 'recommended_daily_budget_micros: must be the positive whole number'],
    [{ recommended_daily_budget_micros: 2.5 }, 'recommended_daily_budget_micros: must be the positive whole number'],
    [{ recommendation_resource_name: '  ' }, 'recommendation_resource_name: must be the name the suggestion shows'],
  ])('checks %j locally, on both calls, and sends nothing', async (change, message) => {
    for (const confirm of [undefined, true]) {
      const result = await apply({ ...change, ...(confirm ? { confirm } : {}) });
      expect(result.isError).toBe(true);
      expect(result.text).toContain(message);
    }
    expect(h.sandbox.requests).toHaveLength(0);
  });

  it('refuses an amount above APPMGMT_MAX_DAILY_BUDGET_MICROS, naming the cap', async () => {
    await h.close();
    h = await connect({ config: { maxDailyBudgetMicros: 30_000_000 } });
    const result = await apply();
    expect(result.text).toBe(
      'Refused: the recommended daily budget 35.00 is above the cap of 30.00 a day set by APPMGMT_MAX_DAILY_BUDGET_MICROS on this server. Ask whoever runs the server to raise the cap. Nothing was sent.',
    );
    expect(h.sandbox.requests).toHaveLength(0);
  });
});
