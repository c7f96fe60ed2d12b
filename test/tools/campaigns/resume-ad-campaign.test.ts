import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect, type Harness } from '../../helpers.js';
import { APP, CAMPAIGN, CAMPAIGN_PATH } from './fixtures.js';

const ARGS = { app_id: APP, campaign_id: 'cmp_1' };
const PAUSED = { ...CAMPAIGN, status: 'PAUSED' };

describe('resume_ad_campaign', () => {
  let h: Harness;
  // A fresh server per test: the confirmation gate remembers warnings across calls.
  beforeEach(async () => {
    h = await connect();
  });
  afterEach(() => h.close());

  const resume = (extra: Record<string, unknown> = {}) => h.call('resume_ad_campaign', { ...ARGS, ...extra });
  const writes = () => h.sandbox.requests.filter((request) => request.method !== 'GET');

  it('first reads the campaign and warns with its daily budget and roughly per month, sending no write', async () => {
    h.sandbox.script({ status: 200, body: PAUSED });
    const result = await resume();
    expect(h.sandbox.requests.map((r) => `${r.method} ${r.rawPath}`)).toEqual([`GET ${CAMPAIGN_PATH()}`]);
    expect(writes()).toHaveLength(0);
    expect(result.isError).toBe(false);
    expect(result.text).toMatchInlineSnapshot(`
      "CONFIRMATION NEEDED. Nothing was sent.
      Resume campaign cmp_1 ("Spring sale") on app app_demo.
      Campaign cmp_1 is now PAUSED.
      It re-opens spend: the campaign serves again and spends up to about its daily budget every day until paused.
      Needs a payment method and an account in good standing; otherwise the service answers 402 and it stays paused.
      A campaign the service paused itself (unpaid balance, unverified conversion tracking) is paused again while that reason holds.
      Cost: daily budget 20.00 in the account currency, roughly 608.00 a month; real money while it serves.
      Next: Show this to the user; only if they agree, call resume_ad_campaign again with the same arguments plus confirm: true within 10 minutes."
    `);
    expect(result.structured).toMatchObject({
      confirmation_needed: true,
      action: 'Resume campaign cmp_1 ("Spring sale") on app app_demo',
      cost: 'daily budget 20.00 in the account currency, roughly 608.00 a month; real money while it serves.',
    });
  });

  it('confirmed, sends exactly one POST to the resume path with the bearer token and no body', async () => {
    h.sandbox.script({ status: 200, body: PAUSED });
    await resume();
    h.sandbox.script({ status: 200, body: { action: 'resumed' } });
    const result = await resume({ confirm: true });
    expect(writes()).toHaveLength(1);
    const [request] = writes();
    expect(request?.rawPath).toBe(`${CAMPAIGN_PATH()}/resume`);
    expect(request?.method).toBe('POST');
    expect(request?.headers.authorization).toBe(`Bearer ${h.config.accessToken}`);
    expect(request?.body).toBeUndefined();
    expect(result.text).toMatchInlineSnapshot(`
      "Resumed campaign cmp_1 on app app_demo (the service answered resumed): it can serve and spend again.
      A campaign the service paused itself (unpaid balance, unverified conversion tracking) is paused again while that reason holds.
      Next: Confirm it is ENABLED with get_ad_campaign {"app_id":"app_demo","campaign_id":"cmp_1"}."
    `);
    expect(result.structured).toMatchObject({ confirmation_needed: false, campaign_id: 'cmp_1', action: 'resumed' });
  });

  it('sends nothing for confirm: true without an earlier warning', async () => {
    const result = await resume({ confirm: true });
    expect(result.text).toMatch(/^NOT SENT: confirm: true needs a pending warning/);
    expect(h.sandbox.requests).toHaveLength(0);
  });

  it('says an ENABLED campaign changes nothing, in the text and in the structured cost', async () => {
    h.sandbox.script({ status: 200, body: CAMPAIGN });
    const result = await resume();
    expect(result.text).toContain('It is already ENABLED: resuming changes nothing.');
    expect(result.structured?.cost).toBe('nothing new: it is already ENABLED and spends up to its daily budget (20.00 a day) either way; confirming changes nothing.');
  });

  it('refuses a deleted campaign in the warning, sending nothing', async () => {
    h.sandbox.script({ status: 200, body: { ...CAMPAIGN, status: 'REMOVED' } });
    const result = await resume();
    expect(result.isError).toBe(true);
    expect(result.text).toBe('Campaign cmp_1 is deleted (REMOVED): it can never serve again. Nothing was sent.');
    expect(writes()).toHaveLength(0);
  });

  it('explains a 402: no payment method or not in good standing, and it stays paused', async () => {
    h.sandbox.script({ status: 200, body: PAUSED });
    await resume();
    h.sandbox.script({ status: 402, body: { detail: 'No payment method' } });
    const result = await resume({ confirm: true });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^402: The workspace has no payment method or its account is not in good standing: the campaign stays paused\./);
    expect(writes()).toHaveLength(1);
  });

  it('says OUTCOME UNKNOWN after a 409 and points at get_ad_campaign; the next warning names the attempt', async () => {
    h.sandbox.script({ status: 200, body: PAUSED });
    await resume();
    h.sandbox.script({ status: 409, body: { detail: 'adnet timed out' } });
    const result = await resume({ confirm: true });
    expect(result.isError).toBe(true);
    expect(result.text).toBe(
      'OUTCOME UNKNOWN: the service answered 409. The campaign may or may not have been resumed (the ad platform can time out after applying it). Read it back with get_ad_campaign before trying again. Do not simply call again: a new attempt needs a fresh warning and confirmation.\nNext: Check as described above before calling resume_ad_campaign again without confirm.',
    );
    h.sandbox.script({ status: 200, body: PAUSED });
    expect((await resume()).text).toContain('Earlier attempt: a confirmed call with these arguments at');
    expect(writes()).toHaveLength(1);
  });

  it('explains a 404 from the read in the warning', async () => {
    h.sandbox.script({ status: 404, body: { detail: 'Campaign not found.' } });
    const result = await resume();
    expect(result.text).toMatch(/^404: App or campaign not found/);
  });

  it('resumes a paused default-world campaign once confirmed', async () => {
    await h.call('pause_ad_campaign', { app_id: APP, campaign_id: 'cmp_demo' });
    await h.call('resume_ad_campaign', { app_id: APP, campaign_id: 'cmp_demo' });
    const result = await h.call('resume_ad_campaign', { app_id: APP, campaign_id: 'cmp_demo', confirm: true });
    expect(result.isError).toBe(false);
    expect(h.sandbox.simulation.inspect().campaigns.find((c) => c.id === 'cmp_demo')?.status).toBe('ENABLED');
  });
});
