import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import { CancelledError } from '../../src/errors.js';
import { directoryOf } from '../../src/sandbox/directory.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import type { Clock } from '../../src/tools/define.js';
import { TOOLS } from '../../src/tools/index.js';
import { connect, type CallOutcome, type Harness } from '../helpers.js';
import { calendarOf, expectOnlyWeekScheduled, nextWeekOf } from './calendar-oracle.js';

/**
 * Four requests of issue 29 that the service can serve only in part, or not at all, walked as an
 * assistant would, from the tool list, the instructions and the results alone. Each ends in an honest
 * answer: what was done, what cannot be, and the person's choice; none meets a tool this server does
 * not offer, and none does more than was asked.
 */
const APP = 'app_demo';
const DAY_MS = 86_400_000;
const NAMES = TOOLS.map((tool) => tool.name);

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

type Facts = Record<string, unknown>;
const counts: Array<[string, number]> = [];

/**
 * The calls a next step names, as an assistant reads them: `tool {json}` or a bare tool name. JSON
 * arguments are read to their closing brace, strings and all.
 */
function callsIn(next: string): Array<{ tool: string; args: Facts }> {
  const found: Array<{ tool: string; args: Facts }> = [];
  for (const match of next.matchAll(/\b[a-z]+(?:_[a-z]+)+\b/g)) {
    if (!NAMES.includes(match[0])) continue;
    const after = match.index + match[0].length;
    if (next[after] !== ' ' || next[after + 1] !== '{') {
      found.push({ tool: match[0], args: {} });
      continue;
    }
    let depth = 0;
    let quoted = false;
    for (let at = after + 1; at < next.length; at++) {
      const char = next[at];
      if (quoted) {
        if (char === '\\') at++;
        else if (char === '"') quoted = false;
      } else if (char === '"') quoted = true;
      else if (char === '{') depth++;
      else if (char === '}' && --depth === 0) {
        found.push({ tool: match[0], args: JSON.parse(next.slice(after + 1, at + 1)) as Facts });
        break;
      }
    }
  }
  return found;
}

