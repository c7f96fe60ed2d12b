import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dayEnd, dayOf } from '../../src/gate/allowance.js';
import { gateScope, scopeDigest } from '../../src/gate/key.js';
import { KEY_PREFIX } from '../../src/gate/redis-store.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import { redisSkipReason, startRedis, type RedisServer } from '../redis.js';
import { campaign, connectHttp, startHttp, type AnyClient, type HttpProcess } from './harness.js';
import { rawToolCall } from './replicas-support.js';

if (redisSkipReason) console.warn(redisSkipReason);

/**
 * The daily spend limit over two replicas of `app-management-mcp http` sharing one Redis: 50
 * confirmed creates racing over both replicas send exactly what fits the limit, each user is held
 * to their own, and a replica killed while its POST is on its way leaves the amount counted.
 * Every test acts as other users of the sandbox, so their days' ledgers never meet.
 */

const STATE_SECRET = `allowance-state-secret-${randomBytes(16).toString('hex')}`;
/** Three campaigns of 5.00 a day fit, exactly. */
const LIMIT_MICROS = 15_000_000;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
/** Warnings are made in batches this large: a loaded machine must not make Redis miss its 1 s deadline before the race. */
const WARNINGS_AT_ONCE = 10;
const OVER = /^REFUSED: over your daily spending limit: this create_ad_campaign call would commit 5\.00 of new daily budget, and 15\.00 of your 15\.00 a day is already committed today, so 0\.00 is left\. Nothing was sent; the warning is used up\./;

