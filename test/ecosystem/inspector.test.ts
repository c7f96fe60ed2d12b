import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, runNode, type Exit } from '../process.js';

// The official MCP Inspector CLI (@modelcontextprotocol/inspector 2.x, a client nobody here wrote)
// against the built bundle with its in-process sandbox. Each CLI run starts its own server, so the
// sandbox world is fresh for every call. `--strict` reports schema portability problems and exits 6
// when one has error severity; `--format json` prints one JSON object; a tool result with isError
// makes the CLI exit 5.
const root = fileURLToPath(new URL('../..', import.meta.url));
const INSPECTOR = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js', import.meta.url));
// Runs are mostly waiting on child processes, so a few in flight pay off even on two cores.
const CONCURRENCY = 4;
const SERVER = ['--', process.execPath, BIN, '--sandbox'];
/**
 * A run that takes this many times the control (the tools/list run, alone, first) counts as hung and
 * is stopped: a bound that grows with the machine's load, where a fixed one timed out at load 14 on
 * two cores. Four runs in flight each take two to four times the control there.
 */
const HUNG_RATIO = 20;
/** Only a backstop: each run is bounded by HUNG_RATIO times the control. */
const SETUP_BACKSTOP_MS = 15 * 60_000;

type Run = Exit & { ms: number; limitMs?: number };

/** One Inspector CLI run against the bundle, stopped (SIGKILL) after `limitMs` when given. */
async function inspector(args: string[], limitMs?: number): Promise<Run> {
  const started = performance.now();
  const exit = await runNode([INSPECTOR, '--cli', '--format', 'json', ...args, ...SERVER], { cwd: root, ...(limitMs ? { timeout: limitMs, killSignal: 'SIGKILL' } : {}) });
  return { ...exit, ms: performance.now() - started, ...(limitMs ? { limitMs } : {}) };
}

/** What went wrong with a run, for an assertion's message. */
const described = (run: Run) =>
  run.limitMs !== undefined && run.ms >= run.limitMs ? `stopped after ${Math.round(run.ms)} ms, ${HUNG_RATIO} times the control run` : `${run.stdout}${run.stderr}`;

