import type { Config, ToolsetName } from '../config.js';
import { ConfigError } from '../errors.js';
import type { AnyTool } from './define.js';

/**
 * What the server knows of each tool before the tools themselves load: enough to choose a caller's
 * tools, write the instructions and the consent page, and answer `initialize`. The tools (their
 * schemas, texts and code, a tenth of a start) load after that, on the first request that needs
 * them (issue 31). test/tools/catalog.test.ts holds this list to the tools' own definitions.
 */
export type ToolEntry = Pick<AnyTool, 'name' | 'title' | 'cost'> & { toolset: ToolsetName; annotations: Pick<AnyTool['annotations'], 'readOnlyHint'> };

/** Every tool, in the order tools/list shows them, grouped by toolset. */
export const CATALOG: readonly ToolEntry[] = [
  { name: 'check_connection', title: 'Check Connection', toolset: 'monitoring', cost: 'none', annotations: { readOnlyHint: true } },
  { name: 'get_workspace_analytics', title: 'Get Workspace Analytics', toolset: 'monitoring', cost: 'none', annotations: { readOnlyHint: true } },
  { name: 'customize_app_email', title: 'Customize App Email', toolset: 'emails', cost: 'none', annotations: { readOnlyHint: false } },
  { name: 'preview_app_email', title: 'Preview App Email', toolset: 'emails', cost: 'none', annotations: { readOnlyHint: true } },
  { name: 'list_email_templates', title: 'List Email Templates', toolset: 'emails', cost: 'none', annotations: { readOnlyHint: true } },
  { name: 'get_email_template', title: 'Get Email Template', toolset: 'emails', cost: 'none', annotations: { readOnlyHint: true } },
  { name: 'delete_email_template', title: 'Delete Email Template', toolset: 'emails', cost: 'permanent', annotations: { readOnlyHint: false } },
  { name: 'create_ad_campaign', title: 'Create Ad Campaign', toolset: 'campaigns', cost: 'money', annotations: { readOnlyHint: false } },
  { name: 'list_ad_campaigns', title: 'List Ad Campaigns', toolset: 'campaigns', cost: 'none', annotations: { readOnlyHint: true } },
  { name: 'get_ad_campaign', title: 'Get Ad Campaign', toolset: 'campaigns', cost: 'none', annotations: { readOnlyHint: true } },
  { name: 'list_campaign_suggestions', title: 'List Campaign Suggestions', toolset: 'campaigns', cost: 'none', annotations: { readOnlyHint: true } },
  { name: 'apply_budget_recommendation', title: 'Apply Budget Recommendation', toolset: 'campaigns', cost: 'money', annotations: { readOnlyHint: false } },
  { name: 'dismiss_campaign_suggestion', title: 'Dismiss Campaign Suggestion', toolset: 'campaigns', cost: 'none', annotations: { readOnlyHint: false } },
  { name: 'pause_ad_campaign', title: 'Pause Ad Campaign', toolset: 'campaigns', cost: 'none', annotations: { readOnlyHint: false } },
  { name: 'resume_ad_campaign', title: 'Resume Ad Campaign', toolset: 'campaigns', cost: 'money', annotations: { readOnlyHint: false } },
  { name: 'delete_ad_campaign', title: 'Delete Ad Campaign', toolset: 'campaigns', cost: 'permanent', annotations: { readOnlyHint: false } },
  { name: 'share_app_with_groups', title: 'Share App with Groups', toolset: 'sharing', cost: 'none', annotations: { readOnlyHint: false } },
  { name: 'list_group_shares', title: 'List Group Shares', toolset: 'sharing', cost: 'none', annotations: { readOnlyHint: true } },
  { name: 'update_group_share', title: 'Update Group Share', toolset: 'sharing', cost: 'none', annotations: { readOnlyHint: false } },
  { name: 'remove_group_share', title: 'Remove Group Share', toolset: 'sharing', cost: 'none', annotations: { readOnlyHint: false } },
  { name: 'list_social_posts', title: 'List Social Posts', toolset: 'social', cost: 'none', annotations: { readOnlyHint: true } },
  { name: 'start_scheduling_posts', title: 'Start Scheduling Posts', toolset: 'social', cost: 'none', annotations: { readOnlyHint: false } },
  { name: 'get_scheduling_job', title: 'Get Scheduling Job', toolset: 'social', cost: 'none', annotations: { readOnlyHint: true } },
  { name: 'pull_repo_changes', title: 'Pull Repository Changes', toolset: 'repo', cost: 'none', annotations: { readOnlyHint: false } },
  { name: 'resolve_repo_conflicts', title: 'Resolve Repository Conflicts', toolset: 'repo', cost: 'credits', annotations: { readOnlyHint: false } },
  { name: 'push_app_to_repo', title: 'Push App to Repository', toolset: 'repo', cost: 'none', annotations: { readOnlyHint: false } },
  { name: 'send_app_chat_message', title: 'Send App Chat Message', toolset: 'chat', cost: 'credits', annotations: { readOnlyHint: false } },
  { name: 'read_app_conversation', title: 'Read App Conversation', toolset: 'chat', cost: 'none', annotations: { readOnlyHint: true } },
];

/** What choosing tools reads of one: a catalog entry, or a tool itself. */
export type ToolLike = Pick<ToolEntry, 'name' | 'title' | 'cost' | 'annotations'>;

const TOOLSET_OF = new Map(CATALOG.map((entry) => [entry.name, entry.toolset]));

/** The toolset a tool of the registry belongs to (undefined for any other tool). */
export function toolsetOf(name: string): ToolsetName | undefined {
  return TOOLSET_OF.get(name);
}

/** The one tool every configuration offers: it tells a user what is set up. */
const ALWAYS_OFFERED = 'check_connection';

/**
 * The tools this configuration enables, in registry order. Toolsets, read-only mode and the tool
 * list are filters over one list, applied here; check_connection is always offered.
 * @throws ConfigError when APPMGMT_TOOLS / --tools names a tool that does not exist.
 */
export function selectTools<T extends ToolLike>(config: Pick<Config, 'tools' | 'toolsets' | 'readOnly'>, all: readonly T[]): T[] {
  const names = all.map((tool) => tool.name);
  const unknown = (config.tools ?? []).filter((name) => !names.includes(name));
  if (unknown.length > 0) {
    throw new ConfigError(`Unknown tool ${unknown.join(', ')} in APPMGMT_TOOLS/--tools. Valid names: ${names.join(', ')}`);
  }
  const inToolsets = (tool: T) => !config.toolsets || config.toolsets.includes(toolsetOf(tool.name) as ToolsetName);
  return all.filter(
    (tool) =>
      tool.name === ALWAYS_OFFERED ||
      (inToolsets(tool) && (!config.tools || config.tools.includes(tool.name)) && (!config.readOnly || tool.annotations.readOnlyHint)),
  );
}
