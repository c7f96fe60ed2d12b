import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { realClock } from '../../../src/clock.js';
import { connect, type Harness } from '../../helpers.js';

/** The tools' clock: today is 2026-11-02 late in the UTC day (the date line must not drift with the host's zone). */
const NOW = Date.parse('2026-11-02T23:30:00Z');
const clock = { now: () => NOW, sleep: realClock.sleep };

const PATH = '/api/apps/app_demo/social-calendar/posts/schedule';
const WEEK = { app_id: 'app_demo', scheduled_from: '2026-11-02T09:00:00Z', scheduled_until: '2026-11-09T09:00:00Z' };

describe('start_scheduling_posts', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await connect({ clock });
  });
  afterEach(() => h.close());

  it('posts the range with the api_key header and returns the job_id with the call that waits for it', async () => {
    const result = await h.call('start_scheduling_posts', WEEK);
    expect(h.sandbox.requests).toHaveLength(1);
    const [request] = h.sandbox.requests;
    expect(request).toMatchObject({ method: 'POST', rawPath: PATH, query: '' });
    expect(request?.body).toEqual({ scheduled_from: '2026-11-02T09:00:00Z', scheduled_until: '2026-11-09T09:00:00Z' });
    expect(request?.headers.api_key).toBe(h.config.apiKey);
    expect(request?.headers.authorization).toBeUndefined();
    expect(result).toMatchInlineSnapshot(`
      {
        "isError": false,
        "structured": {
          "job_id": "job_0001",
          "next": "Call get_scheduling_job {"app_id":"app_demo","job_id":"job_0001","wait_seconds":60} to wait for it; once completed it says which approved posts still wait.",
          "scheduled_from": "2026-11-02T09:00:00Z",
          "scheduled_until": "2026-11-09T09:00:00Z",
        },
        "text": "Scheduling started on app app_demo for posts from 2026-11-02T09:00:00Z until 2026-11-09T09:00:00Z (the end excluded): job job_0001.
      It takes the approved posts in the range not yet handed over; proposals stay on the calendar unpublished. A range with nothing to schedule gives a job that is already completed.
      Today is 2026-11-02 (UTC).
      Next: Call get_scheduling_job {"app_id":"app_demo","job_id":"job_0001","wait_seconds":60} to wait for it; once completed it says which approved posts still wait.",
      }
    `);
  });

  it('sends the access token as Bearer when no API key is set', async () => {
    await h.close();
    h = await connect({ config: { apiKey: undefined } });
    const result = await h.call('start_scheduling_posts', WEEK);
    const [request] = h.sandbox.requests;
    expect(request?.headers.authorization).toBe(`Bearer ${h.config.accessToken}`);
    expect(request?.headers.api_key).toBeUndefined();
    expect(result.structured?.job_id).toMatch(/^job_/);
  });

  it('sends dates and times without offset as UTC instants', async () => {
    await h.call('start_scheduling_posts', { app_id: 'app_demo', scheduled_from: '2026-11-02', scheduled_until: '2026-11-09T10:30' });
    await h.call('start_scheduling_posts', { app_id: 'app_demo', scheduled_from: '2026-11-02T10:00:00+01:00', scheduled_until: '2026-11-02T12:00:00.250Z' });
    expect(h.sandbox.requests.map((request) => request.body)).toEqual([
      { scheduled_from: '2026-11-02T00:00:00Z', scheduled_until: '2026-11-09T10:30:00Z' },
      { scheduled_from: '2026-11-02T09:00:00Z', scheduled_until: '2026-11-02T12:00:00.250Z' },
    ]);
  });

  it('returns the same job when the same window is started again', async () => {
    const first = await h.call('start_scheduling_posts', WEEK);
    const again = await h.call('start_scheduling_posts', WEEK);
    expect(again.structured?.job_id).toBe(first.structured?.job_id);
  });

  it('gives a job that is already completed for a range with nothing to schedule', async () => {
    const started = await h.call('start_scheduling_posts', { app_id: 'app_demo', scheduled_from: '2030-01-01', scheduled_until: '2030-02-01' });
    const job = await h.call('get_scheduling_job', { app_id: 'app_demo', job_id: started.structured?.job_id });
    expect(job.text).toMatch(/^Job job_\d+ completed: 0 selected\.\nStill waiting: 4 approved posts on the calendar not handed over yet, from /);
    expect(job.structured?.approved_waiting).toBe(4);
  });

  it.each([
    [{ scheduled_from: '2026-11-09', scheduled_until: '2026-11-09' }, 'scheduled_until: must be after scheduled_from'],
    [{ scheduled_from: '2026-11-09', scheduled_until: '2026-11-02' }, 'scheduled_until: must be after scheduled_from'],
    [{ scheduled_from: 'monday' }, 'scheduled_from: must be an ISO 8601 date or instant'],
    [{ scheduled_until: '2026-11-31' }, 'scheduled_until: must be an ISO 8601 date or instant'],
  ])('refuses %o locally, naming the field, and sends nothing', async (range, message) => {
    const result = await h.call('start_scheduling_posts', { ...WEEK, ...range });
    expect(result.isError).toBe(true);
    expect(result.text).toContain(`Invalid input: ${message}`);
    expect(h.sandbox.requests).toHaveLength(0);
  });

  describe('API errors', () => {
    it('explains 409: another start is still starting, retry shortly (not retried by itself)', async () => {
      h.sandbox.script({ status: 409, body: { detail: 'Another scheduling start for this app is still starting.' } });
      const result = await h.call('start_scheduling_posts', WEEK);
      expect(h.sandbox.requests).toHaveLength(1);
      expect(result).toMatchInlineSnapshot(`
        {
          "isError": true,
          "structured": {
            "error": "409: Another start of scheduling for this app is still starting; this call started nothing. That passes within seconds: call again shortly with the same range.
        Reason given: "Another scheduling start for this app is still starting."
        The service was busy with a related change: read the current state before retrying.",
            "next": "Do what the error says before calling start_scheduling_posts again; it says whether a retry helps.",
          },
          "text": "409: Another start of scheduling for this app is still starting; this call started nothing. That passes within seconds: call again shortly with the same range.
        Reason given: "Another scheduling start for this app is still starting."
        The service was busy with a related change: read the current state before retrying.",
        }
      `);
    });

    it('explains 422 with more than 100 posts: schedule smaller ranges', async () => {
      h.sandbox.script({ status: 422, body: { detail: '140 posts to schedule in this range; at most 100 per run. Schedule smaller ranges.' } });
      const result = await h.call('start_scheduling_posts', WEEK);
      expect(result).toMatchInlineSnapshot(`
        {
          "isError": true,
          "structured": {
            "error": "422: Refused: more than 100 approved posts fall in this range (schedule smaller ranges, e.g. split it in two), or the range is invalid (see below).
        Reason given: "140 posts to schedule in this range; at most 100 per run. Schedule smaller ranges."
        Retrying the same request will not help until the cause is fixed.",
            "next": "Do what the error says before calling start_scheduling_posts again; it says whether a retry helps.",
          },
          "text": "422: Refused: more than 100 approved posts fall in this range (schedule smaller ranges, e.g. split it in two), or the range is invalid (see below).
        Reason given: "140 posts to schedule in this range; at most 100 per run. Schedule smaller ranges."
        Retrying the same request will not help until the cause is fixed.",
        }
      `);
    });

    it('shows the validation lines of a 422 that is about the body', async () => {
      h.sandbox.script({ status: 422, body: { detail: [{ loc: ['body', 'scheduled_from'], msg: 'Input should be a valid datetime', type: 'datetime_parsing' }] } });
      const result = await h.call('start_scheduling_posts', WEEK);
      expect(result.text).toContain('- body.scheduled_from: Input should be a valid datetime');
    });

    it.each([
      [401, /^401: .*APPMGMT_API_KEY .*else APPMGMT_ACCESS_TOKEN/],
      [403, /^403: .*workspace API keys are refused/],
      [404, /^404: App not found: check app_id\./],
    ])('explains %i', async (status, pattern) => {
      h.sandbox.script({ status, body: { detail: 'no' } });
      expect((await h.call('start_scheduling_posts', WEEK)).text).toMatch(pattern);
    });

    it('explains a read-only credential', async () => {
      await h.close();
      h = await connect({ config: { apiKey: 'key_demo_owner_ro' } });
      const result = await h.call('start_scheduling_posts', WEEK);
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(/^403 read_only_credential_route_not_allowed.*\nStarting scheduling needs a full-access personal credential/);
    });

    it('explains 429 with the 20 writes a minute, after retrying twice (a repeat returns the job in flight)', async () => {
      h.sandbox.script({ status: 429, body: { detail: 'slow down' }, times: 3 });
      const result = await h.call('start_scheduling_posts', WEEK);
      expect(h.sandbox.requests).toHaveLength(3);
      expect(result.text).toMatch(/^429: Rate limit: social-calendar writes share 20 requests per minute\./);
    });
  });
});
