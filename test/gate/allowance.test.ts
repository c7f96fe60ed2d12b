import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { StateStoreUnavailableError } from '../../src/errors.js';
import { dayEnd } from '../../src/gate/allowance.js';
import { createMemoryAllowanceStore } from '../../src/gate/allowance-store.js';
import { MAX_LISTED_CALLS, refusalText } from '../../src/gate/allowance-text.js';
import { createGate } from '../../src/gate/gate.js';
import { createMemoryStore } from '../../src/gate/store.js';
import { silentLog } from '../../src/log.js';
import { TOOLS } from '../../src/tools/index.js';
import type { GatedTool, ToolResult } from '../../src/tools/define.js';
import { gateToolContext } from './context.js';
import { connect } from '../helpers.js';
import { APP, CAMPAIGN, CAMPAIGN_PATH } from '../tools/campaigns/fixtures.js';
import { ADMIN, allowanceOf, budgeted, EVENING, limitedServer, warnAndConfirm, type LimitedServer, type UserClient } from './allowance-support.js';

/**
 * The daily limits of issue 28, through a whole server on the sandbox with the test's clock: what
 * every warning says, what each outcome leaves counted, when the day ends, and the refusal that
 * comes before anyone is asked anything. Over several replicas and Redis: test/http/replicas-allowance.test.ts.
 */

const LIMIT_100 = { spendLimitDailyMicros: 100_000_000 };
const RESOURCE = 'customers/7100000001/recommendations/rec_budget_1';
const SUGGESTIONS_PATH = `${CAMPAIGN_PATH()}/optimization-suggestions`;
const suggestion = (micros: number) => [
  {
    id: 'rec_budget_1',
    severity: 'high',
    title: 'Change your budget',
    description: 'The budget limits the campaign.',
    action: 'edit_budget',
    action_payload: { campaign_ids: ['cmp_1'], field: 'daily_budget_micros', value: micros },
    source: 'adnet',
    recommendation_type: 'CAMPAIGN_BUDGET',
    recommendation_resource_name: RESOURCE,
    recommended_daily_budget_micros: micros,
  },
];

