import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CancelledError } from '../../src/errors.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import type { Clock } from '../../src/tools/define.js';
import { connect, type CallOutcome, type Harness } from '../helpers.js';
import { calendarOf, expectOnlyWeekScheduled, nextWeekOf } from './calendar-oracle.js';

/**
 * Eleven everyday requests of issue 17, as an assistant would carry them out against the sandbox:
 * the user names the app (and a group, a date range); every other id, amount and range is read from
 * an earlier result. Each request counts the calls it took; the table is printed for the closing note
 * and each count is held to a bound, so a regression that adds round trips fails.
 */
const APP = 'app_demo';

/**
 * A tool clock on the sandbox's clock. While `polling`, a sleep moves simulated time on (a job's
 * polls then finish at once); otherwise it lasts until aborted, as builder turns and resolutions
 * answer at once in the sandbox and their progress ticker must not spin.
 */
function sandboxTime(sandbox: Sandbox, polling: () => boolean): Clock {
  return {
    now: () => sandbox.clock.now(),
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(new CancelledError());
        if (polling()) {
          sandbox.clock.advance(ms);
          return void setImmediate(resolve);
        }
        signal?.addEventListener('abort', () => reject(new CancelledError()), { once: true });
      }),
  };
}

type Facts = Record<string, unknown>;
const counts: Array<[string, number]> = [];

