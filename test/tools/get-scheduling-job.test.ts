import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CancelledError } from '../../src/errors.js';
import type { Clock } from '../../src/tools/define.js';
import { POLL_EVERY_MS } from '../../src/tools/social/get-scheduling-job.js';
import { connect, type Harness } from '../helpers.js';

const PATH = '/api/apps/app_demo/social-calendar/posts/schedule/job_1';
const ARGS = { app_id: 'app_demo', job_id: 'job_1' };

const job = (status: string, phase: string, extra: Record<string, unknown> = {}) => ({
  status: 200,
  body: { job_id: 'job_1', status, phase, result: null, error: null, ...extra },
});
const COMPLETED = job('completed', 'completed', {
  result: { selected: 12, materialized: 12, created_workflows: 10, reused_workflows: 2, plan_limited: 0, needs_reconnect: 0, failed: 0, skipped: 0 },
});
const FAILED = job('failed', 'sandbox_sync', { error: 'Scheduling failed' });
/** The calendar read that follows a completed job. */
const CALENDAR = (posts: Array<Record<string, unknown>> = []) => ({ status: 200, body: posts });

/**
 * A clock for polling: `auto` sleeps end at once (time jumps by the slept amount); otherwise they end
 * only when the test wakes them. Every sleep is recorded.
 */
function testClock(auto: boolean, start = Date.parse('2026-11-02T09:00:00.000Z')) {
  let now = start;
  const slept: number[] = [];
  const waiting: Array<{ ms: number; resolve: () => void }> = [];
  let notify: (() => void) | undefined;
  return {
    now: () => now,
    slept,
    sleep: (ms: number, signal?: AbortSignal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(new CancelledError());
        slept.push(ms);
        if (auto) {
          now += ms;
          return resolve();
        }
        const sleeper = { ms, resolve };
        waiting.push(sleeper);
        signal?.addEventListener('abort', () => {
          waiting.splice(waiting.indexOf(sleeper), 1);
          reject(new CancelledError());
        });
        notify?.();
      }),
    async asleep() {
      while (waiting.length === 0) await new Promise<void>((resolve) => (notify = resolve));
    },
    get sleeping() {
      return waiting.length;
    },
  } satisfies Clock & Record<string, unknown>;
}

