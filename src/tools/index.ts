import type { AnyTool } from './define.js';
import { customizeAppEmail } from './customize-app-email.js';
import { createAdCampaign } from './create-ad-campaign.js';
import { listCampaignSuggestions } from './list-campaign-suggestions.js';
import { shareAppWithGroups } from './share-app-with-groups.js';
import { getSchedulingJob } from './get-scheduling-job.js';
import { resolveRepoConflicts } from './resolve-repo-conflicts.js';
import { pushAppToRepo } from './push-app-to-repo.js';
import { getWorkspaceAnalytics } from './get-workspace-analytics.js';

/** The registry, in the order of the spec (4.1–4.8). */
export const TOOLS: AnyTool[] = [
  customizeAppEmail,
  createAdCampaign,
  listCampaignSuggestions,
  shareAppWithGroups,
  getSchedulingJob,
  resolveRepoConflicts,
  pushAppToRepo,
  getWorkspaceAnalytics,
];
