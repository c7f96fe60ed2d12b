// Large, representative API answers for the read tools, shared by `npm run bench:full` and
// test/budget.test.ts. Deterministic: built from fixed tables, no randomness, no clock.

const APP = 'app_bench';
const CAMPAIGN = 'cmp_bench';
const SEVERITIES = ['high', 'medium', 'low'];
// [action, field, title, description]
const TOPICS = [
  ['edit_budget', 'daily_budget_micros', 'Budget limited the campaign', 'The daily budget ran out before the evening on most of the last fourteen days, so the ads stopped showing during the hours when people in the target regions search the most.'],
  ['open_campaign', 'landing_page', 'Clicks but no conversions', 'Hundreds of clicks in the last fourteen days brought no recorded conversion. Either the landing page does not lead visitors to sign up, or conversion tracking is not installed on the page that confirms a sign-up.'],
  ['improve_assets', 'assets', 'Few people click the ads', 'Well under one percent of the impressions led to a click. Headlines that name the problem the app solves, and images that show the app in use, usually lift the click rate within a week.'],
  ['edit_sitelinks', 'sitelinks', 'Add more sitelinks', 'The campaign has only two sitelinks. Four or more give people more ways into the site, such as pricing, features, customer stories and a contact page, and they make the ad take more room on the page.'],
  ['improve_assets', 'assets', 'Ad strength dropped to Poor', 'The ad platform rates the ad strength as Poor after recent edits removed several headlines. Add distinct headlines and descriptions that mention the product, its benefits and a clear call to action.'],
];

/** 30 suggestions with long descriptions: a third from the ad platform, the rest the service's own. */
export function suggestionsAnswer() {
  return Array.from({ length: 30 }, (_, i) => {
    const [action, field, title, description] = TOPICS[i % TOPICS.length];
    const adnet = i % 3 === 2;
    return {
      id: adnet ? `adnet_rec_${7100000000 + i}` : `sug_${CAMPAIGN}_${i}`,
      severity: SEVERITIES[i % SEVERITIES.length],
      title: `${title} (${i + 1})`,
      description: `${description} This finding is based on the stored metrics of campaign ${CAMPAIGN} and its ${i + 3} ad groups; it is refreshed every night.`,
      action,
      action_payload: {
        campaign_ids: i % 4 === 0 ? [CAMPAIGN, `cmp_other_${i}`] : [CAMPAIGN],
        field,
        ...(action === 'edit_budget' ? { value: (25 + i) * 1_000_000 } : {}),
      },
      ...(adnet ? { source: 'adnet', recommendation_type: action === 'edit_budget' ? 'CAMPAIGN_BUDGET' : 'AD_STRENGTH_DROP' } : {}),
    };
  });
}

/** A completed scheduling job with every count set. */
export function completedJobAnswer() {
  return {
    job_id: 'job_bench',
    status: 'completed',
    phase: 'completed',
    result: {
      selected: 120,
      materialized: 112,
      created_workflows: 96,
      reused_workflows: 16,
      plan_limited: 4,
      needs_reconnect: 2,
      failed: 1,
      skipped: 1,
    },
    error: null,
  };
}

/** A full Enterprise analytics document: KPIs, credit pool, 40 members, daily series, deprecated zeros. */
export function analyticsAnswer() {
  const members = Array.from({ length: 40 }, (_, i) => ({
    user_id: `usr_${String(i + 1).padStart(3, '0')}`,
    email: `member${i + 1}@bench.example.com`,
    display_name: `Member ${i + 1}`,
    role: i === 0 ? 'owner' : i < 4 ? 'admin' : 'member',
    daily_message_limit: 200,
    messages_used_today: (i * 37) % 230,
    messages_used_this_month: (i * 611) % 4200,
    bonus_credits: i % 5 === 0 ? 50 : 0,
    over_limit: (i * 37) % 230 > 200,
    last_active_at: `2026-11-${String(1 + (i % 21)).padStart(2, '0')}T09:00:00Z`,
  }));
  const days = Array.from({ length: 30 }, (_, i) => ({
    date: `2026-10-${String(i + 1).padStart(2, '0')}`,
    messages: 900 + ((i * 131) % 700),
    active_members: 20 + (i % 15),
    credits_spent: 400 + ((i * 53) % 300),
  }));
  return {
    workspace_id: 'ws_bench',
    generated_at: '2026-11-22T09:00:00Z',
    summary: {
      members: members.length,
      apps: 14,
      active_members_today: 31,
      messages_today: 1532,
      messages_this_month: 28911,
      credits_remaining: 18250,
      average_messages_per_member: 38.27,
    },
    credit_pool: {
      tier: 'enterprise_3',
      daily_message_limit: 5000,
      messages_used_today: 1532,
      monthly_message_limit: 120000,
      messages_used_this_month: 28911,
      bonus_credits: 750,
      gift_card_balance_cents: 12500,
      over_daily_limit: false,
      over_monthly_limit: false,
      renews_on: '2026-12-01',
    },
    member_allocations: members,
    seats: { total: 0, used: 0, available: 0 },
    user_distribution: { by_seat_type: { full: 0, lite: 0, viewer: 0 } },
    daily_usage: days,
    usage_forecast: { projected_messages_this_month: 41000, confidence: 'medium' },
  };
}

