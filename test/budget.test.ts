import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_FIXTURES, type ReadFixture } from '../bench/fixtures.mjs';
import { connect, type Harness } from './helpers.js';

// The deterministic budgets of issue 5, counted in o200k_base tokens; `npm run bench:full` reports the rest.
const tokens = (value: unknown) => countTokens(typeof value === 'string' ? value : JSON.stringify(value));

describe('token budgets', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await connect();
  });
  afterAll(() => harness.close());

  /** What a model reads of each tool: name, title, description and input schema (output schemas are reported by the bench). */
  async function toolCosts() {
    const { tools } = await harness.client.listTools();
    return tools.map(({ name, title, description, inputSchema }) => ({ name, tokens: tokens({ name, title, description, inputSchema }) }));
  }

  it('keeps what a model reads of tools/list within 3,500 tokens, and the instructions within 150', async () => {
    const list = (await toolCosts()).reduce((sum, tool) => sum + tool.tokens, 0);
    expect(list, `tools/list ${list}`).toBeLessThanOrEqual(3_500);
    expect(tokens(harness.client.getInstructions() ?? '')).toBeLessThanOrEqual(150);
  });

  it('keeps every tool within 200 tokens, create_ad_campaign within 550', async () => {
    const over = (await toolCosts()).filter((tool) => tool.tokens > (tool.name === 'create_ad_campaign' ? 550 : 200));
    expect(over).toEqual([]);
  });

  /** What the model reads of a result: its text and its structured part. */
  async function answerTo(fixture: ReadFixture) {
    harness.sandbox.script({ method: fixture.method, path: fixture.path, status: 200, body: fixture.answer });
    const outcome = await harness.call(fixture.tool, fixture.args);
    expect(outcome.isError, outcome.text).toBe(false);
    const read = outcome.structured ? `${outcome.text}\n${JSON.stringify(outcome.structured)}` : outcome.text;
    return { result: tokens(read), raw: tokens(fixture.answer) };
  }

  it.each(READ_FIXTURES)('answers $tool on a $name in under 2,000 tokens', async (fixture) => {
    expect((await answerTo(fixture)).result).toBeLessThan(2_000);
  });

  it('keeps the largest campaign warning the inputs allow under 2,000 tokens', async () => {
    // Every list at its maximum length, long texts, and pass-through settings at their bounds.
    const many = (prefix: string, length: number) => Array.from({ length: 50 }, (_, i) => `${prefix} ${i} `.padEnd(length, 'x'));
    const args: Record<string, unknown> = {
      app_id: 'app_demo',
      campaign_name: 'N'.repeat(255),
      campaign_type: 'PERFORMANCE_MAX',
      daily_budget_micros: 5_000_000,
      landing_page: `https://example.com/${'p'.repeat(500)}`,
      logo_url: `https://files.sandbox.test/${'l'.repeat(500)}.png`,
      keyword_themes: many('theme', 100),
      // Geo targets are numeric ids (issue 17): the longest ones, half of them with a place name.
      geo_targets: Array.from({ length: 50 }, (_, i) => (i % 2 ? '2554' : String(1_000_000_000 + i))),
      images: Array.from({ length: 20 }, (_, i) => ({ url: `https://files.sandbox.test/${i}${'i'.repeat(300)}.png`, kind: i % 2 ? 'MARKETING_IMAGE' : 'SQUARE_MARKETING_IMAGE' })),
      sitelinks: Array.from({ length: 20 }, (_, i) => ({ text: `Link ${i}`.padEnd(200, 'x'), url: `https://example.com/${i}${'s'.repeat(300)}` })),
      headlines: many('headline', 100),
      descriptions: many('description', 200),
      business_name: 'B'.repeat(200),
      phone_number: '+14155550100',
      contains_eu_political_advertising: false,
    };
    // Pass-through settings at their bounds (campaign-settings.ts): shown whole, every key and value.
    args.campaign_settings = Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`key_${i}`.padEnd(40, 'k'), 'v'.repeat(60)]));
    const warning = await harness.call('create_ad_campaign', args);
    expect(warning.text).toMatch(/^CONFIRMATION NEEDED/);
    expect(warning.text).toMatch(/campaign_settings: 7 keys: .*"v{60}"$/m);
    expect(tokens(`${warning.text}\n${JSON.stringify(warning.structured)}`)).toBeLessThan(2_000);
  });

  it('shrinks 30 suggestions to at most 40% of the raw answer', async () => {
    const fixture = READ_FIXTURES.find((f) => f.tool === 'list_campaign_suggestions')!;
    const { result, raw } = await answerTo(fixture);
    expect(result / raw, `${result} of ${raw} tokens`).toBeLessThanOrEqual(0.4);
  });
});
