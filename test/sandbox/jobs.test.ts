import { describe, expect, it } from 'vitest';
import { JOB_FAILED_MESSAGE } from '../../src/sandbox/routes/jobs.js';
import { call, paths, useSandbox } from './helpers.js';

describe('sandbox 4.5 get scheduling job', () => {
  const s = useSandbox();
  const poll = (job: string, apiKey = 'key_demo_owner', app = 'app_demo') => call(s.sandbox, 'GET', paths.job(app, job), { apiKey });
  const seen = async (job: string) => {
    const { body } = await poll(job);
    return [body.status, body.phase];
  };

  it('moves pending -> running -> completed as the clock advances, showing the phases', async () => {
    const steps: unknown[] = [await seen('job_running')];
    for (const ms of [5_000, 10_000, 20_000, 4_999, 1]) {
      s.sandbox.clock.advance(ms);
      steps.push(await seen('job_running'));
    }
    expect(steps).toEqual([
      ['pending', 'pending'],
      ['running', 'prepare'],
      ['running', 'sandbox_sync'],
      ['running', 'finalize'],
      ['running', 'finalize'],
      ['completed', 'completed'],
    ]);
  });

  it('keeps result null until completed, then sets every count', async () => {
    expect((await poll('job_running')).body).toMatchObject({ job_id: 'job_running', result: null, error: null });
    s.sandbox.clock.advance(40_000);
    const done = await poll('job_running');
    expect(done.body.result).toEqual({
      selected: 12,
      materialized: 12,
      created_workflows: 9,
      reused_workflows: 3,
      plan_limited: 0,
      needs_reconnect: 0,
      failed: 0,
      skipped: 0,
    });
  });

  it('ends a failing job failed with the fixed error and a null result', async () => {
    s.sandbox.clock.advance(14_999);
    expect((await poll('job_failed')).body.status).toBe('running');
    s.sandbox.clock.advance(1);
    const failed = await poll('job_failed');
    expect(failed.body).toMatchObject({ status: 'failed', result: null, error: JOB_FAILED_MESSAGE });
  });

  it('answers a range with nothing to schedule completed at once', async () => {
    const answer = await poll('job_empty');
    expect(answer.body).toMatchObject({ status: 'completed', phase: 'completed', error: null });
    expect(answer.body.result.selected).toBe(0);
  });

  it('answers 404 for an unknown job or a job of another app', async () => {
    expect((await poll('job_nope')).status).toBe(404);
    expect((await poll('job_running', 'key_demo_owner', 'app_shop')).status).toBe(404);
  });

  it('takes a personal API key in the api_key header, or a personal access token as Bearer (service facts)', async () => {
    expect((await poll('job_empty')).status).toBe(200);
    expect((await call(s.sandbox, 'GET', paths.job('app_demo', 'job_empty'), { token: 'pat_demo_owner' })).status).toBe(200);
    const wrongKind = await call(s.sandbox, 'GET', paths.job('app_demo', 'job_empty'), { token: 'key_demo_owner' });
    expect(wrongKind.status).toBe(401);
  });

  it('lets a read-only key poll', async () => {
    expect((await poll('job_empty', 'key_demo_owner_ro')).status).toBe(200);
  });

  it('fails unfinished jobs under the jobs_fail scenario and leaves finished ones alone', async () => {
    s.sandbox.clock.advance(6_000);
    s.sandbox.simulation.scenario('jobs_fail');
    s.sandbox.clock.advance(60_000);
    expect((await poll('job_running')).body).toMatchObject({ status: 'failed', phase: 'sandbox_sync' });
    expect((await poll('job_partial')).body.status).toBe('completed');
  });
});
