import { z } from 'zod';
import type { Config } from '../config.js';
import type { AnyTool } from './define.js';
import { confirm as confirmField } from './fields.js';

/**
 * The schemas a client sees for one tool, derived from its definition: app_id leaves the inputs when
 * the server is scoped to one app, gated tools get `confirm`, and every output gets `next` (plus, on
 * gated tools, the fields of a confirmation warning, with the tool's own facts optional).
 */
export function inputSchemaOf(tool: AnyTool, config: Pick<Config, 'appId'>): z.ZodObject {
  const { app_id, ...rest } = tool.input as z.ZodRawShape;
  return z.strictObject({
    ...(config.appId || !app_id ? {} : { app_id }),
    ...rest,
    ...(tool.cost === 'none' ? {} : { confirm: confirmField }),
  });
}

const next = z.string().describe('The next step: the tool and arguments to call, or that nothing more is needed.');
const error = z.string().describe('Set when the call failed or was refused: what happened and whether anything was sent.');

/** The fields of a confirmation warning, on every gated tool. */
const WARNING = {
  confirmation_needed: z.boolean().describe('true: nothing was sent; show action and cost to the user, then confirm.'),
  action: z.string().optional().describe('What the confirmed call will do.'),
  cost: z.string().optional().describe('What it costs, or what is lost for good.'),
  earlier_attempt: z.string().optional().describe('An earlier confirmed call with these arguments: when, and what came of it.'),
};

/**
 * Every output is one flat object: the tool's facts (on gated tools, a warning's fields too), `next`,
 * and `error` on a failure or refusal. Clients check structured content against this schema even on
 * errors (the 2025 SDK does), so it requires only `next`: an error result is `{error, next}` plus any
 * facts it has. A required anyOf would say more, but the schemas stay free of anyOf for portability
 * (test/registry.test.ts); the refine keeps the server's own check of a success as strict as before.
 */
export function outputSchemaOf(tool: AnyTool): z.ZodObject {
  // A gated tool's own facts are optional: a warning has none of them.
  const facts: z.ZodRawShape = tool.cost === 'none' ? tool.output : { ...WARNING, ...z.object(tool.output).partial().shape };
  const required = Object.keys(facts).filter((key) => !(facts[key] as z.ZodType).isOptional());
  return z.strictObject({ ...z.object(facts).partial().shape, error: error.optional(), next }).refine(
    (value: Record<string, unknown>) => value.error !== undefined || required.every((key) => value[key] !== undefined),
    { message: `a result without error needs ${required.join(', ') || 'nothing more'}` },
  );
}

/** JSON Schema of a zod schema as clients read it (draft-7, like the SDK), without "$schema". */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { target: 'draft-7', io });
  return rest;
}
