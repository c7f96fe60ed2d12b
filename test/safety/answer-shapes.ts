/**
 * Every answer shape the service gives, one per route (schemas.ts), with ordinary values: the fake
 * upstream of the megabyte tests. A hostile answer is one of these with one field, or all of its
 * strings, replaced.
 */

export interface Route {
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Matched against the request's path. */
  path: RegExp;
  status?: number;
  body: () => unknown;
}

const campaign = () => ({
  id: 'cmp_demo',
  adnet_campaign_id: '7100000001',
  campaign_name: 'Spring launch',
  campaign_type: 'SMART',
  status: 'ENABLED',
  daily_budget_micros: 5_000_000,
  landing_page: 'https://shop.example.com/',
  geo_targets: ['2840'],
  phone_number: '+14155550100',
  review_status: 'APPROVED',
  serving_status: 'SERVING',
  primary_status: 'ELIGIBLE',
  primary_status_reasons: ['LEARNING'],
  created_date: '2026-11-01T09:00:00Z',
  updated_date: '2026-11-02T09:00:00Z',
  learning_ends_at: '2026-11-09T09:00:00Z',
});
const template = () => ({ id: 'tpl_1', name: 'Welcome', subject: 'Hello', updated_date: '2026-11-01T09:00:00Z', html: '<p>Hello</p>' });
const message = (i: number) => ({ id: `msg_${i}`, role: i % 2 ? 'assistant' : 'user', content: `Message ${i}`, hidden: false, tool_calls: [{ id: `call_${i}`, name: 'edit_files', status: 'completed' }] });
const share = () => ({ id: 'shr_1', group_id: 'grp_1', group_name: 'Sales', role: 'editor', created_date: '2026-11-01T09:00:00Z' });

const APP = '/api/apps/[^/]+';
const CAMPAIGN = `${APP}/adnet-ads/campaigns/[^/]+`;
const re = (source: string) => new RegExp(`^${source}$`);

