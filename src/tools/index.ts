import type { Config } from '../config.js';
import { ConfigError } from '../errors.js';
import { createAdCampaign } from './campaigns/create-ad-campaign.js';
import { listCampaignSuggestions } from './campaigns/list-campaign-suggestions.js';
import type { AnyTool } from './define.js';
import { customizeAppEmail } from './emails/customize-app-email.js';
import { getWorkspaceAnalytics } from './monitoring/get-workspace-analytics.js';
import { pushAppToRepo } from './repo/push-app-to-repo.js';
import { resolveRepoConflicts } from './repo/resolve-repo-conflicts.js';
import { shareAppWithGroups } from './sharing/share-app-with-groups.js';
import { getSchedulingJob } from './social/get-scheduling-job.js';

/** The registry: every tool, grouped into toolsets, in the order tools/list shows them. */
export const TOOLSETS = {
  emails: [customizeAppEmail],
  campaigns: [createAdCampaign, listCampaignSuggestions],
  sharing: [shareAppWithGroups],
  social: [getSchedulingJob],
  repo: [resolveRepoConflicts, pushAppToRepo],
  chat: [],
  monitoring: [getWorkspaceAnalytics],
} satisfies Record<string, AnyTool[]>;

export type ToolsetName = keyof typeof TOOLSETS;

export const TOOLS: AnyTool[] = Object.values(TOOLSETS).flat();

/**
 * The tools this configuration enables, in registry order: read-only mode and the tool list are
 * filters over one list, applied here.
 * @throws ConfigError when APPMGMT_TOOLS / --tools names a tool that does not exist.
 */
export function selectTools(config: Pick<Config, 'tools' | 'readOnly'>, all: AnyTool[] = TOOLS): AnyTool[] {
  const names = all.map((tool) => tool.name);
  const unknown = (config.tools ?? []).filter((name) => !names.includes(name));
  if (unknown.length > 0) {
    throw new ConfigError(`Unknown tool ${unknown.join(', ')} in APPMGMT_TOOLS/--tools. Valid names: ${names.join(', ')}`);
  }
  return all.filter((tool) => (!config.tools || config.tools.includes(tool.name)) && (!config.readOnly || tool.annotations.readOnlyHint));
}
