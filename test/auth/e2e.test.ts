import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, refreshAuthorization, type AuthorizationServerMetadata, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import { GrantLineSchema } from '../../src/observe/audit-grants.js';
import { startHttp, type HttpProcess } from '../http/harness.js';
import { freePort, redisSkipReason, startRedis, type RedisServer } from '../redis.js';
import { startReceiver, type Receiver } from '../observe/otlp-receiver.js';
import { browserAvailable, CHROMIUM } from '../views/browser.js';
import { clientDocument, makeTls, MemoryProvider, startDocumentServer, type DocumentServer, type Tls } from './support.js';

/**
 * The whole sign-in, end to end: the built server as two replicas over one Redis, the sandbox
 * behind them, and the SDK v2 client's own OAuth support as the client, once with a client ID
 * metadata document (served over https on 127.0.0.1) and once with dynamic registration. The
 * consent page is filled in by Debian's headless Chromium. Every request of a client alternates
 * between the replicas, so a grant made on one is used on the other.
 */

type Browser = import('playwright-core').Browser;

const SEAL_KEY = randomBytes(32).toString('hex');
const STATE_SECRET = `e2e-state-secret-${randomBytes(16).toString('hex')}`;
const CALLBACK = 'http://127.0.0.1:9/callback';
/** The operator's daily spending limit per person: 100.00. */
const PER_PERSON_MICROS = 100_000_000;
const skip = redisSkipReason ?? (browserAvailable ? undefined : `${CHROMIUM} is missing`);