describe('get_scheduling_job', () => {
  let h: Harness;
  let clock: ReturnType<typeof testClock>;
  beforeEach(async () => {
    clock = testClock(true);
    h = await connect({ clock });
  });
  afterEach(() => h.close());

  describe('one check (wait_seconds 0)', () => {
    it('gets the job with the api_key header and reports the counts', async () => {
      h.sandbox.script(COMPLETED);
      h.sandbox.script(CALENDAR());
      const result = await h.call('get_scheduling_job', ARGS);
      expect(h.sandbox.requests).toHaveLength(2);
      const [request] = h.sandbox.requests;
      expect(request?.method).toBe('GET');
      expect(request?.rawPath).toBe(PATH);
      expect(request?.headers.api_key).toBe(h.config.apiKey);
      expect(request?.headers.authorization).toBeUndefined();
      expect(request?.body).toBeUndefined();
      expect(result).toMatchInlineSnapshot(`
        {
          "isError": false,
          "structured": {
            "approved_waiting": 0,
            "counts": {
              "created_workflows": 10,
              "failed": 0,
              "materialized": 12,
              "needs_reconnect": 0,
              "other": 0,
              "plan_limited": 0,
              "reused_workflows": 2,
              "selected": 12,
              "skipped": 0,
            },
            "done": true,
            "job_id": "job_1",
            "next": "Nothing more is needed.",
            "phase": "completed",
            "status": "completed",
          },
          "text": "Job job_1 completed: 12 selected: 12 materialized, 10 created workflows, 2 reused workflows.
        No approved post on the calendar is still waiting.
        Next: Nothing more is needed.",
        }
      `);
      expect(clock.slept).toEqual([]);
    });

    it('says when some posts were not scheduled', async () => {
      h.sandbox.script(
        job('completed', 'completed', {
          result: { selected: 5, materialized: 3, created_workflows: 3, reused_workflows: 0, plan_limited: 1, needs_reconnect: 1, failed: 0, skipped: 0 },
        }),
      );
      h.sandbox.script(CALENDAR());
      const result = await h.call('get_scheduling_job', ARGS);
      expect(result.text).toBe(
        'Job job_1 completed: 5 selected: 3 materialized, 3 created workflows, 1 plan-limited, 1 need an account reconnected.\nNo approved post on the calendar is still waiting.\nNext: Some posts were not placed: see them with list_social_posts {"app_id":"app_demo"}; once the cause is fixed (plan limit, account to reconnect), start the same range again.',
      );
    });

    it('says which approved posts still wait after the job, and offers them as the user\'s choice', async () => {
      h.sandbox.script(COMPLETED);
      h.sandbox.script(
        CALENDAR([
          { id: 'p1', platform: 'instagram', status: 'approved', scheduled_at: '2026-11-12T09:00:00Z', title: 'a' },
          { id: 'p2', platform: 'linkedin', status: 'approved', scheduled_at: '2026-11-13T18:00:00Z', title: 'b' },
          { id: 'p3', platform: 'linkedin', status: 'scheduled', scheduled_at: '2026-11-10T18:00:00Z', title: 'c' },
        ]),
      );
      const result = await h.call('get_scheduling_job', ARGS);
      expect(h.sandbox.requests.map((request) => request.rawPath)).toEqual([PATH, '/api/apps/app_demo/social-calendar/posts']);
      expect(result.text).toContain('Still waiting: 2 approved posts on the calendar not handed over yet, from 2026-11-12T00:00:00Z until 2026-11-14T00:00:00Z.');
      expect(result.text).not.toContain('Nothing more is needed');
      expect(result.structured).toMatchObject({
        approved_waiting: 2,
        next: 'Only if the user wants them published too, call start_scheduling_posts {"app_id":"app_demo","scheduled_from":"2026-11-12T00:00:00Z","scheduled_until":"2026-11-14T00:00:00Z"} (all of them; a narrower range takes fewer).',
      });
    });

    it('still reports the job, and says what it could not check, when the calendar read fails', async () => {
      h.sandbox.script(COMPLETED);
      h.sandbox.script({ status: 403, body: { detail: 'nope' } });
      const result = await h.call('get_scheduling_job', ARGS);
      expect(result.isError).toBe(false);
      expect(result.text).toMatch(/^Job job_1 completed: 12 selected/);
      expect(result.text).toContain('Could not check the calendar for approved posts still waiting: 403');
      expect(result.structured?.approved_waiting).toBeUndefined();
      expect(result.structured?.next).toBe('See whether approved posts still wait with list_social_posts {"app_id":"app_demo"}.');
    });

    it('reports a job with nothing to schedule', async () => {
      h.sandbox.script(
        job('completed', 'completed', {
          result: { selected: 0, materialized: 0, created_workflows: 0, reused_workflows: 0, plan_limited: 0, needs_reconnect: 0, failed: 0, skipped: 0 },
        }),
      );
      h.sandbox.script(CALENDAR());
      const result = await h.call('get_scheduling_job', ARGS);
      expect(result.text).toBe('Job job_1 completed: 0 selected.\nNo approved post on the calendar is still waiting.\nNext: Nothing more is needed.');
    });

    it('tells the model to call again while the job runs', async () => {
      h.sandbox.script(job('running', 'sandbox_sync'));
      const result = await h.call('get_scheduling_job', ARGS);
      const next = 'Call get_scheduling_job {"app_id":"app_demo","job_id":"job_1","wait_seconds":60} to wait for it.';
      expect(result).toEqual({
        isError: false,
        text: `Job job_1: running (phase sandbox_sync). Not finished.\nNext: ${next}`,
        // A client that hands the model only structured content still sees the next step.
        structured: { job_id: 'job_1', status: 'running', phase: 'sandbox_sync', done: false, next },
      });
      expect(h.sandbox.requests).toHaveLength(1);
    });

    it('reports a failed job as FAILED, with the next step, never as success', async () => {
      h.sandbox.script(FAILED);
      const result = await h.call('get_scheduling_job', ARGS);
      expect(result).toEqual({
        isError: true,
        text: 'Job job_1 FAILED (phase sandbox_sync). The service gives no cause (its error is a fixed flag). Posts already handled keep their status; the rest are untouched.\nNext: Schedule the same range again: call start_scheduling_posts {"app_id":"app_demo"} with the scheduled_from and scheduled_until you started.',
        // A client that hands the model only structured content sees the failure and the same next step.
        structured: {
          error: 'Job job_1 FAILED (phase sandbox_sync). The service gives no cause (its error is a fixed flag). Posts already handled keep their status; the rest are untouched.',
          next: 'Schedule the same range again: call start_scheduling_posts {"app_id":"app_demo"} with the scheduled_from and scheduled_until you started.',
        },
      });
    });

    it('encodes the job id so it cannot change the path', async () => {
      h.sandbox.script({ status: 404, body: { detail: 'Not Found' } });
      await h.call('get_scheduling_job', { app_id: 'app_demo', job_id: '../x?y' });
      expect(h.sandbox.requests[0]?.rawPath).toBe('/api/apps/app_demo/social-calendar/posts/schedule/..%2Fx%3Fy');
    });

    it('refuses wait_seconds outside 0-300, naming the field, and sends nothing', async () => {
      for (const wait_seconds of [301, -1, 2.5]) {
        const result = await h.call('get_scheduling_job', { ...ARGS, wait_seconds });
        expect(result.isError).toBe(true);
        expect(result.text).toContain('wait_seconds');
      }
      expect(h.sandbox.requests).toHaveLength(0);
    });
  });

  describe('waiting (wait_seconds)', () => {
    it(`polls every ${POLL_EVERY_MS / 1000} s with progress until the job completes`, async () => {
      h.sandbox.script(job('pending', 'pending'));
      h.sandbox.script(job('running', 'prepare'));
      h.sandbox.script(job('running', 'finalize'));
      h.sandbox.script(COMPLETED);
      h.sandbox.script(CALENDAR());
      const messages: string[] = [];
      const result = await h.client.callTool({ name: 'get_scheduling_job', arguments: { ...ARGS, wait_seconds: 120 } }, undefined, {
        onprogress: (progress) => messages.push(progress.message ?? ''),
      });
      expect(h.sandbox.requests).toHaveLength(5); // four polls, then the calendar
      expect(clock.slept).toEqual([POLL_EVERY_MS, POLL_EVERY_MS, POLL_EVERY_MS]);
      expect(messages).toEqual(['Job job_1: pending, phase pending.', 'Job job_1: running, phase prepare.', 'Job job_1: running, phase finalize.']);
      expect(result.structuredContent).toMatchObject({ status: 'completed', done: true });
    });

    it('stops at the time limit with the current state and "call again"', async () => {
      h.sandbox.script({ ...job('running', 'sandbox_sync'), times: 100 });
      const result = await h.call('get_scheduling_job', { ...ARGS, wait_seconds: 12 });
      expect(clock.slept).toEqual([5_000, 5_000, 2_000]);
      expect(h.sandbox.requests).toHaveLength(4);
      const next = 'Call get_scheduling_job {"app_id":"app_demo","job_id":"job_1","wait_seconds":60} to wait for it.';
      expect(result).toEqual({
        isError: false,
        text: `Job job_1: running (phase sandbox_sync), still not finished after waiting 12 s.\nNext: ${next}`,
        structured: { job_id: 'job_1', status: 'running', phase: 'sandbox_sync', done: false, next },
      });
    });

    it('stays well inside 40 requests per minute', async () => {
      h.sandbox.script({ ...job('running', 'sandbox_sync'), times: 100 });
      await h.call('get_scheduling_job', { ...ARGS, wait_seconds: 60 });
      expect(h.sandbox.requests.length).toBeLessThanOrEqual(13); // 12 a minute plus the first look
      expect(clock.slept.every((ms) => ms === POLL_EVERY_MS)).toBe(true);
    });

    it('stops as soon as the job fails', async () => {
      h.sandbox.script(job('running', 'sandbox_sync'));
      h.sandbox.script(FAILED);
      const result = await h.call('get_scheduling_job', { ...ARGS, wait_seconds: 300 });
      expect(h.sandbox.requests).toHaveLength(2);
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(/^Job job_1 FAILED/);
    });

    it('stops waiting and sends nothing more when the client cancels', async () => {
      await h.close();
      clock = testClock(false);
      h = await connect({ clock });
      h.sandbox.script({ ...job('running', 'sandbox_sync'), times: 100 });
      const controller = new AbortController();
      const pending = h.client.callTool({ name: 'get_scheduling_job', arguments: { ...ARGS, wait_seconds: 300 } }, undefined, {
        signal: controller.signal,
      });
      await clock.asleep();
      controller.abort('user pressed stop');
      await expect(pending).rejects.toThrow();
      await expect.poll(() => clock.sleeping).toBe(0);
      expect(h.sandbox.requests).toHaveLength(1);
    });
  });

  describe('API errors', () => {
    const cases: Array<[string, { status: number; body?: unknown; headers?: Record<string, string> }, number, RegExp[]]> = [
      ['401', { status: 401, body: { detail: 'Invalid API key' } }, 1, [/^401: .*APPMGMT_API_KEY/]],
      ['403', { status: 403, body: { detail: 'Forbidden' } }, 1, [/^403: .*workspace API keys are refused/]],
      ['403 read-only', { status: 403, body: { detail: 'read_only_credential_route_not_allowed' } }, 1, [/^403 read_only_credential_route_not_allowed/, /APPMGMT_API_KEY/]],
      ['404', { status: 404, body: { detail: 'Job not found' } }, 1, [/^404: App or job not found/]],
      ['429 after two retries', { status: 429, body: { detail: 'slow down' } }, 3, [/^429: Rate limit: all social-calendar reads share 40 requests per minute/, /Retry after a short wait/]],
      ['429 whose Retry-After is too long to wait', { status: 429, body: {}, headers: { 'retry-after': '60' } }, 1, [/Retry after 60 s\./]],
      ['503 after two retries', { status: 503, body: { detail: 'unavailable' } }, 3, [/^503: /, /A retry later may help/]],
    ];
    for (const [name, response, requests, patterns] of cases) {
      it(`explains ${name} (${requests} request${requests > 1 ? 's' : ''})`, async () => {
        h.sandbox.script({ ...response, times: 5 });
        const result = await h.call('get_scheduling_job', ARGS);
        expect(result.isError).toBe(true);
        for (const pattern of patterns) expect(result.text).toMatch(pattern);
        expect(h.sandbox.requests).toHaveLength(requests);
      });
    }

    it('recovers when a retry succeeds', async () => {
      h.sandbox.script({ status: 502, body: { detail: 'bad gateway' } });
      h.sandbox.script(COMPLETED);
      h.sandbox.script(CALENDAR());
      const result = await h.call('get_scheduling_job', ARGS);
      expect(h.sandbox.requests).toHaveLength(3);
      expect(result.text).toMatch(/^Job job_1 completed/);
    });
  });
});