export const ROUTES: Route[] = [
  { name: 'customized email', method: 'POST', path: re(`${APP}/emails/system/[^/]+/materialize`), body: () => ({ template_id: 'tpl_1', name: 'Password reset', created: true }) },
  { name: 'email preview', method: 'GET', path: re(`${APP}/emails/system/[^/]+/preview`), body: () => ({ authored_status: 'builtin', subject: 'Reset', html: '<p>Reset</p>' }) },
  { name: 'template list', method: 'GET', path: re(`${APP}/emails`), body: () => [template(), { ...template(), id: 'tpl_2' }] },
  { name: 'template', method: 'GET', path: re(`${APP}/emails/[^/]+`), body: template },
  { name: 'template deleted', method: 'DELETE', path: re(`${APP}/emails/[^/]+`), body: () => ({ deleted: true }) },
  { name: 'created campaign', method: 'POST', path: re(`${APP}/adnet-ads/campaigns`), body: campaign },
  { name: 'campaign list', method: 'GET', path: re(`${APP}/adnet-ads/campaigns`), body: () => [{ ...campaign(), start_date: '2026-11-01', impressions: 1, clicks: 1, cost_micros: 1, conversions: 0, metrics_pending: false }] },
  { name: 'suggestions', method: 'GET', path: re(`${CAMPAIGN}/optimization-suggestions`), body: () => [{ id: 'sug_1', severity: 'high', title: 'Budget limited', description: 'Ran out early.', action: 'edit_budget', action_payload: { campaign_ids: ['cmp_demo'], field: 'daily_budget_micros', value: 9_000_000 }, source: 'adnet', recommendation_type: 'CAMPAIGN_BUDGET', recommendation_resource_name: 'customers/1/campaignBudgetRecommendations/2', recommended_daily_budget_micros: 9_000_000 }] },
  { name: 'campaign', method: 'GET', path: re(CAMPAIGN), body: campaign },
  { name: 'campaign deleted', method: 'DELETE', path: re(CAMPAIGN), body: () => ({ action: 'deleted' }) },
  { name: 'campaign paused', method: 'POST', path: re(`${CAMPAIGN}/pause`), body: () => ({ action: 'paused' }) },
  { name: 'campaign resumed', method: 'POST', path: re(`${CAMPAIGN}/resume`), body: () => ({ action: 'resumed' }) },
  { name: 'budget applied', method: 'POST', path: re(`${CAMPAIGN}/budget-recommendation/apply`), body: () => ({ already_applied: false, daily_budget_micros: 9_000_000 }) },
  { name: 'insight dismissed', method: 'POST', path: re(`${APP}/adnet-ads/analytics/insights/dismiss`), body: () => ({ dismissed: true }) },
  { name: 'share list', method: 'GET', path: re(`${APP}/group-shares`), body: () => [share()] },
  { name: 'shared', method: 'POST', path: re(`${APP}/group-shares`), body: () => ({ results: [{ group_id: 'grp_1', success: true, reason: null, error: null }, { group_id: 'grp_2', success: false, reason: 'already_shared', error: 'Already shared' }] }) },
  { name: 'share updated', method: 'PUT', path: re(`${APP}/group-shares/[^/]+`), body: share },
  { name: 'share removed', method: 'DELETE', path: re(`${APP}/group-shares/[^/]+`), body: () => ({ removed: true }) },
  { name: 'social posts', method: 'GET', path: re(`${APP}/social-calendar/posts`), body: () => [{ id: 'post_1', platform: 'linkedin', title: 'Tips', body: 'Plan the week.', scheduled_at: '2026-11-03T09:00:00Z', scheduled_timezone: 'Europe/Berlin', scheduled_local_at: '2026-11-03T10:00:00', hashtags: ['planning'], image_url: 'https://files.example.com/1.png', status: 'proposal' }] },
  { name: 'scheduling started', method: 'POST', path: re(`${APP}/social-calendar/posts/schedule`), status: 202, body: () => ({ job_id: 'job_1' }) },
  { name: 'scheduling job', method: 'GET', path: re(`${APP}/social-calendar/posts/schedule/[^/]+`), body: () => ({ job_id: 'job_1', status: 'completed', phase: 'completed', result: { selected: 2, materialized: 2, created_workflows: 1, reused_workflows: 1, plan_limited: 0, needs_reconnect: 0, failed: 0, skipped: 0 }, error: null }) },
  { name: 'pulled', method: 'POST', path: re(`${APP}/repohost/sync`), body: () => ({ synced: true, already_up_to_date: false, commit_count: 2, head_sha: 'abc123', error: null, error_message: null }) },
  { name: 'conflicts resolved', method: 'POST', path: re(`${APP}/repohost/sync/resolve-conflicts`), body: () => ({ status: 'resolved', message: 'Resolved two files.' }) },
  { name: 'pushed', method: 'POST', path: re(`${APP}/repohost/sync/manual`), body: () => ({ success: true, commits_pushed: true, skipped: false, commit_hash: 'abc123', error: null, duration_ms: 10 }) },
  { name: 'chat turn', method: 'POST', path: re(`${APP}/chat/message`), body: () => ({ queued: false, id: 'app_demo', name: 'Planner', status: { state: 'idle', error_source: null }, conversation: { messages: [message(1), message(2)] } }) },
  { name: 'conversation', method: 'GET', path: re(`${APP}/chat/full-conversation`), body: () => [message(1), message(2)] },
  { name: 'health', method: 'GET', path: re('/api/v1/monitoring/health'), body: () => ({ status: 'healthy' }) },
  { name: 'analytics', method: 'GET', path: re('/api/v1/monitoring/analytics/[^/]+'), body: () => ({ workspace_id: 'ws_1', summary: { members: 3, messages_today: 10 }, credit_pool: { tier: 'pro', bonus_credits: 5 }, member_allocations: [{ user_id: 'usr_1', email: 'a@example.com', display_name: 'A', messages_used_today: 3 }] }) },
];

