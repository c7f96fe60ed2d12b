import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_FIXTURES, type ReadFixture } from '../bench/fixtures.mjs';
import { docFigures } from './docs/markdown.js';
import { connect, type Harness } from './helpers.js';

// The deterministic budgets of issue 5, counted in o200k_base tokens; `npm run bench:full` reports the rest.
// The figures are read from docs/performance.md, which states them, so the doc and the test cannot drift.
const [LIST_TOKENS, CREATE_TOKENS, TOOL_TOKENS, INSTRUCTIONS_TOKENS, SUGGESTIONS_PERCENT, RESULT_TOKENS] = docFigures(
  'docs/performance.md',
  /The token budgets are tests \(`test\/budget\.test\.ts`, o200k_base\): what a model reads of `tools\/list` at most ([\d,]+) tokens for all 28 tools, at most ([\d,]+) for `create_ad_campaign` and ([\d,]+) for every other tool, the instructions at most ([\d,]+); the 30-suggestion result at most (\d+)% of the raw answer; every result and every warning \(at the largest inputs\) under ([\d,]+) tokens\./,
) as [number, number, number, number, number, number];
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

  it('states the same budgets in the bench report as in the prose', () => {
    const [list, create, tool, instructions] = docFigures(
      'docs/performance.md',
      /Budgets \(tests in `test\/budget\.test\.ts`\): model-visible ≤ ([\d,]+) for all tools, ≤ ([\d,]+) for `create_ad_campaign`, ≤ ([\d,]+) for every other tool; instructions ≤ ([\d,]+)\./,
    );
    expect([list, create, tool, instructions]).toEqual([LIST_TOKENS, CREATE_TOKENS, TOOL_TOKENS, INSTRUCTIONS_TOKENS]);
  });

  it(`keeps what a model reads of tools/list within ${LIST_TOKENS} tokens, and the instructions within ${INSTRUCTIONS_TOKENS}`, async () => {
    const list = (await toolCosts()).reduce((sum, tool) => sum + tool.tokens, 0);
    expect(list, `tools/list ${list}`).toBeLessThanOrEqual(LIST_TOKENS);
    expect(tokens(harness.client.getInstructions() ?? '')).toBeLessThanOrEqual(INSTRUCTIONS_TOKENS);
  });

  it(`keeps every tool within ${TOOL_TOKENS} tokens, create_ad_campaign within ${CREATE_TOKENS}`, async () => {
    const over = (await toolCosts()).filter((tool) => tool.tokens > (tool.name === 'create_ad_campaign' ? CREATE_TOKENS : TOOL_TOKENS));
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

  it.each(READ_FIXTURES)(`answers $tool on a $name in under ${RESULT_TOKENS} tokens`, async (fixture) => {
    expect((await answerTo(fixture)).result).toBeLessThan(RESULT_TOKENS);
  });

  it(`keeps the largest campaign warning the inputs allow under ${RESULT_TOKENS} tokens`, async () => {
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
    expect(tokens(`${warning.text}\n${JSON.stringify(warning.structured)}`)).toBeLessThan(RESULT_TOKENS);
  });

  it(`shrinks 30 suggestions to at most ${SUGGESTIONS_PERCENT}% of the raw answer`, async () => {
    const fixture = READ_FIXTURES.find((f) => f.tool === 'list_campaign_suggestions')!;
    const { result, raw } = await answerTo(fixture);
    expect(result / raw, `${result} of ${raw} tokens`).toBeLessThanOrEqual(SUGGESTIONS_PERCENT / 100);
  });
});
