import { InputError } from '../errors.js';

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

export const paths = {
  customizeAppEmail: (appId: string, emailType: string) =>
    `${app(appId)}/emails/system/${segment('email_type', emailType)}/materialize`,
  createAdCampaign: (appId: string) => `${app(appId)}/adnet-ads/campaigns`,
  listCampaignSuggestions: (appId: string, campaignId: string) =>
    `${app(appId)}/adnet-ads/campaigns/${segment('campaign_id', campaignId)}/optimization-suggestions`,
  shareAppWithGroups: (appId: string) => `${app(appId)}/group-shares`,
  getSchedulingJob: (appId: string, jobId: string) =>
    `${app(appId)}/social-calendar/posts/schedule/${segment('job_id', jobId)}`,
  resolveRepoConflicts: (appId: string) => `${app(appId)}/repohost/sync/resolve-conflicts`,
  pushAppToRepo: (appId: string) => `${app(appId)}/repohost/sync/manual`,
  getWorkspaceAnalytics: (workspaceId: string) =>
    `/api/v1/monitoring/analytics/${segment('workspace_id', workspaceId)}`,
};
