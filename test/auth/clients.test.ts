import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cimdUrlProblem, clientFromDocument, createCimdResolver, CIMD_MAX_BYTES } from '../../src/auth/cimd.js';
import { redirectMatches, redirectUriProblem } from '../../src/auth/clients.js';
import { clientDocument, makeTls, startDocumentServer, type DocumentServer, type Tls } from './support.js';

describe('redirect URIs', () => {
  const registered = ['https://claude.ai/api/mcp/auth_callback', 'http://127.0.0.1:33418/callback'];

  it('match exactly: one character more, less or different is refused', () => {
    expect(redirectMatches(registered, 'https://claude.ai/api/mcp/auth_callback')).toBe(true);
    for (const near of ['https://claude.ai/api/mcp/auth_callbacK', 'https://claude.ai/api/mcp/auth_callback/', 'https://claude.ai/api/mcp/auth_callbac', 'https://claude.ai.evil.example/api/mcp/auth_callback', 'https://claude.ai/api/mcp/auth_callback?x=1']) {
      expect(redirectMatches(registered, near), near).toBe(false);
    }
  });

  it('a loopback redirect may use any port (RFC 8252), but nothing else may change', () => {
    expect(redirectMatches(registered, 'http://127.0.0.1:5000/callback')).toBe(true);
    expect(redirectMatches(registered, 'http://127.0.0.1:5000/callbacks')).toBe(false);
    expect(redirectMatches(registered, 'http://127.0.0.1:5000/x/../callback')).toBe(false);
    expect(redirectMatches(registered, 'http://localhost:5000/callback')).toBe(false);
  });

  it('are https or loopback http, without user info or fragment', () => {
    expect(redirectUriProblem('https://app.example/cb')).toBeUndefined();
    expect(redirectUriProblem('http://127.0.0.1:8/cb')).toBeUndefined();
    expect(redirectUriProblem('http://app.example/cb')).toMatch(/https/);
    expect(redirectUriProblem('https://claude.ai@evil.example/cb')).toMatch(/user name/);
    expect(redirectUriProblem('https://app.example/cb#x')).toMatch(/fragment/);
    expect(redirectUriProblem('javascript:alert(1)')).toMatch(/https/);
  });
});

