import { generateText, jsonSchema, stepCountIs, type ToolSet } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import type { MCPClient } from '@ai-sdk/mcp';
import { isRecord, type Script } from './support.js';

// The AI SDK side of the client tests: a MockLanguageModelV3 that plays a Script, and the two ways an
// application gets MCP tools from @ai-sdk/mcp.

type DoGenerate = NonNullable<ConstructorParameters<typeof MockLanguageModelV3>[0]>['doGenerate'];
type CallOptions = Parameters<Extract<DoGenerate, (...args: never[]) => unknown>>[0];

export interface Played {
  /** Each tool result as the model was handed it, flattened to a string. */
  seen: string[];
  /** Each tool result's `output` as generateText reports it (what the tool's execute returned). */
  outputs: unknown[];
  /** The function tools the model was offered on its first turn. */
  offered: CallOptions['tools'];
  text: string;
}

/** Runs generateText with `tools` and a model that plays `script`, until the script stops calling tools. */
export async function play(script: Script, tools: ToolSet): Promise<Played> {
  let offered: CallOptions['tools'];
  let seen: string[] = [];
  const model = new MockLanguageModelV3({
    doGenerate: async (options: CallOptions) => {
      offered ??= options.tools;
      seen = resultsIn(options.prompt);
      const call = script.next(seen);
      const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
      if (!call) return { content: [{ type: 'text', text: 'Done.' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
      return {
        content: [{ type: 'tool-call', toolCallId: `call_${seen.length + 1}`, toolName: call.tool, input: JSON.stringify(call.args) }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      };
    },
  });
  const result = await generateText({ model, tools, prompt: 'Work with the app management tools.', stopWhen: stepCountIs(10) });
  const outputs = result.steps.flatMap((step) => step.toolResults.map((toolResult) => toolResult.output));
  const errors = result.steps.flatMap((step) => step.content.filter((part) => part.type === 'tool-error'));
  if (errors.length > 0) throw new Error(`A tool call failed inside generateText: ${JSON.stringify(errors)}`);
  return { seen, outputs, offered, text: result.text };
}

/**
 * The tools with `schemas` spelled out from tools/list, outputSchema included: @ai-sdk/mcp then returns
 * each result's structuredContent alone, and the model is handed that JSON.
 */
export async function structuredTools(client: MCPClient): Promise<ToolSet> {
  const { tools } = await client.listTools();
  const schemas = Object.fromEntries(
    tools.map((tool) => [
      tool.name,
      {
        inputSchema: jsonSchema(tool.inputSchema as Parameters<typeof jsonSchema>[0]),
        ...(tool.outputSchema ? { outputSchema: jsonSchema(tool.outputSchema as Parameters<typeof jsonSchema>[0]) } : {}),
      },
    ]),
  );
  return (await client.tools({ schemas })) as ToolSet;
}

/** Every tool result in a prompt, as the model reads it. */
function resultsIn(prompt: CallOptions['prompt']): string[] {
  return prompt.flatMap((message) =>
    message.role === 'tool' ? message.content.flatMap((part) => (part.type === 'tool-result' ? [outputText(part.output)] : [])) : [],
  );
}

/** A tool result output (LanguageModelV3ToolResultOutput) as the string a provider would send. */
function outputText(output: unknown): string {
  if (!isRecord(output)) return String(output);
  if (output.type === 'content' && Array.isArray(output.value)) {
    return output.value.map((part) => (isRecord(part) && part.type === 'text' ? String(part.text) : JSON.stringify(part))).join('\n');
  }
  return typeof output.value === 'string' ? output.value : JSON.stringify(output.value);
}
