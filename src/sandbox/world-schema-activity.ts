import { z } from 'zod';

/** Zod schemas of the world's campaigns, jobs and of what fetching an address finds. */

const Id = z.string().min(1);
const Count = z.number().int().nonnegative();
const Ms = z.number().int().nonnegative();

export const DailyMetricSchema = z.strictObject({
  days_ago: Count,
  impressions: Count,
  clicks: Count,
  conversions: Count,
  cost_micros: Count,
  budget_limited: z.boolean().default(false),
});

export const AdnetRecommendationSchema = z.strictObject({
  id: Id,
  recommendation_type: z.enum(['CAMPAIGN_BUDGET', 'AD_STRENGTH_DROP']),
  severity: z.enum(['high', 'medium', 'low']),
  title: z.string(),
  description: z.string(),
  recommended_budget_micros: Count.optional(),
  /** The platform's campaign it targets; when no campaign of the app has it, `action` is null (2.6). */
  adnet_campaign_id: z.string().optional(),
  /** Applied through the service: gone from the suggestions; applying again answers already_applied. */
  applied: z.boolean().optional(),
});

export const CampaignSchema = z.strictObject({
  id: Id,
  app_id: Id,
  adnet_campaign_id: z.string().default(''),
  campaign_name: z.string(),
  campaign_type: z.enum(['SMART', 'PERFORMANCE_MAX', 'SEARCH', 'DISPLAY', 'SHOPPING', 'VIDEO', 'DEMAND_GEN', 'LOCAL', 'UNKNOWN']),
  status: z.enum(['ENABLED', 'PAUSED', 'REMOVED', 'UNKNOWN']),
  daily_budget_micros: Count,
  landing_page: z.string(),
  geo_targets: z.array(z.string()).default([]),
  phone_number: z.string().default(''),
  sitelink_count: Count.default(0),
  review_status: z.string().default(''),
  serving_status: z.string().default(''),
  primary_status: z.string().default(''),
  primary_status_reasons: z.array(z.string()).default([]),
  created_days_ago: Count.default(0),
  learning_started: z.boolean().default(true),
  metrics: z.array(DailyMetricSchema).default([]),
  adnet_recommendations: z.array(AdnetRecommendationSchema).default([]),
  /** The budget is shared with campaigns not managed here: applying a budget recommendation answers 409. */
  shared_budget: z.boolean().optional(),
  /** Paused by the service itself; resuming pauses it again while the reason holds (service facts). */
  paused_by_service: z.enum(['unpaid_balance', 'conversion_tracking']).optional(),
});

export const JobSchema = z.strictObject({
  id: Id,
  app_id: Id,
  /** The range held nothing to schedule: completed at once (section 3). */
  empty_range: z.boolean().default(false),
  starts_after_ms: Ms.default(0),
  phase_ms: z
    .strictObject({ prepare: Ms.default(10_000), sandbox_sync: Ms.default(20_000), finalize: Ms.default(5_000) })
    .prefault({}),
  fails_in_phase: z.enum(['prepare', 'sandbox_sync', 'finalize']).nullable().default(null),
  /** The half-open window a start-scheduling request asked for (ISO instants); jobs started through the API have one. */
  range: z.strictObject({ from: z.string(), until: z.string() }).optional(),
  /** Posts the job took on: they become `scheduled` once it completes (routes/social-posts.ts). */
  post_ids: z.array(Id).default([]),
  result: z
    .strictObject({
      selected: Count.default(0),
      materialized: Count.default(0),
      created_workflows: Count.default(0),
      reused_workflows: Count.default(0),
      plan_limited: Count.default(0),
      needs_reconnect: Count.default(0),
      failed: Count.default(0),
      skipped: Count.default(0),
    })
    .prefault({}),
});

const ResourceSchema = z.discriminatedUnion('kind', [
  z.strictObject({ url: Id, kind: z.literal('image'), bytes: Count, width: Count, height: Count }),
  z.strictObject({ url: Id, kind: z.literal('not_image'), content_type: z.string().default('text/html') }),
  z.strictObject({ url: Id, kind: z.literal('no_response') }),
]);

/** What the service and the ad platform find when they fetch an address. */
export const WebSchema = z
  .strictObject({
    /** Hosts the service fetches images from; an image elsewhere counts as "another host" (4.2 rule 4). */
    asset_hosts: z.array(Id).min(1).default(['files.sandbox.test']),
    unreachable_hosts: z.array(Id).default([]),
    /** Addresses on an asset host not listed here are ordinary 1200x1200 images of 250 kB. */
    resources: z.array(ResourceSchema).default([]),
  })
  .prefault({});

export const AdnetSchema = z
  .strictObject({
    reachable: z.boolean().default(true),
    /** Words the platform's ad-text policy review rejects (case-insensitive). */
    blocked_words: z.array(z.string().min(1)).default([]),
  })
  .prefault({});