describe('eleven everyday requests, from results alone', () => {
  let sandbox: Sandbox;
  let h: Harness;
  let calls = 0;
  let polling = false;
  beforeEach(async () => {
    sandbox = await startSandbox({ control: true });
    polling = false;
    h = await connect({ sandbox, clock: sandboxTime(sandbox, () => polling), config: { sandbox: true } });
    calls = 0;
  });
  afterEach(async () => {
    await h.close();
    await sandbox.close();
  });
  afterAll(() => {
    process.stderr.write(`calls per request:\n${counts.map(([name, count]) => `  ${count}  ${name}`).join('\n')}\n`);
  });

  async function call(tool: string, args: Facts = {}): Promise<CallOutcome> {
    calls += 1;
    return h.call(tool, args);
  }

  /** A gated call as an assistant makes it: the warning (nothing written), shown to the user, then the confirmation. */
  async function confirmed(tool: string, args: Facts): Promise<CallOutcome> {
    const writes = sandbox.requests.filter((request) => request.method !== 'GET').length;
    const warning = await call(tool, args);
    expect(warning.text, warning.text).toMatch(/^\[sandbox\] CONFIRMATION NEEDED\. Nothing was sent\./);
    expect(sandbox.requests.filter((request) => request.method !== 'GET')).toHaveLength(writes);
    return call(tool, { ...args, confirm: true });
  }

  function done(name: string, most: number): void {
    counts.push([name, calls]);
    expect(calls, name).toBeLessThanOrEqual(most);
  }

  it('1. am I connected?', async () => {
    const result = await call('check_connection');
    expect(result.structured).toMatchObject({ healthy: true, mode: 'sandbox' });
    done('am I connected?', 1);
  });

  it('2. show my campaigns and pause the worst one', async () => {
    const listed = await call('list_ad_campaigns', { app_id: APP, include_metrics: true });
    const rows = listed.structured?.campaigns as Array<{ campaign_id: string; status: string; cost?: number; conversions?: number }>;
    const enabled = rows.filter((row) => row.status === 'ENABLED');
    expect(enabled.length).toBeGreaterThan(1);
    // The worst: the most spent per conversion (a campaign that spends without converting is worst of all).
    const perConversion = (row: (typeof rows)[number]) => (row.cost ?? 0) / Math.max(row.conversions ?? 0, 0.001);
    const worst = [...enabled].sort((a, b) => perConversion(b) - perConversion(a))[0]!;
    const paused = await call('pause_ad_campaign', { app_id: APP, campaign_id: worst.campaign_id });
    expect(paused.isError, paused.text).toBe(false);
    const read = await call('get_ad_campaign', { app_id: APP, campaign_id: worst.campaign_id });
    expect(read.structured?.status).toBe('PAUSED');
    done('show my campaigns and pause the worst one', 3);
  });

  it('3. launch a Performance Max campaign at 15 a day in the US', async () => {
    // 15 a day is 15000000 micros; the United States is geo target 2840 (a country code is refused with that example).
    const asked = { app_id: APP, campaign_name: 'Winter launch', campaign_type: 'PERFORMANCE_MAX', daily_budget_micros: 15_000_000, landing_page: 'https://demo-planner.sandbox.test/', geo_targets: ['2840'] };
    const first = await call('create_ad_campaign', asked);
    // Every missing requirement in one answer, so the user is asked once.
    expect(first.text).toMatch(/logo_url: required/);
    expect(first.text).toMatch(/images: PERFORMANCE_MAX needs/);
    const assets = {
      logo_url: 'https://files.sandbox.test/logo.png',
      images: [
        { url: 'https://files.sandbox.test/banner.png', kind: 'MARKETING_IMAGE' },
        { url: 'https://files.sandbox.test/square.png', kind: 'SQUARE_MARKETING_IMAGE' },
      ],
    };
    const created = await confirmed('create_ad_campaign', { ...asked, ...assets });
    expect(created.isError, created.text).toBe(false);
    expect(created.structured?.daily_budget).toBe(15);
    done('launch a Performance Max campaign at 15 a day in the US', 3);
  });

  it('4. apply a budget recommendation', async () => {
    const listed = await call('list_ad_campaigns', { app_id: APP });
    const campaigns = (listed.structured?.campaigns as Array<{ campaign_id: string; status: string }>).filter((row) => row.status === 'ENABLED');
    let applied: CallOutcome | undefined;
    for (const { campaign_id } of campaigns) {
      const suggestions = await call('list_campaign_suggestions', { app_id: APP, campaign_id });
      const rows = ['high', 'medium', 'low', 'other'].flatMap((severity) => (suggestions.structured?.[severity] as Facts[] | undefined) ?? []);
      const budget = rows.find((row) => row.recommendation_resource_name && row.action);
      if (!budget) continue;
      // Spending is the user's decision: the next step says so rather than making it the default.
      expect(suggestions.structured?.next).toMatch(/user's choice/);
      applied = await confirmed('apply_budget_recommendation', {
        app_id: APP,
        campaign_id,
        recommendation_resource_name: budget.recommendation_resource_name,
        recommended_daily_budget_micros: budget.recommended_daily_budget_micros,
      });
      break;
    }
    expect(applied?.isError, applied?.text).toBe(false);
    done('apply a budget recommendation', 5);
  });

  it('5. pull the repository and fix the conflict', async () => {
    const pulled = await call('pull_repo_changes', { app_id: APP });
    expect(pulled.text).toMatch(/merge_conflict/);
    const resolved = await confirmed('resolve_repo_conflicts', { app_id: APP });
    expect(resolved.text).toMatch(/needs_input|question/i);
    const conversation = await call('read_app_conversation', { app_id: APP });
    expect(conversation.structured?.waiting_for_input).toBe(true);
    // The user answers the builder's question.
    const answered = await confirmed('send_app_chat_message', { app_id: APP, content: "Keep the app's version of both files." });
    expect(answered.isError, answered.text).toBe(false);
    // Free first: the merge finishes with a pull, not a second paid resolution.
    expect(answered.structured?.next).toMatch(/pull_repo_changes/);
    const finished = await call('pull_repo_changes', { app_id: APP });
    expect(finished.isError, finished.text).toBe(false);
    done('pull the repository and fix the conflict', 8);
  });

  it("6. change the sign-up email's heading and show it", async () => {
    const own = await call('customize_app_email', { app_id: APP, email_type: 'email_verification' });
    const templateId = own.structured?.template_id as string;
    expect(templateId).toBeTruthy();
    const turn = await confirmed('send_app_chat_message', { app_id: APP, content: 'Change the sign-up email\'s heading to "Welcome aboard"' });
    expect(turn.isError, turn.text).toBe(false);
    const shown = await call('get_email_template', { app_id: APP, template_id: templateId });
    expect(shown.text).toContain('Welcome aboard');
    done("change the sign-up email's heading and show it", 4);
  });

  it('7. give a group edit access, then view only', async () => {
    const shared = await call('share_app_with_groups', { app_id: APP, group_ids: ['grp_design'], role: 'editor' });
    const shareId = (shared.structured?.share_ids as Array<{ share_id: string }>)[0]!.share_id;
    // The role description names "user" as the view-only role.
    const updated = await call('update_group_share', { app_id: APP, share_id: shareId, role: 'user' });
    expect(updated.structured?.role).toBe('user');
    done('give a group edit access, then view only', 2);
  });

  it("8. schedule next week's approved posts", async () => {
    const before = await calendarOf(sandbox, APP);
    const week = nextWeekOf(sandbox.clock.now());
    // Approved posts lie both in next week and before it, so scheduling too much or too little shows.
    const approved = before.filter((post) => post.status === 'approved').map((post) => Date.parse(post.scheduled_at) >= week.from && Date.parse(post.scheduled_at) < week.until);
    expect(approved).toContain(true);
    expect(approved).toContain(false);

    // Next week is read from a result, not worked out by the assistant.
    const calendar = await call('list_social_posts', { app_id: APP });
    const nextWeek = calendar.structured?.next_week as { from: string; until: string };
    expect(nextWeek).toEqual({ from: new Date(week.from).toISOString().slice(0, 10), until: new Date(week.until).toISOString().slice(0, 10) });
    const listed = await call('list_social_posts', { app_id: APP, ...nextWeek });
    const range = listed.structured?.schedule_range as { scheduled_from: string; scheduled_until: string };
    const started = await call('start_scheduling_posts', { app_id: APP, ...range });
    polling = true;
    const job = await call('get_scheduling_job', { app_id: APP, job_id: started.structured?.job_id, wait_seconds: 60 });
    expect(job.structured).toMatchObject({ status: 'completed', done: true });
    // What the week held is done; what still waits outside it is said, not hidden behind "nothing more".
    expect(job.structured?.approved_waiting).toBe(approved.filter((inWeek) => !inWeek).length);

    // On the sandbox's own calendar: exactly next week's approved posts were scheduled, nothing else changed.
    const scheduled = expectOnlyWeekScheduled(before, await calendarOf(sandbox, APP), week);
    expect(scheduled.length).toBe(approved.filter(Boolean).length);
    done("schedule next week's approved posts", 4);
  });

  it('9. ask the builder for dark mode', async () => {
    const turn = await confirmed('send_app_chat_message', { app_id: APP, content: 'Add a dark mode toggle to the settings page.' });
    expect(turn.isError, turn.text).toBe(false);
    // A visible effect: a new saved version that a push would send.
    expect(turn.text).toMatch(/Saved a new version/);
    done('ask the builder for dark mode', 2);
  });

  it("10. last month's analytics", async () => {
    const today = new Date(sandbox.clock.now());
    const first = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - 1, 1));
    const last = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 0));
    const day = (date: Date) => date.toISOString().slice(0, 10);
    const result = await call('get_workspace_analytics', { workspace_id: 'ws_demo', from: day(first), to: day(last) });
    expect(result.structured?.period).toBe(`${day(first)} to ${day(last)} (as the service reports)`);
    done("last month's analytics", 1);
  });

  it('11. delete the oldest template', async () => {
    const listed = await call('list_email_templates', { app_id: APP });
    const rows = listed.structured?.templates as Array<{ template_id: string; updated_date: string }>;
    const oldest = [...rows].sort((a, b) => a.updated_date.localeCompare(b.updated_date))[0]!;
    const deleted = await confirmed('delete_email_template', { app_id: APP, template_id: oldest.template_id });
    expect(deleted.isError, deleted.text).toBe(false);
    const after = await call('list_email_templates', { app_id: APP });
    expect((after.structured?.templates as Array<{ template_id: string }>).map((row) => row.template_id)).not.toContain(oldest.template_id);
    done('delete the oldest template', 4);
  });
});
