import { MCPServerStdio, setTracingDisabled } from '@openai/agents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { play, strictViolations } from './agents-model.js';
import {
  campaignArgs,
  fixedScript,
  guidedScript,
  idsNotReadFromPrevious,
  isStructuredOnly,
  nextOnlyScript,
  parseObject,
  peekScript,
  PENDING_JOB,
  SERVER,
  serverEnv,
  unavailable,
  WORKFLOWS,
} from './support.js';

// The OpenAI Agents SDK (@openai/agents 0.14, the newest line whose openai dependency runs on Node 20)
// drives the built server over stdio with MCPServerStdio and `convertSchemasToStrict: true`; a scripted
// Model plays the model the way strict function calling makes one: every property sent, null for those
// left out. By default a tool's output is its first content part (the text); with
// `useStructuredContent` it is JSON.stringify(structuredContent) alone.

setTracingDisabled(true);

describe('the OpenAI Agents SDK in strict mode', () => {
  const text = new MCPServerStdio({ name: 'app-management', ...SERVER, env: serverEnv(), cacheToolsList: true });
  const structured = new MCPServerStdio({ name: 'app-management', ...SERVER, env: serverEnv(), cacheToolsList: true, useStructuredContent: true });
  let names: string[];

  beforeAll(async () => {
    await Promise.all([text.connect(), structured.connect()]);
    names = (await text.listTools()).map((tool) => tool.name);
  });

  afterAll(async () => {
    await Promise.all([text.close(), structured.close()]);
  });

  it('makes every input schema strict, closing campaign_settings and making optional fields nullable', async () => {
    const { offered } = await play(fixedScript([]), text);
    const functions = offered.flatMap((tool) => (tool.type === 'function' ? [tool] : []));
    expect(functions.map((tool) => tool.name)).toEqual(names);
    expect(functions.filter((tool) => !tool.strict).map((tool) => tool.name)).toEqual([]);
    expect(Object.fromEntries(functions.map((tool) => [tool.name, strictViolations(tool.parameters)]))).toEqual(
      Object.fromEntries(names.map((name) => [name, []])),
    );
    const create = functions.find((tool) => tool.name === 'create_ad_campaign')!.parameters as { properties: Record<string, unknown> };
    // What the converter did to the one pass-through object: closed it, its one known key required but nullable.
    expect(create.properties.campaign_settings).toMatchObject({
      anyOf: [
        {
          type: 'object',
          properties: { language_code: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
          required: ['language_code'],
          additionalProperties: false,
        },
        { type: 'null' },
      ],
    });
    expect(create.properties.campaign_type).toMatchObject({ type: 'string', enum: ['SMART', 'PERFORMANCE_MAX'] });
  });

  it('creates a campaign in two calls: a cost warning, then the same arguments plus confirm: true', async () => {
    const args = campaignArgs('Agents check');
    const script = fixedScript([
      { tool: 'create_ad_campaign', args },
      { tool: 'create_ad_campaign', args: { ...args, confirm: true } },
    ]);
    const { seen } = await play(script, text);
    expect(seen[0]).toMatch(/^\[sandbox\] CONFIRMATION NEEDED\. Nothing was sent\./);
    expect(seen[0]).toMatch(/^Cost: daily budget 5\.00/m);
    expect(seen[1]).toMatch(/^\[sandbox\] Created campaign cmp_\w+ \("Agents check", SMART\)/);
  });

  it('creates a campaign in two calls when it sees structuredContent alone', async () => {
    const args = campaignArgs('Agents structured check');
    const script = fixedScript([
      { tool: 'create_ad_campaign', args },
      { tool: 'create_ad_campaign', args: { ...args, confirm: true } },
    ]);
    const { seen } = await play(script, structured);
    expect(parseObject(seen[0])).toMatchObject({ confirmation_needed: true, cost: expect.stringContaining('5.00'), next: expect.stringContaining('confirm: true') });
    expect(parseObject(seen[1])).toMatchObject({ confirmation_needed: false, campaign_id: expect.stringMatching(/^cmp_\w+$/) });
  });

  it('passes a repeated confirmation through its output-schema check, and hands the model what was created and that nothing was sent', async () => {
    const args = campaignArgs('Agents repeat check');
    const script = fixedScript([
      { tool: 'create_ad_campaign', args },
      { tool: 'create_ad_campaign', args: { ...args, confirm: true } },
      { tool: 'create_ad_campaign', args: { ...args, confirm: true } },
    ]);
    // The SDK client under MCPServerStdio checks structuredContent against the output schema even on
    // errors; a result that failed would reach the model as a tool error message, not as this text.
    const { seen } = await play(script, structured);
    const id = String(parseObject(seen[1])?.campaign_id);
    expect(id).toMatch(/^cmp_\w+$/);
    expect(seen[2]?.replace(/^\[sandbox\] /, '')).toMatch(/^NOT SENT: this exact call \(same arguments\) was already carried out at \S+: created campaign cmp_\w+, status \w+\. Nothing was sent now\./);
    expect(seen[2]).toContain(`created campaign ${id}`);
    expect(seen[2]).toMatch(/Next: Tell the user it was done at .*do not call create_ad_campaign again unless they want it done a second time\./);
  });

  it.for(WORKFLOWS)('completes $name reading every id from the text it was handed', async (workflow, { skip }) => {
    const missing = unavailable(workflow, names);
    if (missing) skip(missing);
    const script = guidedScript(workflow);
    const { seen } = await play(script, text);
    expect(script.calls.map((call) => call.tool)).toEqual(workflow.tools);
    expect(idsNotReadFromPrevious(script.calls, seen)).toEqual([]);
    expect(seen.every((output) => output.startsWith('[sandbox] '))).toBe(true);
    expect(seen.at(-1)).toMatch(workflow.finished);
  });

  it.for(WORKFLOWS)('continues $name from structuredContent alone, by its next field', async (workflow, { skip }) => {
    const missing = unavailable(workflow, names);
    if (missing) skip(missing);
    const script = nextOnlyScript(workflow, names);
    const { seen } = await play(script, structured);
    expect(seen.filter((output) => !isStructuredOnly(output))).toEqual([]);
    expect(script.calls.map((call) => call.tool)).toEqual(workflow.tools);
    expect(idsNotReadFromPrevious(script.calls, seen)).toEqual([]);
    expect(seen.at(-1)).toMatch(workflow.finished);
  });

  it('reads the call that waits for a pending job from structuredContent alone', async () => {
    const script = peekScript(PENDING_JOB.call, names);
    const { seen } = await play(script, structured);
    expect(isStructuredOnly(seen[0] ?? '')).toBe(true);
    expect(parseObject(seen[0])).toMatchObject({ job_id: 'job_running', done: false });
    expect(script.calls).toEqual([PENDING_JOB.call, PENDING_JOB.next]);
  });
});
