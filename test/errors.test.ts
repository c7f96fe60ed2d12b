import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Harness } from './helpers.js';

describe('an unknown app', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await connect();
  });
  afterAll(() => h.close());

  it.each([
    ['list_ad_campaigns', {}],
    ['list_email_templates', {}],
    ['list_group_shares', {}],
    ['read_app_conversation', {}],
    ['get_ad_campaign', { campaign_id: 'cmp_1' }],
  ])('%s says the app was not found and where app ids come from', async (tool, args) => {
    const result = await h.call(tool, { app_id: 'app_nope', ...args });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^404: App\b/);
    expect(result.text).toContain("The service has no operation that lists apps: ask the user for the app's id");
    expect(result.text).toContain('check_connection lists the simulated apps');
  });

  it('is not told where app ids come from when the 404 is about something else', async () => {
    const result = await h.call('get_workspace_analytics', { workspace_id: 'ws_nope' });
    expect(result.text).toMatch(/^404: Workspace not found/);
    expect(result.text).not.toContain('lists apps');
  });
});
