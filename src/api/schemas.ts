import { z } from 'zod';

/** What the API answers. Lenient: unknown fields pass, so new fields never break a tool. */

export const CustomizedEmailSchema = z.looseObject({
  template_id: z.string(),
  name: z.string(),
  created: z.boolean(),
});
export type CustomizedEmail = z.infer<typeof CustomizedEmailSchema>;

const nullableString = z.string().nullish();

export const CampaignSchema = z.looseObject({
  id: z.string(),
  adnet_campaign_id: nullableString,
  campaign_name: nullableString,
  campaign_type: nullableString,
  status: z.string(),
  daily_budget_micros: z.number().nullish(),
  landing_page: nullableString,
  geo_targets: z.array(z.string()).nullish(),
  phone_number: nullableString,
  review_status: nullableString,
  serving_status: nullableString,
  primary_status: nullableString,
  primary_status_reasons: z.array(z.string()).nullish(),
  created_date: nullableString,
  updated_date: nullableString,
  learning_ends_at: nullableString,
});
export type Campaign = z.infer<typeof CampaignSchema>;

export const SuggestionSchema = z.looseObject({
  id: z.string(),
  severity: z.string(),
  title: z.string(),
  description: nullableString,
  action: nullableString,
  action_payload: z
    .looseObject({
      campaign_ids: z.array(z.string()).nullish(),
      field: nullableString,
      value: z.number().nullish(),
    })
    .nullish(),
  source: nullableString,
  recommendation_type: nullableString,
});
export const SuggestionsSchema = z.array(SuggestionSchema);
export type Suggestion = z.infer<typeof SuggestionSchema>;

export const GroupShareResultSchema = z.looseObject({
  results: z.array(
    z.looseObject({
      group_id: z.string(),
      success: z.boolean(),
      reason: nullableString,
      error: nullableString,
    }),
  ),
});
export type GroupShareResult = z.infer<typeof GroupShareResultSchema>;

export const JobResultSchema = z.looseObject({
  selected: z.number(),
  materialized: z.number(),
  created_workflows: z.number(),
  reused_workflows: z.number(),
  plan_limited: z.number(),
  needs_reconnect: z.number(),
  failed: z.number(),
  skipped: z.number(),
});
export const SchedulingJobSchema = z.looseObject({
  job_id: z.string(),
  status: z.string(),
  phase: nullableString,
  result: JobResultSchema.partial().nullish(),
  error: nullableString,
});
export type SchedulingJob = z.infer<typeof SchedulingJobSchema>;

export const ResolveOutcomeSchema = z.looseObject({ status: z.string() });
export type ResolveOutcome = z.infer<typeof ResolveOutcomeSchema>;

export const PushOutcomeSchema = z.looseObject({
  success: z.boolean(),
  commits_pushed: z.boolean().nullish(),
  skipped: z.boolean().nullish(),
  commit_hash: nullableString,
  error: nullableString,
  duration_ms: z.number().nullish(),
});
export type PushOutcome = z.infer<typeof PushOutcomeSchema>;

/** Shape not given by the spec; known keys are summarized, the rest are named. */
export const AnalyticsSchema = z.record(z.string(), z.unknown());
export type Analytics = z.infer<typeof AnalyticsSchema>;
