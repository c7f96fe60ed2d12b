import type { WorldInput } from './world.js';

/** Campaigns and scheduling jobs of the default world (table in default-world.ts). */

const day = (days_ago: number, impressions: number, clicks: number, conversions: number, cost: number, budget_limited = false) => ({
  days_ago,
  impressions,
  clicks,
  conversions,
  cost_micros: cost * 1_000_000,
  budget_limited,
});

export const DEFAULT_CAMPAIGNS: WorldInput['campaigns'] = [
  {
    id: 'cmp_demo',
    app_id: 'app_demo',
    adnet_campaign_id: '7100000001',
    campaign_name: 'Demo Planner - Spring launch',
    campaign_type: 'PERFORMANCE_MAX',
    status: 'ENABLED',
    daily_budget_micros: 20_000_000,
    landing_page: 'https://demo-planner.sandbox.test/',
    geo_targets: ['2840'],
    sitelink_count: 2,
    review_status: 'REVIEWED',
    serving_status: 'SERVING',
    primary_status: 'LIMITED',
    primary_status_reasons: ['CAMPAIGN_BUDGET_LIMITED'],
    created_days_ago: 30,
    metrics: [
      // Last 14 days: budget-limited on five days and a low click rate.
      ...[1, 2, 3, 4, 5].map((d) => day(d, 1600, 13, 1, 20, true)),
      ...[6, 7, 8, 9, 10].map((d) => day(d, 1400, 11, 1, 18)),
      // Older than the 14-day window: many clicks and no conversions, which must not count.
      ...[20, 21, 22, 23].map((d) => day(d, 3000, 90, 0, 20)),
    ],
    adnet_recommendations: [
      {
        id: 'adnet_rec_budget_7100000001',
        recommendation_type: 'CAMPAIGN_BUDGET',
        severity: 'high',
        title: 'Raise your budget',
        description: 'Your campaign is limited by budget. Raise the daily budget to 35.00 USD to get more conversions.',
        recommended_budget_micros: 35_000_000,
      },
      {
        id: 'adnet_rec_strength_7100000001',
        recommendation_type: 'AD_STRENGTH_DROP',
        severity: 'medium',
        title: 'Ad strength dropped to Poor',
        description: 'Add more distinct headlines and images to improve ad strength.',
      },
      {
        id: 'adnet_rec_budget_7100009999',
        recommendation_type: 'CAMPAIGN_BUDGET',
        severity: 'low',
        title: 'Raise the budget of a campaign the app does not know',
        description: 'A campaign created outside the app is limited by budget.',
        recommended_budget_micros: 15_000_000,
        adnet_campaign_id: '7100009999',
      },
    ],
  },
  {
    id: 'cmp_quiet',
    app_id: 'app_demo',
    adnet_campaign_id: '7100000002',
    campaign_name: 'Demo Planner - Brand',
    campaign_type: 'SMART',
    status: 'ENABLED',
    daily_budget_micros: 10_000_000,
    landing_page: 'https://demo-planner.sandbox.test/brand',
    geo_targets: ['2840', '2124'],
    review_status: 'REVIEWED',
    serving_status: 'SERVING',
    primary_status: 'ELIGIBLE',
    created_days_ago: 60,
    metrics: [1, 2, 3, 4, 5, 6, 7].map((d) => day(d, 800, 40, 4, 8)),
  },
];

export const DEFAULT_JOBS: WorldInput['jobs'] = [
  {
    id: 'job_running',
    app_id: 'app_demo',
    starts_after_ms: 5_000,
    phase_ms: { prepare: 10_000, sandbox_sync: 20_000, finalize: 5_000 },
    result: { selected: 12, materialized: 12, created_workflows: 9, reused_workflows: 3 },
  },
  {
    id: 'job_failed',
    app_id: 'app_demo',
    phase_ms: { prepare: 5_000, sandbox_sync: 10_000, finalize: 5_000 },
    fails_in_phase: 'sandbox_sync',
  },
  { id: 'job_empty', app_id: 'app_demo', empty_range: true },
  {
    id: 'job_partial',
    app_id: 'app_demo',
    phase_ms: { prepare: 1_000, sandbox_sync: 2_000, finalize: 1_000 },
    result: { selected: 10, materialized: 9, created_workflows: 5, reused_workflows: 1, plan_limited: 2, needs_reconnect: 1, failed: 1, skipped: 1 },
  },
];
