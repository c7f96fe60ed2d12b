import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connect, type Harness } from '../../helpers.js';
import { APP } from './fixtures.js';

const PATH = `/api/apps/${APP}/adnet-ads/analytics/insights/dismiss`;

describe('dismiss_campaign_suggestion', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await connect();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  const dismiss = (insight_id: string) => h.call('dismiss_campaign_suggestion', { app_id: APP, insight_id });

  it('posts the insight_id as a query parameter with the bearer token, at once, and says it is account-wide and final', async () => {
    h.sandbox.script({ status: 200, body: { dismissed: true } });
    const result = await dismiss('sug_cmp_1_budget');
    expect(h.sandbox.requests).toHaveLength(1);
    const [request] = h.sandbox.requests;
    expect(request?.method).toBe('POST');
    expect(request?.rawPath).toBe(PATH);
    expect(request?.query).toBe('insight_id=sug_cmp_1_budget');
    expect(request?.headers.authorization).toBe(`Bearer ${h.config.accessToken}`);
    expect(request?.body).toBeUndefined();
    expect(result.isError).toBe(false);
    expect(result.text).toMatchInlineSnapshot(`
      "Dismissed suggestion sug_cmp_1_budget on app app_demo: it is hidden for the whole account (everyone in the workspace, every campaign) and cannot be undone through the API.
      The service answers the same for ids it does not know, so this does not confirm the id existed. It keeps a bounded number of dismissals, so a very old one can reappear.
      Next: Nothing more is needed; list_campaign_suggestions no longer shows it."
    `);
    expect(result.structured).toEqual({
      insight_id: 'sug_cmp_1_budget',
      dismissed: true,
      next: 'Nothing more is needed; list_campaign_suggestions no longer shows it.',
    });
  });

  it('encodes an insight_id with reserved characters into the query', async () => {
    h.sandbox.script({ status: 200, body: { dismissed: true } });
    await dismiss('a&b=c d/e');
    expect(h.sandbox.requests[0]?.rawPath).toBe(PATH);
    expect(new URLSearchParams(h.sandbox.requests[0]?.query).get('insight_id')).toBe('a&b=c d/e');
  });

  it('hides a default-world suggestion from list_campaign_suggestions', async () => {
    const before = await h.call('list_campaign_suggestions', { app_id: APP, campaign_id: 'cmp_demo' });
    expect(before.text).toContain('- sug_cmp_demo_low_ctr ');
    expect((await dismiss('sug_cmp_demo_low_ctr')).isError).toBe(false);
    const after = await h.call('list_campaign_suggestions', { app_id: APP, campaign_id: 'cmp_demo' });
    expect(after.text).not.toContain('sug_cmp_demo_low_ctr');
    expect(after.structured?.count).toBe((before.structured?.count as number) - 1);
  });

  it('succeeds for an unknown id and for a second dismissal', async () => {
    expect((await dismiss('never_existed')).isError).toBe(false);
    expect((await dismiss('never_existed')).isError).toBe(false);
  });

  it('reports dismissed: false as a failure', async () => {
    h.sandbox.script({ status: 200, body: { dismissed: false } });
    const result = await dismiss('x');
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^The service answered dismissed: false for x: the suggestion may still show\./);
  });

  it('rejects an insight_id over 200 characters, and sends nothing', async () => {
    const result = await dismiss('x'.repeat(201));
    expect(result.isError).toBe(true);
    expect(result.text).toContain('insight_id');
    expect(h.sandbox.requests).toHaveLength(0);
  });

  it.each([
    [403, /^403: Not allowed: dismissing needs a full-access token/],
    [422, /^422: The service refused the insight_id/],
  ])('explains %i', async (status, expected) => {
    h.sandbox.script({ status, body: { detail: 'Refused' } });
    const result = await dismiss('x');
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(expected);
  });
});
