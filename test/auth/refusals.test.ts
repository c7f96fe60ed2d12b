import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthServer, type AuthServer } from '../../src/auth/index.js';
import { spendLimitOf, turnsLimitOf } from '../../src/auth/limits.js';
import { createMemoryAuthStore, type AuthStore } from '../../src/auth/store.js';
import { silentLog } from '../../src/log.js';
import { credentialsOf } from '../../src/transports/http.js';

/**
 * Each refusal of the sign-in, tried: the authorization server in this process (in-process store,
 * an injected clock), spoken to in raw HTTP as a misbehaving client or browser would.
 */

const GOOD = 'pat_good_token';
const REDIRECT = 'https://client.example/callback';
const verifier = randomBytes(32).toString('base64url');
const challenge = createHash('sha256').update(verifier).digest('base64url');

describe('the sign-in refuses', () => {
  let now = 1_800_000_000_000;
  let store: AuthStore;
  let auth: AuthServer;
  let other: AuthServer;
  let server: Server;
  let issuer: string;
  let clientId: string;
  const puts: string[] = [];

  beforeAll(async () => {
    const inner = createMemoryAuthStore({ now: () => now });
    store = { ...inner, putCode: async (...args) => (puts.push(args[0]), inner.putCode(...args)) };
    server = createServer((req, res) => void auth.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const options = {
      store,
      sealKeys: [randomBytes(32).toString('hex')],
      registration: { cimd: true, dcr: true },
      staticClients: [],
      offer: { readOnly: false, toolsets: [{ name: 'campaigns' as const, tools: 8 }, { name: 'emails' as const, tools: 5 }], spend: { mostMicros: 100_000_000 }, turns: {} },
      check: async (credentials: { accessToken: string }) => (credentials.accessToken === GOOD ? { ok: true as const } : { ok: false as const, status: 400, message: 'The service did not accept this access token.' }),
      log: silentLog,
      now: () => now,
    };
    auth = createAuthServer({ ...options, issuer });
    other = createAuthServer({ ...options, issuer: 'https://other.example' });
    const registered = await post('/oauth/register', JSON.stringify({ redirect_uris: [REDIRECT], client_name: '<script>alert(1)</script> Evil' }), 'application/json');
    clientId = ((await registered.json()) as { client_id: string }).client_id;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const post = (path: string, body: string, type = 'application/x-www-form-urlencoded', headers: Record<string, string> = {}) =>
    fetch(`${issuer}${path}`, { method: 'POST', headers: { 'content-type': type, ...headers }, body, redirect: 'manual' });
  const authorizeUrl = (params: Record<string, string | undefined> = {}) => {
    const all = { response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', resource: `${issuer}/mcp`, state: 'xyz', ...params };
    return `${issuer}/oauth/authorize?${new URLSearchParams(Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined))}`;
  };

  /** Opens the consent page: its form fields and its cookie. */
  async function open(params: Record<string, string | undefined> = {}) {
    const response = await fetch(authorizeUrl(params), { redirect: 'manual' });
    const html = await response.text();
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1]?.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
    return { response, html, request: field('request'), csrf: field('csrf'), cookie: response.headers.get('set-cookie')?.split(';')[0] };
  }

  /** Answers the consent page as a same-origin browser would, with `change` applied. */
  async function answer(page: Awaited<ReturnType<typeof open>>, fields: Record<string, string> = {}, headers: Record<string, string> = {}) {
    const body = new URLSearchParams({ request: page.request!, csrf: page.csrf!, access_token: GOOD, app_id: 'app_1', access: 'write', toolsets: 'campaigns', decision: 'allow', ...fields });
    return post('/oauth/authorize', body.toString(), undefined, { cookie: page.cookie!, origin: issuer, 'sec-fetch-site': 'same-origin', 'sec-fetch-dest': 'document', ...headers });
  }

  async function code(): Promise<string> {
    const back = await answer(await open());
    expect(back.status).toBe(303);
    return new URL(back.headers.get('location')!).searchParams.get('code')!;
  }

  const exchange = (fields: Record<string, string>) =>
    post('/oauth/token', new URLSearchParams({ grant_type: 'authorization_code', client_id: clientId, redirect_uri: REDIRECT, code_verifier: verifier, resource: `${issuer}/mcp`, ...fields }).toString());

  it('shows the consent page framed by nothing, with no script and the client name as text', async () => {
    const page = await open();
    expect(page.response.status).toBe(200);
    const csp = page.response.headers.get('content-security-policy')!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("form-action 'self' https://client.example");
    expect(page.response.headers.get('x-frame-options')).toBe('DENY');
    expect(page.html).not.toMatch(/<script/i);
    expect(page.html).toContain('&#60;script&#62;alert(1)&#60;/script&#62; Evil');
    expect(page.cookie).toMatch(/^appmgmt-csrf=/);
    expect(page.response.headers.get('set-cookie')).toMatch(/HttpOnly; SameSite=Strict/);
  });

  it('a redirect URI that differs by one character: an error page, and nothing is sent to it', async () => {
    const response = await fetch(authorizeUrl({ redirect_uri: `${REDIRECT}x` }), { redirect: 'manual' });
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.text()).toContain('not one the client registered');
  });

  it('a missing or plain PKCE challenge, a missing or other resource, an unknown scope', async () => {
    const error = async (params: Record<string, string | undefined>) => {
      const response = await fetch(authorizeUrl(params), { redirect: 'manual' });
      expect(response.status).toBe(303);
      const back = new URL(response.headers.get('location')!);
      expect(back.searchParams.get('iss')).toBe(issuer);
      expect(back.searchParams.get('state')).toBe('xyz');
      return back.searchParams.get('error');
    };
    expect(await error({ code_challenge: undefined })).toBe('invalid_request');
    expect(await error({ code_challenge_method: 'plain', code_challenge: verifier })).toBe('invalid_request');
    expect(await error({ resource: undefined })).toBe('invalid_target');
    expect(await error({ resource: 'https://other.example/mcp' })).toBe('invalid_target');
    expect(await error({ scope: 'appmgmt:read admin' })).toBe('invalid_scope');
  });

  it('a consent POST without its CSRF token or cookie, from another site, or from a frame; and nothing is stored', async () => {
    const before = puts.length;
    const page = await open();
    expect((await answer(page, { csrf: '' })).status).toBe(403);
    expect((await answer(page, {}, { cookie: '' })).status).toBe(403);
    expect((await answer(page, { csrf: page.csrf!.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')) })).status).toBe(403);
    expect((await answer(page, {}, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    const framed = await answer(page, {}, { 'sec-fetch-dest': 'iframe' });
    expect(framed.status).toBe(403);
    expect(await framed.text()).toContain('inside a frame');
    expect((await answer(page, { request: `${page.request!.slice(0, -2)}AA` })).status).toBe(400);
    expect(puts.length).toBe(before);
  });

  it('a wrong service token, and a choice outside what the server offers: the page again, nothing stored', async () => {
    const before = puts.length;
    const page = await open();
    const wrong = await answer(page, { access_token: 'pat_wrong' });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain('did not accept this access token. Nothing was stored.');
    const outside = await answer(page, { toolsets: 'repo' });
    expect(outside.status).toBe(400);
    expect(await outside.text()).toContain('does not offer repo');
    expect(puts.length).toBe(before);
  });

  it('an expired page', async () => {
    const page = await open();
    now += 11 * 60_000;
    expect((await answer(page)).status).toBe(400);
  });

  it('a missing or wrong PKCE verifier', async () => {
    expect(await (await exchange({ code: await code(), code_verifier: '' })).json()).toMatchObject({ error: 'invalid_grant' });
    expect(await (await exchange({ code: await code(), code_verifier: randomBytes(32).toString('base64url') })).json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/PKCE/) });
  });

  it('a code used twice (which revokes what the first use made), and an expired code', async () => {
    const once = await code();
    const first = (await (await exchange({ code: once })).json()) as { access_token: string };
    expect((await auth.whose({ authorization: `Bearer ${first.access_token}` })).kind).toBe('grant');
    expect(await (await exchange({ code: once })).json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/already used; the grant made with it is revoked/) });
    expect((await auth.whose({ authorization: `Bearer ${first.access_token}` })).kind).toBe('refused');
    const late = await code();
    now += 61_000;
    expect(await (await exchange({ code: late })).json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('a code for another redirect URI or client', async () => {
    expect(await (await exchange({ code: await code(), redirect_uri: `${REDIRECT}/` })).json()).toMatchObject({ error: 'invalid_grant' });
    expect(await (await exchange({ code: await code(), client_id: 'amm_client_other' })).json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('a token minted for another resource, a service token in Authorization, and an expired token', async () => {
    const tokens = (await (await exchange({ code: await code() })).json()) as { access_token: string };
    // The same store, another issuer: its /mcp is another resource.
    const elsewhere = await other.whose({ authorization: `Bearer ${tokens.access_token}` });
    expect(elsewhere).toMatchObject({ kind: 'refused', status: 401, message: expect.stringMatching(/issued for another resource/) });
    expect((elsewhere as { headers: Record<string, string> }).headers['www-authenticate']).toMatch(/error="invalid_token"/);
    const passthrough = await auth.whose({ authorization: `Bearer ${GOOD}` });
    expect(passthrough).toMatchObject({ kind: 'refused', status: 401, message: expect.stringMatching(/only access tokens it issued/) });
    now += 60 * 60_000;
    expect(await auth.whose({ authorization: `Bearer ${tokens.access_token}` })).toMatchObject({ kind: 'refused', message: expect.stringMatching(/expired/) });
  });

  it('a request without credentials is challenged with the resource metadata and scopes', async () => {
    const who = await auth.whose({});
    expect(who).toMatchObject({ kind: 'refused', status: 401 });
    expect((who as { headers: Record<string, string> }).headers['www-authenticate']).toBe(`Bearer resource_metadata="${issuer}/.well-known/oauth-protected-resource/mcp", scope="appmgmt:read appmgmt:write"`);
    const metadata = (await (await fetch(`${issuer}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({ resource: `${issuer}/mcp`, authorization_servers: [issuer] });
    const server = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(server).toMatchObject({ issuer, code_challenge_methods_supported: ['S256'], client_id_metadata_document_supported: true, token_endpoint_auth_methods_supported: ['none'], authorization_response_iss_parameter_supported: true });
  });

  it('header mode: the service token in X-Appmgmt-Access-Token is a caller of its own; in Authorization it is refused', async () => {
    expect(await auth.whose({ 'x-appmgmt-access-token': GOOD, 'x-appmgmt-api-key': 'key_1' })).toEqual({ kind: 'headers' });
    const headers = new Headers({ 'x-appmgmt-access-token': GOOD, 'x-appmgmt-api-key': 'key_1', authorization: 'Bearer ignored' });
    expect(credentialsOf(headers, undefined, true)).toEqual({ accessToken: GOOD, apiKey: 'key_1', monitoringApiKey: 'key_1' });
    // With OAuth off, Authorization: Bearer still carries the service token (the compatibility path).
    expect(credentialsOf(new Headers({ authorization: `Bearer ${GOOD}` })).accessToken).toBe(GOOD);
  });

  it('a person disconnects every app connected with their token, and the grants end at once', async () => {
    const tokens = (await (await exchange({ code: await code() })).json()) as { access_token: string };
    expect((await auth.whose({ authorization: `Bearer ${tokens.access_token}` })).kind).toBe('grant');
    const page = await fetch(`${issuer}/oauth/disconnect`);
    const html = await page.text();
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)![1]!.replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c)));
    const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
    const send = (token: string, extra: Record<string, string> = {}) =>
      post('/oauth/disconnect', new URLSearchParams({ form: field('form'), csrf: field('csrf'), access_token: token }).toString(), undefined, { cookie, origin: issuer, ...extra });
    expect((await send(GOOD, { cookie: '' })).status).toBe(403);
    const done = await send(GOOD);
    expect(await done.text()).toMatch(/Disconnected \d+ app connections?; the credentials they held are deleted/);
    expect((await auth.whose({ authorization: `Bearer ${tokens.access_token}` })).kind).toBe('refused');
    expect(await (await send(GOOD)).text()).toContain('No app was connected with this token');
  });

  describe('the daily limits a person chooses for the connection', () => {
    const refresh = (refreshToken: string, fields: Record<string, string> = {}) =>
      post('/oauth/token', new URLSearchParams({ grant_type: 'refresh_token', client_id: clientId, refresh_token: refreshToken, resource: `${issuer}/mcp`, ...fields }).toString());
    /** The bound the grant of this access token holds, as the resource server sees it. */
    const boundOf = async (accessToken: string) => {
      const who = await auth.whose({ authorization: `Bearer ${accessToken}` });
      if (who.kind !== 'grant') throw new Error(`no grant: ${who.kind}`);
      return who.bound;
    };

    it("offers them with the operator's limit, and shows what was typed again when the page comes back", async () => {
      const page = await open();
      expect(page.html).toContain('<legend>Daily limits for &#60;script&#62;alert(1)&#60;/script&#62; Evil (optional)</legend>');
      expect(page.html).toMatch(/name="spend_limit" inputmode="decimal" pattern="[^"]+" maxlength="40"/);
      expect(page.html).toContain('This server allows each person at most 100.00 a day, all their connections together.');
      expect(page.html).toMatch(/name="turns_limit"[^>]*>[^]*This server sets no limit of its own\./);
      expect(page.html).toContain('nothing it sends later can widen it or raise its limits.');
      const again = await answer(page, { spend_limit: '40.50', turns_limit: '3', toolsets: 'repo' });
      expect(again.status).toBe(400);
      const html = await again.text();
      expect(html).toContain('value="40.50"');
      expect(html).toContain('value="3"');
    });

    it("refuses an amount over the operator's limit, and anything that is not an amount, naming the field; nothing is stored", async () => {
      const before = puts.length;
      const page = await open();
      const refused = async (fields: Record<string, string>) => {
        const response = await answer(page, fields);
        expect(response.status, JSON.stringify(fields).slice(0, 80)).toBe(400);
        return /<p class="error" role="alert">([^<]*)<\/p>/.exec(await response.text())?.[1]?.replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c)));
      };
      expect(await refused({ spend_limit: '100.01' })).toBe("The daily spending limit can be at most 100.00: this server's limit for each person. Enter 100.00 or less, or leave it empty to keep the server's.");
      for (const garbage of ['1e9', '-5', '50.001', '50,00', '0x10', '5 0', '.5', '50.', 'Infinity', 'NaN', '\uff15\uff10', '1000000000']) {
        expect(await refused({ spend_limit: garbage }), garbage).toBe('Enter the daily spending limit as an amount such as 50 or 50.00 (digits, at most two after the point), or leave it empty.');
      }
      expect(await refused({ spend_limit: '5'.repeat(15_000) })).toBe('The daily spending limit is too long: enter an amount such as 50 or 50.00, or leave it empty.');
      for (const garbage of ['2.5', '-1', '1e3', 'ten']) expect(await refused({ turns_limit: garbage }), garbage).toBe('Enter the daily limit of AI turns as a whole number such as 20, or leave it empty.');
      expect(await refused({ turns_limit: '1001' })).toBe('The daily limit of AI turns can be at most 1000. Enter 1000 or less, or leave it empty.');
      // A megabyte is not read at all.
      const huge = await answer(page, { spend_limit: '9'.repeat(1 << 20) });
      expect(huge.status).toBe(400);
      expect(await huge.text()).toContain('The request body is larger than 16 KiB.');
      expect(puts.length).toBe(before);
    });

    it('reads amounts exactly, to the micro, with no floating-point rounding', () => {
      const micros = (text: string) => (spendLimitOf(text, undefined) as { value?: number }).value;
      expect(['0', '0.07', '0.1', '19.99', ' 50 ', '50.5', '1.15', '999999999.99'].map(micros)).toEqual([0, 70_000, 100_000, 19_990_000, 50_000_000, 50_500_000, 1_150_000, 999_999_999_990_000]);
      expect(micros('')).toBeUndefined();
      expect(spendLimitOf('100', 100_000_000)).toEqual({ value: 100_000_000 });
      expect(turnsLimitOf('50', 50)).toEqual({ value: 50 });
      expect(turnsLimitOf('51', 50)).toEqual({ error: "The daily limit of AI turns can be at most 50: this server's limit for each person. Enter 50 or less, or leave it empty." });
    });

    it('seals the chosen limits in the grant, where a refresh keeps them and asks nothing about them', async () => {
      const back = await answer(await open(), { spend_limit: '50', turns_limit: '7' });
      const tokens = (await (await exchange({ code: new URL(back.headers.get('location')!).searchParams.get('code')! })).json()) as { access_token: string; refresh_token: string };
      expect(await boundOf(tokens.access_token)).toEqual({ readOnly: false, toolsets: ['campaigns'], spendLimitMicros: 50_000_000, aiTurnsDaily: 7 });
      // A refresh has no parameter for a limit; one added by a client is ignored, and narrowing to read-only keeps them.
      const fresh = (await (await refresh(tokens.refresh_token, { spend_limit: '5000', spendLimitMicros: '5000000000' })).json()) as { access_token: string; refresh_token: string };
      expect(await boundOf(fresh.access_token)).toEqual({ readOnly: false, toolsets: ['campaigns'], spendLimitMicros: 50_000_000, aiTurnsDaily: 7 });
      const narrowed = (await (await refresh(fresh.refresh_token, { scope: 'appmgmt:read' })).json()) as { access_token: string };
      expect(await boundOf(narrowed.access_token)).toEqual({ readOnly: true, toolsets: ['campaigns'], spendLimitMicros: 50_000_000, aiTurnsDaily: 7 });
    });

    it('offers none to a client that asked to read only, and refuses one sent anyway', async () => {
      const page = await open({ scope: 'appmgmt:read' });
      expect(page.html).not.toContain('spend_limit');
      const sent = await answer(page, { access: 'read', spend_limit: '10' });
      expect(sent.status).toBe(400);
      expect(await sent.text()).toContain('This connection cannot have a spending limit of its own here; leave it empty.');
    });
  });
});
