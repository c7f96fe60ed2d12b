import { describe, expect, it } from 'vitest';
import { MAX_DISMISSALS } from '../../src/sandbox/routes/insights.js';
import { campaignWorld } from './campaign-world.js';
import { call, OWNER, paths, useSandbox } from './helpers.js';

const RESOURCE = 'customers/7100000001/recommendations/adnet_rec_budget_7100000001';
const applyPath = (app: string, id: string) => `${paths.campaigns(app)}/${id}/budget-recommendation/apply`;
const body = (extra: Record<string, unknown> = {}) => ({
  recommendation_resource_name: RESOURCE,
  recommended_daily_budget_micros: 35_000_000,
  recommendation_type: 'CAMPAIGN_BUDGET',
  ...extra,
});

interface Suggestion {
  id: string;
  recommendation_type?: string;
  recommendation_resource_name?: string;
  recommended_daily_budget_micros?: number;
}

describe('sandbox apply budget recommendation', () => {
  const s = useSandbox({ world: campaignWorld() });
  const apply = (extra: Record<string, unknown> = {}, app = 'app_demo', id = 'cmp_demo', token = OWNER) =>
    call(s.sandbox, 'POST', applyPath(app, id), { token, body: body(extra) });
  const suggestions = async (app = 'app_demo', id = 'cmp_demo'): Promise<Suggestion[]> => (await call(s.sandbox, 'GET', paths.suggestions(app, id), { token: OWNER })).body;
  const budget = async (app = 'app_demo', id = 'cmp_demo') => (await call(s.sandbox, 'GET', `${paths.campaigns(app)}/${id}`, { token: OWNER })).body.daily_budget_micros;

  it('gives CAMPAIGN_BUDGET suggestions a recommendation_resource_name and recommended_daily_budget_micros, and no other suggestion', async () => {
    const all = await suggestions();
    const budgets = all.filter((item) => item.recommendation_type === 'CAMPAIGN_BUDGET');
    expect(budgets[0]).toMatchObject({ id: 'adnet_rec_budget_7100000001', recommendation_resource_name: RESOURCE, recommended_daily_budget_micros: 35_000_000 });
    expect(budgets[1]?.recommendation_resource_name).toMatch(/^customers\/\d+\/recommendations\/adnet_rec_budget_7100009999$/);
    const others = all.filter((item) => item.recommendation_type !== 'CAMPAIGN_BUDGET');
    expect(others.every((item) => !('recommendation_resource_name' in item) && !('recommended_daily_budget_micros' in item))).toBe(true);
  });

  it('applies the current figure and answers {already_applied: false, daily_budget_micros}', async () => {
    const answer = await apply();
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ already_applied: false, daily_budget_micros: 35_000_000 });
    expect(await budget()).toBe(35_000_000);
  });

  it('answers already_applied the second time, changing nothing', async () => {
    await apply();
    const again = await apply();
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ already_applied: true, daily_budget_micros: 35_000_000 });
  });

  it('drops an applied recommendation from the suggestions', async () => {
    await apply();
    expect((await suggestions()).map((item) => item.id)).not.toContain('adnet_rec_budget_7100000001');
  });

  it('answers 409 when the figure changed since it was read, and applies the new figure once read again', async () => {
    s.sandbox.simulation.scenario('budget_recommendation_changed');
    const stale = await apply();
    expect(stale.status).toBe(409);
    expect(stale.body.detail).toMatch(/changed since it was read/);
    expect(await budget()).toBe(20_000_000);
    const fresh = (await suggestions()).find((item) => item.recommendation_resource_name === RESOURCE);
    expect(fresh?.recommended_daily_budget_micros).toBe(40_000_000);
    expect((await apply({ recommended_daily_budget_micros: 40_000_000 })).body).toEqual({ already_applied: false, daily_budget_micros: 40_000_000 });
  });

  it('answers 409 when the budget is shared with campaigns not managed here', async () => {
    const answer = await apply(
      { recommendation_resource_name: 'customers/7100000050/recommendations/adnet_rec_budget_shared', recommended_daily_budget_micros: 15_000_000 },
      'app_shop',
      'cmp_shared',
    );
    expect(answer.status).toBe(409);
    expect(answer.body.detail).toMatch(/shared with campaigns not managed here/);
    expect(await budget('app_shop', 'cmp_shared')).toBe(10_000_000);
  });

  it('answers 409 for a recommendation that targets a campaign the app does not manage', async () => {
    const orphan = (await suggestions()).find((item) => item.id === 'adnet_rec_budget_7100009999')!;
    const answer = await apply({ recommendation_resource_name: orphan.recommendation_resource_name, recommended_daily_budget_micros: 15_000_000 });
    expect(answer.status).toBe(409);
    expect(await budget()).toBe(20_000_000);
  });

  it('answers 404 for a resource name the campaign has no budget recommendation for', async () => {
    expect((await apply({ recommendation_resource_name: 'customers/1/recommendations/nope' })).status).toBe(404);
    expect((await apply({}, 'app_demo', 'cmp_quiet')).status).toBe(404);
  });

  it('answers 422 for a body without the documented fields', async () => {
    const answer = await call(s.sandbox, 'POST', applyPath('app_demo', 'cmp_demo'), {
      token: OWNER,
      body: { recommendation_resource_name: RESOURCE, recommended_daily_budget_micros: '35000000' },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.detail.map((item: { loc: string[] }) => item.loc.join('.'))).toEqual(['body.recommended_daily_budget_micros', 'body.recommendation_type']);
  });

  it('answers 400 on a deleted campaign', async () => {
    await call(s.sandbox, 'DELETE', `${paths.campaigns('app_demo')}/cmp_demo`, { token: OWNER });
    expect((await apply()).status).toBe(400);
  });

  it('answers 504 (not 409, which is a sure refusal here) when adnet does not answer, and the budget changed anyway', async () => {
    s.sandbox.simulation.scenario('adnet_unreachable');
    expect((await apply()).status).toBe(504);
    expect(await budget()).toBe(35_000_000);
  });

  it('refuses a read-only token and a viewer', async () => {
    expect((await apply({}, 'app_demo', 'cmp_demo', 'pat_demo_owner_ro')).status).toBe(403);
    expect((await apply({}, 'app_demo', 'cmp_demo', 'pat_demo_viewer')).status).toBe(403);
    expect(await budget()).toBe(20_000_000);
  });
});

