import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/tools/index.js';
import { BIN, cleanEnv } from '../process.js';

/**
 * Issue 29: the built server in each mode against its own sandbox, walked through the workflows by
 * calling every tool it offers, ids taken from earlier results. No next step, text, description,
 * instruction or prompt names a tool this instance does not offer, and where the natural next step
 * is such a tool, the result says it is not offered here and why.
 */

const NAMES = TOOLS.map((tool) => tool.name);
const SNAKE_WORD = /\b[a-z]+(?:_[a-z]+)+\b/g;
/** The registry's tool names in `text` that `offered` lacks. */
const missingIn = (text: string, offered: Set<string>) => [...new Set((text.match(SNAKE_WORD) ?? []).filter((word) => NAMES.includes(word) && !offered.has(word)))];

/** Every string in a JSON value: descriptions at every depth of a tools/list entry, say. */
function* strings(value: unknown): Generator<string> {
  if (typeof value === 'string') yield value;
  else if (Array.isArray(value)) for (const item of value) yield* strings(item);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) yield* strings(item);
}

type Facts = Record<string, unknown>;
interface Outcome {
  text: string;
  isError: boolean;
  structured?: Facts;
}

/** What one walk remembers from earlier results, as an assistant would. */
interface Memory {
  templateId?: string;
  suggestion?: Facts;
  insightId?: string;
  shareId?: string;
  range?: { scheduled_from: string; scheduled_until: string };
  jobId?: string;
}

/** A step of the walk: the tool, its arguments from what the walk has seen, and what it keeps. */
interface Step {
  tool: string;
  args(memory: Memory): Facts | undefined;
  keep?(outcome: Outcome, memory: Memory): void;
}

const APP = 'app_demo';
const rowsOf = (facts: Facts | undefined, ...keys: string[]) => keys.flatMap((key) => (facts?.[key] as Facts[] | undefined) ?? []);

