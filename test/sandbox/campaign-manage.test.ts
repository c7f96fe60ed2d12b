import { describe, expect, it } from 'vitest';
import { campaignWorld } from './campaign-world.js';
import { call, OWNER, paths, smartBody, useSandbox } from './helpers.js';

const campaign = (app: string, id: string) => `${paths.campaigns(app)}/${id}`;

describe('sandbox campaign list and get', () => {
  const s = useSandbox({ world: campaignWorld() });
  const list = (app = 'app_demo', query = '', token = OWNER) => call(s.sandbox, 'GET', `${paths.campaigns(app)}${query}`, { token });
  const get = (app: string, id: string, token = OWNER) => call(s.sandbox, 'GET', campaign(app, id), { token });

  it('lists the app campaigns as a JSON array, most spend first, with metrics pending and zero by default', async () => {
    const answer = await list();
    expect(answer.status).toBe(200);
    expect(answer.body.map((row: { id: string }) => row.id)).toEqual(['cmp_demo', 'cmp_quiet']);
    expect(answer.body[0]).toEqual({
      id: 'cmp_demo',
      adnet_campaign_id: '7100000001',
      campaign_name: 'Demo Planner - Spring launch',
      campaign_type: 'PERFORMANCE_MAX',
      status: 'ENABLED',
      daily_budget_micros: 20_000_000,
      start_date: '2026-10-03',
      primary_status: '',
      impressions: 0,
      clicks: 0,
      cost_micros: 0,
      conversions: 0,
      metrics_pending: true,
    });
  });

  it('fills impressions, clicks, cost and conversions with include_metrics=true', async () => {
    const answer = await list('app_demo', '?include_metrics=true');
    expect(answer.body[0]).toMatchObject({ id: 'cmp_demo', impressions: 27_000, clicks: 480, cost_micros: 270_000_000, conversions: 10, metrics_pending: false });
    expect(answer.body[1]).toMatchObject({ id: 'cmp_quiet', impressions: 5_600, clicks: 280, cost_micros: 56_000_000, conversions: 28 });
  });

  it('leaves primary_status empty on the list, while get gives it with its reasons', async () => {
    expect((await list()).body[0].primary_status).toBe('');
    const one = await get('app_demo', 'cmp_demo');
    expect(one.body).toMatchObject({ primary_status: 'LIMITED', primary_status_reasons: ['CAMPAIGN_BUDGET_LIMITED'] });
  });

  it('returns at most 50 campaigns, the ones with the most spend, and nothing says more exist', async () => {
    const answer = await list('app_wiki', '?include_metrics=true');
    expect(answer.body).toHaveLength(50);
    expect(answer.body[0].id).toBe('cmp_many_54');
    expect(answer.body.at(-1).id).toBe('cmp_many_5');
    expect(answer.headers.get('link')).toBeNull();
  });

  it('gives an empty start_date to a campaign that has not started', async () => {
    const answer = await list('app_eu', '', 'pat_eu_owner');
    expect(answer.body).toEqual([expect.objectContaining({ id: 'cmp_tracking', status: 'PAUSED', start_date: '' })]);
  });

  it('answers one campaign in the 2.3 shape', async () => {
    const answer = await get('app_demo', 'cmp_quiet');
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body).sort()).toEqual(
      [
        'id', 'adnet_campaign_id', 'campaign_name', 'campaign_type', 'status', 'daily_budget_micros', 'landing_page', 'geo_targets', 'phone_number',
        'review_status', 'serving_status', 'primary_status', 'primary_status_reasons', 'created_date', 'updated_date', 'learning_ends_at',
      ].sort(),
    );
    expect(answer.body).toMatchObject({ id: 'cmp_quiet', geo_targets: ['2840', '2124'], landing_page: 'https://demo-planner.sandbox.test/brand' });
  });

  it('answers 404 for an unknown campaign, another app\'s campaign, or the adnet id', async () => {
    expect((await get('app_demo', 'cmp_nope')).status).toBe(404);
    expect((await get('app_demo', 'cmp_shared')).status).toBe(404);
    expect((await get('app_demo', '7100000001')).status).toBe(404);
  });

  it('lets a viewer and a read-only token read, and refuses a workspace API key', async () => {
    expect((await list('app_demo', '', 'pat_demo_viewer')).status).toBe(200);
    expect((await get('app_demo', 'cmp_demo', 'pat_demo_owner_ro')).status).toBe(200);
    const refused = await call(s.sandbox, 'GET', paths.campaigns('app_demo'), { token: 'wsk_demo' });
    expect(refused.status).toBe(403);
  });
});