describe.skipIf(redisSkipReason !== undefined)('the daily spend limit on two replicas sharing Redis', () => {
  let sandbox: Sandbox;
  let redis: RedisServer;
  let admin: Redis;
  let a: HttpProcess;
  let b: HttpProcess;
  let env: Record<string, string>;
  const clients: AnyClient[] = [];
  const createsBy = (token: string) =>
    sandbox.requests.filter((request) => request.method === 'POST' && request.rawPath.endsWith('/campaigns') && request.headers.authorization === `Bearer ${token}`);
  /** What Redis holds as `token`'s sum today. */
  const ledgerUsed = async (token: string) => Number(await admin.hget(`${KEY_PREFIX}allowance:micros:${scopeDigest(gateScope(STATE_SECRET, token))}:${dayOf(Date.now())}`, 'used'));

  async function open(replica: HttpProcess, token: string): Promise<AnyClient> {
    const client = await connectHttp(replica.mcp, '2025-11-25', { headers: bearer(token) });
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    sandbox = await startSandbox({ control: true });
    redis = await startRedis({ appendOnly: true });
    admin = new Redis(redis.url);
    env = { APPMGMT_BASE_URL: sandbox.url, APPMGMT_STATE_URL: redis.url, APPMGMT_STATE_SECRET: STATE_SECRET, APPMGMT_SPEND_LIMIT_DAILY_MICROS: String(LIMIT_MICROS) };
    [a, b] = await Promise.all([startHttp([], env), startHttp([], env)]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop('SIGTERM'), b?.stop('SIGTERM')]);
    admin?.disconnect();
    await redis?.stop();
    await sandbox?.close();
  });
  beforeEach(({ skip }) => {
    // The tests run on the wall clock (two processes): a day that ends during one would split its counts.
    if (dayEnd(Date.now()) - Date.now() < 60_000) skip('the UTC day ends within a minute');
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });

  /**
   * Warns `count` campaigns of 5.00 as `token`, ten at a time over both replicas (the warnings are
   * not what races), then confirms them all at once, each on the other replica than its warning.
   */
  async function race(token: string, prefix: string, count: number) {
    const onA = await open(a, token);
    const onB = await open(b, token);
    const names = Array.from({ length: count }, (_, i) => campaign(`${prefix} ${i}`));
    for (let first = 0; first < count; first += WARNINGS_AT_ONCE) {
      const batch = names.slice(first, first + WARNINGS_AT_ONCE);
      const warnings = await Promise.all(batch.map((args, i) => (i % 2 ? onB : onA).callTool('create_ad_campaign', args)));
      for (const warning of warnings) expect(warning.structured).toMatchObject({ confirmation_needed: true });
    }
    return Promise.all(names.map((args, i) => (i % 2 ? onA : onB).callTool('create_ad_campaign', { ...args, confirm: true })));
  }

  it('sends exactly the 3 of 50 racing confirmed creates that fit, refusing 47 with why, and refuses the form round after', async () => {
    const token = 'pat_demo_owner';
    // A 2026-07-28 client with forms warns while the allowance is free; its form round comes after the race.
    const round = campaign('Round after the race');
    const warned = await rawToolCall(a.mcp, bearer(token), 'create_ad_campaign', round);
    expect(warned.result?.structuredContent).toMatchObject({ confirmation_needed: true });

    const outcomes = await race(token, 'Race', 50);
    const done = outcomes.filter((outcome) => !outcome.isError);
    const refused = outcomes.filter((outcome) => outcome.isError);
    expect(done).toHaveLength(3);
    expect(refused).toHaveLength(47);
    for (const outcome of refused) {
      expect(outcome.text).toMatch(OVER);
      expect(outcome.text).toContain('APPMGMT_SPEND_LIMIT_DAILY_MICROS');
      // The three that fit, each done or still on its way when this one was refused.
      expect(outcome.text.match(/^- \d\d:\d\d UTC create_ad_campaign on app app_demo(, campaign cmp_\w+)?: 5\.00 \((done|no outcome recorded yet: counted, as it may be spent)\)$/gm) ?? []).toHaveLength(3);
    }
    expect(createsBy(token)).toHaveLength(3);
    expect(await ledgerUsed(token)).toBe(LIMIT_MICROS);

    // Over the limit, the approval form is never sent: the round answers with the refusal.
    const confirmed = await rawToolCall(b.mcp, bearer(token), 'create_ad_campaign', { ...round, confirm: true });
    expect(confirmed.result?.resultType).not.toBe('input_required');
    expect(confirmed.result?.isError).toBe(true);
    expect(JSON.stringify(confirmed.result?.content)).toContain('REFUSED: over your daily spending limit');
    expect(createsBy(token)).toHaveLength(3);
  });

  it('holds two users racing at once each to their own limit', async () => {
    const [admins, editors] = await Promise.all([race('pat_demo_admin', 'Admin', 25), race('pat_demo_editor', 'Editor', 25)]);
    for (const [token, outcomes] of [['pat_demo_admin', admins], ['pat_demo_editor', editors]] as const) {
      expect(outcomes.filter((outcome) => !outcome.isError), token).toHaveLength(3);
      for (const outcome of outcomes.filter((each) => each.isError)) expect(outcome.text).toMatch(OVER);
      expect(createsBy(token), token).toHaveLength(3);
      expect(await ledgerUsed(token), token).toBe(LIMIT_MICROS);
    }
  });

  it('keeps the amount of a call whose replica was killed while its POST was on its way, after a restart', async () => {
    const token = 'pat_demo_member';
    const onA = await open(a, token);
    const args = campaign('Killed mid-spend');
    expect((await onA.callTool('create_ad_campaign', args)).structured).toMatchObject({ confirmation_needed: true });
    sandbox.script({ method: 'POST', path: '/api/apps/app_demo/adnet-ads/campaigns', status: 200, hang: true });
    const lost = onA.callTool('create_ad_campaign', { ...args, confirm: true }).catch((error: unknown) => error);
    await expect.poll(() => createsBy(token).length, { timeout: 10_000 }).toBe(1);
    expect(await a.stop('SIGKILL')).toBeNull();
    await lost;
    a = await startHttp([], env);

    const again = await open(a, token);
    const connection = await again.callTool('check_connection', {});
    expect(connection.structured?.daily_limits).toMatchObject({ spend: { limit: 15, used: 5, left: 10 } });
    const over = await again.callTool('create_ad_campaign', { ...campaign('Too much after the kill'), daily_budget_micros: 15_000_000 });
    expect(over.text).toMatch(/^REFUSED: over your daily spending limit: .* and 5\.00 of your 15\.00 a day is already committed today, so 10\.00 is left\./);
    expect(over.text).toMatch(/^- \d\d:\d\d UTC create_ad_campaign on app app_demo: 5\.00 \(no outcome recorded yet: counted, as it may be spent\)$/m);
    sandbox.release();
    expect(createsBy(token)).toHaveLength(1);
  });
});
