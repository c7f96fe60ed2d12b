import { afterEach, describe, expect, it, vi } from 'vitest';
import { startSandbox } from '../../src/sandbox/http.js';
import { call, OWNER, paths, smartBody, useSandbox } from './helpers.js';

describe('sandbox routing and control surface', () => {
  const s = useSandbox();
  afterEach(() => vi.restoreAllMocks());

  it('answers 404 Not Found for an unknown route', async () => {
    const answer = await call(s.sandbox, 'GET', '/api/apps/app_demo/nothing-here', { token: OWNER });
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ detail: 'Not Found' });
  });

  it('answers 405 for a known path with another method', async () => {
    const answer = await call(s.sandbox, 'GET', paths.push('app_demo'), { token: OWNER });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('POST');
  });

  it('restores the initial world on POST /_sandbox/reset', async () => {
    await call(s.sandbox, 'POST', paths.email('app_demo', 'password_reset'), { token: OWNER });
    await call(s.sandbox, 'POST', '/_sandbox/reset');
    const again = await call(s.sandbox, 'POST', paths.email('app_demo', 'password_reset'), { token: OWNER });
    expect(again.body).toMatchObject({ template_id: 'tpl_0001', created: true });
  });

  it('advances the clock on POST /_sandbox/advance', async () => {
    const before = s.sandbox.clock.now();
    const answer = await call(s.sandbox, 'POST', '/_sandbox/advance', { body: { ms: 40_000 } });
    expect(Date.parse(answer.body.now) - before).toBe(40_000);
    const job = await call(s.sandbox, 'GET', paths.job('app_demo', 'job_running'), { apiKey: 'key_demo_owner' });
    expect(job.body.status).toBe('completed');
  });

  it('picks a scenario on POST /_sandbox/scenario and names the valid ones for an unknown one', async () => {
    const picked = await call(s.sandbox, 'POST', '/_sandbox/scenario', { body: { name: 'adnet_unreachable' } });
    expect(picked.status).toBe(200);
    const unknown = await call(s.sandbox, 'POST', '/_sandbox/scenario', { body: { name: 'meteor' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.scenarios).toEqual(s.sandbox.simulation.scenarios);
    expect(unknown.body.detail).toMatch(/out_of_credits/);
  });

  it('shows the state, active scenarios and demo credentials on GET /_sandbox/state', async () => {
    s.sandbox.simulation.scenario('out_of_credits');
    const answer = await call(s.sandbox, 'GET', '/_sandbox/state');
    expect(answer.body.active_scenarios).toEqual(['out_of_credits']);
    expect(answer.body.credentials).toEqual({ accessToken: 'pat_demo_owner', apiKey: 'key_demo_owner', monitoringApiKey: 'key_demo_owner' });
    expect(answer.body.workspaces.every((w: { credits: number }) => w.credits === 0)).toBe(true);
  });

  it('lists the recorded requests on GET /_sandbox/requests', async () => {
    await call(s.sandbox, 'POST', paths.campaigns('app_demo'), { token: OWNER, body: smartBody() });
    const answer = await call(s.sandbox, 'GET', '/_sandbox/requests');
    expect(answer.body.map((r: { rawPath: string }) => r.rawPath)).toEqual([paths.campaigns('app_demo')]);
  });

  it('hides the control surface unless control is on', async () => {
    const quiet = await startSandbox();
    try {
      expect((await call(quiet, 'POST', '/_sandbox/reset')).status).toBe(404);
    } finally {
      await quiet.close();
    }
  });

  it('answers the same for the same world and the same requests', async () => {
    const run = async () => {
      const sandbox = await startSandbox();
      try {
        const bodies = [];
        bodies.push((await call(sandbox, 'POST', paths.campaigns('app_demo'), { token: OWNER, body: smartBody() })).body);
        bodies.push((await call(sandbox, 'POST', paths.email('app_demo', 'password_reset'), { token: OWNER })).body);
        bodies.push((await call(sandbox, 'POST', paths.shares('app_demo'), { token: OWNER, body: { group_ids: ['grp_design'] } })).body);
        bodies.push((await call(sandbox, 'POST', paths.resolve('app_demo'), { token: OWNER })).body);
        bodies.push((await call(sandbox, 'POST', paths.push('app_demo'), { token: OWNER })).body);
        return bodies;
      } finally {
        await sandbox.close();
      }
    };
    const [first, second] = [await run(), await run()];
    expect(second).toEqual(first);
    expect(first[0].adnet_campaign_id).not.toBe('');
  });

  it('never writes to stdout', async () => {
    const write = vi.spyOn(process.stdout, 'write');
    await call(s.sandbox, 'POST', paths.campaigns('app_demo'), { token: OWNER, body: smartBody({ daily_budget_micros: 1 }) });
    await call(s.sandbox, 'POST', paths.resolve('app_demo'), { token: OWNER });
    await call(s.sandbox, 'GET', '/nowhere');
    expect(write).not.toHaveBeenCalled();
  });
});