describe('four requests the service serves only in part, from results alone', () => {
  let sandbox: Sandbox;
  let h: Harness;
  let calls = 0;
  afterEach(async () => {
    await h.close();
    await sandbox.close();
  });
  afterAll(() => {
    process.stderr.write(`calls per request:\n${counts.map(([name, count]) => `  ${count}  ${name}`).join('\n')}\n`);
  });

  async function serve(config: Partial<Config> = {}): Promise<void> {
    sandbox = await startSandbox({ control: true });
    h = await connect({ sandbox, clock: sandboxTime(sandbox), config: { sandbox: true, sandboxDirectory: directoryOf(sandbox.simulation.world, config.accessToken ?? 'pat_demo_owner'), ...config } });
    calls = 0;
  }

  async function call(tool: string, args: Facts = {}): Promise<CallOutcome> {
    calls += 1;
    return h.call(tool, args);
  }

  function done(name: string, most: number): void {
    counts.push([name, calls]);
    expect(calls, name).toBeLessThanOrEqual(most);
  }

  it('1. "raise every budget-limited campaign by 20%, if under 100 a day" ends in an honest answer and a choice for the person', async () => {
    await serve();
    const writes = () => sandbox.requests.filter((request) => request.method !== 'GET');
    // The only tool about budgets says up front what it cannot do.
    const { tools } = await h.client.listTools();
    expect(tools.find((tool) => tool.name === 'apply_budget_recommendation')?.description).toContain('It cannot set a budget of your own choosing.');

    const listed = await call('list_ad_campaigns', { app_id: APP });
    const under = (listed.structured?.campaigns as Array<{ campaign_id: string; status: string; daily_budget?: number }>).filter(
      (row) => row.status === 'ENABLED' && (row.daily_budget ?? Infinity) < 100,
    );
    const limited: Array<{ campaign_id: string; daily_budget: number }> = [];
    for (const row of under) {
      const campaign = await call('get_ad_campaign', { app_id: APP, campaign_id: row.campaign_id });
      if ((campaign.structured?.primary_status_reasons as string[]).includes('CAMPAIGN_BUDGET_LIMITED')) limited.push({ campaign_id: row.campaign_id, daily_budget: campaign.structured?.daily_budget as number });
    }
    expect(limited.map((row) => row.campaign_id)).toEqual(['cmp_demo']);
    const [target] = limited;

    // An assistant that tries the 20% anyway, with the recommendation's name and its own figure, is told the true reason.
    const suggestions = await call('list_campaign_suggestions', { app_id: APP, campaign_id: target!.campaign_id });
    const rows = ['high', 'medium', 'low', 'other'].flatMap((severity) => (suggestions.structured?.[severity] as Facts[] | undefined) ?? []);
    const recommendation = rows.find((row) => row.recommendation_resource_name && row.action)!;
    const own = Math.round(target!.daily_budget * 1.2 * 1_000_000);
    const tried = await call('apply_budget_recommendation', {
      app_id: APP,
      campaign_id: target!.campaign_id,
      recommendation_resource_name: recommendation.recommendation_resource_name,
      recommended_daily_budget_micros: own,
    });
    expect(tried.isError).toBe(true);
    expect(tried.text).toContain(
      `Refused: recommended_daily_budget_micros ${own} (24.00 a day) is not this recommendation's figure: it recommends 35000000 (35.00 a day) now. No tool here sets a daily budget of your own choosing`,
    );
    expect(tried.text).not.toMatch(/changed its figure/);
    // Nothing was sent, and nothing waits for a confirmation.
    const confirmed = await call('apply_budget_recommendation', {
      app_id: APP,
      campaign_id: target!.campaign_id,
      recommendation_resource_name: recommendation.recommendation_resource_name,
      recommended_daily_budget_micros: own,
      confirm: true,
    });
    expect(confirmed.text).toMatch(/^\[sandbox\] NOT SENT: confirm: true needs a pending warning for exactly these arguments, and there is none/);
    expect(writes()).toHaveLength(0);

    // The person's choice, as the results put it: the platform's own figure, with their confirmation;
    // the service's own edit_budget suggestion is said to be done in the service, not by a tool here.
    expect(suggestions.structured?.next).toMatch(/^Raising the budget spends more, so it is the user's choice: only if they choose it, call apply_budget_recommendation .*"recommended_daily_budget_micros":35000000\} \(they confirm first\)\./);
    expect(rows.some((row) => row.action === 'edit_budget' && !row.recommendation_resource_name)).toBe(true);
    expect(suggestions.text).toContain('Actions without "to apply" are done in the service; no tool here does them.');
    done('raise every budget-limited campaign by 20%', 6);
  });

  it('2. "how many people opened the app this week, compared with last week" ends in "not available"', async () => {
    await serve();
    const { tools } = await h.client.listTools();
    expect(tools.find((tool) => tool.name === 'get_workspace_analytics')?.description).toContain('No app visitor or open counts.');
    const today = new Date(sandbox.clock.now());
    const monday = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - ((today.getUTCDay() + 6) % 7)));
    const day = (date: Date) => date.toISOString().slice(0, 10);
    const thisWeek = await call('get_workspace_analytics', { workspace_id: 'ws_demo', from: day(monday), to: day(today) });
    const lastWeek = await call('get_workspace_analytics', {
      workspace_id: 'ws_demo',
      from: day(new Date(monday.getTime() - 7 * DAY_MS)),
      to: day(new Date(monday.getTime() - DAY_MS)),
    });
    for (const result of [thisWeek, lastWeek]) {
      expect(result.isError).toBe(false);
      expect(result.text).toContain('The service reports no app visitors, opens or sessions');
      expect(result.structured?.next).toBe('Answer from these figures; anything else is not available from the service.');
      expect(result.text).not.toMatch(/Nothing more is needed|not shown/);
    }
    done('how many opened the app this week', 2);
  });

  it("3. \"schedule next week's approved posts\" schedules exactly Monday to Sunday", async () => {
    await serve();
    // A Wednesday, as in the issue: this week still has approved posts to come, and so does the one after next.
    sandbox.clock.advance(2 * DAY_MS);
    const before = await calendarOf(sandbox, APP);
    const first = await call('list_social_posts', { app_id: APP });
    const week = first.structured?.next_week as { from: string; until: string };
    expect(week).toEqual({ from: '2026-11-09', until: '2026-11-16' });
    expect(first.text).toContain('Today is Wednesday 2026-11-04 (UTC); next week, Monday 2026-11-09 to Sunday 2026-11-15, is from 2026-11-09 until 2026-11-16.');
    // Without a range, the range on offer is this server's choice, and the step says so and names next week's.
    expect(first.structured?.next).toMatch(/^No range was given, so this one is this server's choice: .* \(next week is from 2026-11-09 until 2026-11-16\), list that range and schedule it instead/);

    const listed = await call('list_social_posts', { app_id: APP, ...week });
    const range = listed.structured?.schedule_range as { scheduled_from: string; scheduled_until: string };
    expect(range).toEqual({ scheduled_from: '2026-11-09T00:00:00Z', scheduled_until: '2026-11-16T00:00:00Z' });
    const offered = callsIn(String(listed.structured?.next));
    expect(offered).toEqual([{ tool: 'start_scheduling_posts', args: { app_id: APP, ...range } }]);
    const started = await call('start_scheduling_posts', offered[0]!.args);
    const job = await call('get_scheduling_job', { app_id: APP, job_id: started.structured?.job_id, wait_seconds: 60 });
    expect(job.structured).toMatchObject({ status: 'completed' });

    const after = await call('list_social_posts', { app_id: APP, status: 'scheduled' });
    const scheduled = (after.structured?.posts as Array<{ id: string; scheduled_at: string }>).filter((post) => post.id !== 'post_webinar');
    expect(scheduled.map((post) => post.id)).toEqual(['post_case']);
    for (const post of scheduled) expect(post.scheduled_at >= '2026-11-09' && post.scheduled_at < '2026-11-16').toBe(true);
    // This week's approved posts still wait, yesterday's too: nothing was done beyond the week asked for.
    const waiting = await call('list_social_posts', { app_id: APP, status: 'approved' });
    expect((waiting.structured?.posts as Array<{ id: string }>).map((post) => post.id)).toEqual(['post_launch', 'post_behind', 'post_feature']);
    // And on the sandbox's own calendar, read apart from the server: exactly that week's approved posts changed.
    expect(expectOnlyWeekScheduled(before, await calendarOf(sandbox, APP), nextWeekOf(sandbox.clock.now()))).toEqual(['post_case']);
    done("schedule next week's approved posts", 6);
  });

  it('4. "what can I do with a read-only token" never meets a tool it is not offered', async () => {
    // The setup the troubleshooting guide gives for a read-only token: the read-only credentials in read-only mode.
    await serve({ readOnly: true, accessToken: 'pat_demo_owner_ro', apiKey: 'key_demo_owner_ro', monitoringApiKey: 'key_demo_owner_ro' });
    const { tools } = await h.client.listTools();
    const offered = new Set(tools.map((tool) => tool.name));
    expect(tools.every((tool) => tool.annotations?.readOnlyHint)).toBe(true);
    expect(h.client.getInstructions()).toContain('This server is read-only: it offers only tools that change nothing');

    // Follow every call a result's next step names, breadth first, from check_connection and each list.
    const queue: Array<{ tool: string; args: Facts }> = [
      { tool: 'check_connection', args: {} },
      { tool: 'list_ad_campaigns', args: { app_id: APP } },
      { tool: 'list_social_posts', args: { app_id: APP } },
      { tool: 'list_email_templates', args: { app_id: APP } },
      { tool: 'list_group_shares', args: { app_id: APP } },
      { tool: 'read_app_conversation', args: { app_id: APP } },
      { tool: 'get_workspace_analytics', args: { workspace_id: 'ws_demo' } },
    ];
    const visited = new Set<string>();
    const nexts: string[] = [];
    while (queue.length > 0 && visited.size < 30) {
      const { tool, args } = queue.shift()!;
      const key = `${tool} ${JSON.stringify(args)}`;
      if (visited.has(key) || (Object.keys(args).length === 0 && tool !== 'check_connection')) continue;
      visited.add(key);
      const result = await call(tool, args);
      expect(result.text, key).not.toMatch(/Tool \w+ not found/);
      const next = String(result.structured?.next);
      nexts.push(next);
      for (const named of callsIn(next)) {
        expect(offered.has(named.tool), `${key} -> ${next}`).toBe(true);
        queue.push(named);
      }
    }
    expect(visited.size).toBeGreaterThan(8);
    // Where the natural step would change something, the result says it is not offered here, and why.
    expect(nexts.some((next) => next.includes('is not offered by this server: it runs read-only'))).toBe(true);
    // The credential's permission is named too, so the person knows changes need another token.
    const connected = await call('check_connection');
    expect(connected.text).toMatch(/Permission level: access token READ-ONLY( \(the service refused a request with it at \S+ as read-only\))?, API key READ-ONLY/);
    done('what can I do with a read-only token', 12);
  });
});
