import { createMCPClient, type MCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import type { ToolSet } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { play, structuredTools } from './ai-sdk-model.js';
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

// The AI SDK's MCP client (@ai-sdk/mcp 1.x with ai 6.x, the newest lines that run on Node 20) drives
// the built server over stdio; a MockLanguageModelV3 plays the model. By default (`client.tools()`)
// each tool's execute returns the whole CallToolResult and the model is handed only its text parts;
// with `schemas` that include an outputSchema, execute returns structuredContent alone and the model is
// handed that JSON.

interface Result {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
}

describe('the AI SDK MCP client', () => {
  let client: MCPClient;
  let tools: ToolSet;
  let structured: ToolSet;
  let names: string[];

  beforeAll(async () => {
    client = await createMCPClient({ transport: new Experimental_StdioMCPTransport({ ...SERVER, env: serverEnv(), stderr: 'pipe' }) });
    tools = await client.tools();
    structured = await structuredTools(client);
    names = Object.keys(tools);
  });

  afterAll(async () => {
    await client?.close();
  });

  it('offers the model every input schema exactly as the server lists it', async () => {
    const { tools: listed } = await client.listTools();
    const played = await play(fixedScript([]), tools);
    const offered = Object.fromEntries((played.offered ?? []).map((tool) => [tool.name, tool.type === 'function' ? tool.inputSchema : undefined]));
    expect(offered).toEqual(Object.fromEntries(listed.map((tool) => [tool.name, tool.inputSchema])));
  });

  it('creates a campaign in two calls: a cost warning, then the same arguments plus confirm: true', async () => {
    const args = campaignArgs('AI SDK check');
    const script = fixedScript([
      { tool: 'create_ad_campaign', args },
      { tool: 'create_ad_campaign', args: { ...args, confirm: true } },
    ]);
    const played = await play(script, tools);
    const [warning, created] = played.outputs as Result[];
    expect(warning?.structuredContent).toMatchObject({ confirmation_needed: true, cost: expect.stringContaining('5.00') });
    expect(created?.structuredContent).toMatchObject({ confirmation_needed: false, campaign_id: expect.stringMatching(/^cmp_\w+$/) });
    expect(played.seen[0]).toMatch(/^\[sandbox\] CONFIRMATION NEEDED\. Nothing was sent\./);
    expect(played.seen[0]).toMatch(/^Cost: daily budget 5\.00/m);
    expect(played.seen[1]).toContain(String(created?.structuredContent?.campaign_id));
  });

  it('hands back a repeated confirmation as an error whose structuredContent names the campaign and the next step', async () => {
    const args = campaignArgs('AI SDK repeat check');
    const script = fixedScript([
      { tool: 'create_ad_campaign', args },
      { tool: 'create_ad_campaign', args: { ...args, confirm: true } },
      { tool: 'create_ad_campaign', args: { ...args, confirm: true } },
    ]);
    const played = await play(script, structured);
    const [, created, repeated] = played.outputs as Result[];
    // With an outputSchema, execute returns structuredContent alone on success and the whole result on an error.
    expect(created).toMatchObject({ campaign_id: expect.stringMatching(/^cmp_\w+$/) });
    expect(repeated).toMatchObject({ isError: true, structuredContent: { error: expect.stringMatching(/^NOT SENT: this exact call \(same arguments\) was already carried out at \S+: created campaign cmp_\w+, status \w+\. Nothing was sent now\./), next: expect.stringMatching(/do not call create_ad_campaign again unless they want it done a second time\.$/) } });
    expect(repeated?.structuredContent?.error).toContain(String((created as Record<string, unknown>).campaign_id));
  });

  it.for(WORKFLOWS)('completes $name reading every id from the text it was handed', async (workflow, { skip }) => {
    const missing = unavailable(workflow, names);
    if (missing) skip(missing);
    const script = guidedScript(workflow);
    const played = await play(script, tools);
    expect(script.calls.map((call) => call.tool)).toEqual(workflow.tools);
    expect((played.outputs as Result[]).filter((output) => output.isError)).toEqual([]);
    expect(idsNotReadFromPrevious(script.calls, played.seen)).toEqual([]);
    expect(played.seen.every((seen) => seen.startsWith('[sandbox] '))).toBe(true);
    expect(played.seen.at(-1)).toMatch(workflow.finished);
  });

  it.for(WORKFLOWS)('continues $name from structuredContent alone, by its next field', async (workflow, { skip }) => {
    const missing = unavailable(workflow, names);
    if (missing) skip(missing);
    const script = nextOnlyScript(workflow, names);
    const played = await play(script, structured);
    expect(played.seen.filter((seen) => !isStructuredOnly(seen))).toEqual([]);
    expect(script.calls.map((call) => call.tool)).toEqual(workflow.tools);
    expect(idsNotReadFromPrevious(script.calls, played.seen)).toEqual([]);
    expect(played.seen.at(-1)).toMatch(workflow.finished);
  });

  it('reads the call that waits for a pending job from structuredContent alone', async () => {
    const script = peekScript(PENDING_JOB.call, names);
    const played = await play(script, structured);
    expect(isStructuredOnly(played.seen[0] ?? '')).toBe(true);
    expect(parseObject(played.seen[0])).toMatchObject({ job_id: 'job_running', done: false });
    expect(script.calls).toEqual([PENDING_JOB.call, PENDING_JOB.next]);
  });
});