/** The workflows of the README, in order: every tool at least once, several on more than one path. */
const WALK: Step[] = [
  { tool: 'check_connection', args: () => ({}) },
  { tool: 'get_workspace_analytics', args: () => ({ workspace_id: 'ws_demo' }) },
  { tool: 'list_email_templates', args: () => ({ app_id: APP }), keep: (out, m) => (m.templateId = rowsOf(out.structured, 'templates')[0]?.template_id as string | undefined) },
  { tool: 'get_email_template', args: (m) => ({ app_id: APP, template_id: m.templateId ?? 'tpl_seed_invite' }) },
  { tool: 'preview_app_email', args: () => ({ app_id: APP, email_type: 'password_reset' }) },
  { tool: 'preview_app_email', args: () => ({ app_id: APP, email_type: 'user_invite' }) },
  { tool: 'customize_app_email', args: () => ({ app_id: APP, email_type: 'password_reset' }) },
  { tool: 'delete_email_template', args: () => ({ app_id: APP, template_id: 'tpl_seed_digest' }) },
  { tool: 'list_ad_campaigns', args: () => ({ app_id: APP, include_metrics: true }) },
  { tool: 'get_ad_campaign', args: () => ({ app_id: APP, campaign_id: 'cmp_demo' }) },
  {
    tool: 'list_campaign_suggestions',
    args: () => ({ app_id: APP, campaign_id: 'cmp_demo' }),
    keep: (out, m) => {
      const rows = rowsOf(out.structured, 'high', 'medium', 'low', 'other');
      m.suggestion = rows.find((row) => row.recommendation_resource_name && row.action);
      m.insightId = rows.find((row) => !row.recommendation_resource_name)?.id as string | undefined;
    },
  },
  {
    tool: 'apply_budget_recommendation',
    args: (m) => ({
      app_id: APP,
      campaign_id: 'cmp_demo',
      recommendation_resource_name: m.suggestion?.recommendation_resource_name ?? 'customers/7100000001/recommendations/adnet_rec_budget_7100000001',
      recommended_daily_budget_micros: m.suggestion?.recommended_daily_budget_micros ?? 35_000_000,
    }),
  },
  { tool: 'dismiss_campaign_suggestion', args: (m) => ({ app_id: APP, insight_id: m.insightId ?? 'sug_cmp_demo_budget' }) },
  { tool: 'pause_ad_campaign', args: () => ({ app_id: APP, campaign_id: 'cmp_quiet' }) },
  { tool: 'resume_ad_campaign', args: () => ({ app_id: APP, campaign_id: 'cmp_quiet' }) },
  {
    tool: 'create_ad_campaign',
    args: () => ({ app_id: APP, campaign_name: 'Modes', campaign_type: 'SMART', daily_budget_micros: 5_000_000, landing_page: 'https://demo-planner.sandbox.test/' }),
  },
  { tool: 'delete_ad_campaign', args: () => ({ app_id: APP, campaign_id: 'cmp_quiet' }) },
  {
    tool: 'share_app_with_groups',
    args: () => ({ app_id: APP, group_ids: ['grp_design'], role: 'admin' }),
    keep: (out, m) => (m.shareId = rowsOf(out.structured, 'share_ids')[0]?.share_id as string | undefined),
  },
  { tool: 'share_app_with_groups', args: () => ({ app_id: APP, group_ids: ['grp_support'] }) },
  { tool: 'list_group_shares', args: () => ({ app_id: APP }), keep: (out, m) => (m.shareId ??= rowsOf(out.structured, 'shares')[0]?.share_id as string | undefined) },
  { tool: 'update_group_share', args: (m) => ({ app_id: APP, share_id: m.shareId ?? 'gsh_seed_support', role: 'user' }) },
  { tool: 'remove_group_share', args: (m) => ({ app_id: APP, share_id: m.shareId ?? 'gsh_seed_support' }) },
  { tool: 'list_social_posts', args: () => ({ app_id: APP }) },
  {
    tool: 'list_social_posts',
    args: () => ({ app_id: APP, from: '2026-01-01', until: '2027-12-31' }),
    keep: (out, m) => (m.range = out.structured?.schedule_range as Memory['range']),
  },
  { tool: 'start_scheduling_posts', args: (m) => (m.range ? { app_id: APP, ...m.range } : undefined), keep: (out, m) => (m.jobId = out.structured?.job_id as string | undefined) },
  { tool: 'get_scheduling_job', args: (m) => ({ app_id: APP, job_id: m.jobId ?? 'job_empty' }) },
  { tool: 'get_scheduling_job', args: () => ({ app_id: APP, job_id: 'job_failed' }) },
  { tool: 'pull_repo_changes', args: () => ({ app_id: APP }) },
  { tool: 'resolve_repo_conflicts', args: () => ({ app_id: APP }) },
  { tool: 'read_app_conversation', args: () => ({ app_id: APP }) },
  { tool: 'send_app_chat_message', args: () => ({ app_id: APP, content: 'Keep the app\'s version of both files.' }) },
  { tool: 'pull_repo_changes', args: () => ({ app_id: APP }) },
  { tool: 'push_app_to_repo', args: () => ({ app_id: APP }) },
  { tool: 'pull_repo_changes', args: () => ({ app_id: 'app_blog' }) },
  { tool: 'push_app_to_repo', args: () => ({ app_id: 'app_blog' }) },
];

const GATED = new Set(TOOLS.filter((tool) => tool.cost !== 'none').map((tool) => tool.name));

interface Mode {
  flags: string[];
  /** Steps whose natural next tool this mode leaves out: each result's next step says so, and why. */
  says: Array<{ tool: string; args: Facts; next: RegExp }>;
}

const MODES: Mode[] = [
  {
    flags: ['--read-only'],
    says: [
      { tool: 'list_social_posts', args: { app_id: APP }, next: /^"Start Scheduling Posts" is not offered by this server: it runs read-only \(--read-only or APPMGMT_READ_ONLY\), so it offers only tools that change nothing\.$/ },
      { tool: 'list_campaign_suggestions', args: { app_id: APP, campaign_id: 'cmp_demo' }, next: /^"Apply Budget Recommendation" is not offered by this server: it runs read-only/ },
    ],
  },
  {
    flags: ['--toolsets', 'social'],
    says: [{ tool: 'check_connection', args: {}, next: /\(e\.g\. list_social_posts\)/ }],
  },
  {
    flags: ['--toolsets', 'campaigns,repo'],
    says: [
      {
        tool: 'resolve_repo_conflicts',
        args: { app_id: 'app_forum' },
        next: /^"Read App Conversation" is not offered by this server: its toolset, chat, is not among those enabled \(--toolsets or APPMGMT_TOOLSETS\)\. The question waits in the app's chat in the service\.$/,
      },
    ],
  },
  {
    flags: ['--tools', 'list_social_posts,start_scheduling_posts,list_campaign_suggestions'],
    says: [
      {
        tool: 'list_campaign_suggestions',
        args: { app_id: APP, campaign_id: 'cmp_demo' },
        next: /^"Apply Budget Recommendation" is not offered by this server: it is not among the tools enabled \(--tools or APPMGMT_TOOLS\)\.$/,
      },
      {
        tool: 'start_scheduling_posts',
        args: { app_id: 'app_shop', scheduled_from: '2026-01-01', scheduled_until: '2026-01-02' },
        next: /^"Get Scheduling Job" is not offered by this server: .* list_social_posts \{"app_id":"app_shop"\} shows which posts are scheduled\.$/,
      },
    ],
  },
  { flags: ['--app-id', APP], says: [{ tool: 'check_connection', args: {}, next: /^This server is scoped to app app_demo: start with list_ad_campaigns or another tool of this app\.$/ }] },
];