/** Runs `jobs` with at most `limit` in flight, keeping the order of results. */
async function bounded<T, R>(items: T[], limit: number, job: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await job(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** One call per tool against the sandbox world (app_demo, ws_demo, cmp_demo, job_empty, grp_design). */
const CALLS: Array<{ tool: string; args: Record<string, unknown>; warning?: boolean }> = [
  { tool: 'check_connection', args: {} },
  { tool: 'get_workspace_analytics', args: { workspace_id: 'ws_demo' } },
  { tool: 'customize_app_email', args: { app_id: 'app_demo', email_type: 'password_reset' } },
  { tool: 'preview_app_email', args: { app_id: 'app_demo', email_type: 'user_invite' } },
  { tool: 'list_email_templates', args: { app_id: 'app_demo' } },
  { tool: 'get_email_template', args: { app_id: 'app_demo', template_id: 'tpl_seed_digest' } },
  { tool: 'delete_email_template', args: { app_id: 'app_demo', template_id: 'tpl_seed_digest' }, warning: true },
  {
    tool: 'create_ad_campaign',
    args: {
      app_id: 'app_demo',
      campaign_name: 'Inspector check',
      campaign_type: 'SMART',
      daily_budget_micros: 5_000_000,
      landing_page: 'https://example.com/',
      keyword_themes: ['app builder'],
    },
    warning: true,
  },
  { tool: 'list_ad_campaigns', args: { app_id: 'app_demo' } },
  { tool: 'get_ad_campaign', args: { app_id: 'app_demo', campaign_id: 'cmp_demo' } },
  { tool: 'list_campaign_suggestions', args: { app_id: 'app_demo', campaign_id: 'cmp_demo' } },
  {
    tool: 'apply_budget_recommendation',
    args: {
      app_id: 'app_demo',
      campaign_id: 'cmp_demo',
      recommendation_resource_name: 'customers/7100000001/recommendations/adnet_rec_budget_7100000001',
      recommended_daily_budget_micros: 35_000_000,
    },
    warning: true,
  },
  { tool: 'dismiss_campaign_suggestion', args: { app_id: 'app_demo', insight_id: 'adnet_rec_strength_7100000001' } },
  { tool: 'pause_ad_campaign', args: { app_id: 'app_demo', campaign_id: 'cmp_quiet' } },
  { tool: 'resume_ad_campaign', args: { app_id: 'app_demo', campaign_id: 'cmp_quiet' }, warning: true },
  { tool: 'delete_ad_campaign', args: { app_id: 'app_demo', campaign_id: 'cmp_quiet' }, warning: true },
  { tool: 'share_app_with_groups', args: { app_id: 'app_demo', group_ids: ['grp_design'] } },
  { tool: 'list_group_shares', args: { app_id: 'app_demo' } },
  { tool: 'update_group_share', args: { app_id: 'app_demo', share_id: 'gsh_seed_support', role: 'editor' } },
  { tool: 'remove_group_share', args: { app_id: 'app_demo', share_id: 'gsh_seed_support' } },
  { tool: 'list_social_posts', args: { app_id: 'app_demo' } },
  { tool: 'start_scheduling_posts', args: { app_id: 'app_demo', scheduled_from: '2026-11-01', scheduled_until: '2026-11-02' } },
  { tool: 'get_scheduling_job', args: { app_id: 'app_demo', job_id: 'job_empty' } },
  { tool: 'pull_repo_changes', args: { app_id: 'app_notes' } },
  { tool: 'resolve_repo_conflicts', args: { app_id: 'app_demo' }, warning: true },
  { tool: 'push_app_to_repo', args: { app_id: 'app_notes' } },
  { tool: 'send_app_chat_message', args: { app_id: 'app_demo', content: 'Hello' }, warning: true },
  { tool: 'read_app_conversation', args: { app_id: 'app_demo' } },
];

/** The Inspector's `--tool-arg key=value` syntax: values are parsed as JSON when they parse. */
const toolArgs = (args: Record<string, unknown>) =>
  Object.entries(args).map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);

interface Finding {
  severity: string;
  schema: string;
  path: string;
  issue: string;
}

describe('the MCP Inspector CLI', () => {
  let list: Run;
  let calls: Run[];

  beforeAll(async () => {
    list = await inspector(['--strict', '--method', 'tools/list']);
    const runs = CALLS.map(({ tool, args }) => ['-q', '--method', 'tools/call', '--tool-name', tool, ...(Object.keys(args).length ? ['--tool-arg', ...toolArgs(args)] : [])]);
    calls = await bounded(runs, CONCURRENCY, (args) => inspector(args, Math.ceil(HUNG_RATIO * list.ms)));
  }, SETUP_BACKSTOP_MS);

  it('lists every tool with --strict schema checks finding nothing, not even a warning', () => {
    expect(list.code, list.stderr).toBe(0);
    const answer = JSON.parse(list.stdout) as {
      result: { tools: Array<{ name: string; outputSchema?: unknown }> };
      schemaFindings?: Array<{ toolName: string; findings: Finding[] }>;
    };
    expect(answer.result.tools.map((tool) => tool.name)).toEqual(CALLS.map((call) => call.tool));
    const findings = (answer.schemaFindings ?? []).flatMap(({ toolName, findings }) => findings.map((f) => `${toolName} ${f.severity} ${f.schema}.${f.path}: ${f.issue}`));
    expect(findings).toEqual([]);
    // With findings it prints their count ("0 errors, 1 warning across 1 tool"); without, nothing.
    expect(list.stderr).not.toMatch(/\b(error|warning)s?\b/);
    // Every tool declares an output schema, and every successful call returns structured content.
    expect(answer.result.tools.filter((tool) => !tool.outputSchema).map((tool) => tool.name)).toEqual([]);
  });

  it.each(CALLS.map((call, index) => ({ ...call, index })))('calls $tool and gets a proper result', ({ tool, warning, index }) => {
    const run = calls[index]!;
    expect(run.code, `${tool}: ${described(run)}`).toBe(0);
    const { result } = JSON.parse(run.stdout) as {
      result: { content: Array<{ type: string; text?: string }>; isError?: boolean; structuredContent?: Record<string, unknown> };
    };
    expect(result.isError).toBeFalsy();
    expect(result.content[0]?.type).toBe('text');
    const text = result.content.map((part) => part.text ?? '').join('\n');
    expect(text).toMatch(/^\[sandbox\] /);
    if (warning) expect(text).toMatch(/CONFIRMATION NEEDED[\s\S]*confirm: true/);
    else expect(text).not.toMatch(/CONFIRMATION NEEDED/);
    expect(result.structuredContent).toMatchObject({ next: expect.any(String) });
  });
});