describe('the daily spend limit', () => {
  let server: LimitedServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  /** What check_connection says is committed today by `client`, in currency units. */
  async function used(client: UserClient, of: 'spend' | 'ai_turns' | 'spend_all_users' = 'spend'): Promise<number> {
    const facts = (await client.call('check_connection')).structured?.daily_limits as Record<string, { used: number }>;
    return facts[of]!.used;
  }

  it("shows the allowance in every warning's cost, in the words of the issue", async () => {
    server = await limitedServer(LIMIT_100);
    const owner = await server.user();
    expect((await warnAndConfirm(owner, 'create_ad_campaign', budgeted('First', 15))).outcome.isError).toBe(false);
    const warning = await owner.call('create_ad_campaign', budgeted('Second', 25));
    expect(allowanceOf(warning)).toBe('Daily limit: uses 25.00 of your 100.00 a day (60.00 left today; the day ends 00:00 UTC).');
    expect(warning.text).toContain(`Cost: daily budget 25.00 in the account currency, roughly 760.00 a month; real money once it serves. ${allowanceOf(warning)}`);
    expect(server.creates()).toBe(1);
  });

  it("refuses at the warning a call that would go over, listing the day's calls, the reset and who can change it", async () => {
    server = await limitedServer(LIMIT_100);
    const owner = await server.user();
    await warnAndConfirm(owner, 'create_ad_campaign', budgeted('Spring', 40));
    server.time.t += 5 * 60_000;
    server.sandbox.script({ method: 'POST', path: `/api/apps/${APP}/adnet-ads/campaigns`, status: 503, body: { detail: 'try later' } });
    await warnAndConfirm(owner, 'create_ad_campaign', budgeted('Summer', 50));
    server.time.t += 60 * 60_000;
    const before = server.sandbox.requests.length;
    const refusal = await owner.call('create_ad_campaign', budgeted('Autumn', 25));
    expect(refusal.isError).toBe(true);
    expect(refusal.text).toMatchInlineSnapshot(`
      "REFUSED: over your daily spending limit: this create_ad_campaign call would commit 25.00 of new daily budget, and 90.00 of your 100.00 a day is already committed today, so 10.00 is left. Nothing was sent, and nobody was asked to confirm it.
      Your calls counted today (2026-11-25, UTC), 90.00 in all:
      - 20:30 UTC create_ad_campaign on app app_demo, campaign cmp_0001: 40.00 (done)
      - 20:35 UTC create_ad_campaign on app app_demo: 50.00 (outcome unknown: counted, as it may have been spent)
      The limit resets at 00:00 UTC (2026-11-26T00:00:00.000Z), in 2 h 25 min.
      Only the server's operator can change it (APPMGMT_SPEND_LIMIT_DAILY_MICROS in the server's configuration, then a restart); no confirmation, approval or assistant can raise it. Tell the user; until then only a call that fits in what is left can go through."
    `);
    expect(refusal.structured).toEqual({ error: refusal.text.replace(/\nNext: .*$/, ''), next: 'Do what the error says before calling create_ad_campaign again.' });
    // Only the warning's read went out, and no warning was remembered: a confirmation finds none.
    expect(server.sandbox.requests.slice(before).map((request) => request.method)).toEqual(['GET']);
    expect((await owner.call('create_ad_campaign', { ...budgeted('Autumn', 25), confirm: true })).text).toMatch(/^NOT SENT: confirm: true needs a pending warning/);
    // What fits still goes through.
    expect((await warnAndConfirm(owner, 'create_ad_campaign', budgeted('Small', 10))).outcome.isError).toBe(false);
    expect(server.creates()).toBe(3);
  });

  it('refuses a confirmation over the limit before the approval form is shown, when the allowance went meanwhile', async () => {
    server = await limitedServer({ spendLimitDailyMicros: 15_000_000 });
    const owner = await server.user(undefined, { forms: true });
    const first = await owner.call('create_ad_campaign', budgeted('Waiting', 10));
    expect(allowanceOf(first)).toBe('Daily limit: uses 10.00 of your 15.00 a day (5.00 left today; the day ends 00:00 UTC).');
    expect((await warnAndConfirm(owner, 'create_ad_campaign', budgeted('Meanwhile', 10))).outcome.isError).toBe(false);
    expect(owner.asked).toHaveLength(1);

    const late = await owner.call('create_ad_campaign', { ...budgeted('Waiting', 10), confirm: true });
    expect(late.text).toMatch(/^REFUSED: over your daily spending limit: this create_ad_campaign call would commit 10\.00 .* so 5\.00 is left\. Nothing was sent, and nobody was asked to confirm it\./);
    expect(owner.asked).toHaveLength(1);
    expect(server.creates()).toBe(1);
  });

  it('gives back what a sure refusal did not spend, and keeps what an unknown outcome may have spent', async () => {
    server = await limitedServer(LIMIT_100);
    const owner = await server.user();
    const creates = `/api/apps/${APP}/adnet-ads/campaigns`;
    const cases = [
      { name: '402 (no payment method)', answer: { status: 402, body: { detail: 'No payment method' } }, kept: false },
      { name: '409 (the ad platform may have accepted it)', answer: { status: 409, body: { detail: 'timed out' } }, kept: true },
      { name: '500', answer: { status: 500, body: { detail: 'boom' } }, kept: true },
      { name: 'a dropped connection', answer: { status: 200, drop: true }, kept: true },
    ];
    let expected = 0;
    for (const [i, { name, answer, kept }] of cases.entries()) {
      server.sandbox.script({ method: 'POST', path: creates, ...answer });
      const { outcome } = await warnAndConfirm(owner, 'create_ad_campaign', budgeted(`Outcome ${i}`, 10));
      expect(outcome.text, name).toMatch(kept ? /^OUTCOME UNKNOWN/ : /^402: The workspace has no payment method/);
      if (kept) expected += 10;
      expect(await used(owner), name).toBe(expected);
    }
    expect(server.creates()).toBe(cases.length);
  });

  it('counts only the increase of an applied budget recommendation, nothing for a decrease, and gives back a 409 there', async () => {
    server = await limitedServer(LIMIT_100);
    const owner = await server.user();
    const apply = (micros: number) => ({ app_id: APP, campaign_id: 'cmp_1', recommendation_resource_name: RESOURCE, recommended_daily_budget_micros: micros });
    /** The warning reads the campaign and its suggestions; the confirmation reads the campaign again, then applies. */
    function service(budget: number, recommended: number, answer: { status: number; body: unknown }) {
      server!.sandbox.script({ method: 'GET', path: CAMPAIGN_PATH(), status: 200, body: { ...CAMPAIGN, daily_budget_micros: budget }, times: 2 });
      server!.sandbox.script({ method: 'GET', path: SUGGESTIONS_PATH, status: 200, body: suggestion(recommended) });
      server!.sandbox.script({ method: 'POST', path: `${CAMPAIGN_PATH()}/budget-recommendation/apply`, ...answer });
    }

    service(20_000_000, 35_000_000, { status: 200, body: { already_applied: false, daily_budget_micros: 35_000_000 } });
    const raise = await warnAndConfirm(owner, 'apply_budget_recommendation', apply(35_000_000));
    expect(allowanceOf(raise.warning)).toBe('Daily limit: uses 15.00 of your 100.00 a day (85.00 left today; the day ends 00:00 UTC).');
    expect(raise.outcome.isError).toBe(false);
    expect(await used(owner)).toBe(15);

    service(50_000_000, 35_000_000, { status: 200, body: { already_applied: false, daily_budget_micros: 35_000_000 } });
    const lower = await warnAndConfirm(owner, 'apply_budget_recommendation', apply(35_000_000));
    expect(allowanceOf(lower.warning)).toBe('Daily limit: uses nothing of your 100.00 a day (85.00 left today; the day ends 00:00 UTC).');
    expect(lower.outcome.isError).toBe(false);
    expect(await used(owner)).toBe(15);

    // For this operation the service documents 409 as a sure refusal: the figure changed, nothing applied.
    service(20_000_000, 60_000_000, { status: 409, body: { detail: 'recommendation changed' } });
    const changed = await warnAndConfirm(owner, 'apply_budget_recommendation', apply(60_000_000));
    expect(changed.outcome.text).toMatch(/^REFUSED \(409\)/);
    expect(await used(owner)).toBe(15);
    expect(server.sandbox.requests.filter((request) => request.method === 'POST')).toHaveLength(3);
  });

  it("counts a resumed campaign's daily budget, read as the warning reads it, and nothing for one already serving", async () => {
    server = await limitedServer(LIMIT_100);
    const owner = await server.user();
    expect((await owner.call('pause_ad_campaign', { app_id: APP, campaign_id: 'cmp_quiet' })).isError).toBe(false);
    const resume = await warnAndConfirm(owner, 'resume_ad_campaign', { app_id: APP, campaign_id: 'cmp_quiet' });
    expect(allowanceOf(resume.warning)).toBe('Daily limit: uses 10.00 of your 100.00 a day (90.00 left today; the day ends 00:00 UTC).');
    expect(resume.outcome.isError).toBe(false);
    const serving = await warnAndConfirm(owner, 'resume_ad_campaign', { app_id: APP, campaign_id: 'cmp_demo' });
    expect(allowanceOf(serving.warning)).toBe('Daily limit: uses nothing of your 100.00 a day (90.00 left today; the day ends 00:00 UTC).');
    expect(serving.outcome.isError).toBe(false);
    expect(await used(owner)).toBe(10);
    expect((await owner.call('check_connection')).text).toContain('Daily limits (UTC day; it ends 00:00 UTC, in 3 h 30 min): new daily budget 10.00 of your 100.00 committed today (90.00 left). Only the server\'s operator can change them.');
  });

  it('refuses an amount it cannot count, rather than letting it pass', async () => {
    server = await limitedServer(LIMIT_100);
    const owner = await server.user();
    const { daily_budget_micros: _, ...unbudgeted } = CAMPAIGN;
    server.sandbox.script({ method: 'GET', path: CAMPAIGN_PATH(), status: 200, body: { ...unbudgeted, status: 'PAUSED' } });
    const refusal = await owner.call('resume_ad_campaign', { app_id: APP, campaign_id: 'cmp_1' });
    expect(refusal.isError).toBe(true);
    expect(refusal.text).toMatch(/^Refused: the service did not give the daily budget this resume_ad_campaign call would commit, so it cannot be counted against the daily spending limit/);
  });

  it('gives the allowance back at 00:00 UTC, and not a millisecond before', async () => {
    server = await limitedServer({ spendLimitDailyMicros: 10_000_000 });
    const owner = await server.user();
    expect((await warnAndConfirm(owner, 'create_ad_campaign', budgeted('Today', 10))).outcome.isError).toBe(false);
    const midnight = dayEnd(EVENING);
    server.time.t = midnight - 1;
    const late = await owner.call('create_ad_campaign', budgeted('Tomorrow', 10));
    expect(late.text).toMatch(/^REFUSED: over your daily spending limit/);
    expect(late.text).toContain('The limit resets at 00:00 UTC (2026-11-26T00:00:00.000Z), in under a minute.');
    server.time.t = midnight;
    const next = await warnAndConfirm(owner, 'create_ad_campaign', budgeted('Tomorrow', 10));
    expect(allowanceOf(next.warning)).toBe('Daily limit: uses 10.00 of your 10.00 a day (0.00 left today; the day ends 00:00 UTC).');
    expect(next.outcome.isError).toBe(false);
    expect(server.creates()).toBe(2);
    expect((await owner.call('check_connection')).structured?.daily_limits).toEqual({
      day: '2026-11-26',
      resets_at: '2026-11-27T00:00:00.000Z',
      spend: { limit: 10, used: 10, left: 0 },
    });
  });

  it("holds each user to their own limit, and all of them to the server's, never showing one user another's calls", async () => {
    server = await limitedServer({ spendLimitDailyMicros: 10_000_000, spendLimitTotalDailyMicros: 15_000_000 });
    const owner = await server.user();
    const admin = await server.user(ADMIN);
    expect((await warnAndConfirm(owner, 'create_ad_campaign', budgeted('Owner', 10))).outcome.isError).toBe(false);
    const warning = await admin.call('create_ad_campaign', budgeted('Admin big', 10));
    expect(warning.text).toMatch(/^REFUSED: over this server's daily spending limit for all its users together: this create_ad_campaign call would commit 10\.00 of new daily budget, and 10\.00 of the server's 15\.00 a day is already committed today, so 5\.00 is left\./);
    expect(warning.text).toContain("You have committed nothing today (2026-11-25, UTC). Other users' calls count too, and are not shown.");
    expect(warning.text).toContain('APPMGMT_SPEND_LIMIT_TOTAL_DAILY_MICROS');
    expect(warning.text).not.toContain('cmp_0001');
    const fits = await warnAndConfirm(admin, 'create_ad_campaign', budgeted('Admin small', 5));
    expect(allowanceOf(fits.warning)).toBe(
      "Daily limit: uses 5.00 of your 10.00 a day (5.00 left today; the day ends 00:00 UTC); this server's limit for all users together, 15.00 a day, has 0.00 left after it.",
    );
    expect(fits.outcome.isError).toBe(false);
    expect([await used(owner), await used(admin), await used(admin, 'spend_all_users')]).toEqual([10, 5, 15]);
    expect(server.sandbox.requests.filter((request) => request.method === 'POST').map((request) => request.headers.authorization)).toEqual([
      `Bearer ${server.sandbox.simulation.credentials.accessToken}`,
      `Bearer ${ADMIN.accessToken}`,
    ]);
  });
});

