import type { Route } from '../router.js';
import { createCampaign } from './campaigns.js';
import { customizeEmail } from './emails.js';
import { shareWithGroups } from './group-shares.js';
import { getJob } from './jobs.js';
import { monitoringAnalytics, monitoringHealth } from './monitoring.js';
import { pushToRepo } from './repo-push.js';
import { resolveConflicts } from './repo-resolve.js';
import { listSuggestions } from './suggestions.js';

/** Every route the simulated service answers, spec section 4 order. */
export const routes: readonly Route[] = [
  customizeEmail,
  createCampaign,
  listSuggestions,
  shareWithGroups,
  getJob,
  resolveConflicts,
  pushToRepo,
  monitoringAnalytics,
  monitoringHealth,
];
