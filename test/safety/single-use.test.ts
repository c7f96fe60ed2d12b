import { afterEach, describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/tools/index.js';
import { connect, type Harness } from '../helpers.js';

/** Arguments that the default sandbox world accepts, for every gated tool. */
export const GATED_SAMPLES: Record<string, Record<string, unknown>> = {
  create_ad_campaign: {
    app_id: 'app_demo',
    campaign_name: 'Single use',
    campaign_type: 'SMART',
    daily_budget_micros: 5_000_000,
    landing_page: 'https://demo-planner.sandbox.test/',
    campaign_settings: { language_code: 'en', pass_through_key: 'kept' },
  },
  resume_ad_campaign: { app_id: 'app_demo', campaign_id: 'cmp_demo' },
  delete_ad_campaign: { app_id: 'app_demo', campaign_id: 'cmp_quiet' },
  apply_budget_recommendation: {
    app_id: 'app_demo',
    campaign_id: 'cmp_demo',
    recommendation_resource_name: 'customers/7100000001/recommendations/adnet_rec_budget_7100000001',
    recommended_daily_budget_micros: 35_000_000,
  },
  delete_email_template: { app_id: 'app_demo', template_id: 'tpl_seed_digest' },
  resolve_repo_conflicts: { app_id: 'app_demo' },
  send_app_chat_message: { app_id: 'app_demo', content: 'Make the header blue.' },
};

const GATED = TOOLS.filter((tool) => tool.cost !== 'none').map((tool) => tool.name);

/** Requests that change something: everything but reads. */
const writes = (h: Harness) => h.sandbox.requests.filter((request) => request.method !== 'GET');

describe('one warning allows exactly one request, through a real client', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('has sample arguments for every gated tool', () => {
    expect(Object.keys(GATED_SAMPLES).sort()).toEqual([...GATED].sort());
  });

  for (const name of GATED) {
    for (const n of [2, 3, 20]) {
      it(`${name}: ${n} concurrent confirmations after one warning send one request`, async () => {
        h = await connect();
        const args = GATED_SAMPLES[name]!;
        expect((await h.call(name, args)).text).toMatch(/CONFIRMATION NEEDED/);
        const results = await Promise.all(Array.from({ length: n }, () => h!.call(name, { ...args, confirm: true })));
        expect(writes(h)).toHaveLength(1);
        const refused = results.filter((result) => result.text.includes('NOT SENT'));
        expect(refused).toHaveLength(n - 1);
      });
    }

    it(`${name}: confirmations one after another after one warning send one request`, async () => {
      h = await connect();
      const args = GATED_SAMPLES[name]!;
      await h.call(name, args);
      for (let i = 0; i < 3; i++) await h.call(name, { ...args, confirm: true });
      expect(writes(h)).toHaveLength(1);
    });
  }

  it('describes every field that will be sent, pass-through settings included', async () => {
    h = await connect();
    const warning = await h.call('create_ad_campaign', GATED_SAMPLES.create_ad_campaign!);
    expect(warning.text).toContain('- campaign_settings: 2 keys: "language_code": "en", "pass_through_key": "kept"');
    expect(warning.text).toContain('- campaign_name: "Single use"');
    await h.call('create_ad_campaign', { ...GATED_SAMPLES.create_ad_campaign, confirm: true });
    expect(writes(h)[0]?.body).toMatchObject({ campaign_settings: { language_code: 'en', pass_through_key: 'kept' } });
  });

  it('shows a long campaign name whole, exactly as sent, with its quote marks and hidden characters escaped', async () => {
    h = await connect();
    const name = `${'Spring sale '.repeat(20)}"end"\u202e\u{e0041}`;
    const warning = await h.call('create_ad_campaign', { ...GATED_SAMPLES.create_ad_campaign, campaign_name: name });
    // Issue 29: the JSON that is sent, quote marks kept (escaped), hidden characters as the \u escapes JSON reads as them.
    expect(warning.text).toContain(`- campaign_name: "${'Spring sale '.repeat(20)}\\"end\\"\\u202e\\udb40\\udc41"`);
    expect(warning.text).toContain('Request body (exactly what is sent):');
    expect(warning.text).not.toMatch(/[\u202e]|\udb40/);
  });
});