describe('the limits in the configuration', () => {
  it('reads the three limits from the environment, and stops start-up on a malformed or misspelt one, naming it', () => {
    const config = loadConfig({ APPMGMT_SPEND_LIMIT_DAILY_MICROS: '100000000', APPMGMT_SPEND_LIMIT_TOTAL_DAILY_MICROS: '1000000000', APPMGMT_CREDIT_TURNS_DAILY: '20' });
    expect([config.spendLimitDailyMicros, config.spendLimitTotalDailyMicros, config.creditTurnsDaily]).toEqual([100_000_000, 1_000_000_000, 20]);
    expect(() => loadConfig({ APPMGMT_SPEND_LIMIT_DAILY_MICROS: '25.50' })).toThrow('APPMGMT_SPEND_LIMIT_DAILY_MICROS must be a positive whole number');
    expect(() => loadConfig({ APPMGMT_CREDIT_TURNS_DAILY: '0' })).toThrow('APPMGMT_CREDIT_TURNS_DAILY must be a positive whole number');
    expect(() => loadConfig({ APPMGMT_SPEND_LIMIT_DAILY: '100000000' })).toThrow('did you mean APPMGMT_SPEND_LIMIT_DAILY_MICROS?');
  });
});

describe('what counts, and what stops a count', () => {
  it('has every tool that costs money say what a confirmed call commits', () => {
    const money = TOOLS.filter((tool) => tool.cost === 'money');
    expect(money.map((tool) => tool.name).sort()).toEqual(['apply_budget_recommendation', 'create_ad_campaign', 'resume_ad_campaign']);
    for (const tool of money) expect(tool.gate?.commits, tool.name).toBeTypeOf('function');
  });

  it(`lists the ${MAX_LISTED_CALLS} newest of the day's calls in a refusal, and sums the others in one line`, () => {
    const calls = Array.from({ length: 14 }, (_, i) => ({ id: `c${i}`, tool: 'resume_ad_campaign', app: 'app_demo', campaign: `cmp_${i}`, amount: 1_000_000, at: EVENING - (14 - i) * 60_000, state: 'done' as const }));
    const text = refusalText({
      tool: 'resume_ad_campaign',
      limits: { unit: 'micros', user: 15_000_000 },
      over: 'user',
      tally: { user: { used: 14_000_000, total: 14_000_000, calls } },
      amount: 2_000_000,
      now: EVENING,
      resetsAt: dayEnd(EVENING),
      stage: 'confirm',
    });
    const lines = text.split('\n');
    expect(lines.slice(1, 4)).toEqual([
      'Your calls counted today (2026-11-25, UTC), 14.00 in all:',
      '- 4 earlier calls: 4.00',
      '- 20:20 UTC resume_ad_campaign on app app_demo, campaign cmp_4: 1.00 (done)',
    ]);
    expect(lines.filter((line) => line.startsWith('- '))).toHaveLength(MAX_LISTED_CALLS + 1);
    expect(lines[0]).toMatch(/Nothing was sent; the warning is used up\.$/);
  });

  it("reads each caller's limit from that caller's configuration, so narrowing it there narrows their limit", async () => {
    const now = () => EVENING;
    const gate = createGate({ store: createMemoryStore({ now }), now, config: { requireHumanConfirmation: false, approvalTimeoutMs: 60_000 }, log: silentLog });
    const create = TOOLS.find((tool) => tool.name === 'create_ad_campaign') as GatedTool;
    const api = { listAdCampaigns: async () => [] } as never;
    const context = (limit: number) => ({ ...gateToolContext(now), api, config: { spendLimitDailyMicros: limit } as never });
    const narrowed = gate.call(create, budgeted('Narrowed', 10), undefined, context(5_000_000), { scope: 'bob', approval: { kind: 'none' } });
    await expect(narrowed).rejects.toThrow(/^REFUSED: over your daily spending limit: this create_ad_campaign call would commit 10\.00 of new daily budget, and 0\.00 of your 5\.00 a day/);
    const wide = (await gate.call(create, budgeted('Wide', 10), undefined, context(50_000_000), { scope: 'carol', approval: { kind: 'none' } })) as ToolResult;
    expect(wide.structured?.cost).toContain('Daily limit: uses 10.00 of your 50.00 a day (40.00 left today; the day ends 00:00 UTC).');
  });

  it('sends nothing, and calls nothing unknown, when the read before sending fails', async () => {
    const server = await limitedServer(LIMIT_100);
    try {
      const owner = await server.user();
      expect((await owner.call('pause_ad_campaign', { app_id: APP, campaign_id: 'cmp_quiet' })).isError).toBe(false);
      await owner.call('resume_ad_campaign', { app_id: APP, campaign_id: 'cmp_quiet' });
      server.sandbox.script({ method: 'GET', path: `/api/apps/${APP}/adnet-ads/campaigns/cmp_quiet`, status: 404, body: { detail: 'Campaign cmp_quiet not found' } });
      const confirmed = await owner.call('resume_ad_campaign', { app_id: APP, campaign_id: 'cmp_quiet', confirm: true });
      expect(confirmed.text).toMatch(
        /^NOT SENT: just before sending, resume_ad_campaign reads the campaign's daily budget again to count it against the daily limit, and that read failed: 404: App or campaign not found\..* Nothing was sent; call resume_ad_campaign again without confirm for a fresh warning\.$/,
      );
      const again = await owner.call('resume_ad_campaign', { app_id: APP, campaign_id: 'cmp_quiet' });
      expect(again.text).not.toContain('Earlier attempt');
      expect(server.sandbox.requests.filter((request) => request.rawPath.endsWith('/resume'))).toHaveLength(0);
    } finally {
      await server.close();
    }
  });

  it('sends nothing, and calls nothing unknown, when the count cannot be reached', async () => {
    const store = createMemoryAllowanceStore({ now: () => EVENING });
    const server = await limitedServer(LIMIT_100, {
      allowanceStore: { ...store, reserve: async () => Promise.reject(new StateStoreUnavailableError('no answer from Redis within 1 s')) },
    });
    try {
      const owner = await server.user();
      const { outcome } = await warnAndConfirm(owner, 'create_ad_campaign', budgeted('Unreachable', 10));
      expect(outcome.text).toMatch(/^The confirmation gate's state store is unavailable \(no answer from Redis within 1 s\)/);
      expect((await owner.call('create_ad_campaign', budgeted('Unreachable', 10))).text).not.toContain('Earlier attempt');
      expect(server.creates()).toBe(0);
    } finally {
      await server.close();
    }
  });
});

describe('the daily count of AI turns', () => {
  it('counts confirmed chat messages and conflict resolutions per user, and gives back a turn the service refused', async () => {
    const server = await limitedServer({ creditTurnsDaily: 2 });
    try {
      const owner = await server.user();
      const admin = await server.user(ADMIN);
      server.sandbox.script({ method: 'POST', path: `/api/apps/${APP}/repohost/sync/resolve-conflicts`, status: 400, body: { detail: 'Out of credits' } });
      const resolve = await warnAndConfirm(owner, 'resolve_repo_conflicts', { app_id: APP });
      expect(allowanceOf(resolve.warning)).toBe('Daily limit: uses 1 AI turn of your 2 AI turns a day (1 left today; the day ends 00:00 UTC).');
      expect(resolve.outcome.text).toMatch(/^400: Refused; no AI turn ran/);
      const turns = (n: number) => warnAndConfirm(owner, 'send_app_chat_message', { app_id: APP, content: `Message ${n}` });
      for (const n of [1, 2]) expect((await turns(n)).outcome.isError, `message ${n}`).toBe(false);
      const third = await owner.call('send_app_chat_message', { app_id: APP, content: 'Message 3' });
      expect(third.text).toMatch(/^REFUSED: over your daily limit of AI turns: this send_app_chat_message call would use 1 AI turn, and 2 of your 2 a day are used today, so 0 are left\./);
      expect(third.text).toMatch(/- \d\d:\d\d UTC send_app_chat_message on app app_demo: 1 AI turn \(done\)/);
      expect(third.text).toContain('APPMGMT_CREDIT_TURNS_DAILY');
      expect(third.text).toContain('Tell the user; no such call can go through before then.');
      // Another user has turns of their own.
      expect((await warnAndConfirm(admin, 'send_app_chat_message', { app_id: APP, content: 'Mine' })).outcome.isError).toBe(false);
      expect((await owner.call('check_connection')).structured?.daily_limits).toMatchObject({ ai_turns: { limit: 2, used: 2, left: 0 } });
      expect(server.sandbox.requests.filter((request) => request.method === 'POST' && request.rawPath.endsWith('/chat/message'))).toHaveLength(3);
    } finally {
      await server.close();
    }
  });
});

describe('without a limit', () => {
  it("counts nothing and says nothing: the sandbox's demo user has no limit unless a variable sets one", async () => {
    const h = await connect({ config: { sandbox: true } });
    try {
      const warning = await h.call('create_ad_campaign', budgeted('Free', 500));
      expect(allowanceOf(warning)).toBeUndefined();
      expect(warning.text).not.toContain('Daily limit');
      const connection = await h.call('check_connection');
      expect(connection.structured?.daily_limits).toBeUndefined();
      expect(connection.text).not.toContain('Daily limits');
    } finally {
      await h.close();
    }
  });
});
