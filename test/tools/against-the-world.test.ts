import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/http.js';
import type { Clock } from '../../src/tools/define.js';
import { connect, type Harness } from '../helpers.js';

// Every tool end to end against the simulated service's default world: no scripted answers.
describe('every tool against the simulated world', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    await h?.sandbox.close();
    h = undefined;
  });

  async function world(config = {}) {
    const sandbox = await startSandbox({ control: true });
    // The server's waits move the sandbox's clock, so waiting takes no wall-clock time; each wait
    // still yields to I/O, as a real timer would.
    const clock: Clock = {
      now: sandbox.clock.now,
      sleep: async (ms) => {
        await new Promise((resolve) => setImmediate(resolve));
        sandbox.clock.advance(ms);
      },
    };
    h = await connect({ sandbox, clock, config });
    return h;
  }

  it('customizes an email once, then finds it already there', async () => {
    const h = await world();
    const first = await h.call('customize_app_email', { app_id: 'app_demo', email_type: 'password_reset' });
    const again = await h.call('customize_app_email', { app_id: 'app_demo', email_type: 'password_reset' });
    expect(first.text).toMatch(/^Created an editable password_reset email for app app_demo: template (\S+)/);
    const template = /template (\S+)/.exec(first.text)?.[1];
    expect(again.text).toContain(`already had its own password_reset email: template ${template}`);
  });

  it('creates a campaign only after confirmation, then lists suggestions for it', async () => {
    const h = await world();
    const campaign = {
      app_id: 'app_demo',
      campaign_name: 'World test',
      campaign_type: 'SMART',
      daily_budget_micros: 5_000_000,
      landing_page: 'https://shop.example.com/',
      headlines: ['Handmade mugs', 'Ceramic gifts', 'Free shipping'],
      descriptions: ['Thrown by hand.', 'Shipped next week.'],
    };
    const warning = await h.call('create_ad_campaign', campaign);
    expect(warning.text).toMatch(/^CONFIRMATION NEEDED/);
    // Only the warning's read (issue 16): the fast campaign list, no write.
    expect(h.sandbox.requests.map((request) => `${request.method} ${request.rawPath}?${request.query}`)).toEqual(['GET /api/apps/app_demo/adnet-ads/campaigns?include_metrics=false']);
    const created = await h.call('create_ad_campaign', { ...campaign, confirm: true });
    expect(created.isError, created.text).toBe(false);
    const id = /Created campaign (\S+)/.exec(created.text)?.[1];
    expect(created.text).toContain('Status: ENABLED');
    const suggestions = await h.call('list_campaign_suggestions', { app_id: 'app_demo', campaign_id: id });
    expect(suggestions.isError, suggestions.text).toBe(false);
    expect(suggestions.structured?.campaign_id).toBe(id);
  });

  it('rejects a budget under the currency minimum with the ad platform reason', async () => {
    const h = await world();
    const campaign = { app_id: 'app_demo', campaign_name: 'Tiny', campaign_type: 'SMART', daily_budget_micros: 500_000, landing_page: 'https://shop.example.com/' };
    await h.call('create_ad_campaign', campaign);
    const result = await h.call('create_ad_campaign', { ...campaign, confirm: true });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^400: /);
    expect(result.text).toMatch(/Reason given: ".*minimum/i);
  });

  it('lists cmp_demo suggestions with the ad platform part included', async () => {
    const h = await world();
    const result = await h.call('list_campaign_suggestions', { app_id: 'app_demo', campaign_id: 'cmp_demo' });
    expect(result.structured?.adnet_included).toBe(true);
    expect(result.text).toMatch(/^\d+ suggestions for campaign cmp_demo/);
  });

  it('shares with groups, one of them already shared', async () => {
    const h = await world();
    const result = await h.call('share_app_with_groups', { app_id: 'app_demo', group_ids: ['grp_design', 'grp_support'] });
    expect(result.isError).toBe(false);
    expect(result.text).toContain('- grp_design: shared');
    expect(result.text).toContain('- grp_support: already shared');
  });

  it('waits for a running job until it completes, without sleeping', async () => {
    const h = await world();
    const result = await h.call('get_scheduling_job', { app_id: 'app_demo', job_id: 'job_running', wait_seconds: 120 });
    expect(result.structured).toMatchObject({ job_id: 'job_running', status: 'completed', done: true });
    const polls = h.sandbox.requests.filter((request) => request.rawPath.endsWith('/job_running')).length;
    expect(polls).toBeGreaterThan(1);
    expect(polls).toBeLessThanOrEqual(120 / 5 + 1);
  });

  it('resolves conflicts after confirmation, then has nothing left to push', async () => {
    // app_docs resolves at once (app_demo asks a question first: test/workflows/e-repo-conflicts.test.ts).
    const h = await world();
    await h.call('resolve_repo_conflicts', { app_id: 'app_docs' });
    const resolved = await h.call('resolve_repo_conflicts', { app_id: 'app_docs', confirm: true });
    expect(resolved.text).toMatch(/RESOLVED/);
    const pushed = await h.call('push_app_to_repo', { app_id: 'app_docs' });
    expect(pushed.isError, pushed.text).toBe(false);
    expect(pushed.text).toMatch(/^Nothing to push for app app_docs/);
  });

  it('reports push outcomes of the broken connections as failures', async () => {
    const h = await world();
    expect((await h.call('push_app_to_repo', { app_id: 'app_crm' })).text).toMatch(/^Push skipped .* no repohost app installation/);
    const revoked = await h.call('push_app_to_repo', { app_id: 'app_wiki' });
    expect(revoked.isError).toBe(true);
    expect(revoked.text).toMatch(/^Push FAILED for app app_wiki/);
  });

  it('reads analytics as the owner and is refused for a member', async () => {
    const owner = await world();
    const result = await owner.call('get_workspace_analytics', { workspace_id: 'ws_demo' });
    expect(result.isError, result.text).toBe(false);
    expect(result.text).not.toMatch(/seats|by_seat_type/);
    await owner.close();
    await owner.sandbox.close();
    const member = await world({ monitoringApiKey: 'key_demo_member' });
    const refused = await member.call('get_workspace_analytics', { workspace_id: 'ws_demo' });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/^401: /);
  });

  it('refuses every write for a read-only token with the reason and what to do', async () => {
    const h = await world({ accessToken: 'pat_demo_owner_ro' });
    const result = await h.call('push_app_to_repo', { app_id: 'app_demo' });
    expect(result.isError).toBe(true);
    expect(result.text).toContain('read_only_credential_route_not_allowed');
    expect(result.text).toContain('full_access');
  });
});
