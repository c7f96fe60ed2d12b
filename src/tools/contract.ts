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

export function outputSchemaOf(tool: AnyTool): z.ZodObject {
  if (tool.cost === 'none') return z.strictObject({ ...tool.output, next });
  const facts = z.object(tool.output).partial().shape;
  return z.strictObject({
    confirmation_needed: z.boolean().describe('true: nothing was sent; show action and cost to the user, then confirm.'),
    action: z.string().optional().describe('What the confirmed call will do.'),
    cost: z.string().optional().describe('What it costs, or what is lost for good.'),
    earlier_attempt: z.string().optional().describe('An earlier confirmed call whose outcome is unknown.'),
    ...facts,
    next,
  });
}

/** JSON Schema of a zod schema as clients read it (draft-7, like the SDK), without "$schema". */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { target: 'draft-7', io });
  return rest;
}
