import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type Harness } from '../helpers.js';

const campaign = {
  app_id: 'app_demo',
  campaign_name: 'Spring sale',
  campaign_type: 'SMART',
  daily_budget_micros: 25_000_000,
  landing_page: 'https://shop.example.com/spring',
};
const created = { id: 'cmp_9', status: 'ENABLED', adnet_campaign_id: '', campaign_name: 'Spring sale', campaign_type: 'SMART' };

describe('a human in the loop', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  async function withForm(answer: ElicitResult, config = {}) {
    h = await connect({ capabilities: { elicitation: { form: {} } }, config });
    const asked: string[] = [];
    h.client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return answer;
    });
    return { h, asked };
  }

  it('asks the user through a form showing the exact amount, and acts on approval', async () => {
    const { h, asked } = await withForm({ action: 'accept', content: { approve: true } });
    h.sandbox.script({ method: 'POST', status: 200, body: created });
    await h.call('create_ad_campaign', campaign);
    const result = await h.call('create_ad_campaign', { ...campaign, confirm: true });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('25.00');
    expect(result.isError).toBe(false);
    expect(h.sandbox.requests.filter((request) => request.method !== 'GET')).toHaveLength(1);
  });

  for (const answer of [
    { action: 'decline' },
    { action: 'cancel' },
    { action: 'accept', content: { approve: false } },
  ] as ElicitResult[]) {
    it(`sends nothing when the user answers ${JSON.stringify(answer)}`, async () => {
      const { h } = await withForm(answer);
      await h.call('create_ad_campaign', campaign);
      const result = await h.call('create_ad_campaign', { ...campaign, confirm: true });
      expect(result.text).toMatch(/did not approve.*Nothing was sent/);
      expect(h.sandbox.requests.filter((request) => request.method !== 'GET')).toHaveLength(0);
    });
  }

  for (const content of [{ approve: 'true' }, { approve: true, also: 'spend more' }, {}] as Array<Record<string, unknown>>) {
    it(`treats an answer that is not exactly {approve: true} as a decline: ${JSON.stringify(content)}`, async () => {
      const { h } = await withForm({ action: 'accept', content } as ElicitResult);
      await h.call('create_ad_campaign', campaign);
      const result = await h.call('create_ad_campaign', { ...campaign, confirm: true });
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(/Nothing was sent/);
      expect(h.sandbox.requests.filter((request) => request.method !== 'GET')).toHaveLength(0);
    });
  }

  it('ends an approval form nobody answers after APPMGMT_APPROVAL_TIMEOUT_MS, sending nothing', async () => {
    h = await connect({ capabilities: { elicitation: { form: {} } }, config: { approvalTimeoutMs: 50 } });
    h.client.setRequestHandler(ElicitRequestSchema, () => new Promise<ElicitResult>(() => undefined)); // never answers
    await h.call('create_ad_campaign', campaign);
    const result = await h.call('create_ad_campaign', { ...campaign, confirm: true });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^Nobody answered the approval form within 50 ms \(APPMGMT_APPROVAL_TIMEOUT_MS\)\. Nothing was sent/);
    expect(h.sandbox.requests.filter((request) => request.method !== 'GET')).toHaveLength(0);
  });

  it('asks before spending credits too', async () => {
    const { h, asked } = await withForm({ action: 'decline' });
    await h.call('resolve_repo_conflicts', { app_id: 'app_demo' });
    await h.call('resolve_repo_conflicts', { app_id: 'app_demo', confirm: true });
    expect(asked[0]).toMatch(/credit/i);
    expect(h.sandbox.requests.filter((request) => request.method !== 'GET')).toHaveLength(0);
  });

  it('says on the first call that a client without forms cannot approve, when a human is required', async () => {
    h = await connect({ config: { requireHumanConfirmation: true } });
    const first = await h.call('create_ad_campaign', campaign);
    expect(first.isError).toBe(true);
    expect(first.text).toMatch(/APPMGMT_REQUIRE_HUMAN_CONFIRMATION=true\), and this client cannot show approval forms, so it cannot approve costly calls\. Nothing was sent/);
    expect(first.text).not.toMatch(/confirm: true/);
    const second = await h.call('create_ad_campaign', { ...campaign, confirm: true });
    expect(second.isError).toBe(true);
    expect(h.sandbox.requests.filter((request) => request.method !== 'GET')).toHaveLength(0);
  });

  it('caps the daily budget before any request', async () => {
    h = await connect({ config: { maxDailyBudgetMicros: 10_000_000 } });
    for (const args of [campaign, { ...campaign, confirm: true }]) {
      const result = await h.call('create_ad_campaign', args);
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(/above the cap of 10000000 .* APPMGMT_MAX_DAILY_BUDGET_MICROS.*Nothing was sent/);
    }
    // Every request counts, reads included: the cap is checked before anything reaches the service.
    expect(h.sandbox.requests).toEqual([]);
    // The control: the same two calls within the cap reach the service, so the count above could have grown.
    const within = { ...campaign, daily_budget_micros: 10_000_000 };
    h.sandbox.script({ method: 'POST', status: 200, body: created });
    await h.call('create_ad_campaign', within);
    expect((await h.call('create_ad_campaign', { ...within, confirm: true })).isError).toBe(false);
    expect(h.sandbox.requests.length).toBeGreaterThan(0);
  });
});