describe('sandbox campaign pause, resume and delete', () => {
  const s = useSandbox({ world: campaignWorld() });
  const act = (app: string, id: string, verb: 'pause' | 'resume' | 'delete', token = OWNER) =>
    verb === 'delete' ? call(s.sandbox, 'DELETE', campaign(app, id), { token }) : call(s.sandbox, 'POST', `${campaign(app, id)}/${verb}`, { token });
  const status = async (app: string, id: string, token = OWNER) => (await call(s.sandbox, 'GET', campaign(app, id), { token })).body.status;

  it('pauses an enabled campaign and answers {"action": "paused"}', async () => {
    const answer = await act('app_demo', 'cmp_demo', 'pause');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ action: 'paused' });
    expect(await status('app_demo', 'cmp_demo')).toBe('PAUSED');
  });

  it('pauses a paused campaign successfully, changing nothing', async () => {
    await act('app_demo', 'cmp_demo', 'pause');
    const before = (await call(s.sandbox, 'GET', campaign('app_demo', 'cmp_demo'), { token: OWNER })).body.updated_date;
    s.sandbox.clock.advance(60_000);
    expect((await act('app_demo', 'cmp_demo', 'pause')).status).toBe(200);
    expect((await call(s.sandbox, 'GET', campaign('app_demo', 'cmp_demo'), { token: OWNER })).body.updated_date).toBe(before);
  });

  it('pauses without a payment method', async () => {
    expect((await act('app_free', 'cmp_free', 'pause', 'pat_free_owner')).status).toBe(200);
    expect(await status('app_free', 'cmp_free', 'pat_free_owner')).toBe('PAUSED');
  });

  it('resumes a paused campaign and answers {"action": "resumed"}', async () => {
    await act('app_demo', 'cmp_demo', 'pause');
    const answer = await act('app_demo', 'cmp_demo', 'resume');
    expect(answer.body).toEqual({ action: 'resumed' });
    expect(await status('app_demo', 'cmp_demo')).toBe('ENABLED');
  });

  it('answers 402 to a resume without a payment method, and the campaign stays paused', async () => {
    await act('app_free', 'cmp_free', 'pause', 'pat_free_owner');
    const answer = await act('app_free', 'cmp_free', 'resume', 'pat_free_owner');
    expect(answer.status).toBe(402);
    expect(await status('app_free', 'cmp_free', 'pat_free_owner')).toBe('PAUSED');
  });

  it('answers 402 to a resume when the account is not in good standing, and the campaign stays paused', async () => {
    expect((await act('app_overdue', 'cmp_overdue', 'resume', 'pat_overdue_owner')).status).toBe(402);
    expect(await status('app_overdue', 'cmp_overdue', 'pat_overdue_owner')).toBe('PAUSED');
  });

  it('pauses again at once a campaign the service paused for unverified conversion tracking', async () => {
    const answer = await act('app_eu', 'cmp_tracking', 'resume', 'pat_eu_owner');
    expect(answer.status).toBe(200);
    expect(await status('app_eu', 'cmp_tracking', 'pat_eu_owner')).toBe('PAUSED');
  });

  it('treats a campaign created while tracking is unverified as paused by the service', async () => {
    const created = await call(s.sandbox, 'POST', paths.campaigns('app_eu'), { token: 'pat_eu_owner', body: smartBody({ contains_eu_political_advertising: false }) });
    expect(created.body.status).toBe('PAUSED');
    await act('app_eu', created.body.id, 'resume', 'pat_eu_owner');
    expect(await status('app_eu', created.body.id, 'pat_eu_owner')).toBe('PAUSED');
  });

  it('resumes a campaign the service paused once the reason no longer holds', async () => {
    expect((await act('app_shop', 'cmp_settled', 'resume')).status).toBe(200);
    expect(await status('app_shop', 'cmp_settled')).toBe('ENABLED');
  });

  it('deletes for good: status REMOVED, still listed and readable', async () => {
    const answer = await act('app_demo', 'cmp_quiet', 'delete');
    expect(answer.body).toEqual({ action: 'deleted' });
    const listed = await call(s.sandbox, 'GET', paths.campaigns('app_demo'), { token: OWNER });
    expect(listed.body).toContainEqual(expect.objectContaining({ id: 'cmp_quiet', status: 'REMOVED' }));
    expect(await status('app_demo', 'cmp_quiet')).toBe('REMOVED');
  });

  it('answers a second delete with 200 and changes nothing', async () => {
    await act('app_demo', 'cmp_quiet', 'delete');
    expect((await act('app_demo', 'cmp_quiet', 'delete')).status).toBe(200);
    expect(await status('app_demo', 'cmp_quiet')).toBe('REMOVED');
  });

  it('refuses to pause or resume a deleted campaign with 400', async () => {
    await act('app_demo', 'cmp_quiet', 'delete');
    expect((await act('app_demo', 'cmp_quiet', 'pause')).status).toBe(400);
    expect((await act('app_demo', 'cmp_quiet', 'resume')).status).toBe(400);
    expect(await status('app_demo', 'cmp_quiet')).toBe('REMOVED');
  });

  it.each(['pause', 'resume', 'delete'] as const)('answers 409 to %s when adnet does not answer, and applies it anyway', async (verb) => {
    if (verb === 'resume') await act('app_demo', 'cmp_demo', 'pause');
    s.sandbox.simulation.scenario('adnet_unreachable');
    const answer = await act('app_demo', 'cmp_demo', verb);
    expect(answer.status).toBe(409);
    expect(answer.body.detail).toMatch(/may or may not have been/);
    expect(await status('app_demo', 'cmp_demo')).toBe({ pause: 'PAUSED', resume: 'ENABLED', delete: 'REMOVED' }[verb]);
  });

  it.each(['pause', 'resume', 'delete'] as const)('refuses %s to a read-only token, a viewer and an unknown campaign', async (verb) => {
    expect((await act('app_demo', 'cmp_demo', verb, 'pat_demo_owner_ro')).status).toBe(403);
    expect((await act('app_demo', 'cmp_demo', verb, 'pat_demo_viewer')).status).toBe(403);
    expect((await act('app_demo', 'cmp_nope', verb)).status).toBe(404);
    expect(await status('app_demo', 'cmp_demo')).toBe('ENABLED');
  });
});
