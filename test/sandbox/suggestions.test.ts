import { describe, expect, it } from 'vitest';
import { call, OWNER, paths, useSandbox } from './helpers.js';

const DAY = 86_400_000;

describe('sandbox 4.3 list optimization suggestions', () => {
  const s = useSandbox();
  const list = (campaign: string, token = OWNER, app = 'app_demo') => call(s.sandbox, 'GET', paths.suggestions(app, campaign), { token });

  it('merges the service own suggestions with adnet ones marked by source and recommendation_type', async () => {
    const answer = await list('cmp_demo');
    expect(answer.status).toBe(200);
    const own = answer.body.filter((item: { source?: string }) => item.source === undefined);
    const adnet = answer.body.filter((item: { source?: string }) => item.source === 'adnet');
    expect(own.map((item: { action: string }) => item.action)).toEqual(['edit_budget', 'improve_assets', 'edit_sitelinks']);
    expect(own.every((item: object) => !('recommendation_type' in item))).toBe(true);
    expect(adnet.map((item: { recommendation_type: string }) => item.recommendation_type)).toEqual(['CAMPAIGN_BUDGET', 'AD_STRENGTH_DROP', 'CAMPAIGN_BUDGET']);
    expect(adnet[0]).toMatchObject({
      id: 'adnet_rec_budget_7100000001',
      action: 'edit_budget',
      action_payload: { campaign_ids: ['cmp_demo'], field: 'daily_budget_micros', value: 35_000_000 },
    });
    expect(own[0].action_payload).toEqual({ campaign_ids: ['cmp_demo'], field: 'daily_budget_micros', value: 30_000_000 });
  });

  it('sets action null when no campaign of the app matches an adnet recommendation', async () => {
    const answer = await list('cmp_demo');
    const orphan = answer.body.find((item: { id: string }) => item.id === 'adnet_rec_budget_7100009999');
    expect(orphan.action).toBeNull();
    expect(orphan.action_payload.campaign_ids).toEqual([]);
  });

  it('computes own suggestions only from metrics of the last 14 days', async () => {
    const now = await list('cmp_demo');
    // Older days hold 360 clicks and no conversions; they must not produce a suggestion.
    expect(now.body.map((item: { id: string }) => item.id)).not.toContain('sug_cmp_demo_no_conversions');
    s.sandbox.clock.advance(15 * DAY);
    const later = await list('cmp_demo');
    expect(later.body.filter((item: { source?: string }) => item.source === undefined)).toEqual([]);
    expect(later.body).toHaveLength(3);
  });

  it('answers an empty array when nothing needs attention', async () => {
    const answer = await list('cmp_quiet');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual([]);
  });

  it('answers 200 with only the service own suggestions when adnet is unreachable', async () => {
    s.sandbox.simulation.scenario('adnet_unreachable');
    const answer = await list('cmp_demo');
    expect(answer.status).toBe(200);
    expect(answer.body).toHaveLength(3);
    expect(answer.body.some((item: { source?: string }) => item.source === 'adnet')).toBe(false);
  });

  it('answers 404 for an unknown campaign, a campaign of another app, or the adnet id', async () => {
    expect((await list('cmp_nope')).status).toBe(404);
    expect((await list('7100000001')).status).toBe(404);
    expect((await list('cmp_demo', OWNER, 'app_shop')).status).toBe(404);
  });

  it('lets a viewer of the app read suggestions', async () => {
    const answer = await list('cmp_demo', 'pat_demo_viewer');
    expect(answer.status).toBe(200);
  });
});
