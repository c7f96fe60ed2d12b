import { InputError } from '../errors.js';

/**
 * Every method, path and query of the API, in one place. The spec (sections 4.1–4.8) and the
 * service's public documentation (../shared/spec/service-facts.md, "The referenced operations")
 * give most of them; where neither showed it, the entry says `our choice`, so a correction is a
 * one-line change here.
 */

/**
 * One path segment, encoded. `.` and `..` are refused outright: URL parsers resolve them (even as
 * `%2e%2e`), so encoding alone could not stop them from changing the path.
 * @throws InputError when the value is empty or a dot segment.
 */
export function segment(field: string, value: string): string {
  if (value === '' || /^(\.|%2e){1,2}$/i.test(value)) {
    throw new InputError(field, 'must be an ID, not empty, "." or ".."');
  }
  return encodeURIComponent(value);
}

const app = (appId: string) => `/api/apps/${segment('app_id', appId)}`;
const campaign = (appId: string, campaignId: string) => `${app(appId)}/adnet-ads/campaigns/${segment('campaign_id', campaignId)}`;

export const paths = {
  // Application emails and templates
  customizeAppEmail: (appId: string, emailType: string) => `${app(appId)}/emails/system/${segment('email_type', emailType)}/materialize`,
  previewAppEmail: (appId: string, emailType: string) => `${app(appId)}/emails/system/${segment('email_type', emailType)}/preview`,
  /** Query `limit` (documented). */
  listEmailTemplates: (appId: string) => `${app(appId)}/emails`,
  emailTemplate: (appId: string, templateId: string) => `${app(appId)}/emails/${segment('template_id', templateId)}`,

  // Ad campaigns
  createAdCampaign: (appId: string) => `${app(appId)}/adnet-ads/campaigns`,
  /** GET documented; the path is our choice, by its siblings. Query `include_metrics`. */
  listAdCampaigns: (appId: string) => `${app(appId)}/adnet-ads/campaigns`,
  /** GET and DELETE (documented). */
  adCampaign: (appId: string, campaignId: string) => campaign(appId, campaignId),
  pauseAdCampaign: (appId: string, campaignId: string) => `${campaign(appId, campaignId)}/pause`,
  /** POST documented; the path is our choice, by pause. */
  resumeAdCampaign: (appId: string, campaignId: string) => `${campaign(appId, campaignId)}/resume`,
  /** Method and path our choice; the path parameters are documented. */
  applyBudgetRecommendation: (appId: string, campaignId: string) => `${campaign(appId, campaignId)}/budget-recommendation/apply`,
  listCampaignSuggestions: (appId: string, campaignId: string) => `${campaign(appId, campaignId)}/optimization-suggestions`,
  /** Query `insight_id` (documented). */
  dismissInsight: (appId: string) => `${app(appId)}/adnet-ads/analytics/insights/dismiss`,

  // Group shares
  groupShares: (appId: string) => `${app(appId)}/group-shares`,
  /** PUT and DELETE (documented). */
  groupShare: (appId: string, shareId: string) => `${app(appId)}/group-shares/${segment('share_id', shareId)}`,

  // Social calendar. Never send `plan_id` to the post list: it rewrites the calendar.
  listSocialPosts: (appId: string) => `${app(appId)}/social-calendar/posts`,
  startSchedulingPosts: (appId: string) => `${app(appId)}/social-calendar/posts/schedule`,
  getSchedulingJob: (appId: string, jobId: string) => `${app(appId)}/social-calendar/posts/schedule/${segment('job_id', jobId)}`,

  // Repository sync
  /** POST documented; the path is our choice, by its siblings. */
  pullRepoChanges: (appId: string) => `${app(appId)}/repohost/sync`,
  resolveRepoConflicts: (appId: string) => `${app(appId)}/repohost/sync/resolve-conflicts`,
  pushAppToRepo: (appId: string) => `${app(appId)}/repohost/sync/manual`,

  // Builder chat
  /** Path and body name (`content`) our choice. */
  sendAppChatMessage: (appId: string) => `${app(appId)}/chat/message`,
  /** Query `limit` and `skip` (documented). */
  readAppConversation: (appId: string) => `${app(appId)}/chat/full-conversation`,

  // Monitoring (its own base URL)
  monitoringHealth: () => '/api/v1/monitoring/health',
  /** Query `from`, `to` as YYYY-MM-DD (documented). */
  getWorkspaceAnalytics: (workspaceId: string) => `/api/v1/monitoring/analytics/${segment('workspace_id', workspaceId)}`,
};

/** An operation's query as sent: its defined values, in order (undefined ones are left out). */
export function queryString(query: URLSearchParams | Record<string, string | number | boolean | undefined> | undefined): string {
  if (!query) return '';
  if (query instanceof URLSearchParams) return query.toString();
  const entries = Object.entries(query).flatMap(([name, value]) => (value === undefined ? [] : [[name, String(value)] as [string, string]]));
  return new URLSearchParams(entries).toString();
}
