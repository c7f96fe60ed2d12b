import { afterEach, describe, expect, it } from 'vitest';
import { dayEnd } from '../../src/gate/allowance.js';
import { refusalText, type Over } from '../../src/gate/allowance-text.js';
import { silentLog } from '../../src/log.js';
import { AuditLineSchema, auditUser, createAuditTrail } from '../../src/observe/audit.js';
import { gateScope } from '../../src/gate/key.js';
import { memorySink } from '../observe/audit-support.js';
import { APP } from '../tools/campaigns/fixtures.js';
import { ADMIN, allowanceOf, budgeted, EVENING, limitedServer, warnAndConfirm, type LimitedServer } from './allowance-support.js';

/**
 * The daily limits with OAuth (issue 28, item 7): a grant may carry lower limits its person chose at
 * consent, counted per grant, while the operator's per-user limits count per person (the service
 * token the grant holds), so connecting twice never gives anyone a second share. Grants are made
 * here as the HTTP transport makes them (a grant id and its bound beside the credentials); the
 * consent page that sets the bound: test/auth/refusals.test.ts; over two replicas: test/auth/e2e.test.ts.
 */

const STATE_SECRET = 'allowance-grants-test-state-secret-of-32-bytes';
const grant = (id: string, bound: { spendLimitMicros?: number; aiTurnsDaily?: number } = {}) => ({ grant: { id: id.repeat(32), bound: { readOnly: false, ...bound } } });

describe('a grant with a daily limit of its own', () => {
  let server: LimitedServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('is held to the lower limit its person chose, which warnings, check_connection and the refusal name, with who can change it', async () => {
    const trail = memorySink();
    const audit = createAuditTrail({ sink: trail.sink, now: () => server!.time.t, redact: (text) => text, log: silentLog });
    server = await limitedServer({ spendLimitDailyMicros: 100_000_000 }, { audit, stateSecret: STATE_SECRET });
    const assistant = await server.user(undefined, grant('a', { spendLimitMicros: 30_000_000 }));
    const first = await warnAndConfirm(assistant, 'create_ad_campaign', budgeted('Chosen', 25));
    expect(allowanceOf(first.warning)).toBe('Daily limit: uses 25.00 of the 30.00 a day chosen for this connection when connecting (5.00 left today; the day ends 00:00 UTC).');
    expect(first.outcome.isError).toBe(false);

    const check = await assistant.call('check_connection');
    expect(check.text).toContain(
      "Daily limits (UTC day; it ends 00:00 UTC, in 3 h 30 min): new daily budget 25.00 of your 100.00 committed today, all your connections together (75.00 left); this connection's new daily budget 25.00 of the 30.00 chosen when connecting (5.00 left), so at most 5.00 more today. Only the server's operator can change the server's limits; the person chose this connection's when connecting, and can connect again to choose others.",
    );
    expect(check.structured?.daily_limits).toEqual({
      day: '2026-11-25',
      resets_at: '2026-11-26T00:00:00.000Z',
      spend: { limit: 100, used: 25, left: 75 },
      spend_this_connection: { limit: 30, used: 25, left: 5 },
    });

    server.time.t += 10 * 60_000;
    const refusal = await assistant.call('create_ad_campaign', budgeted('Too much', 10));
    expect(refusal.text).toMatchInlineSnapshot(`
      "REFUSED: over the daily spending limit chosen for this connection when connecting: this create_ad_campaign call would commit 10.00 of new daily budget, and 25.00 of its 30.00 a day is already committed today, so 5.00 is left. Nothing was sent, and nobody was asked to confirm it.
      This connection's calls counted today (2026-11-25, UTC), 25.00 in all:
      - 20:30 UTC create_ad_campaign on app app_demo, campaign cmp_0001: 25.00 (done)
      The limit resets at 00:00 UTC (2026-11-26T00:00:00.000Z), in 3 h 20 min.
      The person chose this limit for this connection when connecting the assistant; they can connect again and choose another on the consent page. No confirmation, approval or assistant can raise it. Tell the user; until then only a call that fits in what is left can go through."
    `);
    expect(server.creates()).toBe(1);

    // The trail says which limits applied, whose sums they are, and which one refused.
    const lines = trail.lines.map((line) => AuditLineSchema.parse(JSON.parse(line)));
    const person = auditUser(gateScope(STATE_SECRET, server.sandbox.simulation.credentials.accessToken));
    expect(lines.every((line) => line.user === 'a'.repeat(32) && line.person === person)).toBe(true);
    expect(lines.find((line) => line.step === 'reserved')).toMatchObject({ unit: 'micros', counted: 25_000_000, used: 25_000_000, limit: 100_000_000, grant_used: 25_000_000, grant_limit: 30_000_000 });
    expect(lines.at(-1)).toMatchObject({ step: 'refused', reason: 'over_limit', over: 'grant' });
  });

  it("shares the operator's per-user limit between two grants of one person, and with that person in header mode", async () => {
    server = await limitedServer({ spendLimitDailyMicros: 30_000_000 });
    const first = await server.user(undefined, grant('a'));
    const second = await server.user(undefined, grant('b', { spendLimitMicros: 50_000_000 }));
    const header = await server.user();
    const spent = await warnAndConfirm(first, 'create_ad_campaign', budgeted('First connection', 20));
    expect(allowanceOf(spent.warning)).toBe('Daily limit: uses 20.00 of your 30.00 a day, all your connections together (10.00 left today; the day ends 00:00 UTC).');
    expect(spent.outcome.isError).toBe(false);
    expect((await header.call('check_connection')).structured?.daily_limits).toMatchObject({ spend: { limit: 30, used: 20, left: 10 } });

    // The second connection's own 50.00 has room; the person's 30.00 does not: the operator's limit is named.
    const over = await second.call('create_ad_campaign', budgeted('Second connection', 15));
    expect(over.text).toMatch(
      /^REFUSED: over your daily spending limit: this create_ad_campaign call would commit 15\.00 of new daily budget, and 20\.00 of your 30\.00 a day is already committed today \(all your connections together\), so 10\.00 is left\./,
    );
    expect(over.text).toContain('Your calls counted today (2026-11-25, UTC; all your connections), 20.00 in all:\n- 20:30 UTC create_ad_campaign on app app_demo, campaign cmp_0001: 20.00 (done)');
    expect(over.text).toContain('APPMGMT_SPEND_LIMIT_DAILY_MICROS in the server\'s configuration, then a restart); no confirmation, approval or assistant can raise it. Connecting again does not change it: it counts per person.');
    const fits = await warnAndConfirm(second, 'create_ad_campaign', budgeted('Second connection', 10));
    expect(allowanceOf(fits.warning)).toBe('Daily limit: uses 10.00 of your 30.00 a day, all your connections together (0.00 left today; the day ends 00:00 UTC).');
    expect(fits.outcome.isError).toBe(false);
    expect((await header.call('create_ad_campaign', budgeted('By header', 1))).text).toMatch(/^REFUSED: over your daily spending limit/);

    // Another person has their own share, whichever way they connect.
    const other = await server.user(ADMIN, grant('c'));
    expect((await warnAndConfirm(other, 'create_ad_campaign', budgeted('Another person', 25))).outcome.isError).toBe(false);
    expect(server.creates()).toBe(3);
  });

  it('counts AI turns against a limit of its own when the operator sets none, and leaves other grants of the person unlimited', async () => {
    server = await limitedServer({});
    const limited = await server.user(undefined, grant('a', { aiTurnsDaily: 1 }));
    const free = await server.user(undefined, grant('b'));
    const message = (client: typeof limited, n: number) => warnAndConfirm(client, 'send_app_chat_message', { app_id: APP, content: `Message ${n}` });
    const first = await message(limited, 1);
    expect(allowanceOf(first.warning)).toBe('Daily limit: uses 1 AI turn of the 1 AI turns a day chosen for this connection when connecting (0 left today; the day ends 00:00 UTC).');
    expect(first.outcome.isError).toBe(false);
    const second = await limited.call('send_app_chat_message', { app_id: APP, content: 'Message 2' });
    expect(second.text).toMatch(/^REFUSED: over the daily limit of AI turns chosen for this connection when connecting: this send_app_chat_message call would use 1 AI turn, and 1 of its 1 a day are used today, so 0 are left\./);
    expect(second.text).toContain('Tell the user; no such call can go through before then.');
    // The same person's other connection chose no limit, and the operator set none.
    const other = await message(free, 3);
    expect(allowanceOf(other.warning)).toBeUndefined();
    expect(other.outcome.isError).toBe(false);
    // A money tool of the limited grant: no spending limit applies to it, and none is shown.
    expect(allowanceOf(await limited.call('create_ad_campaign', budgeted('Unlimited', 5)))).toBeUndefined();
    expect((await limited.call('check_connection')).structured?.daily_limits).toEqual({
      day: '2026-11-25',
      resets_at: '2026-11-26T00:00:00.000Z',
      ai_turns_this_connection: { limit: 1, used: 1, left: 0 },
    });
  });
});

