import { describe, expect, it } from 'vitest';
import { connectStdio, ERAS } from './http/harness.js';

/**
 * Every protocol era over stdio, end to end with the built server: 2025-era sessions are shown the
 * approval form inline; 2026-07-28 clients get it as an input_required round and retry.
 */
describe('the built server over stdio, for every protocol era', () => {
  for (const era of ERAS) {
    it(`serves a ${era} client, with a person's approval before a costly call`, async () => {
      const client = await connectStdio(era, {
        args: ['--sandbox'],
        env: { APPMGMT_REQUIRE_HUMAN_CONFIRMATION: 'true' },
        capabilities: { elicitation: { form: {} } },
      });
      try {
        const asked = client.answerForms(() => ({ action: 'accept', content: { approve: true } }));
        expect(await client.listTools()).toHaveLength(28);
        const args = { app_id: 'app_demo', campaign_name: `Era ${era}`, campaign_type: 'SMART', daily_budget_micros: 7_000_000, landing_page: 'https://demo-planner.sandbox.test/' };
        expect((await client.callTool('create_ad_campaign', args)).structured).toMatchObject({ confirmation_needed: true });
        expect(asked).toHaveLength(0);
        const done = await client.callTool('create_ad_campaign', { ...args, confirm: true });
        expect(asked).toEqual([expect.stringContaining('daily budget 7.00')]);
        expect(done.structured).toMatchObject({ confirmation_needed: false, campaign_name: `Era ${era}` });
        expect((await client.callTool('create_ad_campaign', { ...args, confirm: true })).text).toMatch(/NOT SENT/);
      } finally {
        await client.close();
      }
    });
  }

  it('refuses a costly call when a person must approve and the client shows no forms', async () => {
    const client = await connectStdio('2026-07-28', { args: ['--sandbox'], env: { APPMGMT_REQUIRE_HUMAN_CONFIRMATION: 'true' } });
    try {
      const result = await client.callTool('delete_ad_campaign', { app_id: 'app_demo', campaign_id: 'cmp_1' });
      expect(result.text).toMatch(/this client cannot show approval forms/);
    } finally {
      await client.close();
    }
  });
});