/** The most campaigns the list answers (50, no paging), with live metrics. */
export function campaignListAnswer() {
  return Array.from({ length: 50 }, (_, i) => ({
    id: `cmp_bench_${String(i + 1).padStart(2, '0')}`,
    adnet_campaign_id: String(7100000100 + i),
    campaign_name: `Bench campaign ${i + 1}: ${['Spring launch', 'Brand', 'Retargeting', 'Local search', 'Holiday'][i % 5]} for region ${i % 7}`,
    campaign_type: i % 3 ? 'PERFORMANCE_MAX' : 'SMART',
    status: i % 11 === 0 ? 'REMOVED' : i % 4 === 0 ? 'PAUSED' : 'ENABLED',
    daily_budget_micros: (10 + (i % 9) * 5) * 1_000_000,
    start_date: `2026-${String(1 + (i % 10)).padStart(2, '0')}-01`,
    impressions: 120_000 - i * 1_900,
    clicks: 2_400 - i * 37,
    cost_micros: (9_000 - i * 150) * 1_000_000,
    conversions: 140 - i * 2,
    metrics_pending: false,
  }));
}

/** A whole social calendar of 2,000 posts (the list has no paging and grows). */
export function socialPostsAnswer() {
  const statuses = ['proposal', 'approved', 'scheduled', 'published', 'failed'];
  return Array.from({ length: 2_000 }, (_, i) => ({
    id: `post_${String(i + 1).padStart(4, '0')}`,
    platform: i % 2 ? 'linkedin' : 'instagram',
    title: `Post ${i + 1}: tips for planning week ${1 + (i % 52)}`,
    body: `A longer body for post ${i + 1} with practical advice, a call to action and a link to the planner. `.repeat(3),
    scheduled_at: new Date(Date.UTC(2026, 0, 1) + i * 4 * 3_600_000).toISOString(),
    scheduled_timezone: 'Europe/Berlin',
    scheduled_local_at: new Date(Date.UTC(2026, 0, 1) + i * 4 * 3_600_000 + 3_600_000).toISOString().replace('Z', ''),
    hashtags: ['planning', 'productivity', `week${1 + (i % 52)}`],
    image_url: `https://files.bench.example.com/posts/${i + 1}.png`,
    status: statuses[i % statuses.length],
  }));
}

/** 50 builder-chat messages of 2,000 characters, the newest a question the AI waits on. */
export function conversationAnswer() {
  return Array.from({ length: 50 }, (_, i) => ({
    id: `msg_${i + 1}`,
    role: i % 2 ? 'assistant' : 'user',
    content: `Message ${i + 1}. ${'The planner now shows the weekly view with the new colours and the updated navigation. '.repeat(23)}`,
    hidden: false,
    tool_calls: i % 2 ? [{ id: `call_${i}`, name: i === 49 ? 'ask_user' : 'edit_files', status: i === 49 ? 'waiting_for_user_input' : 'completed' }] : [],
  }));
}

/** One read tool per entry: the arguments, the request it makes, and the answer to give it. */
export const READ_FIXTURES = [
  {
    name: '30 suggestions, long descriptions',
    tool: 'list_campaign_suggestions',
    args: { app_id: APP, campaign_id: CAMPAIGN },
    method: 'GET',
    path: `/api/apps/${APP}/adnet-ads/campaigns/${CAMPAIGN}/optimization-suggestions`,
    answer: suggestionsAnswer(),
  },
  {
    name: 'completed job',
    tool: 'get_scheduling_job',
    args: { app_id: APP, job_id: 'job_bench' },
    method: 'GET',
    path: `/api/apps/${APP}/social-calendar/posts/schedule/job_bench`,
    answer: completedJobAnswer(),
  },
  {
    name: 'full analytics document',
    tool: 'get_workspace_analytics',
    args: { workspace_id: 'ws_bench' },
    method: 'GET',
    path: '/api/v1/monitoring/analytics/ws_bench',
    answer: analyticsAnswer(),
  },
  {
    name: '50 campaigns with metrics',
    tool: 'list_ad_campaigns',
    args: { app_id: APP, include_metrics: true },
    method: 'GET',
    path: `/api/apps/${APP}/adnet-ads/campaigns`,
    answer: campaignListAnswer(),
  },
  {
    name: 'calendar of 2,000 posts',
    tool: 'list_social_posts',
    args: { app_id: APP },
    method: 'GET',
    path: `/api/apps/${APP}/social-calendar/posts`,
    answer: socialPostsAnswer(),
  },
  {
    name: '50 long chat messages',
    tool: 'read_app_conversation',
    args: { app_id: APP, limit: 50 },
    method: 'GET',
    path: `/api/apps/${APP}/chat/full-conversation`,
    answer: conversationAnswer(),
  },
];
