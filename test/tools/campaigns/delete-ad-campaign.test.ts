import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect, type Harness } from '../../helpers.js';
import { APP, CAMPAIGN, CAMPAIGN_PATH } from './fixtures.js';

const ARGS = { app_id: APP, campaign_id: 'cmp_1' };

describe('delete_ad_campaign', () => {
  let h: Harness;
  // A fresh server per test: the confirmation gate remembers warnings across calls.
  beforeEach(async () => {
    h = await connect();
  });
  afterEach(() => h.close());

  const remove = (extra: Record<string, unknown> = {}) => h.call('delete_ad_campaign', { ...ARGS, ...extra });
  const writes = () => h.sandbox.requests.filter((request) => request.method !== 'GET');

  it('first reads the campaign and warns with exactly what disappears, sending no write', async () => {
    h.sandbox.script({ status: 200, body: CAMPAIGN });
    const result = await remove();
    expect(h.sandbox.requests.map((r) => `${r.method} ${r.rawPath}`)).toEqual([`GET ${CAMPAIGN_PATH()}`]);
    expect(result.isError).toBe(false);
    expect(result.text).toMatchInlineSnapshot(`
      "CONFIRMATION NEEDED. Nothing was sent.
      Delete campaign cmp_1 ("Spring sale") on app app_demo.
      Campaign cmp_1 is now ENABLED, daily budget 20.00.
      What disappears: its ads stop at the ad platform and it stops spending (spend already incurred today is still billed); it can no longer be paused, resumed or changed, and its suggestions no longer apply.
      What stays: the campaign remains listed with status REMOVED, kept for reporting.
      To stop spend and keep the option to restart, use pause_ad_campaign instead.
      Cost: permanent, no undo: the campaign can never serve or be resumed again.
      Next: Show this to the user; only if they agree, call delete_ad_campaign again with the same arguments plus confirm: true within 10 minutes."
    `);
    expect(result.structured).toMatchObject({ confirmation_needed: true, cost: 'permanent, no undo: the campaign can never serve or be resumed again.' });
  });

  it('confirmed, sends exactly one DELETE with the bearer token and says it stays listed as REMOVED', async () => {
    h.sandbox.script({ status: 200, body: CAMPAIGN });
    await remove();
    h.sandbox.script({ status: 200, body: { action: 'deleted' } });
    const result = await remove({ confirm: true });
    expect(writes()).toHaveLength(1);
    const [request] = writes();
    expect(request?.method).toBe('DELETE');
    expect(request?.rawPath).toBe(CAMPAIGN_PATH());
    expect(request?.headers.authorization).toBe(`Bearer ${h.config.accessToken}`);
    expect(request?.body).toBeUndefined();
    expect(result.text).toMatchInlineSnapshot(`
      "Deleted campaign cmp_1 on app app_demo (the service answered deleted).
      It no longer serves or spends (spend already incurred today is still billed) and cannot be undone; it stays listed with status REMOVED for reporting.
      Next: Nothing more is needed; list_ad_campaigns {"app_id":"app_demo"} shows it as REMOVED."
    `);
    expect(result.structured).toMatchObject({ confirmation_needed: false, campaign_id: 'cmp_1', action: 'deleted' });
  });

  it('refuses an already deleted campaign in the warning, sending nothing', async () => {
    h.sandbox.script({ status: 200, body: { ...CAMPAIGN, status: 'REMOVED' } });
    const result = await remove();
    expect(result.isError).toBe(true);
    expect(result.text).toBe('Campaign cmp_1 is already deleted (REMOVED); there is nothing to delete. Nothing was sent.');
    expect(writes()).toHaveLength(0);
  });

  it('sends nothing when the confirmed arguments differ from the warning', async () => {
    h.sandbox.script({ status: 200, body: CAMPAIGN });
    await remove();
    const result = await remove({ campaign_id: 'cmp_2', confirm: true });
    expect(result.text).toMatch(/^NOT SENT: .*The latest warning of this tool was for other arguments\./);
    expect(writes()).toHaveLength(0);
  });

  it('says OUTCOME UNKNOWN after a 409 and points at get_ad_campaign', async () => {
    h.sandbox.script({ status: 200, body: CAMPAIGN });
    await remove();
    h.sandbox.script({ status: 409, body: { detail: 'adnet timed out' }, times: 2 });
    const result = await remove({ confirm: true });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^OUTCOME UNKNOWN: the service answered 409\. The campaign may or may not have been deleted/);
    expect(result.text).toContain('Read it back with get_ad_campaign (status REMOVED means deleted) before trying again.');
    expect(writes()).toHaveLength(1);
  });

  it.each([
    [403, /^403: Not allowed: deleting needs a full-access token/],
    [429, /^429: Rate limited by the service; nothing changed/],
  ])('explains %i on the confirmed call, without retrying', async (status, expected) => {
    h.sandbox.script({ status: 200, body: CAMPAIGN });
    await remove();
    h.sandbox.script({ status, body: { detail: 'Refused' }, headers: { 'retry-after': '0' }, times: 3 });
    const result = await remove({ confirm: true });
    expect(result.text).toMatch(expected);
    expect(writes()).toHaveLength(1);
  });

  it('deletes a default-world campaign, which then lists as REMOVED', async () => {
    await h.call('delete_ad_campaign', { app_id: APP, campaign_id: 'cmp_quiet' });
    await h.call('delete_ad_campaign', { app_id: APP, campaign_id: 'cmp_quiet', confirm: true });
    const listed = await h.call('list_ad_campaigns', { app_id: APP });
    expect(listed.structured?.campaigns).toContainEqual(expect.objectContaining({ campaign_id: 'cmp_quiet', status: 'REMOVED' }));
  });
});
