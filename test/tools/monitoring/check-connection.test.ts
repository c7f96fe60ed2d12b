import { afterEach, describe, expect, it } from 'vitest';
import { directoryOf } from '../../../src/sandbox/directory.js';
import { startSandbox } from '../../../src/sandbox/http.js';
import { connect, type Harness } from '../../helpers.js';

describe('check_connection', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('checks the health endpoint without a credential and says what is set, never the values', async () => {
    h = await connect({ config: { apiKey: undefined, monitoringApiKey: undefined } });
    const result = await h.call('check_connection');
    const [request] = h.sandbox.requests;
    expect([request?.method, request?.rawPath]).toEqual(['GET', '/api/v1/monitoring/health']);
    expect(request?.headers.authorization).toBeUndefined();
    expect(request?.headers.api_key).toBeUndefined();
    expect(result.isError).toBe(false);
    expect(result.text.replace(h.sandbox.url, 'URL')).toMatchInlineSnapshot(`
      "Service healthy: the health check answered "healthy".
      Server 0.1.0, live.
      Base URL: URL.
      Credentials set: access token yes, API key no, monitoring key no.
      Permission level: access token unknown, API key not set.
      The service has no call that reports a credential's permission: a read-only one is refused on its first change (403 read_only_credential_route_not_allowed), and from then on this server says so before any change made with it, without sending it.
      Next: Ask the user for the app id (the service has no operation that lists apps), then call the tools with it."
    `);
    expect(result.text).not.toContain(h.config.accessToken!);
    expect(result.structured).toMatchObject({
      healthy: true,
      mode: 'live',
      read_only: false,
      credentials: { access_token: true, api_key: false, monitoring_api_key: 'none' },
    });
  });

  it('reports a service it cannot reach as not healthy, with the variable to check, rather than failing', async () => {
    h = await connect({ config: { monitoringUrl: 'http://127.0.0.1:9' } });
    const result = await h.call('check_connection');
    expect(result.isError).toBe(false);
    expect(result.structured?.healthy).toBe(false);
    expect(result.text).toMatch(/^Service NOT healthy: the health check failed: Could not reach the service/);
    expect(result.text).toMatch(/Next: Fix the connection first: check APPMGMT_BASE_URL/);
  });

  it('lists the sandbox workspace, apps and groups, from which every workflow starts', async () => {
    const sandbox = await startSandbox({ control: true });
    h = await connect({ sandbox, config: { sandbox: true, sandboxDirectory: directoryOf(sandbox.simulation.world, sandbox.simulation.credentials.accessToken) } });
    h.close = ((close) => async () => { await close(); await sandbox.close(); })(h.close);
    const result = await h.call('check_connection');
    expect(result.structured).toMatchObject({
      mode: 'sandbox',
      workspace_id: 'ws_demo',
      apps: expect.arrayContaining([{ id: 'app_demo', name: 'Demo Planner' }]),
      groups: expect.arrayContaining([{ id: 'grp_design', name: 'Design' }]),
    });
    expect(result.text).toMatch(/^\[sandbox\] Service healthy/);
    expect(result.text).toContain('Sandbox workspace ws_demo; apps: app_demo ("Demo Planner")');
    const apps = (result.structured?.apps as unknown[]).length;
    expect(apps).toBeGreaterThan(1);
    // Several apps: the next step works on the one the user names, or on each, rather than picking the first (issue 29).
    expect(result.text).toContain(`Next: Work on the app the user names, passing its id as app_id (e.g. list_ad_campaigns); for a question about all ${apps} sandbox apps above, call the tool once per app_id.`);
    expect(result.text).not.toMatch(/Next: .*"app_id":/);
  });

  it('leaves app_id out of the next call when the server is scoped to one app', async () => {
    h = await connect({ config: { appId: 'app_demo' } });
    const result = await h.call('check_connection');
    expect(result.structured).toMatchObject({ app_id: 'app_demo' });
    expect(result.structured?.next).toBe('This server is scoped to app app_demo: start with list_ad_campaigns or another tool of this app.');
  });
});
