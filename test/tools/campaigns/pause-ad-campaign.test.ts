import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connect, type Harness } from '../../helpers.js';
import { APP, CAMPAIGN_PATH } from './fixtures.js';

describe('pause_ad_campaign', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await connect();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  const pause = () => h.call('pause_ad_campaign', { app_id: APP, campaign_id: 'cmp_1' });

  it('posts to the pause path with the bearer token and no body, at once (no confirmation)', async () => {
    h.sandbox.script({ status: 200, body: { action: 'paused' } });
    const result = await pause();
    expect(h.sandbox.requests).toHaveLength(1);
    const [request] = h.sandbox.requests;
    expect(request?.method).toBe('POST');
    expect(request?.rawPath).toBe(`${CAMPAIGN_PATH()}/pause`);
    expect(request?.query).toBe('');
    expect(request?.headers.authorization).toBe(`Bearer ${h.config.accessToken}`);
    expect(request?.body).toBeUndefined();
    expect(result.isError).toBe(false);
    expect(result.text).toMatchInlineSnapshot(`
      "Paused campaign cmp_1 on app app_demo (the service answered paused).
      It stops serving within minutes; spend already incurred today is still billed. If it was already paused, nothing changed.
      Next: Check its status with get_ad_campaign {"app_id":"app_demo","campaign_id":"cmp_1"}. To re-open spend later, when the user wants it: resume_ad_campaign."
    `);
    expect(result.structured).toEqual({
      campaign_id: 'cmp_1',
      action: 'paused',
      next: 'Check its status with get_ad_campaign {"app_id":"app_demo","campaign_id":"cmp_1"}. To re-open spend later, when the user wants it: resume_ad_campaign.',
    });
  });

  it('succeeds again on a paused campaign of the default world', async () => {
    const first = await h.call('pause_ad_campaign', { app_id: APP, campaign_id: 'cmp_demo' });
    const again = await h.call('pause_ad_campaign', { app_id: APP, campaign_id: 'cmp_demo' });
    expect([first.isError, again.isError]).toEqual([false, false]);
    expect(h.sandbox.simulation.inspect().campaigns.find((c) => c.id === 'cmp_demo')?.status).toBe('PAUSED');
  });

  it('says a 409 may or may not have applied and to read the campaign back before retrying; it does not retry', async () => {
    h.sandbox.script({ status: 409, body: { detail: 'adnet did not answer in time' }, times: 3 });
    const result = await pause();
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(
      /^409: The ad platform timed out after the request was sent: the pause may or may not have applied\. Read the campaign back before retrying\. get_ad_campaign shows its status\./,
    );
    expect(result.text).toContain('Reason given: "adnet did not answer in time"');
    expect(h.sandbox.requests).toHaveLength(1);
  });

  it('retries a 503 (pausing again changes nothing)', async () => {
    h.sandbox.script({ status: 503, times: 1 });
    h.sandbox.script({ status: 200, body: { action: 'paused' } });
    const result = await pause();
    expect(result.isError).toBe(false);
    expect(h.sandbox.requests).toHaveLength(2);
  });

  it.each([
    [400, /^400: The campaign cannot be paused: it is deleted \(REMOVED\)/],
    [401, /^401: The access token is missing, invalid or expired/],
    [403, /^403: Not allowed: pausing needs a full-access token with editor access/],
    [404, /^404: App or campaign not found/],
  ])('explains %i', async (status, expected) => {
    h.sandbox.script({ status, body: { detail: 'Refused' } });
    const result = await pause();
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(expected);
  });

  it('names the read-only token as the cause of a 403 read_only_credential_route_not_allowed', async () => {
    const readOnly = await connect({ config: { accessToken: 'pat_demo_owner_ro' } });
    try {
      const result = await readOnly.call('pause_ad_campaign', { app_id: APP, campaign_id: 'cmp_demo' });
      expect(result.text).toMatch(/^403 read_only_credential_route_not_allowed: the access token \(APPMGMT_ACCESS_TOKEN\) is read-only/);
    } finally {
      await readOnly.close();
    }
  });
});
