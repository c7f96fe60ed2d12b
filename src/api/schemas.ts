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
  /** On CAMPAIGN_BUDGET suggestions (documented): what apply_budget_recommendation sends back. */
  recommendation_resource_name: nullableString,
  recommended_daily_budget_micros: z.number().nullish(),
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

/** `message` is read leniently (our choice): a wrong type is ignored, not a failure. */
export const ResolveOutcomeSchema = z.looseObject({ status: z.string(), message: z.unknown().optional() });
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

// The referenced operations (spec 4.9). Field names marked "our choice" in service-facts.md are
// optional here, so a different real shape degrades to "not given" instead of failing the call.

/** A row of the campaign list: the metrics are zero and `metrics_pending` true without include_metrics. */
export const CampaignRowSchema = z.looseObject({
  id: z.string(),
  adnet_campaign_id: nullableString,
  campaign_name: nullableString,
  campaign_type: nullableString,
  status: z.string(),
  daily_budget_micros: z.number().nullish(),
  start_date: nullableString,
  impressions: z.number().nullish(),
  clicks: z.number().nullish(),
  cost_micros: z.number().nullish(),
  conversions: z.number().nullish(),
  metrics_pending: z.boolean().nullish(),
});
export const CampaignListSchema = z.array(CampaignRowSchema);
export type CampaignRow = z.infer<typeof CampaignRowSchema>;

/** Pause, resume and delete answer `{"action": "paused" | "resumed" | "deleted"}` (field name our choice). */
export const CampaignActionSchema = z.looseObject({ action: nullableString });

/** Our choice: `{already_applied, daily_budget_micros}`. */
export const AppliedBudgetSchema = z.looseObject({ already_applied: z.boolean().nullish(), daily_budget_micros: z.number().nullish() });
export type AppliedBudget = z.infer<typeof AppliedBudgetSchema>;

/** One boolean, always true (name our choice). */
export const DismissedSchema = z.looseObject({ dismissed: z.boolean().nullish() });

/** `authored_status` documented; its values and the other fields are our choice. */
export const EmailPreviewSchema = z.looseObject({ authored_status: z.string(), subject: nullableString, html: nullableString });
export type EmailPreview = z.infer<typeof EmailPreviewSchema>;

/** A template row, without HTML (row fields our choice). */
export const EmailTemplateRowSchema = z.looseObject({ id: z.string(), name: nullableString, subject: nullableString, updated_date: nullableString });
export const EmailTemplateListSchema = z.array(EmailTemplateRowSchema);
export type EmailTemplateRow = z.infer<typeof EmailTemplateRowSchema>;
export const EmailTemplateSchema = EmailTemplateRowSchema.extend({ html: nullableString });
export type EmailTemplate = z.infer<typeof EmailTemplateSchema>;

/** Our choice: `{"deleted": true}`. */
export const DeletedSchema = z.looseObject({ deleted: z.boolean().nullish() });

/** A group share (row fields our choice); `role` null means the default user role. */
export const GroupShareSchema = z.looseObject({
  id: z.string(),
  group_id: nullableString,
  group_name: nullableString,
  role: nullableString,
  created_date: nullableString,
});
export const GroupShareListSchema = z.array(GroupShareSchema);
export type GroupShare = z.infer<typeof GroupShareSchema>;

/** Our choice: `{"removed": true}`. */
export const RemovedSchema = z.looseObject({ removed: z.boolean().nullish() });

/** A scheduled post (documented fields; `id` our choice). `status`: proposal, scheduled, failed, others may exist. */
export const SocialPostSchema = z.looseObject({
  id: nullableString,
  platform: nullableString,
  title: nullableString,
  body: nullableString,
  scheduled_at: nullableString,
  scheduled_timezone: nullableString,
  scheduled_local_at: nullableString,
  hashtags: z.array(z.string()).nullish(),
  image_url: nullableString,
  status: nullableString,
});
export const SocialPostListSchema = z.array(SocialPostSchema);
export type SocialPost = z.infer<typeof SocialPostSchema>;

/** 202 `{"job_id": ...}` (documented). */
export const SchedulingStartedSchema = z.looseObject({ job_id: z.string() });

/** Always 200; `synced` and `error` documented, the other names our choice. */
export const PullOutcomeSchema = z.looseObject({
  synced: z.boolean().nullish(),
  already_up_to_date: z.boolean().nullish(),
  commit_count: z.number().nullish(),
  head_sha: nullableString,
  error: nullableString,
  error_message: nullableString,
});
export type PullOutcome = z.infer<typeof PullOutcomeSchema>;

const ToolCallSchema = z.looseObject({ id: nullableString, name: nullableString, status: nullableString });
export const ChatMessageSchema = z.looseObject({
  id: nullableString,
  role: nullableString,
  content: nullableString,
  hidden: z.boolean().nullish(),
  tool_calls: z.array(ToolCallSchema).nullish(),
});
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

/** The app once a turn settles, or `{"queued": true}` when a busy builder queued the message. */
export const ChatTurnSchema = z.looseObject({
  queued: z.boolean().nullish(),
  id: nullableString,
  name: nullableString,
  status: z.looseObject({ state: nullableString, error_source: nullableString }).nullish(),
  conversation: z.looseObject({ messages: z.array(ChatMessageSchema).nullish() }).nullish(),
});
export type ChatTurn = z.infer<typeof ChatTurnSchema>;

/** Oldest first; the answer is a list of messages, or an object holding `messages` (our choice: both are read). */
export const ConversationSchema = z.union([
  z.array(ChatMessageSchema).transform((messages) => ({ messages })),
  z.looseObject({ messages: z.array(ChatMessageSchema) }),
]);
export type Conversation = z.infer<typeof ConversationSchema>;

/** `{"status": "healthy", ...}` (documented). */
export const HealthSchema = z.looseObject({ status: z.string() });