/** Every tool call the routes serve; the gated ones are called twice, for the warning and for the confirmed result. */
export const CALLS: Array<{ tool: string; args: Record<string, unknown>; gated?: boolean }> = [
  { tool: 'check_connection', args: {} },
  { tool: 'get_workspace_analytics', args: { workspace_id: 'ws_1' } },
  { tool: 'customize_app_email', args: { app_id: 'app_demo', email_type: 'password_reset' } },
  { tool: 'preview_app_email', args: { app_id: 'app_demo', email_type: 'password_reset' } },
  { tool: 'list_email_templates', args: { app_id: 'app_demo' } },
  { tool: 'get_email_template', args: { app_id: 'app_demo', template_id: 'tpl_1' } },
  { tool: 'delete_email_template', args: { app_id: 'app_demo', template_id: 'tpl_1' }, gated: true },
  {
    tool: 'create_ad_campaign',
    args: { app_id: 'app_demo', campaign_name: 'Spring', campaign_type: 'SMART', daily_budget_micros: 5_000_000, landing_page: 'https://shop.example.com/' },
    gated: true,
  },
  { tool: 'list_ad_campaigns', args: { app_id: 'app_demo' } },
  { tool: 'get_ad_campaign', args: { app_id: 'app_demo', campaign_id: 'cmp_demo' } },
  { tool: 'list_campaign_suggestions', args: { app_id: 'app_demo', campaign_id: 'cmp_demo' } },
  {
    tool: 'apply_budget_recommendation',
    args: { app_id: 'app_demo', campaign_id: 'cmp_demo', recommendation_resource_name: 'customers/1/campaignBudgetRecommendations/2', recommended_daily_budget_micros: 9_000_000 },
    gated: true,
  },
  { tool: 'dismiss_campaign_suggestion', args: { app_id: 'app_demo', insight_id: 'ins_1' } },
  { tool: 'pause_ad_campaign', args: { app_id: 'app_demo', campaign_id: 'cmp_demo' } },
  { tool: 'resume_ad_campaign', args: { app_id: 'app_demo', campaign_id: 'cmp_demo' }, gated: true },
  { tool: 'delete_ad_campaign', args: { app_id: 'app_demo', campaign_id: 'cmp_demo' }, gated: true },
  { tool: 'share_app_with_groups', args: { app_id: 'app_demo', group_ids: ['grp_1', 'grp_2'] } },
  { tool: 'list_group_shares', args: { app_id: 'app_demo' } },
  { tool: 'update_group_share', args: { app_id: 'app_demo', share_id: 'shr_1', role: 'editor' } },
  { tool: 'remove_group_share', args: { app_id: 'app_demo', share_id: 'shr_1' } },
  { tool: 'list_social_posts', args: { app_id: 'app_demo' } },
  { tool: 'start_scheduling_posts', args: { app_id: 'app_demo', scheduled_from: '2026-11-03', scheduled_until: '2026-11-10' } },
  { tool: 'get_scheduling_job', args: { app_id: 'app_demo', job_id: 'job_1' } },
  { tool: 'pull_repo_changes', args: { app_id: 'app_demo' } },
  { tool: 'resolve_repo_conflicts', args: { app_id: 'app_demo' }, gated: true },
  { tool: 'push_app_to_repo', args: { app_id: 'app_demo' } },
  { tool: 'send_app_chat_message', args: { app_id: 'app_demo', content: 'Add a dark mode.' }, gated: true },
  { tool: 'read_app_conversation', args: { app_id: 'app_demo' } },
];

/** Where each string of a value sits, as a path of keys and indexes (keys of records included as `{key}`). */
export function stringPaths(value: unknown, at: Array<string | number> = []): Array<Array<string | number>> {
  if (typeof value === 'string') return [at];
  if (Array.isArray(value)) return value.flatMap((item, index) => stringPaths(item, [...at, index]));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([key, item]) => stringPaths(item, [...at, key]));
  return [];
}

/** A copy of `value` with the string at `path` replaced by `text` (the whole value when the path is empty). */
export function replaced(value: unknown, path: Array<string | number>, text: string): unknown {
  if (path.length === 0) return text;
  const [head, ...rest] = path;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string | number, unknown>;
  copy[head!] = replaced(copy[head!], rest, text);
  return copy;
}

/** One route's answer replaced by a serialized hostile body (serialized before the call, so its cost is not the server's). */
export interface Hostile {
  /** The route whose answer this replaces; without one, every request gets it, with `status`. */
  route?: Route;
  status?: number;
  json: string;
}

/**
 * A fetch that answers from the routes, with `hostile()` in place of one route's answer; anything
 * else is a 404. `seen` hears each request's method and path.
 */
export function fakeUpstream(hostile: () => Hostile | undefined, seen: (method: string, path: string) => void = () => {}): typeof fetch {
  return async (input, init) => {
    const request = input instanceof Request ? input : new Request(input, init);
    const { pathname } = new URL(request.url);
    seen(request.method, pathname);
    const route = ROUTES.find((candidate) => candidate.method === request.method && candidate.path.test(pathname));
    if (!route) return Response.json({ detail: `no route for ${request.method} ${pathname}` }, { status: 404 });
    const current = hostile();
    const headers = { 'content-type': 'application/json' };
    if (current && !current.route) return new Response(current.json, { status: current.status ?? 200, headers });
    const json = current?.route === route ? current.json : JSON.stringify(route.body());
    return new Response(json, { status: route.status ?? 200, headers });
  };
}