describe('client ID metadata documents', () => {
  it('refuses client_id URLs that are not https with a path, or that carry dot segments, fragments or user info', () => {
    expect(cimdUrlProblem('https://app.example/client.json')).toBeUndefined();
    for (const bad of ['http://app.example/client.json', 'https://app.example', 'https://app.example/', 'https://app.example/a/../client.json', 'https://app.example/a/%2e%2e/c', 'https://app.example/c#f', 'https://u:p@app.example/c', 'https://APP.example/c']) {
      expect(cimdUrlProblem(bad), bad).toBeDefined();
    }
  });

  it('reads Claude- and ChatGPT-shaped documents, treating every client as public', () => {
    const claude = clientFromDocument('https://claude.ai/oauth/mcp-oauth-client-metadata', {
      client_id: 'https://claude.ai/oauth/mcp-oauth-client-metadata',
      client_name: 'Claude',
      redirect_uris: ['https://claude.ai/api/mcp/auth_callback'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
    });
    expect(claude).toMatchObject({ clientName: 'Claude', kind: 'cimd' });
    const chatgpt = clientFromDocument('https://chatgpt.com/oauth/client.json', {
      client_id: 'https://chatgpt.com/oauth/client.json',
      client_name: 'ChatGPT',
      redirect_uris: ['https://chatgpt.com/connector_platform_oauth_redirect'],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks_uri: 'https://chatgpt.com/oauth/jwks.json',
      grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:jwt-bearer'],
    });
    expect(chatgpt.redirectUris).toEqual(['https://chatgpt.com/connector_platform_oauth_redirect']);
  });

  it('refuses a document that names another client_id, holds a secret, or asks for a shared-secret method', () => {
    const url = 'https://app.example/c.json';
    const base = { client_id: url, client_name: 'x', redirect_uris: ['https://app.example/cb'] };
    expect(() => clientFromDocument(url, { ...base, client_id: 'https://other.example/c.json' })).toThrow(/another client_id/);
    expect(() => clientFromDocument(url, { ...base, client_secret: 's' })).toThrow(/secret/);
    expect(() => clientFromDocument(url, { ...base, token_endpoint_auth_method: 'client_secret_basic' })).toThrow(/shared-secret/);
    expect(() => clientFromDocument(url, { ...base, redirect_uris: ['http://app.example/cb'] })).toThrow(/redirect URI/);
    expect(() => clientFromDocument(url, { client_id: url, redirect_uris: ['https://app.example/cb'] })).toThrow(/client_name/);
  });

  describe('fetching', () => {
    let tls: Tls;
    let server: DocumentServer;
    const doc = (path: string) => `${server.url}${path}`;
    beforeAll(async () => {
      tls = makeTls();
      server = await startDocumentServer(tls);
    });
    afterAll(async () => {
      await server.close();
      tls.remove();
    });

    it('refuses loopback, IPv4-mapped and private addresses unless loopback is allowed for tests', async () => {
      server.routes.set('/ok.json', { body: clientDocument(doc('/ok.json'), 'https://app.example/cb') });
      await expect(createCimdResolver({ ca: tls.cert }).resolve(doc('/ok.json'))).rejects.toThrow(/private, loopback or otherwise not public/);
      for (const address of ['https://[::ffff:127.0.0.1]:1/c.json', 'https://10.0.0.1:1/c.json', 'https://169.254.169.254/latest/c.json', 'https://[::1]:1/c.json', 'https://0.0.0.0:1/c.json']) {
        await expect(createCimdResolver({ timeoutMs: 2_000 }).resolve(address), address).rejects.toThrow(/not public|could not be reached|plain form/);
      }
      await expect(createCimdResolver({ ca: tls.cert, allowLoopback: true }).resolve(doc('/ok.json'))).resolves.toMatchObject({ clientName: 'CIMD test client' });
    });

    it('follows no redirect, reads no answer but 200, and nothing over 5 KiB', async () => {
      const resolver = createCimdResolver({ ca: tls.cert, allowLoopback: true });
      server.routes.set('/target.json', { body: clientDocument(doc('/target.json'), 'https://app.example/cb') });
      server.routes.set('/moved.json', { status: 302, headers: { location: doc('/target.json') } });
      await expect(resolver.resolve(doc('/moved.json'))).rejects.toThrow(/redirect \(302\), which is not followed/);
      expect(server.hits).not.toContain('/target.json');
      server.routes.set('/gone.json', { status: 404 });
      await expect(resolver.resolve(doc('/gone.json'))).rejects.toThrow(/HTTP 404/);
      const huge = JSON.stringify({ client_id: doc('/huge.json'), client_name: 'x'.repeat(CIMD_MAX_BYTES), redirect_uris: ['https://app.example/cb'] });
      server.routes.set('/huge.json', { body: huge });
      await expect(resolver.resolve(doc('/huge.json'))).rejects.toThrow(/larger than 5 KiB/);
    });

    it('gives up on a slow document', async () => {
      server.routes.set('/slow.json', { hang: true });
      const started = Date.now();
      await expect(createCimdResolver({ ca: tls.cert, allowLoopback: true, timeoutMs: 300 }).resolve(doc('/slow.json'))).rejects.toThrow(/no whole answer within 0.3 s/);
      expect(Date.now() - started).toBeLessThan(5_000);
    });

    it('caches a good document within its max-age, and never caches a failure', async () => {
      let now = 1_000_000;
      const resolver = createCimdResolver({ ca: tls.cert, allowLoopback: true, now: () => now });
      server.routes.set('/cached.json', { body: clientDocument(doc('/cached.json'), 'https://app.example/cb'), headers: { 'cache-control': 'max-age=120' } });
      const hits = () => server.hits.filter((hit) => hit === '/cached.json').length;
      await resolver.resolve(doc('/cached.json'));
      await resolver.resolve(doc('/cached.json'));
      expect(hits()).toBe(1);
      now += 121_000;
      await resolver.resolve(doc('/cached.json'));
      expect(hits()).toBe(2);
      server.routes.set('/flaky.json', { status: 500 });
      await expect(resolver.resolve(doc('/flaky.json'))).rejects.toThrow(/HTTP 500/);
      server.routes.set('/flaky.json', { body: clientDocument(doc('/flaky.json'), 'https://app.example/cb') });
      await expect(resolver.resolve(doc('/flaky.json'))).resolves.toMatchObject({ kind: 'cimd' });
    });
  });
});
