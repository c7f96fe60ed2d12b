import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import { redisSkipReason, startRedis, type RedisServer } from '../redis.js';
import { campaign, connectHttp, startHttp, type AnyClient, type CallOutcome, type Era, type HttpProcess } from './harness.js';
import {
  alternatingFetch,
  forgedPayload,
  forgedSignature,
  pollReadiness,
  rawToolCall,
  readiness,
  statePayload,
  type RpcAnswer,
} from './replicas-support.js';

if (redisSkipReason) console.warn(redisSkipReason);

/**
 * Two replicas of `app-management-mcp http` as separate processes, sharing one real Redis for the
 * confirmation gate, against a sandbox in this process that records every request sent upstream.
 * A call may land on either replica: warnings, in-flight markers and approvals hold across them,
 * users stay apart, and an outage of Redis refuses gated calls (sending nothing) while reads work.
 */

/** Another user's token: made up, never valid upstream. */
const BOB_TOKEN = `made-up-bob-token-${randomBytes(6).toString('hex')}`;
const BOB = { authorization: `Bearer ${BOB_TOKEN}` };
/** Distinct from anything else in the logs, so a leak of it would show. */
const STATE_SECRET = `replica-state-secret-${randomBytes(16).toString('hex')}`;
const APPROVE = { inputResponses: { approval: { action: 'accept', content: { approve: true } } } };
const NO_WARNING = /^NOT SENT: confirm: true needs a pending warning for exactly these arguments, and there is none/;
/** A confirmation repeated after the call was done: names what it created, on whichever replica (issue 17). */
const DONE = /^NOT SENT: this exact call \(same arguments\) was already carried out at \S+: created campaign cmp_\w+/;
const IN_FLIGHT = /^NOT SENT: an identical create_ad_campaign call \(same arguments\) has been running since /;

