import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, InputError, RefusedError, UnreachableError } from '../src/errors.js';
import { nextAfter, present, presentError } from '../src/result.js';
import { deleteAdCampaign } from '../src/tools/campaigns/delete-ad-campaign.js';
import { getAdCampaign } from '../src/tools/campaigns/get-ad-campaign.js';
import { outputSchemaOf } from '../src/tools/contract.js';
import { connect, type Harness } from './helpers.js';

// Issue 17: errors and refusals are results too. Every one carries structuredContent with the next
// step, and it passes the tool's advertised output schema, which a 2025 SDK client checks even on
// errors (the client of these tests is one: a result that did not pass would throw in callTool).

/** Arguments that pass each gated tool's own checks, so that a confirm: true reaches the gate. */
const GATED_ARGS: Record<string, Record<string, unknown>> = {
  create_ad_campaign: { app_id: 'app_demo', campaign_name: 'Shape check', campaign_type: 'SMART', daily_budget_micros: 5_000_000, landing_page: 'https://demo-planner.sandbox.test/' },
  resume_ad_campaign: { app_id: 'app_demo', campaign_id: 'cmp_1' },
  delete_ad_campaign: { app_id: 'app_demo', campaign_id: 'cmp_1' },
  apply_budget_recommendation: { app_id: 'app_demo', campaign_id: 'cmp_1', recommendation_resource_name: 'customers/1/recommendations/r', recommended_daily_budget_micros: 35_000_000 },
  delete_email_template: { app_id: 'app_demo', template_id: 'tpl_1' },
  send_app_chat_message: { app_id: 'app_demo', content: 'Add dark mode.' },
  resolve_repo_conflicts: { app_id: 'app_demo' },
};

describe('results that are errors or refusals', () => {
  let h: Harness;
  let schemas: Map<string, Record<string, unknown>>;
  const ajv = new Ajv({ strict: false });
  /** Whether `structured` passes `tool`'s advertised output schema, with ajv's complaint when not. */
  const check = (tool: string, structured: unknown) => {
    const validate = ajv.compile(schemas.get(tool)!);
    return validate(structured) ? 'valid' : ajv.errorsText(validate.errors);
  };

  beforeAll(async () => {
    h = await connect();
    // The client keeps each tool's output schema and checks every structuredContent against it.
    const { tools } = await h.client.listTools();
    schemas = new Map(tools.map((tool) => [tool.name, tool.outputSchema as Record<string, unknown>]));
  });
  afterAll(() => h.close());

  it('carries {error, next} that every tool\'s output schema admits, for an argument error of every tool', async () => {
    expect(schemas.size).toBeGreaterThan(20);
    for (const tool of schemas.keys()) {
      const result = await h.call(tool, { no_such_argument: 1 });
      expect(result.isError, tool).toBe(true);
      expect(result.structured, tool).toEqual({ error: expect.stringContaining('no_such_argument'), next: expect.stringMatching(/\S/) });
      expect(result.text, tool).toContain(String(result.structured?.error).slice(0, 60));
      expect(check(tool, result.structured), tool).toBe('valid');
    }
  });

  it('carries the gate\'s next step when confirm: true finds no warning, on every gated tool', async () => {
    const gated = [...schemas.keys()].filter((tool) => tool in GATED_ARGS);
    expect(gated.sort()).toEqual(Object.keys(GATED_ARGS).sort());
    for (const tool of gated) {
      const result = await h.call(tool, { ...GATED_ARGS[tool], confirm: true });
      expect(result.text, tool).toMatch(/^NOT SENT: confirm: true needs a pending warning/);
      expect(result.structured, tool).toEqual({
        error: expect.stringMatching(/^NOT SENT: confirm: true needs a pending warning/),
        next: `Call ${tool} again without confirm to get a fresh warning, and show it to the user.`,
      });
      expect(check(tool, result.structured), tool).toBe('valid');
    }
    expect(h.sandbox.requests.filter((request) => request.method !== 'GET')).toEqual([]);
  });

  it('carries the next step of a pull that stopped on conflicts', async () => {
    const result = await h.call('pull_repo_changes', { app_id: 'app_demo' });
    expect(result.isError).toBe(true);
    expect(result.structured).toEqual({ error: expect.stringMatching(/^Pull STOPPED for app app_demo \(merge_conflict\)/), next: expect.stringContaining('resolve_repo_conflicts') });
    expect(check('pull_repo_changes', result.structured)).toBe('valid');
  });

  it('keeps the facts a failed tool result has, beside error and next', async () => {
    const result = await h.call('share_app_with_groups', { app_id: 'app_demo', group_ids: ['grp_marketing'] });
    expect(result.isError).toBe(true);
    expect(result.structured).toMatchObject({ error: expect.stringMatching(/\S/), next: expect.stringContaining('grp_marketing') });
    expect(Object.keys(result.structured ?? {}).length).toBeGreaterThan(2);
    expect(check('share_app_with_groups', result.structured)).toBe('valid');
  });

  it('stays closed: an error result with a field the tool does not declare fails its schema', () => {
    expect(check('get_ad_campaign', { error: 'x', next: 'y', surprise: 1 })).toMatch(/additional properties/);
    expect(check('get_ad_campaign', { error: 'x' })).toMatch(/must have required property 'next'/);
  });

  it("still requires a success's facts in the schema the server checks its results with", () => {
    const schema = outputSchemaOf(getAdCampaign);
    expect(schema.safeParse({ next: 'x' }).success).toBe(false);
    expect(schema.safeParse({ error: 'Refused.', next: 'x' }).success).toBe(true);
    const gated = outputSchemaOf(deleteAdCampaign);
    expect(gated.safeParse({ campaign_id: 'cmp_1', next: 'x' }).success).toBe(false);
    expect(gated.safeParse({ confirmation_needed: true, action: 'Delete', cost: 'permanent', next: 'x' }).success).toBe(true);
  });
});

