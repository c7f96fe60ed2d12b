import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CancelledError } from '../../src/errors.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import type { Clock } from '../../src/tools/define.js';
import { connect, type Harness } from '../helpers.js';

const APP = 'app_demo';
const WEEK_MS = 7 * 86_400_000;

interface Row {
  id: string;
  status: string;
}

/** A tool clock on the sandbox's clock: a poll's sleep moves simulated time on, so nothing waits. */
function sandboxTime(sandbox: Sandbox): Clock {
  return {
    now: () => sandbox.clock.now(),
    async sleep(ms, signal) {
      if (signal?.aborted) throw new CancelledError();
      sandbox.clock.advance(ms);
    },
  };
}

describe('workflow (d): list posts -> start scheduling -> wait on the job -> posts now scheduled', () => {
  let sandbox: Sandbox;
  let h: Harness;
  beforeEach(async () => {
    sandbox = await startSandbox({ control: true });
    h = await connect({ sandbox, clock: sandboxTime(sandbox) });
  });
  afterEach(async () => {
    await h.close();
    await sandbox.close();
  });

  it("hands the coming seven days' approved posts over for publishing and leaves the proposals alone", async () => {
    // The user asks for the coming seven days: the range is a date, not an id (a Monday-to-Sunday week: g-four-requests).
    const week = { from: new Date(sandbox.clock.now()).toISOString(), until: new Date(sandbox.clock.now() + WEEK_MS).toISOString() };

    const listed = await h.call('list_social_posts', { app_id: APP, ...week });
    expect(listed.isError).toBe(false);
    const before = listed.structured?.posts as Row[];
    const approved = before.filter((post) => post.status === 'approved').map((post) => post.id);
    const proposals = before.filter((post) => post.status === 'proposal').map((post) => post.id);
    expect(approved.length).toBeGreaterThan(0);
    expect(proposals.length).toBeGreaterThan(0);
    expect(listed.structured?.approved_waiting).toBe(approved.length);
    expect(listed.text).toContain(`${approved.length} approved posts in this range are not handed over for publishing yet.`);
    // "Next week" is read against today's date, which the result states; the status legend is in the tool description, not repeated here.
    expect(listed.structured?.today).toBe(new Date(sandbox.clock.now()).toISOString().slice(0, 10));
    expect(listed.text).toContain(`Today is Monday ${listed.structured?.today as string} (UTC); next week, Monday 2026-11-09 to Sunday 2026-11-15, is from 2026-11-09 until 2026-11-16.`);
    expect(listed.text).not.toMatch(/Statuses:/);
    expect(listed.structured?.next).toMatch(/^Call start_scheduling_posts \{.*\} to hand the \d+ approved posts over for publishing\.$/);
    const range = listed.structured?.schedule_range as { scheduled_from: string; scheduled_until: string };

    const started = await h.call('start_scheduling_posts', { app_id: APP, ...range });
    expect(started.isError).toBe(false);
    const jobId = started.structured?.job_id as string;
    expect(started.text).toContain(`job ${jobId}`);
    expect(started.structured?.next).toBe(`Call get_scheduling_job {"app_id":"${APP}","job_id":"${jobId}","wait_seconds":60} to wait for it; once completed it says which approved posts still wait.`);

    const waited = await h.call('get_scheduling_job', { app_id: APP, job_id: jobId, wait_seconds: 60 });
    expect(waited.structured).toMatchObject({ job_id: jobId, status: 'completed', done: true, counts: { selected: approved.length, failed: 0 } });
    // The job's range is done, and the result says the one approved post outside it still waits, as the user's choice.
    expect(waited.structured?.approved_waiting).toBe(1);
    expect(waited.text).toContain('Still waiting: 1 approved post on the calendar not handed over yet');
    expect(waited.structured?.next).toMatch(/^Only if the user wants them published too, call start_scheduling_posts /);

    const after = await h.call('list_social_posts', { app_id: APP, ...week });
    const now = Object.fromEntries((after.structured?.posts as Row[]).map((post) => [post.id, post.status]));
    for (const id of approved) expect(now[id]).toBe('scheduled');
    for (const id of proposals) expect(now[id]).toBe('proposal');
    expect(after.structured?.approved_waiting).toBe(0);
    expect(after.structured?.next).toBe('Nothing to schedule: proposals must be approved in the service first, and nothing more is needed here.');

    // Outside the range nothing moved: the whole calendar still has an approved post waiting.
    const whole = await h.call('list_social_posts', { app_id: APP });
    expect(whole.structured?.approved_waiting).toBe(1);
  });
});