describe('the built server in every mode names only the tools it offers', () => {
  it.each(MODES)('$flags', async ({ flags, says }) => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, '--sandbox', ...flags], env: cleanEnv(), stderr: 'pipe' });
    const client = new Client({ name: 'modes-test', version: '1.0.0' });
    await client.connect(transport);
    const scoped = flags.includes('--app-id');
    const seen: string[] = [];
    try {
      const { tools } = await client.listTools();
      const offered = new Set(tools.map((tool) => tool.name));
      const problems: string[] = [];
      const check = (where: string, text: string) => {
        const missing = missingIn(text, offered);
        if (missing.length) problems.push(`${where} names ${missing.join(', ')}: ${text.slice(0, 300)}`);
      };
      check('instructions', client.getInstructions() ?? '');
      for (const tool of tools) for (const text of strings({ description: tool.description, input: tool.inputSchema, output: tool.outputSchema })) check(`${tool.name}'s description`, text);
      if (client.getServerCapabilities()?.prompts) {
        for (const prompt of (await client.listPrompts()).prompts) {
          const args = Object.fromEntries((prompt.arguments ?? []).filter((arg) => arg.required).map((arg) => [arg.name, 'app_demo']));
          const { messages } = await client.getPrompt({ name: prompt.name, arguments: args });
          for (const text of strings(messages)) check(`prompt ${prompt.name}`, text);
        }
      }

      const call = async (tool: string, args: Facts): Promise<Outcome> => {
        const { app_id: _, ...unscoped } = args;
        const result = await client.callTool({ name: tool, arguments: scoped ? unscoped : args });
        const outcome = {
          text: (result.content as Array<{ text?: string }>).map((part) => part.text ?? '').join('\n'),
          isError: result.isError === true,
          ...(result.structuredContent ? { structured: result.structuredContent as Facts } : {}),
        };
        expect(outcome.text, `${tool}: ${outcome.text}`).not.toMatch(/Tool \w+ not found|Invalid arguments/);
        check(`${tool}'s result`, outcome.text);
        check(`${tool}'s next`, String(outcome.structured?.next ?? ''));
        seen.push(tool);
        return outcome;
      };

      const memory: Memory = {};
      for (const step of WALK.filter((candidate) => offered.has(candidate.tool))) {
        const args = step.args(memory);
        if (!args) continue;
        let outcome = await call(step.tool, args);
        if (GATED.has(step.tool) && outcome.structured?.confirmation_needed === true) outcome = await call(step.tool, { ...args, confirm: true });
        step.keep?.(outcome, memory);
      }

      expect(problems).toEqual([]);
      // Every tool this mode offers was called at least once on the walk.
      expect([...offered].filter((tool) => !seen.includes(tool))).toEqual([]);
      if (scoped) {
        expect(client.getInstructions()).toContain('This server is scoped to app app_demo: tools take no app_id.');
        expect(client.getInstructions()).not.toMatch(/Ask the user for the app id/);
      } else {
        expect(client.getInstructions()).toContain(flags[0] === '--read-only' ? 'This server is read-only' : `This server offers ${offered.size} of its ${TOOLS.length} tools`);
      }
      for (const { tool, args, next } of says) {
        let outcome = await call(tool, args);
        if (GATED.has(tool)) outcome = await call(tool, { ...args, confirm: true });
        expect(String(outcome.structured?.next), outcome.text).toMatch(next);
      }
      expect(problems).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