describe.skipIf(skip !== undefined)('signing in with OAuth from a real client, over two replicas', () => {
  let sandbox: Sandbox;
  let redis: RedisServer;
  let tls: Tls;
  let documents: DocumentServer;
  let receiver: Receiver;
  let a: HttpProcess;
  let b: HttpProcess;
  let browser: Browser;
  let issuer: string;
  let auditDir: string;
  let token: string;
  let apiKey: string;
  /** Every text a client was shown, and every token issued, for the secret scan at the end. */
  const shown: string[] = [];
  const issued: string[] = [];
  let next = 0;
  /** Alternates requests between the replicas; the browser goes to the issuer (replica a). */
  const spread: typeof fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.origin === issuer) url.port = [a, b][next++ % 2]!.mcp.port;
    return fetch(url, init);
  };

  beforeAll(async () => {
    sandbox = await startSandbox({ control: true });
    ({ accessToken: token, apiKey } = sandbox.simulation.credentials);
    redis = await startRedis();
    tls = makeTls();
    documents = await startDocumentServer(tls);
    receiver = await startReceiver();
    auditDir = mkdtempSync(join(tmpdir(), 'appmgmt-oauth-audit-'));
    const port = await freePort();
    issuer = `http://127.0.0.1:${port}`;
    const env = {
      APPMGMT_BASE_URL: sandbox.url,
      APPMGMT_STATE_URL: redis.url,
      APPMGMT_STATE_SECRET: STATE_SECRET,
      APPMGMT_OAUTH_ISSUER: issuer,
      APPMGMT_OAUTH_SEAL_KEYS: SEAL_KEY,
      APPMGMT_OAUTH_CIMD_ALLOW_LOOPBACK: 'true',
      APPMGMT_AUDIT_LOG: join(auditDir, 'audit.jsonl'),
      APPMGMT_LOG_LEVEL: 'debug',
      NODE_EXTRA_CA_CERTS: tls.certFile,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: 'oauth-e2e',
      APPMGMT_SPEND_LIMIT_DAILY_MICROS: String(PER_PERSON_MICROS),
    };
    const { chromium } = await import('playwright-core');
    [a, b, browser] = await Promise.all([startHttp([], env, port), startHttp([], env), chromium.launch({ executablePath: CHROMIUM, headless: true })]);
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop(), browser?.close(), documents?.close(), receiver?.close()]);
    await sandbox?.close();
    await redis?.stop();
    tls?.remove();
    if (auditDir) rmSync(auditDir, { recursive: true, force: true });
  });

  /** The text of the last consent page shown, before it was answered. */
  let consentText = '';

  /** Fills in the consent page at the provider's authorization URL; resolves with the callback's query. */
  async function consent(
    provider: MemoryProvider,
    answer: { token: string; key?: string; app?: string; onlyApp?: boolean; readOnly?: boolean; toolsets?: string[]; spendLimit?: string },
  ): Promise<{ params?: URLSearchParams; error?: string }> {
    const page = await browser.newPage();
    let callback: URL | undefined;
    await page.route(`${CALLBACK}**`, (route) => {
      callback = new URL(route.request().url());
      return route.fulfill({ status: 200, body: 'back in the app' });
    });
    try {
      await page.goto(provider.authorizationUrl!.href);
      consentText = await page.locator('body').innerText();
      await page.fill('input[name=access_token]', answer.token);
      if (answer.spendLimit) await page.fill('input[name=spend_limit]', answer.spendLimit);
      if (answer.key) await page.fill('input[name=api_key]', answer.key);
      await page.fill('input[name=app_id]', answer.app ?? 'app_demo');
      if (answer.onlyApp) await page.check('input[name=only_app]');
      if (answer.readOnly) await page.check('input[name=access][value=read]');
      if (answer.toolsets) {
        for (const box of await page.locator('input[name=toolsets]').all()) {
          if (answer.toolsets.includes((await box.getAttribute('value'))!)) await box.check();
          else await box.uncheck();
        }
      }
      await page.click('button[value=allow]');
      const outcome = await Promise.race([
        page.waitForURL((url) => url.href.startsWith(CALLBACK), { timeout: 10_000 }).then(() => 'back' as const),
        page.locator('.error').waitFor({ timeout: 10_000 }).then(() => 'error' as const),
      ]);
      if (outcome === 'back' && callback) return { params: callback.searchParams };
      return { error: (await page.locator('.error').textContent()) ?? 'no error shown' };
    } finally {
      await page.close();
    }
  }

  /** Runs the SDK client's sign-in up to the browser, then back, and connects; the connected client. */
  async function signIn(provider: MemoryProvider, answer: Parameters<typeof consent>[1]): Promise<Client> {
    const first = new Client({ name: 'oauth-e2e', version: '1.0.0' });
    await expect(first.connect(new StreamableHTTPClientTransport(new URL(`${issuer}/mcp`), { authProvider: provider, fetch: spread }))).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizationUrl?.origin).toBe(issuer);
    const back = await consent(provider, answer);
    expect(back.error).toBeUndefined();
    expect(back.params!.get('state')).toBe(provider.lastState);
    expect(back.params!.get('iss')).toBe(issuer);
    issued.push(back.params!.get('code')!);
    const transport = new StreamableHTTPClientTransport(new URL(`${issuer}/mcp`), { authProvider: provider, fetch: spread });
    await transport.finishAuth(back.params!);
    issued.push(provider.saved!.access_token, provider.saved!.refresh_token!);
    const client = new Client({ name: 'oauth-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${issuer}/mcp`), { authProvider: provider, fetch: spread }));
    return client;
  }

  async function call(client: Client, name: string, args: Record<string, unknown>) {
    const result = await client.callTool({ name, arguments: args });
    const text = (result.content as Array<{ text?: string }>).map((part) => part.text ?? '').join('\n');
    shown.push(text, JSON.stringify(result.structuredContent ?? {}));
    return { text, isError: result.isError === true };
  }

  const mcpStatus = async (bearer: string, extra: Record<string, string> = {}) =>
    (await spread(`${issuer}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...extra }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) })).status;

  it('a CIMD client signs in, lists the tools, spends once after confirming, refreshes, revokes and is refused', async () => {
    const documentUrl = `${documents.url}/client.json`;
    documents.routes.set('/client.json', { body: clientDocument(documentUrl, CALLBACK), headers: { 'cache-control': 'max-age=600' } });
    const provider = new MemoryProvider(CALLBACK, documentUrl);
    const client = await signIn(provider, { token, key: apiKey });
    expect(provider.info?.client_id).toBe(documentUrl);
    expect(documents.hits).toContain('/client.json');

    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    expect(tools).toHaveLength(28);
    const campaign = { app_id: 'app_demo', campaign_name: `OAuth ${randomBytes(3).toString('hex')}`, campaign_type: 'SMART', daily_budget_micros: 5_000_000, landing_page: 'https://demo-planner.sandbox.test/' };
    const creates = () => sandbox.requests.filter((request) => request.method === 'POST' && request.rawPath.endsWith('/campaigns'));
    const before = creates().length;
    expect((await call(client, 'create_ad_campaign', campaign)).text).toMatch(/^CONFIRMATION NEEDED. Nothing was sent./);
    const done = await call(client, 'create_ad_campaign', { ...campaign, confirm: true });
    expect(done.isError).toBe(false);
    expect(creates().length).toBe(before + 1);
    // The service saw the person's own token, never one this server issued.
    expect(creates().at(-1)!.headers.authorization).toBe(`Bearer ${token}`);
    await client.close();

    // The SDK's refresh, at the token endpoint of whichever replica: a new pair; the old access token no longer works.
    const metadata = (await (await spread(`${issuer}/.well-known/oauth-authorization-server`)).json()) as AuthorizationServerMetadata;
    const oldAccess = provider.saved!.access_token;
    const oldRefresh = provider.saved!.refresh_token!;
    const fresh = await refreshAuthorization(issuer, { metadata, clientInformation: provider.info!, refreshToken: oldRefresh, resource: `${issuer}/mcp`, fetchFn: spread });
    issued.push(fresh.access_token, fresh.refresh_token!);
    expect(fresh.refresh_token).not.toBe(oldRefresh);
    expect(await mcpStatus(oldAccess)).toBe(401);
    expect(await mcpStatus(fresh.access_token)).toBe(200);

    // Revocation (RFC 7009) of the refresh token ends the grant: the access token is refused at once.
    const revoked = await spread(`${issuer}/oauth/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: fresh.refresh_token!, client_id: documentUrl }) });
    expect(revoked.status).toBe(200);
    expect(await mcpStatus(fresh.access_token)).toBe(401);
    await expect(refreshAuthorization(issuer, { metadata, clientInformation: provider.info!, refreshToken: fresh.refresh_token!, resource: `${issuer}/mcp`, fetchFn: spread })).rejects.toThrow();
  });

  it('a DCR client with a read-only grant on one toolset and one app sees only that, and no header widens it', async () => {
    const provider = new MemoryProvider(CALLBACK);
    const client = await signIn(provider, { token, readOnly: true, toolsets: ['campaigns'], onlyApp: true });
    expect(provider.info?.client_id).toMatch(/^amm_client_/);
    const listed = (await client.listTools()).tools;
    expect(listed.map((tool) => tool.name).sort()).toEqual(['check_connection', 'get_ad_campaign', 'list_ad_campaigns', 'list_campaign_suggestions']);
    // One app: app_id is gone from the inputs, and calls go to app_demo.
    expect(JSON.stringify(listed.find((tool) => tool.name === 'list_ad_campaigns')!.inputSchema)).not.toContain('app_id');
    expect((await call(client, 'list_ad_campaigns', {})).isError).toBe(false);
    const outside = await call(client, 'create_ad_campaign', { app_id: 'app_demo', campaign_name: 'x', campaign_type: 'SMART', daily_budget_micros: 5_000_000, landing_page: 'https://demo-planner.sandbox.test/', confirm: true });
    expect(outside).toMatchObject({ isError: true });
    expect(outside.text).toMatch(/^NOT SENT: create_ad_campaign is outside what this connection was granted \(read-only; toolsets campaigns; app app_demo\)/);
    // The service's own full token beside the grant's bearer token does not widen it: refused outright.
    expect(await mcpStatus(provider.saved!.access_token, { 'x-appmgmt-access-token': token })).toBe(400);
    // A refresh may not ask for more than was granted.
    const metadata = (await (await spread(`${issuer}/.well-known/oauth-authorization-server`)).json()) as AuthorizationServerMetadata;
    await expect(refreshAuthorization(issuer, { metadata, clientInformation: provider.info!, refreshToken: provider.saved!.refresh_token!, scope: 'appmgmt:read appmgmt:write', resource: `${issuer}/mcp`, fetchFn: spread })).rejects.toThrow(/invalid_scope|narrow/);
    await client.close();
  });

  it('a grant limited at consent is held to that limit over both replicas, after a refresh too, and shares the person\'s operator limit', async () => {
    const person = { token: 'pat_demo_admin', key: 'key_demo_admin' };
    const provider = new MemoryProvider(CALLBACK);
    const client = await signIn(provider, { ...person, spendLimit: '12' });
    expect(consentText).toContain('This server allows each person at most 100.00 a day, all their connections together.');
    const creates = () => sandbox.requests.filter((request) => request.method === 'POST' && request.rawPath.endsWith('/campaigns') && request.headers.authorization === `Bearer ${person.token}`);
    const campaign = (name: string) => ({ app_id: 'app_demo', campaign_name: `${name} ${randomBytes(3).toString('hex')}`, campaign_type: 'SMART', daily_budget_micros: 5_000_000, landing_page: 'https://demo-planner.sandbox.test/' });
    // Four campaigns of 5.00 warned one by one, then confirmed all at once over both replicas: two fit in 12.00.
    const four = ['One', 'Two', 'Three', 'Four'].map(campaign);
    for (const args of four) expect((await call(client, 'create_ad_campaign', args)).text).toContain('Daily limit: uses 5.00 of the 12.00 a day chosen for this connection when connecting (7.00 left today;');
    const confirmed = await Promise.all(four.map((args) => call(client, 'create_ad_campaign', { ...args, confirm: true })));
    expect(confirmed.filter((outcome) => !outcome.isError)).toHaveLength(2);
    for (const refused of confirmed.filter((outcome) => outcome.isError)) {
      expect(refused.text).toMatch(/^REFUSED: over the daily spending limit chosen for this connection when connecting: this create_ad_campaign call would commit 5\.00 of new daily budget, and 10\.00 of its 12\.00 a day is already committed today, so 2\.00 is left\. Nothing was sent; the warning is used up\./);
    }
    expect(creates()).toHaveLength(2);
    await client.close();

    // A refresh at either replica keeps the limit: still 2.00 left on this connection.
    const metadata = (await (await spread(`${issuer}/.well-known/oauth-authorization-server`)).json()) as AuthorizationServerMetadata;
    const fresh = await refreshAuthorization(issuer, { metadata, clientInformation: provider.info!, refreshToken: provider.saved!.refresh_token!, resource: `${issuer}/mcp`, fetchFn: spread });
    issued.push(fresh.access_token, fresh.refresh_token!);
    provider.saveTokens(fresh);
    const again = new Client({ name: 'oauth-e2e', version: '1.0.0' });
    await again.connect(new StreamableHTTPClientTransport(new URL(`${issuer}/mcp`), { authProvider: provider, fetch: spread }));
    const facts = (await again.callTool({ name: 'check_connection', arguments: {} })).structuredContent as { daily_limits: Record<string, unknown> };
    expect(facts.daily_limits).toMatchObject({ spend: { limit: 100, used: 10, left: 90 }, spend_this_connection: { limit: 12, used: 10, left: 2 } });
    expect((await call(again, 'create_ad_campaign', campaign('Five'))).text).toMatch(/^REFUSED: over the daily spending limit chosen for this connection when connecting/);
    await again.close();

    // The same person connecting again, with no limit of the connection's own: the operator's 100.00 counts what the first spent.
    const second = await signIn(new MemoryProvider(CALLBACK), person);
    const theirs = (await second.callTool({ name: 'check_connection', arguments: {} })).structuredContent as { daily_limits: Record<string, unknown> };
    expect(theirs.daily_limits).toEqual(expect.objectContaining({ spend: { limit: 100, used: 10, left: 90 } }));
    expect(theirs.daily_limits).not.toHaveProperty('spend_this_connection');
    await second.close();
    expect(creates()).toHaveLength(2);
  });

  it('a wrong service token at consent is refused on the page, and nothing is stored', async () => {
    const provider = new MemoryProvider(CALLBACK);
    const first = new Client({ name: 'oauth-e2e', version: '1.0.0' });
    await expect(first.connect(new StreamableHTTPClientTransport(new URL(`${issuer}/mcp`), { authProvider: provider, fetch: spread }))).rejects.toBeInstanceOf(UnauthorizedError);
    const keys = await redisKeys();
    const back = await consent(provider, { token: `made-up-${randomBytes(8).toString('hex')}` });
    expect(back.error).toMatch(/did not accept this access token\. Nothing was stored\./);
    expect(await redisKeys()).toEqual(keys);
  });

  it('a replayed refresh token revokes its whole family', async () => {
    const provider = new MemoryProvider(CALLBACK);
    const client = await signIn(provider, { token });
    await client.close();
    const metadata = (await (await spread(`${issuer}/.well-known/oauth-authorization-server`)).json()) as AuthorizationServerMetadata;
    const first = provider.saved!.refresh_token!;
    const rotated = await refreshAuthorization(issuer, { metadata, clientInformation: provider.info!, refreshToken: first, resource: `${issuer}/mcp`, fetchFn: spread });
    issued.push(rotated.access_token, rotated.refresh_token!);
    expect(await mcpStatus(rotated.access_token)).toBe(200);
    await expect(refreshAuthorization(issuer, { metadata, clientInformation: provider.info!, refreshToken: first, resource: `${issuer}/mcp`, fetchFn: spread })).rejects.toThrow(/already used/);
    expect(await mcpStatus(rotated.access_token)).toBe(401);
  });

  it('with Redis down, nothing is issued and nothing is accepted', async () => {
    const provider = new MemoryProvider(CALLBACK);
    const client = await signIn(provider, { token });
    await client.close();
    await redis.stop();
    try {
      expect(await mcpStatus(provider.saved!.access_token)).toBe(503);
      const registration = await spread(`${issuer}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: [CALLBACK], client_name: 'x' }) });
      expect(registration.status).toBe(503);
      const refreshed = await spread(`${issuer}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: provider.saved!.refresh_token!, client_id: provider.info!.client_id }) });
      expect(refreshed.status).toBe(503);
    } finally {
      await redis.start();
    }
    // Both replicas reconnect on their own and answer again (a well-formed refresh token nobody issued: 400, not 503).
    const probe = () => fetch(`${[a, b][next++ % 2]!.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', host: new URL(issuer).host }, body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: `amm_rt.${'0'.repeat(32)}.${'A'.repeat(43)}`, client_id: 'x' }) });
    const deadline = Date.now() + 10_000;
    let statuses: number[] = [];
    while (Date.now() < deadline) {
      statuses = [(await probe()).status, (await probe()).status];
      if (statuses.every((status) => status === 400)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(statuses).toEqual([400, 400]);
  });

  it('no service token, API key or issued token appears in logs, the audit trail, OpenTelemetry exports, results or Redis', async () => {
    // Redis restarted empty in the test before; a fresh grant puts records back to scan.
    const provider = new MemoryProvider(CALLBACK);
    const client = await signIn(provider, { token, key: apiKey });
    await call(client, 'check_connection', {});
    await client.close();
    const audit = readFileSync(join(auditDir, 'audit.jsonl'), 'utf8').trim().split('\n');
    const grantLines = audit.map((line) => JSON.parse(line) as { step: string }).filter((line) => line.step.startsWith('grant_'));
    for (const line of grantLines) GrantLineSchema.parse(line);
    expect(grantLines.map((line) => line.step)).toEqual(expect.arrayContaining(['grant_created', 'grant_refreshed', 'grant_revoked']));
    const stored = await redisDump();
    expect(stored).toMatch(/appmgmt:auth:grant:/);
    const secrets = [token, apiKey, 'pat_demo_admin', 'key_demo_admin', ...issued];
    expect(issued.length).toBeGreaterThan(10);
    const places = { logs: a.stderr() + b.stderr(), audit: audit.join('\n'), otel: receiver.received.map((entry) => entry.body.toString('utf8')).join('\n'), results: shown.join('\n'), redis: stored };
    expect(places.otel.length).toBeGreaterThan(0);
    for (const [place, text] of Object.entries(places)) {
      for (const secret of secrets) expect(text.includes(secret), `${place} holds a secret`).toBe(false);
    }
  });

  async function redisKeys(): Promise<string[]> {
    const client = new Redis(redis.url);
    try {
      return (await client.keys('appmgmt:auth:*')).filter((key) => !key.includes(':client')).sort();
    } finally {
      client.disconnect();
    }
  }

  /** Every key of the database and its value, whatever its type. */
  async function redisDump(): Promise<string> {
    const client = new Redis(redis.url);
    try {
      const lines: string[] = [];
      for (const key of await client.keys('*')) {
        const type = await client.type(key);
        const value =
          type === 'string' ? await client.get(key) : type === 'hash' ? JSON.stringify(await client.hgetall(key)) : type === 'zset' ? JSON.stringify(await client.zrange(key, '0', '-1', 'WITHSCORES')) : type === 'set' ? JSON.stringify(await client.smembers(key)) : `(${type})`;
        lines.push(`${key} ${value}`);
      }
      return lines.join('\n');
    } finally {
      client.disconnect();
    }
  }
});
