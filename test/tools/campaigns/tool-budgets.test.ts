import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Harness } from '../../helpers.js';

// Issue 10: what a model reads of each new read tool in tools/list (name, title, description, input
// schema) stays around 130 o200k tokens; every other new tool within 200.
const READS = ['list_ad_campaigns', 'get_ad_campaign'];
const WRITES = ['pause_ad_campaign', 'resume_ad_campaign', 'delete_ad_campaign', 'apply_budget_recommendation', 'dismiss_campaign_suggestion'];

describe('campaign tools in tools/list', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await connect();
  });
  afterAll(() => h.close());

  async function costs(): Promise<Record<string, number>> {
    const { tools } = await h.client.listTools();
    return Object.fromEntries(
      tools.map(({ name, title, description, inputSchema }) => [name, countTokens(JSON.stringify({ name, title, description, inputSchema }))]),
    );
  }

  it('keeps each new read tool within 130 tokens and every other new tool within 200', async () => {
    const all = await costs();
    for (const name of READS) expect(all[name], `${name}: ${all[name]} tokens`).toBeLessThanOrEqual(130);
    for (const name of WRITES) expect(all[name], `${name}: ${all[name]} tokens`).toBeLessThanOrEqual(200);
  });
});
