import { mcpToTool, type CallableTool, type Schema } from '@google/genai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keywordsGeminiLacks, play, requestBody } from './genai-loop.js';
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

// Google's genai SDK (@google/genai 2.x, the newest line that runs on Node 20) wraps an MCP SDK Client
// with mcpToTool: tool() declares each MCP tool to Gemini (inputSchema as parametersJsonSchema,
// outputSchema as responseJsonSchema, both verbatim) and callTool() hands Gemini the whole
// CallToolResult, text and structuredContent. The structured-only tests take structuredContent alone,
// as Genkit does by default.

const structuredOnly = (response: Record<string, unknown>) => response.structuredContent;

describe("Google genai's mcpToTool", () => {
  const client = new Client({ name: 'genai-test', version: '1.0.0' });
  let tool: CallableTool;
  let listed: Tool[];
  let names: string[];

  beforeAll(async () => {
    await client.connect(new StdioClientTransport({ ...SERVER, env: serverEnv(), stderr: 'pipe' }));
    tool = mcpToTool(client);
    listed = (await client.listTools()).tools;
    names = listed.map((listedTool) => listedTool.name);
  });

  afterAll(async () => {
    await client.close();
  });

  it('declares every tool with its input and output schemas exactly as the server lists them', async () => {
    const { functionDeclarations } = await tool.tool();
    expect(functionDeclarations).toEqual(
      listed.map(({ name, description, inputSchema, outputSchema }) => ({ name, description, parametersJsonSchema: inputSchema, responseJsonSchema: outputSchema })),
    );
  });

  it('sends those declarations through its own request conversion unchanged', async () => {
    const body = await requestBody([tool]);
    expect(body.tools).toEqual([await tool.tool()]);
  });

  it('converts every input schema to a Gemini Schema when given as parameters, keeping enums', async () => {
    // Typed as genai's Schema, but genai converts whatever JSON Schema arrives here (its tTool).
    const declarations = listed.map(({ name, description, inputSchema }) => ({ name, description, parameters: inputSchema as unknown as Schema }));
    const body = await requestBody([{ functionDeclarations: declarations }]);
    const [converted] = body.tools as Array<{ functionDeclarations: Array<{ name: string; parameters: { properties: Record<string, unknown> } }> }>;
    expect(converted?.functionDeclarations.map((declaration) => declaration.name)).toEqual(names);
    const create = converted?.functionDeclarations.find((declaration) => declaration.name === 'create_ad_campaign');
    expect(create?.parameters.properties.campaign_type).toMatchObject({ type: 'STRING', enum: ['SMART', 'PERFORMANCE_MAX'] });
    // A Gemini Schema has no additionalProperties: the pass-through object is neither open nor closed.
    expect(create?.parameters.properties.campaign_settings).toMatchObject({ type: 'OBJECT', properties: { language_code: { type: 'STRING' } } });
    expect(create?.parameters.properties.campaign_settings).not.toHaveProperty('additionalProperties');
  });

  it('uses no schema keyword that Gemini has no place for', () => {
    const lacking = listed.flatMap(({ name, inputSchema, outputSchema }) => [
      ...keywordsGeminiLacks(inputSchema, `${name} input`),
      ...keywordsGeminiLacks(outputSchema, `${name} output`),
    ]);
    expect(lacking).toEqual([]);
  });

  it('creates a campaign in two calls: a cost warning, then the same arguments plus confirm: true', async () => {
    const args = campaignArgs('genai check');
    const script = fixedScript([
      { tool: 'create_ad_campaign', args },
      { tool: 'create_ad_campaign', args: { ...args, confirm: true } },
    ]);
    const { responses } = await play(script, tool);
    expect(responses[0]).toMatchObject({
      content: [{ type: 'text', text: expect.stringMatching(/^\[sandbox\] CONFIRMATION NEEDED\./) }],
      structuredContent: { confirmation_needed: true, cost: expect.stringContaining('5.00') },
    });
    expect(responses[1]).toMatchObject({ structuredContent: { confirmation_needed: false, campaign_id: expect.stringMatching(/^cmp_\w+$/) } });
  });

  it('hands Gemini a repeated confirmation as an error whose structuredContent passed the SDK client\'s output-schema check', async () => {
    const args = campaignArgs('genai repeat check');
    const script = fixedScript([
      { tool: 'create_ad_campaign', args },
      { tool: 'create_ad_campaign', args: { ...args, confirm: true } },
      { tool: 'create_ad_campaign', args: { ...args, confirm: true } },
    ]);
    const { responses, seen } = await play(script, tool);
    const id = String((responses[1]?.structuredContent as Record<string, unknown> | undefined)?.campaign_id);
    // genai hands Gemini an error result as { error: <the whole CallToolResult> }.
    expect(responses[2]?.error).toMatchObject({ isError: true, structuredContent: { error: expect.stringMatching(/^NOT SENT: this exact call \(same arguments\) was already carried out at \S+: created campaign cmp_\w+, status \w+\. Nothing was sent now\./), next: expect.stringMatching(/do not call create_ad_campaign again unless they want it done a second time\.$/) } });
    expect(seen[2]).toContain(`"structuredContent":{"error":"NOT SENT: this exact call (same arguments) was already carried out at`);
    expect(seen[2]).toContain(`created campaign ${id}`);
  });

  it.for(WORKFLOWS)('completes $name reading every id from the results it was handed', async (workflow, { skip }) => {
    const missing = unavailable(workflow, names);
    if (missing) skip(missing);
    const script = guidedScript(workflow);
    const { seen, responses } = await play(script, tool);
    expect(script.calls.map((call) => call.tool)).toEqual(workflow.tools);
    expect(responses.filter((response) => response.isError)).toEqual([]);
    expect(idsNotReadFromPrevious(script.calls, seen)).toEqual([]);
    expect(seen.at(-1)).toMatch(workflow.finished);
  });

  it.for(WORKFLOWS)('continues $name from structuredContent alone, by its next field', async (workflow, { skip }) => {
    const missing = unavailable(workflow, names);
    if (missing) skip(missing);
    const script = nextOnlyScript(workflow, names);
    const { seen } = await play(script, tool, structuredOnly);
    expect(seen.filter((output) => !isStructuredOnly(output))).toEqual([]);
    expect(script.calls.map((call) => call.tool)).toEqual(workflow.tools);
    expect(idsNotReadFromPrevious(script.calls, seen)).toEqual([]);
    expect(seen.at(-1)).toMatch(workflow.finished);
  });

  it('reads the call that waits for a pending job from structuredContent alone', async () => {
    const script = peekScript(PENDING_JOB.call, names);
    const { seen } = await play(script, tool, structuredOnly);
    expect(isStructuredOnly(seen[0] ?? '')).toBe(true);
    expect(parseObject(seen[0])).toMatchObject({ job_id: 'job_running', done: false });
    expect(script.calls).toEqual([PENDING_JOB.call, PENDING_JOB.next]);
  });
});
