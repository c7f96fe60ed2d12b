import { Models, type CallableTool, type ToolListUnion } from '@google/genai';
import { isRecord, type Script } from './support.js';

// The Google genai side of the client tests. genai's automatic function calling does, for each
// function call Gemini returns, `callableTool.callTool([functionCall])` and sends Gemini the parts it
// returns: `{ functionResponse: { name, response } }`, where response is the whole CallToolResult
// (content, structuredContent and isError). `play` runs that loop with a scripted model in place of
// Gemini; no GoogleGenAI client is made and nothing leaves the machine.

export interface Played {
  /** Each tool result as the model was handed it, flattened to a string. */
  seen: string[];
  /** Each functionResponse.response that callTool produced. */
  responses: Record<string, unknown>[];
}

/**
 * Plays `script` against mcpToTool's callTool. `view` is what the model is handed of each
 * functionResponse.response: all of it by default, as genai sends it.
 */
export async function play(script: Script, tool: CallableTool, view: (response: Record<string, unknown>) => unknown = (response) => response): Promise<Played> {
  const seen: string[] = [];
  const responses: Record<string, unknown>[] = [];
  for (let call = script.next(seen); call; call = script.next(seen)) {
    const parts = await tool.callTool([{ name: call.tool, args: call.args }]);
    const response = parts[0]?.functionResponse?.response ?? {};
    responses.push(response);
    seen.push(JSON.stringify(view(response)));
  }
  return { seen, responses };
}

/**
 * The generateContent request body genai builds for these tools (its own tool conversion included),
 * caught by a stand-in for its ApiClient instead of being sent; the stand-in answers "Done." so no
 * function call follows.
 */
export async function requestBody(tools: ToolListUnion): Promise<Record<string, unknown>> {
  const bodies: Record<string, unknown>[] = [];
  const apiClient = {
    isVertexAI: () => false,
    getDefaultHeaders: () => ({}),
    request: async ({ body }: { body: string }) => {
      bodies.push(JSON.parse(body) as Record<string, unknown>);
      return { headers: new Headers(), json: async () => ({ candidates: [{ content: { role: 'model', parts: [{ text: 'Done.' }] }, finishReason: 'STOP' }] }) };
    },
  };
  const models = new Models(apiClient as unknown as ConstructorParameters<typeof Models>[0]);
  await models.generateContent({ model: 'gemini-flash-latest', contents: 'Work with the app management tools.', config: { tools } });
  if (bodies.length !== 1) throw new Error(`genai made ${bodies.length} requests, expected 1`);
  return bodies[0]!;
}

// The JSON Schema keywords the Gemini API documents for its *JsonSchema fields (genai's docs of
// GenerationConfig.responseJsonSchema), and the fields of genai's own Schema type, which the API's
// `parameters` form takes.
const GEMINI_JSON_SCHEMA = new Set([
  '$id', '$defs', '$ref', '$anchor', 'type', 'format', 'title', 'description', 'enum', 'items', 'prefixItems',
  'minItems', 'maxItems', 'minimum', 'maximum', 'anyOf', 'oneOf', 'properties', 'additionalProperties', 'required',
  'propertyOrdering',
]);
const GEMINI_SCHEMA = new Set([
  'anyOf', 'default', 'description', 'enum', 'example', 'format', 'items', 'maxItems', 'maxLength', 'maxProperties',
  'maximum', 'minItems', 'minLength', 'minProperties', 'minimum', 'nullable', 'pattern', 'properties',
  'propertyOrdering', 'required', 'title', 'type',
]);

/** Every keyword in `schema` that neither Gemini's JSON Schema subset nor its Schema type has, as `path: keyword`. */
export function keywordsGeminiLacks(schema: unknown, path = '$'): string[] {
  return keywords(schema, path).filter((entry) => {
    const keyword = entry.slice(entry.lastIndexOf(': ') + 2);
    return !GEMINI_JSON_SCHEMA.has(keyword) && !GEMINI_SCHEMA.has(keyword);
  });
}

/** Every keyword used anywhere in `schema`, as `path: keyword`. */
function keywords(schema: unknown, path: string): string[] {
  if (!isRecord(schema)) return [];
  const found = Object.keys(schema).map((keyword) => `${path}: ${keyword}`);
  if (isRecord(schema.properties)) {
    for (const [key, value] of Object.entries(schema.properties)) found.push(...keywords(value, `${path}.${key}`));
  }
  if (Array.isArray(schema.anyOf)) schema.anyOf.forEach((branch, index) => found.push(...keywords(branch, `${path}.anyOf[${index}]`)));
  if (schema.items) found.push(...keywords(schema.items, `${path}[]`));
  if (isRecord(schema.additionalProperties)) found.push(...keywords(schema.additionalProperties, `${path}.*`));
  return found;
}
