import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connect, type Harness } from '../helpers.js';

const CAMPAIGN = 'cmp_8d2e4f1a';
const PATH = `/api/apps/app_demo/adnet-ads/campaigns/${CAMPAIGN}/optimization-suggestions`;
const args = { app_id: 'app_demo', campaign_id: CAMPAIGN };
const RESOURCE = 'customers/7100000001/recommendations/rec_budget';

const DESCRIPTIONS = [
  'This campaign used its whole daily budget on 11 of the last 14 days, so its ads stopped showing early in the afternoon and missed searches from people who were ready to sign up. Raising the daily budget lets the ads run all day; the ad platform estimates about 40% more clicks at a similar cost per click. If a higher budget is not possible, narrow the keyword themes or the locations instead so the budget goes to the searches that convert best.',
  'Your ads currently show only two extra links, below the four that ads need to show links at all on most placements. Add at least two more sitelinks pointing to useful pages such as pricing, features, contact or sign-up, each with a short text of up to 25 characters. More links make the ad larger and give people more reasons to click, which usually lifts the click-through rate within a week.',
  'Ad strength dropped from Good to Poor after some headlines were removed. Ads with poor strength are shown less often and cost more per click. Add headlines that mention your main product, a benefit and a call to action, and make sure at least three of them differ clearly from each other. Adding one or two more descriptions and a square image also helps the ad platform build better combinations.',
  'Clicks fell by 30% this week compared with the week before while impressions stayed level, so fewer people who see the ads are clicking. Open the campaign and check whether a competitor changed its offer, whether the landing page still loads quickly on phones, and whether the ad text still matches what people search for. Nothing is wrong with the account or billing.',
];
const TITLES = ['Raise the daily budget to capture missed searches', 'Add more sitelinks', 'Ad strength dropped to Poor', 'Clicks fell 30% this week'];
const ACTIONS = ['edit_budget', 'edit_sitelinks', 'improve_assets', 'open_campaign'];
const SEVERITIES = ['low', 'high', 'medium'];

/** A large, representative answer: long descriptions, mixed severities, every fifth from adnet. */
function suggestions(count: number) {
  return Array.from({ length: count }, (_, index) => {
    const kind = index % 4;
    return {
      id: `sug_${(0x5a3f10 + index * 7919).toString(16)}`,
      severity: SEVERITIES[index % 3],
      title: TITLES[kind],
      description: DESCRIPTIONS[kind],
      action: ACTIONS[kind],
      action_payload: {
        campaign_ids: [CAMPAIGN],
        field: kind === 0 ? 'daily_budget_micros' : '',
        value: kind === 0 ? 35_000_000 + index * 500_000 : 0,
      },
      ...(index % 5 === 0 ? { source: 'adnet', recommendation_type: kind === 0 ? 'CAMPAIGN_BUDGET' : 'AD_STRENGTH_DROP' } : {}),
    };
  });
}

/** A small mixed answer, in the API's (unsorted) order. */
const mixed = [
  {
    id: 'sug_low1',
    severity: 'low',
    title: 'Add more sitelinks',
    description: DESCRIPTIONS[1],
    action: 'edit_sitelinks',
    action_payload: { campaign_ids: [CAMPAIGN], field: 'sitelinks', value: 0 },
  },
  {
    id: 'rec_budget',
    severity: 'high',
    title: 'Raise the daily budget to capture missed searches',
    description: DESCRIPTIONS[0],
    action: 'edit_budget',
    action_payload: { campaign_ids: [CAMPAIGN], field: 'daily_budget_micros', value: 42_500_000 },
    source: 'adnet',
    recommendation_type: 'CAMPAIGN_BUDGET',
    recommendation_resource_name: RESOURCE,
    recommended_daily_budget_micros: 42_500_000,
  },
  {
    id: 'sug_med1',
    severity: 'medium',
    title: 'Budget is uneven across your campaigns',
    description: 'Shift budget from "Brand" to this campaign.\nIt converts better.',
    action: 'open_campaign',
    action_payload: { campaign_ids: [CAMPAIGN, 'cmp_brand'], field: '', value: 0 },
  },
  {
    id: 'sug_high2',
    severity: 'high',
    title: 'Clicks fell 30% this week',
    description: DESCRIPTIONS[3],
    action: null,
    action_payload: { campaign_ids: [], field: '', value: 0 },
  },
];


