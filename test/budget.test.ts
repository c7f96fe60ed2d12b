import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_FIXTURES, type ReadFixture } from '../bench/fixtures.mjs';
import { connect, type Harness } from './helpers.js';

// The deterministic budgets of issue 5, counted in o200k_base tokens; `npm run bench` reports the rest.
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

  it('keeps tools/list and the server instructions within 2,500 tokens together', async () => {
    const list = (await toolCosts()).reduce((sum, tool) => sum + tool.tokens, 0);
    const instructions = tokens(harness.client.getInstructions() ?? '');
    expect(list + instructions, `tools/list ${list} + instructions ${instructions}`).toBeLessThanOrEqual(2_500);
  });

  it('keeps every tool within 400 tokens, create_ad_campaign within 900', async () => {
    const over = (await toolCosts()).filter((tool) => tool.tokens > (tool.name === 'create_ad_campaign' ? 900 : 400));
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

  it('shrinks 30 suggestions to at most 40% of the raw answer', async () => {
    const fixture = READ_FIXTURES.find((f) => f.tool === 'list_campaign_suggestions')!;
    const { result, raw } = await answerTo(fixture);
    expect(result / raw, `${result} of ${raw} tokens`).toBeLessThanOrEqual(0.4);
  });
});