describe('present and presentError', () => {
  const shown = { redact: (text: string) => text.replaceAll('s3cret', '[redacted]'), sandbox: true };

  it('gives a tool error result the text as error and the same next step, redacted, without the sandbox prefix', () => {
    const result = present({ isError: true, text: 'NOT SENT: token s3cret\u200b refused.', next: 'Call it again.' }, shown);
    expect(result.content).toEqual([{ type: 'text', text: '[sandbox] NOT SENT: token [redacted] refused.\nNext: Call it again.' }]);
    expect(result.structuredContent).toEqual({ error: 'NOT SENT: token [redacted] refused.', next: 'Call it again.' });
    expect(result.isError).toBe(true);
  });

  it('gives a thrown error {error, next}, the text unchanged', () => {
    const result = presentError('400: s3cret rejected.', 'Fix it.', shown);
    expect(result.content).toEqual([{ type: 'text', text: '[sandbox] 400: [redacted] rejected.' }]);
    expect(result.structuredContent).toEqual({ error: '400: [redacted] rejected.', next: 'Fix it.' });
  });

  it.each([
    [new InputError('campaign_id', 'is required'), /^Correct campaign_id as the error says, then call get_ad_campaign again\.$/],
    [new ApiError(429, {}), /^Wait as the error says/],
    [new ApiError(503, {}), /a retry may help/],
    [new ApiError(409, {}), /^Do what the error says before calling get_ad_campaign again; it says whether a retry helps\.$/],
    [new UnreachableError('network'), /^Call get_ad_campaign again later/],
    [new RefusedError('Read-only.'), /^Do what the error says/],
    [new TypeError('bug'), /^Do not retry: tell the server's operator/],
  ])('names a next step after %s', (error, expected) => {
    expect(nextAfter(error, 'get_ad_campaign')).toMatch(expected);
  });
});
