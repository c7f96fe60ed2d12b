// Token counts with a real tokenizer (gpt-tokenizer): o200k_base (GPT-4o and later) and cl100k_base.
import { countTokens as cl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as o200k } from 'gpt-tokenizer/encoding/o200k_base';

/** Tokens in both encodings, and characters. */
export function measureText(text) {
  return { o200k: o200k(text), cl100k: cl100k(text), chars: text.length };
}

export function addUp(counts) {
  return counts.reduce((sum, c) => ({ o200k: sum.o200k + c.o200k, cl100k: sum.cl100k + c.cl100k, chars: sum.chars + c.chars }), {
    o200k: 0,
    cl100k: 0,
    chars: 0,
  });
}

/**
 * What a client puts in the model's context for a server. `toolsTotal` counts what a model reads of
 * each tools/list entry (name, title, description and input schema, as JSON): the figure the budget
 * tests hold to 4,000 o200k tokens for our server. Output schemas and whole entries (with
 * annotations) are counted apart, since clients use them for validation rather than prompting.
 * @returns per tool, the totals, the instructions, and model-visible tools plus instructions.
 */
export async function contextCost(client) {
  const tools = [];
  let cursor;
  for (let page = 0; page < 20; page++) {
    const answer = await client.listTools(cursor ? { cursor } : undefined);
    tools.push(...answer.tools);
    cursor = answer.nextCursor;
    if (!cursor) break;
  }
  const perTool = tools.map(({ name, title, description, inputSchema, outputSchema }) => ({
    name,
    ...measureText(JSON.stringify({ name, title, description, inputSchema })),
    outputSchema: measureText(outputSchema ? JSON.stringify(outputSchema) : ''),
  }));
  const toolsTotal = addUp(perTool);
  const outputSchemas = addUp(perTool.map((tool) => tool.outputSchema));
  const wholeEntries = addUp(tools.map((tool) => measureText(JSON.stringify(tool))));
  const instructions = measureText(client.getInstructions() ?? '');
  return { tools: perTool.length, perTool, toolsTotal, outputSchemas, wholeEntries, instructions, total: addUp([toolsTotal, instructions]) };
}

/** What a model reads of one tool result: its text parts plus the JSON of its structured part. */
export function resultText(result) {
  const text = (result.content ?? []).map((part) => part.text ?? '').join('\n');
  return result.structuredContent ? `${text}\n${JSON.stringify(result.structuredContent)}` : text;
}
