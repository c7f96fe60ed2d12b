import { afterEach, describe, expect, it } from 'vitest';
import { directoryOf } from '../../src/sandbox/directory.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import { connect, type Harness } from '../helpers.js';

/**
 * Issue 29: the sandbox's read-only credentials. A change is refused with its true reason; from then
 * on the next change, gated or not, says the credential is read-only before anything is asked of the
 * person or sent; check_connection says what it can tell about the permission and what it cannot.
 */
const APP = 'app_demo';
const RO = { accessToken: 'pat_demo_owner_ro', apiKey: 'key_demo_owner_ro', monitoringApiKey: 'key_demo_owner_ro' };
const CAMPAIGN = { app_id: APP, campaign_name: 'Read-only try', campaign_type: 'SMART', daily_budget_micros: 5_000_000, landing_page: 'https://demo-planner.sandbox.test/' };

describe('the sandbox read-only credentials', () => {
  let sandbox: Sandbox;
  let h: Harness;
  afterEach(async () => {
    await h.close();
    await sandbox.close();
  });

  async function serve(options: { sandbox: boolean; credentials?: Partial<typeof RO> }): Promise<void> {
    sandbox = await startSandbox({ control: true });
    const directory = options.sandbox ? { sandboxDirectory: directoryOf(sandbox.simulation.world, options.credentials?.accessToken ?? 'pat_demo_owner') } : {};
    h = await connect({ sandbox, config: { ...options.credentials, sandbox: options.sandbox, ...directory } });
  }
  const writes = () => sandbox.requests.filter((request) => request.method !== 'GET');

  it('says so before a gated call asks for anything, once a change was refused as read-only', async () => {
    await serve({ sandbox: true, credentials: RO });

    // check_connection: in the sandbox the permission is on record, and it names no other read-only one to try.
    const connected = await h.call('check_connection');
    expect(connected.text).toContain('Permission level: access token READ-ONLY, API key READ-ONLY (as the sandbox records them).');
    expect(connected.structured).toMatchObject({ permission: { access_token: 'read_only', api_key: 'read_only' } });
    expect(connected.structured?.read_only_to_try).toBeUndefined();

    // Reads still work.
    expect((await h.call('list_ad_campaigns', { app_id: APP })).isError).toBe(false);

    // A change is refused with its true reason, and the next step does not send the model round again.
    const paused = await h.call('pause_ad_campaign', { app_id: APP, campaign_id: 'cmp_demo' });
    expect(paused.isError).toBe(true);
    expect(paused.text).toMatch(
      /^\[sandbox\] 403 read_only_credential_route_not_allowed: the access token \(APPMGMT_ACCESS_TOKEN\) is read-only and this operation needs a full-access one\. This server now says so before any change made with it, without sending it\./,
    );
    expect(paused.structured?.next).toBe('Tell the user this credential is read-only: pause_ad_campaign needs a full-access one, and calling again will not help. Most reads still work with it.');
    expect(writes()).toHaveLength(1);

    // The next gated call: no warning, no confirmation asked, nothing sent, not even the warning's read.
    const before = sandbox.requests.length;
    const asked = await h.call('create_ad_campaign', CAMPAIGN);
    expect(asked.isError).toBe(true);
    expect(asked.text).not.toContain('CONFIRMATION NEEDED');
    expect(asked.text).toMatch(/^\[sandbox\] NOT SENT: the access token \(APPMGMT_ACCESS_TOKEN\) is read-only\. The service answered a request with it at \S+ with 403 read_only_credential_route_not_allowed/);
    expect(asked.text).toContain('nothing needs confirming');
    const confirmed = await h.call('create_ad_campaign', { ...CAMPAIGN, confirm: true });
    expect(confirmed.text).toMatch(/NOT SENT: the access token \(APPMGMT_ACCESS_TOKEN\) is read-only/);
    // A change that is not gated is not sent either.
    const shared = await h.call('share_app_with_groups', { app_id: APP, group_ids: ['grp_design'] });
    expect(shared.text).toMatch(/NOT SENT: the access token \(APPMGMT_ACCESS_TOKEN\) is read-only/);
    expect(sandbox.requests).toHaveLength(before);

    // check_connection says what the service answered, and when.
    const after = await h.call('check_connection');
    expect(after.text).toMatch(/Permission level: access token READ-ONLY \(the service refused a request with it at \S+ as read-only\), API key READ-ONLY/);
  });

  it('keeps each credential apart: a read-only API key stops the calendar, not a full-access token', async () => {
    await serve({ sandbox: true, credentials: { apiKey: 'key_demo_owner_ro' } });
    const connected = await h.call('check_connection');
    expect(connected.text).toContain('Permission level: access token full access, API key READ-ONLY (as the sandbox records them).');
    expect(connected.text).toContain("The sandbox's read-only credentials, to see what one can do: start the server with APPMGMT_ACCESS_TOKEN=pat_demo_owner_ro.");

    const started = await h.call('start_scheduling_posts', { app_id: APP, scheduled_from: '2026-11-09', scheduled_until: '2026-11-16' });
    expect(started.text).toContain('403 read_only_credential_route_not_allowed: the API key (APPMGMT_API_KEY) is read-only');
    const again = await h.call('start_scheduling_posts', { app_id: APP, scheduled_from: '2026-11-09', scheduled_until: '2026-11-16' });
    expect(again.text).toMatch(/NOT SENT: the API key \(APPMGMT_API_KEY\) is read-only/);
    // The token is full access: a spend still gets its warning.
    expect((await h.call('create_ad_campaign', CAMPAIGN)).text).toMatch(/^\[sandbox\] CONFIRMATION NEEDED\./);
  });

  it('names the read-only ones to try when the demo credentials are in use', async () => {
    await serve({ sandbox: true });
    const connected = await h.call('check_connection');
    expect(connected.text).toContain('Permission level: access token full access, API key full access (as the sandbox records them).');
    expect(connected.text).toContain(
      "The sandbox's read-only credentials, to see what one can do: start the server with APPMGMT_ACCESS_TOKEN=pat_demo_owner_ro and APPMGMT_API_KEY=key_demo_owner_ro.",
    );
    expect(connected.structured?.read_only_to_try).toEqual(['APPMGMT_ACCESS_TOKEN=pat_demo_owner_ro', 'APPMGMT_API_KEY=key_demo_owner_ro']);
  });

  it('against a live service says the permission is unknown until the service refuses a change, then says it', async () => {
    await serve({ sandbox: false, credentials: { accessToken: 'pat_demo_owner_ro' } });
    const connected = await h.call('check_connection');
    expect(connected.text).toContain('Permission level: access token unknown, API key unknown.');
    expect(connected.text).toContain(
      "The service has no call that reports a credential's permission: a read-only one is refused on its first change (403 read_only_credential_route_not_allowed), and from then on this server says so before any change made with it, without sending it.",
    );
    expect(connected.structured).toMatchObject({ permission: { access_token: 'unknown', api_key: 'unknown' } });

    await h.call('dismiss_campaign_suggestion', { app_id: APP, insight_id: 'sug_cmp_demo_budget' });
    const after = await h.call('check_connection');
    expect(after.text).toMatch(/Permission level: access token READ-ONLY \(the service refused a request with it at \S+ as read-only\), API key unknown\./);
    expect(after.structured).toMatchObject({ permission: { access_token: 'read_only', api_key: 'unknown' } });
    const before = sandbox.requests.length;
    expect((await h.call('resume_ad_campaign', { app_id: APP, campaign_id: 'cmp_demo' })).text).toMatch(/^NOT SENT: the access token/);
    expect(sandbox.requests).toHaveLength(before);
  });
});
