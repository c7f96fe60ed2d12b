import { Agent, run, Usage, type MCPServer, type Model, type ModelRequest, type ModelResponse } from '@openai/agents';
import { isRecord, type Script } from './support.js';

// The OpenAI Agents SDK side of the client tests: a Model that plays a Script the way a model in
// strict function calling must (every property sent, null for the ones it leaves out), and a check of
// the rules OpenAI's strict mode sets for a tool's parameters.

type OfferedTool = ModelRequest['tools'][number];

/** A Model that plays `script`; it keeps what it was offered and the tool outputs it was handed. */
export class ScriptedModel implements Model {
  offered: OfferedTool[] = [];
  seen: string[] = [];

  constructor(private readonly script: Script) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    if (this.offered.length === 0) this.offered = request.tools;
    this.seen = outputsIn(request.input);
    const call = this.script.next(this.seen);
    if (!call) {
      return { usage: new Usage(), output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Done.' }] }] };
    }
    const tool = this.offered.find((offered) => offered.type === 'function' && offered.name === call.tool);
    const parameters = tool?.type === 'function' ? tool.parameters : undefined;
    const args = tool?.type === 'function' && tool.strict ? withNulls(call.args, parameters) : call.args;
    return {
      usage: new Usage(),
      output: [{ type: 'function_call', callId: `call_${this.seen.length + 1}`, name: call.tool, arguments: JSON.stringify(args), status: 'completed' }],
    };
  }

  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('The scripted model does not stream.');
  }
}

export interface Played {
  model: ScriptedModel;
  seen: string[];
  offered: OfferedTool[];
}

/** Runs an agent with `server`, strict schema conversion on, and a model that plays `script`. */
export async function play(script: Script, server: MCPServer): Promise<Played> {
  const model = new ScriptedModel(script);
  const agent = new Agent({
    name: 'App manager',
    instructions: 'Work with the app management tools.',
    model,
    mcpServers: [server],
    mcpConfig: { convertSchemasToStrict: true },
  });
  await run(agent, 'Work with the app management tools.', { maxTurns: 10 });
  return { model, seen: model.seen, offered: model.offered };
}

/**
 * Where a tool's parameters break OpenAI's strict function calling: an object that is not closed or
 * does not require every property, or a keyword strict mode rejects. Empty when the schema is strict.
 */
export function strictViolations(schema: unknown, path = '$'): string[] {
  if (!isRecord(schema)) return [];
  const problems: string[] = [];
  for (const keyword of ['$ref', 'definitions', '$defs', 'propertyNames', 'patternProperties', 'allOf', 'oneOf', 'not', 'if']) {
    if (keyword in schema) problems.push(`${path}: ${keyword}`);
  }
  if (Array.isArray(schema.type)) problems.push(`${path}: a type list`);
  if (isRecord(schema.properties)) {
    const keys = Object.keys(schema.properties);
    if (schema.additionalProperties !== false) problems.push(`${path}: additionalProperties is not false`);
    const required = Array.isArray(schema.required) ? schema.required : [];
    const optional = keys.filter((key) => !required.includes(key));
    if (optional.length > 0) problems.push(`${path}: not required: ${optional.join(', ')}`);
    for (const [key, value] of Object.entries(schema.properties)) problems.push(...strictViolations(value, `${path}.${key}`));
  } else if (schema.type === 'object' && schema.additionalProperties !== false) {
    problems.push(`${path}: an object without properties that is not closed`);
  }
  if (Array.isArray(schema.anyOf)) schema.anyOf.forEach((branch, index) => problems.push(...strictViolations(branch, `${path}.anyOf[${index}]`)));
  if (schema.items) problems.push(...strictViolations(schema.items, `${path}[]`));
  return problems;
}

/** The arguments with null for every property of `parameters` they leave out, as a strict model sends them. */
function withNulls(args: Record<string, unknown>, parameters: unknown): Record<string, unknown> {
  const properties = isRecord(parameters) && isRecord(parameters.properties) ? Object.keys(parameters.properties) : [];
  return { ...Object.fromEntries(properties.map((key) => [key, null])), ...args };
}

/** Every tool output in the model's input, as the string the model reads. */
function outputsIn(input: ModelRequest['input']): string[] {
  if (typeof input === 'string') return [];
  return input.flatMap((item) => (item.type === 'function_call_result' ? [outputText(item.output)] : []));
}

function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return output.map(outputText).join('\n');
  if (isRecord(output) && typeof output.text === 'string') return output.text;
  return JSON.stringify(output);
}