describe('the refusal for each limit that binds', () => {
  const tally = { user: { used: 20_000_000, total: 40_000_000, calls: [] }, grant: { used: 5_000_000, total: 40_000_000, calls: [] } };
  const limits = { unit: 'micros' as const, user: 25_000_000, total: 45_000_000, grant: 8_000_000, viaGrant: true };
  const refusal = (over: Over) => refusalText({ tool: 'create_ad_campaign', limits, over, tally, amount: 6_000_000, now: EVENING, resetsAt: dayEnd(EVENING), stage: 'confirm' }).split('\n');

  it.each([
    ['user', 'over your daily spending limit: this create_ad_campaign call would commit 6.00 of new daily budget, and 20.00 of your 25.00 a day is already committed today (all your connections together), so 5.00 is left.', "Only the server's operator can change it (APPMGMT_SPEND_LIMIT_DAILY_MICROS in the server's configuration, then a restart); no confirmation, approval or assistant can raise it. Connecting again does not change it: it counts per person."],
    ['total', "over this server's daily spending limit for all its users together: this create_ad_campaign call would commit 6.00 of new daily budget, and 40.00 of the server's 45.00 a day is already committed today, so 5.00 is left.", "Only the server's operator can change it (APPMGMT_SPEND_LIMIT_TOTAL_DAILY_MICROS in the server's configuration, then a restart); no confirmation, approval or assistant can raise it."],
    ['grant', 'over the daily spending limit chosen for this connection when connecting: this create_ad_campaign call would commit 6.00 of new daily budget, and 5.00 of its 8.00 a day is already committed today, so 3.00 is left.', 'The person chose this limit for this connection when connecting the assistant; they can connect again and choose another on the consent page. No confirmation, approval or assistant can raise it.'],
    ['calls', 'you have 0 calls counted today, the most one day holds.', "Only the server's operator can help; no confirmation, approval or assistant can change it."],
  ] as const)('over %s: says which limit, and who can change it', (over, why, who) => {
    const lines = refusal(over);
    expect(lines[0]).toBe(`REFUSED: ${why} Nothing was sent; the warning is used up.`);
    expect(lines.at(-1)!.startsWith(`${who} Tell the user;`)).toBe(true);
  });
});