/** The shown suggestions' facts, most severe first, from the structured result. */
function shown(structured: Record<string, unknown> | undefined): Array<{ id: string }> {
  return ['high', 'medium', 'low', 'other'].flatMap((severity) => (structured?.[severity] as Array<{ id: string }> | undefined) ?? []);
}
describe('list_campaign_suggestions', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await connect();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  it('gets the suggestions path with the bearer token and lists them most severe first, one line each', async () => {
    h.sandbox.script({ status: 200, body: mixed });
    h.sandbox.script({ status: 200, body: { id: CAMPAIGN, status: 'ENABLED' } });
    const result = await h.call('list_campaign_suggestions', args);
    // A budget recommendation is among them: the campaign is read too, to say what raising its budget means.
    expect(h.sandbox.requests.map((request) => request.rawPath)).toEqual([PATH, `/api/apps/app_demo/adnet-ads/campaigns/${CAMPAIGN}`]);
    const [request] = h.sandbox.requests;
    expect(request?.method).toBe('GET');
    expect(request?.rawPath).toBe(PATH);
    expect(request?.headers.authorization).toBe(`Bearer ${h.config.accessToken}`);
    expect(request?.body).toBeUndefined();
    expect(result.isError).toBe(false);
    const ids = ['rec_budget', 'sug_high2', 'sug_med1', 'sug_low1'];
    const positions = ids.map((id) => result.text.indexOf(`- ${id} `));
    expect(positions.every((position) => position > 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(result.text).toContain('- rec_budget "Raise the daily budget to capture missed searches" edit_budget to 42.50/day [adnet CAMPAIGN_BUDGET]');
    expect(result.text).toContain('- sug_high2 "Clicks fell 30% this week" no action');
    expect(result.text).toContain('edit_sitelinks');
    expect(result.text).toContain('on cmp_8d2e4f1a, cmp_brand');
    expect(result.text).toContain(`  to apply: recommendation_resource_name "${RESOURCE}", recommended_daily_budget_micros 42500000`);
    expect(result.text).toContain('Apply a CAMPAIGN_BUDGET suggestion with apply_budget_recommendation');
    expect(result.text).not.toContain('not a tool here');
    expect(result.text).not.toContain('may be missing');
    expect(result.text).toMatchSnapshot();
    expect(result.structured).toEqual({
      campaign_id: CAMPAIGN,
      count: 4,
      adnet_included: true,
      high: [
        {
          id: 'rec_budget',
          action: 'edit_budget',
          daily_budget: 42.5,
          source: 'adnet',
          recommendation_type: 'CAMPAIGN_BUDGET',
          recommendation_resource_name: RESOURCE,
          recommended_daily_budget_micros: 42_500_000,
        },
        { id: 'sug_high2' },
      ],
      medium: [{ id: 'sug_med1', action: 'open_campaign', campaign_ids: [CAMPAIGN, 'cmp_brand'] }],
      low: [{ id: 'sug_low1', action: 'edit_sitelinks' }],
      next: `Raising the budget spends more, so it is the user's choice: only if they choose it, call apply_budget_recommendation {"app_id":"app_demo","campaign_id":"${CAMPAIGN}","recommendation_resource_name":"${RESOURCE}","recommended_daily_budget_micros":42500000} (they confirm first). Its spend and conversions: list_ad_campaigns {"app_id":"app_demo","include_metrics":true}.`,
    });
  });

  it('never makes spending the default step, and says when the campaign is paused', async () => {
    h.sandbox.script({ status: 200, body: mixed });
    h.sandbox.script({ status: 200, body: { id: CAMPAIGN, status: 'PAUSED' } });
    const result = await h.call('list_campaign_suggestions', args);
    expect(result.structured?.next).toMatch(/^Raising the budget spends more, so it is the user's choice: only if they choose it, call apply_budget_recommendation /);
    expect(result.structured?.next).toContain('The campaign is PAUSED: a higher budget spends nothing until it is resumed, and resuming spends.');
  });

  it('says a suggestion without an action only proposes its budget', async () => {
    const proposal = { ...mixed[1], id: 'rec_noaction', action: null };
    h.sandbox.script({ status: 200, body: [proposal] });
    const result = await h.call('list_campaign_suggestions', args);
    expect(result.text).toContain('- rec_noaction "Raise the daily budget to capture missed searches" no action (proposes 42.50/day)');
    expect(result.text).not.toMatch(/no action to /);
  });

  it('offers no budget recommendation to apply when its campaign could not be resolved or it names no resource', async () => {
    const orphan = { ...mixed[1], id: 'rec_orphan', action: null, action_payload: { campaign_ids: [], field: 'daily_budget_micros', value: 15_000_000 } };
    const unnamed = { ...mixed[1], id: 'rec_unnamed', recommendation_resource_name: undefined };
    h.sandbox.script({ status: 200, body: [orphan, unnamed] });
    const result = await h.call('list_campaign_suggestions', args);
    expect(result.text).toContain('- rec_orphan');
    expect(result.text.match(/  to apply: /g)).toHaveLength(1); // the orphan only: the unnamed one cannot be applied
    expect(result.structured?.high).toEqual([
      expect.objectContaining({ id: 'rec_orphan', recommendation_resource_name: RESOURCE }),
      expect.not.objectContaining({ recommendation_resource_name: expect.anything() }),
    ]);
    expect(result.structured?.next).toBe(
      'Act on a suggestion in the service, or hide one for the whole workspace with dismiss_campaign_suggestion {"app_id":"app_demo","insight_id":"rec_orphan"}.',
    );
  });

  it('keeps the API order within a severity and puts unknown severities last', async () => {
    const body = ['low', 'urgent', 'high', 'low', 'high', 'medium'].map((severity, index) => ({
      id: `s${index}`,
      severity,
      title: `T${index}`,
      description: '',
      action: null,
      action_payload: { campaign_ids: [], field: '', value: 0 },
    }));
    h.sandbox.script({ status: 200, body });
    const result = await h.call('list_campaign_suggestions', args);
    const order = shown(result.structured).map((fact) => fact.id);
    expect(order).toEqual(['s2', 's4', 's5', 's0', 's3', 's1']);
    expect(result.text).toContain('(2 high, 1 medium, 2 low, 1 other)');
  });

  it('quotes and trims descriptions, and shows them only for the most severe few', async () => {
    h.sandbox.script({ status: 200, body: mixed });
    const { text } = await h.call('list_campaign_suggestions', args);
    expect(text).toContain(`"${DESCRIPTIONS[0]!.slice(0, 60)}`);
    expect(text).toContain(`"Shift budget from 'Brand' to this campaign. It converts better."`);
    expect(text).not.toContain(DESCRIPTIONS[1]!.slice(0, 60)); // fourth in order: no description
    const quoted = text.split('\n').filter((line) => line.startsWith('  "'));
    expect(quoted).toHaveLength(3);
    expect(quoted.every((line) => line.length <= 2 + 82)).toBe(true);
  });

  it('quotes severities, actions and sources that do not look like plain values', async () => {
    h.sandbox.script({
      status: 200,
      body: [{ id: 'x1', severity: 'now: obey', title: 'T', action: 'run this', action_payload: null, source: 'adnet', recommendation_type: 'A B' }],
    });
    const { text } = await h.call('list_campaign_suggestions', args);
    expect(text).toContain('\n"now: obey":\n- x1 "T" "run this" [adnet "A B"]');
  });

  it('says nothing needs attention for an empty list, and that adnet recommendations may be missing', async () => {
    h.sandbox.script({ status: 200, body: [] });
    const result = await h.call('list_campaign_suggestions', args);
    expect(result.isError).toBe(false);
    expect(result.text).toMatch(/^Nothing needs attention for campaign cmp_8d2e4f1a/);
    expect(result.text).toContain('may be missing because it can be unreachable');
    expect(result.structured).toEqual({
      campaign_id: CAMPAIGN,
      count: 0,
      adnet_included: false,
      high: [],
      medium: [],
      low: [],
      next: 'Nothing needs attention now; check again in a few days.',
    });
    expect(result.text).toMatchSnapshot();
  });

  it('notes that adnet recommendations may be missing when none came from the ad platform', async () => {
    h.sandbox.script({ status: 200, body: mixed.filter((suggestion) => !suggestion.source) });
    const result = await h.call('list_campaign_suggestions', args);
    expect(result.structured?.adnet_included).toBe(false);
    expect(result.text).toContain('No suggestion came from the ad platform (adnet): its recommendations may be missing');
    expect(result.text).not.toContain('apply_budget_recommendation');
    expect(result.text).toContain('Next: Act on a suggestion in the service, or hide one for the whole workspace with dismiss_campaign_suggestion');
    expect(result.text).toMatchSnapshot();
  });

  it('shows at most 30 suggestions and counts the rest', async () => {
    h.sandbox.script({ status: 200, body: suggestions(34) });
    const result = await h.call('list_campaign_suggestions', args);
    expect(result.structured?.count).toBe(34);
    expect(shown(result.structured)).toHaveLength(30);
    expect(result.text).toContain('4 more suggestions (same or lower severity) not shown: call again with skip: 30.');
    expect(result.structured?.next_skip).toBe(30);
    expect(result.structured?.next).toContain('"skip":30');
  });

  it('reaches every row: skip shows the rest, and the last part says nothing follows', async () => {
    const body = suggestions(34);
    h.sandbox.script({ status: 200, body });
    const first = await h.call('list_campaign_suggestions', args);
    h.sandbox.script({ status: 200, body });
    const rest = await h.call('list_campaign_suggestions', { ...args, skip: first.structured?.next_skip });
    const ids = (result: typeof first) => shown(result.structured).map((row) => (row as { id: string }).id);
    expect(new Set([...ids(first), ...ids(rest)]).size).toBe(34);
    expect(rest.text).toContain('34 suggestions for campaign');
    expect(rest.text).toContain('31 to 34 shown');
    expect(rest.structured?.next_skip).toBeUndefined();
    expect(rest.text).not.toContain('not shown');
  });

  it('stays within the token budget for 30 suggestions with long descriptions', async () => {
    const raw = suggestions(30);
    h.sandbox.script({ status: 200, body: raw });
    const result = await h.call('list_campaign_suggestions', args);
    const rawTokens = countTokens(JSON.stringify(raw));
    const resultTokens = countTokens(result.text) + countTokens(JSON.stringify(result.structured));
    expect(shown(result.structured)).toHaveLength(30);
    expect(resultTokens).toBeLessThanOrEqual(0.4 * rawTokens);
    expect(resultTokens).toBeLessThan(2_000);
  });

  it('stays under 2,000 tokens with long ids, titles and non-Latin text, showing fewer rows', async () => {
    const raw = suggestions(60).map((suggestion, index) => ({
      ...suggestion,
      id: `3f0c${index}e7a-91b2-4c5d-8e6f-a7b8c9d0e1f2`,
      title: `${suggestion.title} — ${'and a much longer explanation in the title itself '.repeat(4)}`,
      action_payload: { ...suggestion.action_payload, campaign_ids: [CAMPAIGN, 'cmp_other_1', 'cmp_other_2'] },
    }));
    const cjk = suggestions(30).map((suggestion) => ({ ...suggestion, title: '広告の強さが低下しました'.repeat(10), description: '広告'.repeat(200) }));
    for (const body of [raw, cjk]) {
      h.sandbox.script({ status: 200, body });
      const result = await h.call('list_campaign_suggestions', args);
      expect(countTokens(result.text) + countTokens(JSON.stringify(result.structured))).toBeLessThan(2_000);
      const count = shown(result.structured).length;
      expect(count).toBeLessThan(body.length);
      expect(result.text).toContain(`${body.length - count} more suggestions (same or lower severity) not shown: call again with skip: ${count}.`);
      expect(result.structured?.next).toContain(`"skip":${count}`);
    }
  });

  it('encodes the campaign id so it cannot change the path', async () => {
    h.sandbox.script({ status: 200, body: [] });
    await h.call('list_campaign_suggestions', { app_id: 'app_demo', campaign_id: 'c/../../x' });
    expect(h.sandbox.requests[0]?.rawPath).toBe('/api/apps/app_demo/adnet-ads/campaigns/c%2F..%2F..%2Fx/optimization-suggestions');
  });

  describe('errors', () => {
    it.each([
      [401, /^401: The access token is missing, invalid or expired\. Set APPMGMT_ACCESS_TOKEN/],
      [403, /^403: Not allowed: the token needs access to this app/],
      [404, /^404: App or campaign not found\. campaign_id must be the service's campaign id, not the adnet campaign ID\./],
    ])('explains %i for this operation', async (status, expected) => {
      h.sandbox.script({ status, body: { detail: 'Refused' } });
      const result = await h.call('list_campaign_suggestions', args);
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(expected);
      expect(result.text).toContain('Reason given: "Refused"');
      expect(Object.keys(result.structured ?? {})).toEqual(['error', 'next']);
      expect(h.sandbox.requests).toHaveLength(1);
    });

    it('names the read-only token as the cause of a 403 read_only_credential_route_not_allowed', async () => {
      h.sandbox.script({ status: 403, body: { detail: 'read_only_credential_route_not_allowed' } });
      const result = await h.call('list_campaign_suggestions', args);
      expect(result.isError).toBe(true);
      expect(result.text).toContain('the access token (APPMGMT_ACCESS_TOKEN) is read-only');
    });

    it('retries a 429 twice, then says when to retry', async () => {
      h.sandbox.script({ status: 429, headers: { 'retry-after': '0' }, times: 2 });
      h.sandbox.script({ status: 429, body: { detail: 'Slow down' }, headers: { 'retry-after': '9' } });
      const result = await h.call('list_campaign_suggestions', args);
      expect(h.sandbox.requests).toHaveLength(3);
      expect(h.sandbox.requests.every((request) => request.method === 'GET')).toBe(true);
      expect(result.isError).toBe(true);
      expect(result.text).toContain('429: Rate limited by the service.');
      expect(result.text).toContain('Retry after 9 s.');
    });

    it('shows a validation body as loc: msg lines', async () => {
      h.sandbox.script({ status: 422, body: { detail: [{ loc: ['path', 'campaign_id'], msg: 'Not a campaign id', type: 'value_error' }] } });
      const result = await h.call('list_campaign_suggestions', args);
      expect(result.isError).toBe(true);
      expect(result.text).toContain('- path.campaign_id: Not a campaign id');
    });
  });

  it('names APPMGMT_ACCESS_TOKEN and sends nothing when the token is missing', async () => {
    const bare = await connect({ config: { accessToken: undefined } });
    try {
      const result = await bare.call('list_campaign_suggestions', args);
      expect(result.isError).toBe(true);
      expect(result.text).toContain('APPMGMT_ACCESS_TOKEN');
      expect(bare.sandbox.requests).toHaveLength(0);
    } finally {
      await bare.close();
    }
  });

  it.each([
    [{ app_id: 'app_demo' }, 'campaign_id'],
    [{ app_id: 'app_demo', campaign_id: '..' }, 'campaign_id'],
    [{ app_id: 'app_demo', campaign_id: 42 }, 'campaign_id'],
    [{ ...args, include_metrics: false }, 'include_metrics'],
  ])('rejects invalid input %j naming the field, and sends nothing', async (input, field) => {
    const result = await h.call('list_campaign_suggestions', input);
    expect(result.isError).toBe(true);
    expect(result.text).toContain(field);
    expect(h.sandbox.requests).toHaveLength(0);
  });
});
