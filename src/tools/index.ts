import type { ToolsetName } from '../config.js';
import { createAdCampaign } from './campaigns/create-ad-campaign.js';
import { listCampaignSuggestions } from './campaigns/list-campaign-suggestions.js';
import { applyBudgetRecommendation } from './campaigns/apply-budget-recommendation.js';
import { deleteAdCampaign } from './campaigns/delete-ad-campaign.js';
import { dismissCampaignSuggestion } from './campaigns/dismiss-campaign-suggestion.js';
import { getAdCampaign } from './campaigns/get-ad-campaign.js';
import { listAdCampaigns } from './campaigns/list-ad-campaigns.js';
import { pauseAdCampaign } from './campaigns/pause-ad-campaign.js';
import { resumeAdCampaign } from './campaigns/resume-ad-campaign.js';
import type { AnyTool } from './define.js';
import { customizeAppEmail } from './emails/customize-app-email.js';
import { deleteEmailTemplate } from './emails/delete-email-template.js';
import { getEmailTemplate } from './emails/get-email-template.js';
import { listEmailTemplates } from './emails/list-email-templates.js';
import { previewAppEmail } from './emails/preview-app-email.js';
import { checkConnection } from './monitoring/check-connection.js';
import { getWorkspaceAnalytics } from './monitoring/get-workspace-analytics.js';
import { pushAppToRepo } from './repo/push-app-to-repo.js';
import { resolveRepoConflicts } from './repo/resolve-repo-conflicts.js';
import { pullRepoChanges } from './repo/pull-repo-changes.js';
import { readAppConversation } from './chat/read-app-conversation.js';
import { sendAppChatMessage } from './chat/send-app-chat-message.js';
import { shareAppWithGroups } from './sharing/share-app-with-groups.js';
import { listGroupShares } from './sharing/list-group-shares.js';
import { removeGroupShare } from './sharing/remove-group-share.js';
import { updateGroupShare } from './sharing/update-group-share.js';
import { getSchedulingJob } from './social/get-scheduling-job.js';
import { listSocialPosts } from './social/list-social-posts.js';
import { startSchedulingPosts } from './social/start-scheduling-posts.js';

/** The registry: every tool, grouped into toolsets, in the order tools/list shows them. */
export const TOOLSETS = {
  monitoring: [checkConnection, getWorkspaceAnalytics],
  emails: [customizeAppEmail, previewAppEmail, listEmailTemplates, getEmailTemplate, deleteEmailTemplate],
  campaigns: [
    createAdCampaign,
    listAdCampaigns,
    getAdCampaign,
    listCampaignSuggestions,
    applyBudgetRecommendation,
    dismissCampaignSuggestion,
    pauseAdCampaign,
    resumeAdCampaign,
    deleteAdCampaign,
  ],
  sharing: [shareAppWithGroups, listGroupShares, updateGroupShare, removeGroupShare],
  social: [listSocialPosts, startSchedulingPosts, getSchedulingJob],
  repo: [pullRepoChanges, resolveRepoConflicts, pushAppToRepo],
  chat: [sendAppChatMessage, readAppConversation],
} satisfies Record<ToolsetName, AnyTool[]>;

export const TOOLS: AnyTool[] = Object.values(TOOLSETS).flat();
