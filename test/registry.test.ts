import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { TOOLSET_NAMES } from '../src/config.js';
import { TOOLS, TOOLSETS } from '../src/tools/index.js';

const TOOLSET_ORDER = ['monitoring', 'emails', 'campaigns', 'sharing', 'social', 'repo', 'chat'];
import { connect, type Harness } from './helpers.js';

const READ_TOOLS = [
  'preview_app_email',
  'list_email_templates',
  'get_email_template',
  'list_ad_campaigns',
  'get_ad_campaign',
  'list_campaign_suggestions',
  'list_group_shares',
  'list_social_posts',
  'get_scheduling_job',
  'read_app_conversation',
  'check_connection',
  'get_workspace_analytics',
];
/** The gate rule: a tool is gated when it spends money or credits or deletes something permanently. */
const COST: Record<string, 'money' | 'credits' | 'permanent'> = {
  create_ad_campaign: 'money',
  resume_ad_campaign: 'money',
  apply_budget_recommendation: 'money',
  delete_ad_campaign: 'permanent',
  delete_email_template: 'permanent',
  resolve_repo_conflicts: 'credits',
  send_app_chat_message: 'credits',
};
const COSTLY_TOOLS = Object.keys(COST);
/** Destructive: every gated tool, and every write that removes something or cannot be undone. */
const DESTRUCTIVE = [...COSTLY_TOOLS, 'remove_group_share', 'dismiss_campaign_suggestion'];

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
      'check_connection',
      'get_workspace_analytics',
      'customize_app_email',
      'preview_app_email',
      'list_email_templates',
      'get_email_template',
      'delete_email_template',
      'create_ad_campaign',
      'list_ad_campaigns',
      'get_ad_campaign',
      'list_campaign_suggestions',
      'apply_budget_recommendation',
      'dismiss_campaign_suggestion',
      'pause_ad_campaign',
      'resume_ad_campaign',
      'delete_ad_campaign',
      'share_app_with_groups',
      'list_group_shares',
      'update_group_share',
      'remove_group_share',
      'list_social_posts',
      'start_scheduling_posts',
      'get_scheduling_job',
      'pull_repo_changes',
      'resolve_repo_conflicts',
      'push_app_to_repo',
      'send_app_chat_message',
      'read_app_conversation',
    ]);
    expect(Object.keys(TOOLSETS)).toEqual([...TOOLSET_NAMES].sort((a, b) => TOOLSET_ORDER.indexOf(a) - TOOLSET_ORDER.indexOf(b)));
  });

  it('gives every tool a Title Case title and a description of a few sentences', () => {
    for (const tool of tools) {
      expect(tool.title, tool.name).toMatch(/^[A-Z][A-Za-z]*( [A-Za-z]+)*$/);
      expect(tool.title?.split(' ').every((word) => /^[A-Z]/.test(word) || ['to', 'with', 'from', 'of'].includes(word)), tool.name).toBe(true);
      expect(tool.description?.length, tool.name).toBeGreaterThan(80);
      expect(tool.description!.split(/[.!?](\s|$)/).filter((s) => s.trim()).length, tool.name).toBeGreaterThanOrEqual(2);
    }
  });

  it('describes every input field, at every depth, but app_id', () => {
    for (const tool of tools) {
      for (const [path, node] of nodes(tool.inputSchema)) {
        const properties = node.properties as Record<string, Record<string, unknown>> | undefined;
        for (const [name, field] of Object.entries(properties ?? {})) {
          // app_id says what it is, on 27 tools; where its value comes from is said when it is missing.
          if (path === '$' && name === 'app_id') continue;
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
      expect(a.destructiveHint, tool.name).toBe(DESTRUCTIVE.includes(tool.name));
      if (/^(delete|remove)_/.test(tool.name)) expect(a.destructiveHint, tool.name).toBe(true);
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
    expect(Object.fromEntries(TOOLS.filter((t) => t.cost !== 'none').map((t) => [t.name, t.cost]))).toEqual(COST);
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

  it('keeps every schema portable: inline, closed, no maps, no type lists', () => {
    for (const tool of tools) {
      for (const [io, schema] of [['input', tool.inputSchema], ['output', tool.outputSchema]] as const) {
        for (const [path, node] of nodes(schema)) {
          for (const key of ['$ref', 'definitions', '$defs', 'propertyNames', 'patternProperties', 'anyOf', 'oneOf', 'allOf']) {
            expect(node, `${tool.name} ${io} ${path}`).not.toHaveProperty(key);
          }
          if (node.type !== 'object') continue;
          // The one documented pass-through: campaign_settings, which a strict-mode converter may close.
          const open = tool.name === 'create_ad_campaign' && path === '$.properties.campaign_settings';
          expect(node.additionalProperties, `${tool.name} ${io} ${path}`).toEqual(open ? true : false);
        }
      }
    }
  });

  it('rejects unknown arguments, so a typo never passes silently', () => {
    for (const tool of tools) expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
  });

  it('declares a closed output schema with the next step on every tool, which an error result ({error, next}) also passes', () => {
    for (const tool of tools) {
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(tool.outputSchema?.additionalProperties, tool.name).toBe(false);
      // Clients check structuredContent against it even on errors: only what an error result carries is required.
      expect(tool.outputSchema?.required, tool.name).toEqual(['next']);
      expect(tool.outputSchema?.properties, tool.name).toHaveProperty('error', expect.objectContaining({ type: 'string' }));
      if (COSTLY_TOOLS.includes(tool.name)) expect(tool.outputSchema?.properties, tool.name).toHaveProperty('confirmation_needed');
    }
  });

  it('matches the tools/list snapshot', () => {
    expect(tools).toMatchSnapshot();
  });
});