describe.skipIf(redisSkipReason !== undefined)('two http replicas sharing the gate state in Redis', () => {
  let sandbox: Sandbox;
  let redis: RedisServer;
  let a: HttpProcess;
  let b: HttpProcess;
  let headers: Record<string, string>;
  /** Every text and structured result a client was shown, for the credential check at the end. */
  const shown: string[] = [];
  const clients: AnyClient[] = [];
  const creates = () => sandbox.requests.filter((request) => request.method === 'POST' && request.rawPath.endsWith('/campaigns'));

  /** A client connected to one replica, whose results are kept in `shown`. */
  async function open(replica: HttpProcess, era: Era, options: { headers?: Record<string, string>; forms?: boolean; fetch?: typeof fetch } = {}): Promise<AnyClient> {
    const client = await connectHttp(replica.mcp, era, {
      headers: options.headers ?? headers,
      ...(options.forms ? { capabilities: { elicitation: { form: {} } } } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    clients.push(client);
    const callTool = client.callTool.bind(client);
    client.callTool = async (name, args) => {
      const outcome: CallOutcome = await callTool(name, args);
      shown.push(outcome.text, JSON.stringify(outcome.structured ?? {}));
      return outcome;
    };
    return client;
  }

  /** A raw 2026-07-28 tools/call whose answer is kept in `shown`. */
  async function raw(replica: HttpProcess, args: Record<string, unknown>, extra: Record<string, unknown> = {}, as = headers): Promise<RpcAnswer> {
    const answer = await rawToolCall(replica.mcp, as, 'create_ad_campaign', args, extra);
    shown.push(JSON.stringify(answer));
    return answer;
  }
  const textOf = (answer: RpcAnswer) => ((answer.result?.content ?? []) as Array<{ text?: string }>).map((part) => part.text ?? '').join('\n');

  beforeAll(async () => {
    sandbox = await startSandbox({ control: true });
    const { accessToken, apiKey, monitoringApiKey } = sandbox.simulation.credentials;
    headers = { authorization: `Bearer ${accessToken}`, 'x-appmgmt-api-key': apiKey, 'x-appmgmt-monitoring-api-key': monitoringApiKey };
    redis = await startRedis({ appendOnly: true }); // as the gate asks of production: a restart keeps its records
    const env = { APPMGMT_BASE_URL: sandbox.url, APPMGMT_STATE_URL: redis.url, APPMGMT_STATE_SECRET: STATE_SECRET, APPMGMT_LOG_LEVEL: 'debug' };
    [a, b] = await Promise.all([startHttp([], env), startHttp([], env)]);
  });
  afterAll(async () => {
    const exits = await Promise.all([a?.stop('SIGTERM'), b?.stop('SIGTERM')]);
    await redis?.stop();
    await sandbox?.close();
    expect(exits).toEqual([0, 0]);
  });
  beforeEach(() => sandbox.reset());
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });

  for (const era of ['2025-11-25', '2026-07-28'] as const) {
    it(`confirms on replica B a ${era} client's warning from replica A, sending it once`, async () => {
      const onA = await open(a, era);
      const onB = await open(b, era);
      const args = campaign(`Across replicas ${era}`);
      const warning = await onA.callTool('create_ad_campaign', args);
      expect(warning.structured).toMatchObject({ confirmation_needed: true });
      expect(creates()).toHaveLength(0);

      const done = await onB.callTool('create_ad_campaign', { ...args, confirm: true });
      expect(done.isError).toBe(false);
      expect(done.structured).toMatchObject({ confirmation_needed: false, campaign_name: args.campaign_name });
      expect(creates()).toHaveLength(1);
      expect(creates()[0]!.body).toMatchObject({ campaign_name: args.campaign_name });

      // The warning is used up on both replicas.
      for (const client of [onA, onB]) {
        const again = await client.callTool('create_ad_campaign', { ...args, confirm: true });
        expect(again.isError).toBe(true);
        expect(again.text).toMatch(DONE);
      }
      expect(creates()).toHaveLength(1);
    });
  }

  it('sends one request for 10 concurrent confirmations of one warning spread over both replicas', async () => {
    const onA = await open(a, '2025-11-25');
    const onB = await open(b, '2026-07-28');
    /** Confirms `args` 10 times at once, alternating A and B; expects one call to act and 9 to send nothing. */
    async function confirmTenTimes(args: Record<string, unknown>) {
      const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? onA : onB).callTool('create_ad_campaign', { ...args, confirm: true })));
      const done = outcomes.filter((outcome) => !outcome.isError);
      expect(done).toHaveLength(1);
      expect(done[0]!.structured).toMatchObject({ confirmation_needed: false, campaign_name: args.campaign_name });
      const refused = outcomes.filter((outcome) => outcome.isError);
      expect(refused).toHaveLength(9);
      for (const outcome of refused) expect(outcome.text).toMatch(new RegExp(`${DONE.source}|${IN_FLIGHT.source}`));
    }

    const once = campaign('Ten at once');
    expect((await onA.callTool('create_ad_campaign', once)).structured).toMatchObject({ confirmation_needed: true });
    await confirmTenTimes(once);
    expect(creates()).toHaveLength(1);

    // Shown on both replicas, the same call is still one pending warning (one record in Redis), so again one request.
    const twice = campaign('Ten at once, warned twice');
    for (const client of [onA, onB]) expect((await client.callTool('create_ad_campaign', twice)).structured).toMatchObject({ confirmation_needed: true });
    await confirmTenTimes(twice);
    expect(creates().map((request) => (request.body as Record<string, unknown>).campaign_name)).toEqual(['Ten at once', 'Ten at once, warned twice']);
  });

  it("refuses one user's confirmation of another user's warning on the other replica, which the owner can still confirm", async () => {
    const alice = await open(a, '2025-11-25');
    const bob = await open(b, '2025-11-25', { headers: BOB });
    const args = campaign('Alice across replicas');
    expect((await alice.callTool('create_ad_campaign', args)).structured).toMatchObject({ confirmation_needed: true });

    const stolen = await bob.callTool('create_ad_campaign', { ...args, confirm: true });
    expect(stolen.isError).toBe(true);
    expect(stolen.text).toMatch(NO_WARNING);
    expect(stolen.text).not.toMatch(/other arguments/); // nothing about Alice's calls shows through
    expect(creates()).toHaveLength(0);
    expect(sandbox.requests.filter((request) => request.headers.authorization === BOB.authorization)).toHaveLength(0);

    const aliceOnB = await open(b, '2026-07-28');
    const done = await aliceOnB.callTool('create_ad_campaign', { ...args, confirm: true });
    expect(done.isError).toBe(false);
    expect(creates()).toHaveLength(1);
    expect(creates()[0]!.headers.authorization).toBe(headers.authorization);
  });

  it('takes a 2026-07-28 approval whose form round and retry land on different replicas, asking once and sending once', async () => {
    const { fetch: routing, routed } = alternatingFetch({ A: a, B: b });
    const client = await open(a, '2026-07-28', { forms: true, fetch: routing });
    const asked = client.answerForms(() => ({ action: 'accept', content: { approve: true } }));
    const args = campaign('Approved across replicas');
    expect((await client.callTool('create_ad_campaign', args)).structured).toMatchObject({ confirmation_needed: true });
    const done = await client.callTool('create_ad_campaign', { ...args, confirm: true });
    expect(done.isError).toBe(false);
    expect(done.structured).toMatchObject({ confirmation_needed: false, campaign_name: args.campaign_name });
    expect(asked).toEqual([expect.stringContaining('daily budget 5.00')]);
    expect(creates()).toHaveLength(1);

    const calls = routed.filter((request) => request.rpc === 'tools/call');
    const rounds = calls.filter((request) => request.resultType === 'input_required');
    const retries = calls.filter((request) => request.retry);
    expect(rounds).toHaveLength(1);
    expect(retries).toHaveLength(1);
    expect(new Set(calls.map((request) => request.replica))).toEqual(new Set(['A', 'B']));
    expect(retries[0]!.replica).not.toBe(rounds[0]!.replica);

    // The warning is used up: another confirmation gets no form and sends nothing.
    const again = await client.callTool('create_ad_campaign', { ...args, confirm: true });
    expect(again.text).toMatch(DONE);
    expect(asked).toHaveLength(1);
    expect(creates()).toHaveLength(1);
  });

  it('refuses a forged requestState, another user’s and a replayed one on either replica, sending nothing for them', async () => {
    const args = campaign('Raw rounds');
    const confirmed = { ...args, confirm: true };
    expect((await raw(a, args)).result?.structuredContent).toMatchObject({ confirmation_needed: true });
    const round = await raw(a, confirmed);
    expect(round.result?.resultType).toBe('input_required');
    const state = round.result?.requestState;
    expect(typeof state).toBe('string');
    const genuine = state as string;
    // What the client carries is readable but holds no credential: a hash of the call, a nonce, a time.
    expect(statePayload(genuine)).toMatchObject({ p: { key: expect.stringMatching(/^[0-9a-f]{64}$/), nonce: expect.any(String), at: expect.any(Number) } });

    const forgeries = [
      forgedSignature(genuine),
      forgedPayload(genuine, (payload) => void ((payload.p as Record<string, unknown>).nonce = randomUUID())),
      forgedPayload(genuine, (payload) => void (payload.exp = (payload.exp as number) + 3_600)),
      'v1.e30.e30',
    ];
    for (const forged of forgeries) {
      const answer = await raw(b, confirmed, { requestState: forged, ...APPROVE });
      expect(answer.result).toBeUndefined();
      expect(answer.error).toMatchObject({ code: -32602, message: 'Invalid or expired requestState' });
    }
    expect(creates()).toHaveLength(0);

    // Genuine, but brought by another user: it approves Alice's call, not Bob's.
    const bobs = await raw(b, confirmed, { requestState: genuine, ...APPROVE }, BOB);
    expect(bobs.result?.isError).toBe(true);
    expect(textOf(bobs)).toMatch(/This approval belongs to another call \(other arguments or another user\)\. Nothing was sent/);
    expect(creates()).toHaveLength(0);

    // The genuine retry on the other replica acts, once.
    const done = await raw(b, confirmed, { requestState: genuine, ...APPROVE });
    expect(done.result?.isError).not.toBe(true);
    expect(done.result?.structuredContent).toMatchObject({ confirmation_needed: false, campaign_name: args.campaign_name });
    expect(creates()).toHaveLength(1);

    // Replayed on replica A after a fresh warning there: the nonce was claimed in Redis by replica B.
    expect((await raw(a, args)).result?.structuredContent).toMatchObject({ confirmation_needed: true });
    const replay = await raw(a, confirmed, { requestState: genuine, ...APPROVE });
    expect(replay.result?.isError).toBe(true);
    expect(textOf(replay)).toMatch(/This approval was already used/);
    expect(creates()).toHaveLength(1);
  });

  it('refuses gated calls while Redis is down, sending nothing, keeps reads working, and recovers when it returns', async () => {
    expect(await readiness(a, b)).toEqual([200, 200]);
    const onA = await open(a, '2025-11-25');
    const onB = await open(b, '2026-07-28', { forms: true });
    const asked = onB.answerForms(() => ({ action: 'accept', content: { approve: true } }));
    const args = campaign('Through an outage');
    expect((await onA.callTool('create_ad_campaign', args)).structured).toMatchObject({ confirmation_needed: true });

    const sentBefore = sandbox.requests.length; // the warning may read first (issue 16: a cheap read proves the credential)
    await redis.stop();
    try {
      const refusals = [
        await onA.callTool('create_ad_campaign', { ...args, confirm: true }), // the confirmation of a warning from before
        await onB.callTool('create_ad_campaign', { ...args, confirm: true }), // a 2026-07-28 approval round
        await onB.callTool('create_ad_campaign', campaign('During the outage')), // a new warning
      ];
      for (const refusal of refusals) {
        expect(refusal.isError).toBe(true);
        expect(refusal.text).toMatch(/state store is unavailable/);
      }
      expect(asked).toHaveLength(0);
      expect(sandbox.requests).toHaveLength(sentBefore); // not even a read went out for them

      for (const client of [onA, onB]) {
        const read = await client.callTool('list_ad_campaigns', { app_id: 'app_demo' });
        expect(read.isError).toBe(false);
        expect(read.structured).toHaveProperty('campaigns');
      }
      expect(sandbox.requests.length).toBeGreaterThanOrEqual(sentBefore + 2);
      expect(creates()).toHaveLength(0);
      expect(await readiness(a, b)).toEqual([503, 503]);
    } finally {
      await redis.start();
    }
    expect(await pollReadiness([a, b], 200, 8_000)).toEqual([200, 200]);

    // Redis came back with its records (append-only file): the warning from before the outage is still
    // the one to confirm, and an approved confirmation on B acts on it, once. (A Redis that comes back
    // empty makes the gate refuse for a grace period: test/gate/amnesia.test.ts, replicas-trust.test.ts.)
    const done = await onB.callTool('create_ad_campaign', { ...args, confirm: true });
    expect(done.isError).toBe(false);
    expect(asked).toHaveLength(1);
    expect(creates()).toHaveLength(1);
    const again = await onA.callTool('create_ad_campaign', { ...args, confirm: true });
    expect(again.text).toMatch(DONE);
    expect(creates()).toHaveLength(1);
  });

  it('reads with all three credentials, and no replica log or tool result ever shows one', async () => {
    const client = await open(b, '2025-11-25');
    const connection = await client.callTool('check_connection', {});
    expect(connection.isError).toBe(false);
    expect(sandbox.requests.length).toBeGreaterThan(0);

    const { accessToken, apiKey, monitoringApiKey } = sandbox.simulation.credentials;
    const secrets = { accessToken, apiKey, monitoringApiKey, bobToken: BOB_TOKEN, stateSecret: STATE_SECRET };
    const sources = { 'replica A stderr': a.stderr(), 'replica B stderr': b.stderr(), 'tool results': shown.join('\n') };
    for (const log of [a.stderr(), b.stderr()]) expect(log).toMatch(/debug: POST \/mcp 200 in \d+ ms/); // the logs did run at debug level
    expect(a.stderr()).toMatch(/gate state store redis:\/\/127\.0\.0\.1:\d+\/0 is unreachable/); // and saw the outage
    // A replica has no credentials of its own: the state secret is not one, so no warning about them.
    for (const log of [a.stderr(), b.stderr()]) expect(log).not.toMatch(/APPMGMT_ACCESS_TOKEN, APPMGMT_API_KEY or APPMGMT_MONITORING_API_KEY is set/);
    expect(shown.length).toBeGreaterThan(40);
    for (const [source, text] of Object.entries(sources)) {
      for (const [name, secret] of Object.entries(secrets)) {
        expect(secret.length, name).toBeGreaterThanOrEqual(12);
        expect(text, `${name} in ${source}`).not.toContain(secret.slice(0, 12));
      }
    }
  });
});
