import type { Route } from '../router.js';
import { createCampaign } from './campaigns.js';
import { customizeEmail } from './emails.js';
import { deleteEmailTemplate, getEmailTemplate, listEmailTemplates, previewEmail } from './email-templates.js';
import { shareWithGroups } from './group-shares.js';
import { listGroupShares, removeGroupShare, updateGroupShare } from './group-share-manage.js';
import { getJob } from './jobs.js';
import { startScheduling } from './social-schedule.js';
import { listPosts } from './social-posts.js';
import { monitoringAnalytics, monitoringHealth } from './monitoring.js';
import { pushToRepo } from './repo-push.js';
import { resolveConflicts } from './repo-resolve.js';
import { pullChanges } from './repo-pull.js';
import { readConversation, sendChatMessage } from './chat.js';
import { listSuggestions } from './suggestions.js';
import { applyBudgetRecommendation } from './budget-apply.js';
import { getCampaign, listCampaigns } from './campaign-manage.js';
import { deleteCampaign, pauseCampaign, resumeCampaign } from './campaign-status.js';
import { dismissInsight } from './insights.js';

/** Every route the simulated service answers, spec section 4 order. */
export const routes: readonly Route[] = [
  customizeEmail,
  previewEmail,
  listEmailTemplates,
  getEmailTemplate,
  deleteEmailTemplate,
  createCampaign,
  listCampaigns,
  getCampaign,
  pauseCampaign,
  resumeCampaign,
  deleteCampaign,
  applyBudgetRecommendation,
  listSuggestions,
  dismissInsight,
  shareWithGroups,
  listGroupShares,
  updateGroupShare,
  removeGroupShare,
  listPosts,
  startScheduling,
  getJob,
  pullChanges,
  resolveConflicts,
  pushToRepo,
  sendChatMessage,
  readConversation,
  monitoringAnalytics,
  monitoringHealth,
];
