import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connect, type Harness } from '../helpers.js';

describe('arguments a tool cannot take', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await connect();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  it('names every missing one, where its value comes from, and sends nothing', async () => {
    const result = await h.call('get_ad_campaign', {});
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^Invalid arguments for get_ad_campaign; nothing was sent\./);
    expect(result.text).toContain("- app_id: required; ask the user (no operation lists apps");
    expect(result.text).toContain('- campaign_id: required; list_ad_campaigns lists them');
    expect(result.text).not.toContain('Input validation error');
    expect(h.sandbox.requests).toHaveLength(0);
  });

  it('says which argument a misspelled one meant, and lists the ones the tool takes', async () => {
    const result = await h.call('delete_email_template', { app_id: 'app_demo', templateid: 'tpl_1' });
    expect(result.text).toContain('- templateid: not an argument of this tool (did you mean template_id?); its arguments are app_id, template_id, confirm.');
    expect(result.text).toContain('- template_id: required; list_email_templates lists them.');
    expect(h.sandbox.requests).toHaveLength(0);
  });

  it('names the field and the rule of a wrong value', async () => {
    const result = await h.call('get_scheduling_job', { app_id: 'app_demo', job_id: 'job_1', wait_seconds: 'soon' });
    expect(result.text).toMatch(/- wait_seconds: Invalid input: expected number, received string\./);
    expect(h.sandbox.requests).toHaveLength(0);
  });

  it('stops listing after eight problems and says how many more', async () => {
    const args = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`extra_${i}`, i]));
    const result = await h.call('list_ad_campaigns', { app_id: 'app_demo', ...args });
    expect(result.text.match(/^- /gm)).toHaveLength(9);
    expect(result.text).toContain('- and 4 more');
  });

  it('applies defaults to arguments it accepts', async () => {
    const result = await h.call('read_app_conversation', { app_id: 'app_demo' });
    expect(result.isError).toBe(false);
    expect(h.sandbox.requests[0]?.query).toBe('limit=10');
  });
});