describe('sandbox dismiss insight', () => {
  const s = useSandbox({ world: campaignWorld() });
  const dismiss = (insightId: string, app = 'app_demo', token = OWNER) =>
    call(s.sandbox, 'POST', `/api/apps/${app}/adnet-ads/analytics/insights/dismiss?insight_id=${encodeURIComponent(insightId)}`, { token });
  const ids = async (app: string, id: string) =>
    ((await call(s.sandbox, 'GET', paths.suggestions(app, id), { token: OWNER })).body as Suggestion[]).map((item) => item.id);

  it('answers {"dismissed": true} and hides the suggestion', async () => {
    const answer = await dismiss('sug_cmp_demo_budget');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ dismissed: true });
    expect(await ids('app_demo', 'cmp_demo')).not.toContain('sug_cmp_demo_budget');
  });

  it('hides it for every campaign of the workspace, whatever app the call named', async () => {
    expect(await ids('app_shop', 'cmp_settled')).toContain('adnet_rec_strength_shared');
    await dismiss('adnet_rec_strength_shared', 'app_demo');
    expect(await ids('app_shop', 'cmp_shared')).not.toContain('adnet_rec_strength_shared');
    expect(await ids('app_shop', 'cmp_settled')).not.toContain('adnet_rec_strength_shared');
  });

  it('answers 200 for an unknown id and for a second dismissal', async () => {
    expect((await dismiss('never_existed')).body).toEqual({ dismissed: true });
    await dismiss('sug_cmp_demo_budget');
    expect((await dismiss('sug_cmp_demo_budget')).status).toBe(200);
  });

  it('answers 422 for a missing insight_id or one over 200 characters', async () => {
    expect((await call(s.sandbox, 'POST', '/api/apps/app_demo/adnet-ads/analytics/insights/dismiss', { token: OWNER })).status).toBe(422);
    expect((await dismiss('x'.repeat(201))).status).toBe(422);
    expect((await dismiss('x'.repeat(200))).status).toBe(200);
  });

  it('refuses a read-only token and a viewer', async () => {
    expect((await dismiss('sug_cmp_demo_budget', 'app_demo', 'pat_demo_owner_ro')).status).toBe(403);
    expect((await dismiss('sug_cmp_demo_budget', 'app_demo', 'pat_demo_viewer')).status).toBe(403);
    expect(await ids('app_demo', 'cmp_demo')).toContain('sug_cmp_demo_budget');
  });

  it(`keeps the last ${MAX_DISMISSALS} dismissals, so a very old one reappears`, async () => {
    await dismiss('sug_cmp_demo_budget');
    for (let i = 0; i < MAX_DISMISSALS; i++) await dismiss(`filler_${i}`);
    expect(await ids('app_demo', 'cmp_demo')).toContain('sug_cmp_demo_budget');
  });
});
