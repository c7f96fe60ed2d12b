import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { TOOLS, TOOLSETS } from '../src/tools/index.js';
import { connect, type Harness } from './helpers.js';

const READ_TOOLS = ['list_campaign_suggestions', 'get_scheduling_job', 'get_workspace_analytics'];
const COSTLY_TOOLS = ['create_ad_campaign', 'resolve_repo_conflicts'];

/** Every JSON-schema node below `schema`, with its path. */
function* nodes(schema: unknown, path = '$'): Generator<[string, Record<string, unknown>]> {
  if (!schema || typeof schema !== 'object') return;
  const node = schema as Record<string, unknown>;
  yield [path, node];
  for (const [key, value] of Object.entries(node)) {
    if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) yield* nodes(item, `${path}.${key}[${i}]`);
    } else if (value && typeof value === 'object') yield* nodes(value, `${path}.${key}`);
  }
}

describe('tool registry', () => {
  let h: Harness;
  let tools: Tool[];
  beforeAll(async () => {
    h = await connect();
    tools = (await h.client.listTools()).tools;
  });
  afterAll(() => h.close());

  it('exposes every operation, grouped by toolset', () => {
    expect(tools.map((tool) => tool.name)).toEqual(Object.values(TOOLSETS).flat().map((tool) => tool.name));
    expect(tools.map((tool) => tool.name)).toEqual([
      'customize_app_email',
      'create_ad_campaign',
      'list_campaign_suggestions',
      'share_app_with_groups',
      'get_scheduling_job',
      'resolve_repo_conflicts',
      'push_app_to_repo',
      'get_workspace_analytics',
    ]);
  });

  it('gives every tool a Title Case title and a description of a few sentences', () => {
    for (const tool of tools) {
      expect(tool.title, tool.name).toMatch(/^[A-Z][A-Za-z]*( [A-Za-z]+)*$/);
      expect(tool.title?.split(' ').every((word) => /^[A-Z]/.test(word) || ['to', 'with', 'from', 'of'].includes(word)), tool.name).toBe(true);
      expect(tool.description?.length, tool.name).toBeGreaterThan(80);
      expect(tool.description!.split(/[.!?](\s|$)/).filter((s) => s.trim()).length, tool.name).toBeGreaterThanOrEqual(2);
    }
  });

  it('describes every input field, at every depth', () => {
    for (const tool of tools) {
      for (const [path, node] of nodes(tool.inputSchema)) {
        const properties = node.properties as Record<string, Record<string, unknown>> | undefined;
        for (const [name, field] of Object.entries(properties ?? {})) {
          expect(field.description, `${tool.name} ${path}.${name}`).toEqual(expect.any(String));
        }
      }
    }
  });

  it('sets all four annotation hints honestly', () => {
    for (const tool of tools) {
      const a = tool.annotations ?? {};
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
        expect(typeof a[hint], `${tool.name}.${hint}`).toBe('boolean');
      }
      expect(a.readOnlyHint, tool.name).toBe(READ_TOOLS.includes(tool.name));
      expect(a.destructiveHint, tool.name).toBe(COSTLY_TOOLS.includes(tool.name));
      expect(a.openWorldHint, tool.name).toBe(true);
      if (a.readOnlyHint) expect(a.idempotentHint, tool.name).toBe(true);
    }
  });

  it('puts the confirmation gate exactly on the tools that cost money or credits', () => {
    for (const definition of TOOLS) {
      const listed = tools.find((tool) => tool.name === definition.name)!;
      const hasConfirm = 'confirm' in ((listed.inputSchema.properties ?? {}) as object);
      expect(hasConfirm, definition.name).toBe(COSTLY_TOOLS.includes(definition.name));
      expect(definition.cost !== 'none', definition.name).toBe(COSTLY_TOOLS.includes(definition.name));
      if (definition.cost !== 'none') expect(definition.gate, definition.name).toBeDefined();
    }
    expect(TOOLS.find((t) => t.name === 'create_ad_campaign')?.cost).toBe('money');
    expect(TOOLS.find((t) => t.name === 'resolve_repo_conflicts')?.cost).toBe('credits');
  });

  it('uses no top-level anyOf/oneOf/allOf and no JSON type lists', () => {
    for (const tool of tools) {
      for (const key of ['anyOf', 'oneOf', 'allOf']) expect(tool.inputSchema, tool.name).not.toHaveProperty(key);
      expect(tool.inputSchema.type).toBe('object');
      for (const [path, node] of nodes(tool.inputSchema)) {
        expect(Array.isArray(node.type), `${tool.name} ${path}`).toBe(false);
      }
      for (const [path, node] of nodes(tool.outputSchema ?? {})) {
        expect(Array.isArray(node.type), `${tool.name} output ${path}`).toBe(false);
      }
    }
  });

  it('rejects unknown arguments, so a typo never passes silently', () => {
    for (const tool of tools) expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
  });

  it('declares a closed output schema with the next step on every tool', () => {
    for (const tool of tools) {
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(tool.outputSchema?.additionalProperties, tool.name).toBe(false);
      expect(tool.outputSchema?.required, tool.name).toContain('next');
      if (COSTLY_TOOLS.includes(tool.name)) expect(tool.outputSchema?.required, tool.name).toContain('confirmation_needed');
    }
  });

  it('matches the tools/list snapshot', () => {
    expect(tools).toMatchSnapshot();
  });
});
