import { describe, expect, it } from 'vitest';
import { call, paths, useSandbox } from './helpers.js';

describe('sandbox 4.8 monitoring API', () => {
  const s = useSandbox();
  const analytics = (apiKey?: string, workspace = 'ws_demo') => call(s.sandbox, 'GET', paths.analytics(workspace), apiKey ? { apiKey } : {});

  it('answers the health check without a credential', async () => {
    const answer = await call(s.sandbox, 'GET', paths.health());
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe('healthy');
  });

  it('answers the analytics document to the owner', async () => {
    const answer = await analytics('key_demo_owner');
    expect(answer.status).toBe(200);
    expect(answer.body.summary).toMatchObject({ members: 5, credits_remaining: 500 });
    expect(answer.body.credit_pool).toMatchObject({ tier: 'enterprise', daily_message_limit: 5000, bonus_credits: 250, gift_card_balance_cents: 5000, over_daily_limit: false });
    expect(answer.body.member_allocations).toHaveLength(5);
    expect(answer.body.member_allocations.find((m: { user_id: string }) => m.user_id === 'usr_adam').over_limit).toBe(true);
  });

  it('keeps the deprecated seats and seat-type counts at zero and may carry unknown keys', async () => {
    const { body } = await analytics('key_demo_owner');
    expect(Object.values(body.seats).every((n) => n === 0)).toBe(true);
    expect(Object.values(body.user_distribution.by_seat_type).every((n) => n === 0)).toBe(true);
    const known = ['workspace_id', 'generated_at', 'summary', 'credit_pool', 'member_allocations', 'seats', 'user_distribution'];
    expect(Object.keys(body).filter((key) => !known.includes(key)).length).toBeGreaterThan(0);
  });

  it('counts the messages of the days asked for, and says which days those were', async () => {
    const get = (query: string) => call(s.sandbox, 'GET', `${paths.analytics('ws_demo')}${query}`, { apiKey: 'key_demo_owner' });
    const today = (await get('')).body;
    const day = today.generated_at.slice(0, 10);
    expect(today.period).toEqual({ from: `${day.slice(0, 8)}01`, to: day });
    expect(today.summary.messages_in_period).toBe(today.summary.messages_this_month);
    const onlyToday = (await get(`?from=${day}&to=${day}`)).body;
    expect(onlyToday.summary.messages_in_period).toBe(onlyToday.summary.messages_today);
    const future = (await get('?from=2999-01-01&to=2999-01-31')).body;
    expect(future.period).toEqual({ from: '2999-01-01', to: '2999-01-31' });
    expect(future.summary.messages_in_period).toBe(0);
  });

  it.each([['?from=11/01/2026', 'from'], ['?to=2026-13-45', 'to'], ['?from=2026-11-02&to=2026-11-01', 'from']])('refuses the range %s with a 422 naming %s', async (query, field) => {
    const answer = await call(s.sandbox, 'GET', `${paths.analytics('ws_demo')}${query}`, { apiKey: 'key_demo_owner' });
    expect(answer.status).toBe(422);
    expect(answer.body.detail[0].loc).toEqual(['query', field]);
  });

  it('answers an admin', async () => {
    expect((await analytics('key_demo_admin')).status).toBe(200);
  });

  it.each(['key_demo_member', 'key_demo_editor'])('answers 401 to %s, who is neither admin nor owner', async (key) => {
    const answer = await analytics(key);
    expect(answer.status).toBe(401);
    expect(answer.body.detail).toMatch(/admin or owner/);
  });

  it('answers 401 without a key, with an unknown key or with a workspace API key', async () => {
    expect((await analytics()).status).toBe(401);
    expect((await analytics('nope')).status).toBe(401);
    expect((await analytics('wsk_demo')).status).toBe(401);
  });

  it('answers 404 for a workspace that does not exist, as the real service does', async () => {
    const answer = await analytics('key_demo_owner', 'ws_nope');
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ detail: 'Workspace not found.' });
  });

  it('answers 401 for a workspace the key does not belong to', async () => {
    expect((await analytics('key_demo_owner', 'ws_eu')).status).toBe(401);
    expect((await analytics('key_eu_owner', 'ws_eu')).status).toBe(200);
  });
});
