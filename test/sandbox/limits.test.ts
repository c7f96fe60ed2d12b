import { describe, expect, it } from 'vitest';
import { defaultWorld } from '../../src/sandbox/built-in-world.js';
import { startSandbox } from '../../src/sandbox/http.js';
import { call, OWNER, paths, useSandbox } from './helpers.js';

const MINUTE = 60_000;

describe('sandbox section 8 rate limits', () => {
  const s = useSandbox();
  /** Sends n requests and answers the statuses. */
  const burst = async (n: number, send: () => Promise<{ status: number }>) => {
    const statuses: number[] = [];
    for (let i = 0; i < n; i++) statuses.push((await send()).status);
    return statuses;
  };
  const toNextMinute = () => s.sandbox.clock.advance(MINUTE - (s.sandbox.clock.now() % MINUTE));

  it('limits email customization to 10 a minute per app times the plan multiplier, with Retry-After', async () => {
    toNextMinute();
    s.sandbox.clock.advance(15_000);
    const statuses = await burst(20, () => call(s.sandbox, 'POST', paths.email('app_demo', 'user_invite'), { token: OWNER }));
    expect(statuses.every((status) => status === 200)).toBe(true); // ws_demo's plan doubles the base of 10
    const limited = await call(s.sandbox, 'POST', paths.email('app_demo', 'user_invite'), { token: OWNER });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('45');
    expect((await call(s.sandbox, 'POST', paths.email('app_shop', 'user_invite'), { token: OWNER })).status).toBe(200);
    s.sandbox.clock.advance(45_000);
    expect((await call(s.sandbox, 'POST', paths.email('app_demo', 'user_invite'), { token: OWNER })).status).toBe(200);
  });

  it('shares the email limit of an app between every credential of the workspace', async () => {
    toNextMinute();
    const byToken = await burst(10, () => call(s.sandbox, 'POST', paths.email('app_demo', 'user_invite'), { token: OWNER }));
    const byKey = await burst(10, () => call(s.sandbox, 'POST', paths.email('app_demo', 'user_invite'), { apiKey: 'key_demo_editor' }));
    expect([...byToken, ...byKey].every((status) => status === 200)).toBe(true);
    expect((await call(s.sandbox, 'POST', paths.email('app_demo', 'user_invite'), { token: 'pat_demo_admin' })).status).toBe(429);
  });

  it('limits group sharing to 30 a minute shared by the workspace tokens, times the multiplier', async () => {
    toNextMinute();
    const body = { group_ids: ['grp_support'] };
    const first = await burst(30, () => call(s.sandbox, 'POST', paths.shares('app_demo'), { token: OWNER, body }));
    const second = await burst(30, () => call(s.sandbox, 'POST', paths.shares('app_shop'), { token: 'pat_demo_admin', body }));
    expect([...first, ...second].every((status) => status === 200)).toBe(true);
    const limited = await call(s.sandbox, 'POST', paths.shares('app_demo'), { token: 'pat_demo_editor', body });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('limits the other social-calendar operations to 40 a minute, times the multiplier', async () => {
    toNextMinute();
    const statuses = await burst(81, () => call(s.sandbox, 'GET', paths.job('app_demo', 'job_empty'), { apiKey: 'key_demo_owner' }));
    expect(statuses.filter((status) => status === 200)).toHaveLength(80);
    expect(statuses.at(-1)).toBe(429);
  });

  it('limits conflict resolution to 20 a minute per caller, times the multiplier', async () => {
    toNextMinute();
    const statuses = await burst(40, () => call(s.sandbox, 'POST', paths.resolve('app_shop'), { token: OWNER }));
    expect(statuses.every((status) => status === 200)).toBe(true);
    expect((await call(s.sandbox, 'POST', paths.resolve('app_shop'), { token: OWNER })).status).toBe(429);
    expect((await call(s.sandbox, 'POST', paths.resolve('app_shop'), { token: 'pat_demo_admin' })).status).toBe(200);
  });

  it('applies a workspace own base limit, still multiplied by its plan', async () => {
    const world = defaultWorld();
    world.workspaces[0]!.rate_limits = { email_customization: 3 };
    const other = await startSandbox({ world });
    try {
      const statuses = await burst(7, () => call(other, 'POST', paths.email('app_demo', 'user_invite'), { token: OWNER }));
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429]);
    } finally {
      await other.close();
    }
  });
});
