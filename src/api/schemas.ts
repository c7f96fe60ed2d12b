import { z } from 'zod';
import { limit, mapStrings } from '../text.js';

/**
 * What the API answers. Lenient: unknown fields pass, so new fields never break a tool. Strict on
 * size: every string is cut to the limit of its kind here, before any tool sees it, and an id too
 * long to be one makes the answer malformed (issue 16: one 512 KiB id froze the server).
 */

/** Ids the service writes are short (cmp_..., UUIDs, resource names); one longer than this is not an id. */
export const MAX_ID_CHARS = 200;
/** Names, titles, statuses and other one-line values: five times the longest any tool shows (200). */
export const MAX_NAME_CHARS = 1_000;
/** Descriptions, messages, bodies, error texts, and any field not named here: more than any tool shows (chat input is at most 8,000). */
export const MAX_TEXT_CHARS = 10_000;
/** An email's HTML: Gmail clips messages over 102 KB, so a template longer than this is clipped for its readers anyway. */
export const MAX_HTML_CHARS = 110_000;

/** An id: a string of at most MAX_ID_CHARS, else the answer is malformed (the length is named, never the value). */
const id = z.string().max(MAX_ID_CHARS, {
  error: (issue) => `the service answered with an id of ${String((issue.input as string).length)} characters; ids are at most ${MAX_ID_CHARS}`,
});
const nullableId = id.nullish();
/** A one-line value, cut to MAX_NAME_CHARS. */
const name = z.string().transform((text) => limit(text, MAX_NAME_CHARS));
const nullableName = name.nullish();
/** Long text, cut to MAX_TEXT_CHARS. */
const text = z.string().transform((value) => limit(value, MAX_TEXT_CHARS));
const nullableText = text.nullish();
const nullableHtml = z.string().transform((value) => limit(value, MAX_HTML_CHARS)).nullish();
/** A value of a shape not given: every string in it cut to MAX_TEXT_CHARS, every key to MAX_NAME_CHARS. */
const anyValue = z.unknown().transform((value) => mapStrings(value, (string) => limit(string, MAX_TEXT_CHARS), (key) => limit(key, MAX_NAME_CHARS)));
/** An object whose other fields pass (lenient), each cut like a value of a shape not given. */
const loose = <Shape extends z.core.$ZodLooseShape>(shape: Shape) => z.object(shape).catchall(anyValue);

export const CustomizedEmailSchema = loose({
  template_id: id,
  name,
  created: z.boolean(),
});
export type CustomizedEmail = z.infer<typeof CustomizedEmailSchema>;


export const CampaignSchema = loose({
  id,
  adnet_campaign_id: nullableId,
  campaign_name: nullableName,
  campaign_type: nullableName,
  status: name,
  daily_budget_micros: z.number().nullish(),
  landing_page: nullableText,
  geo_targets: z.array(name).nullish(),
  phone_number: nullableName,
  review_status: nullableName,
  serving_status: nullableName,
  primary_status: nullableName,
  primary_status_reasons: z.array(name).nullish(),
  created_date: nullableName,
  updated_date: nullableName,
  learning_ends_at: nullableName,
});
export type Campaign = z.infer<typeof CampaignSchema>;

export const SuggestionSchema = loose({
  id,
  severity: name,
  title: name,
  description: nullableText,
  action: nullableName,
  action_payload: z
    .looseObject({
      campaign_ids: z.array(id).nullish(),
      field: nullableName,
      value: z.number().nullish(),
    })
    .nullish(),
  source: nullableName,
  recommendation_type: nullableName,
  /** On CAMPAIGN_BUDGET suggestions (documented): what apply_budget_recommendation sends back. */
  recommendation_resource_name: nullableId,
  recommended_daily_budget_micros: z.number().nullish(),
});
export const SuggestionsSchema = z.array(SuggestionSchema);
export type Suggestion = z.infer<typeof SuggestionSchema>;

export const GroupShareResultSchema = loose({
  results: z.array(
    loose({
      group_id: id,
      success: z.boolean(),
      reason: nullableText,
      error: nullableText,
    }),
  ),
});
export type GroupShareResult = z.infer<typeof GroupShareResultSchema>;

export const JobResultSchema = loose({
  selected: z.number(),
  materialized: z.number(),
  created_workflows: z.number(),
  reused_workflows: z.number(),
  plan_limited: z.number(),
  needs_reconnect: z.number(),
  failed: z.number(),
  skipped: z.number(),
});
export const SchedulingJobSchema = loose({
  job_id: id,
  status: name,
  phase: nullableName,
  result: JobResultSchema.partial().nullish(),
  error: nullableText,
});
export type SchedulingJob = z.infer<typeof SchedulingJobSchema>;

/** `message` is read leniently (our choice): a wrong type is ignored, not a failure. */
export const ResolveOutcomeSchema = loose({ status: name, message: anyValue.optional() });
export type ResolveOutcome = z.infer<typeof ResolveOutcomeSchema>;

export const PushOutcomeSchema = loose({
  success: z.boolean(),
  commits_pushed: z.boolean().nullish(),
  skipped: z.boolean().nullish(),
  commit_hash: nullableId,
  error: nullableText,
  duration_ms: z.number().nullish(),
});
export type PushOutcome = z.infer<typeof PushOutcomeSchema>;

/** Shape not given by the spec; known keys are summarized, the rest are named. */
export const AnalyticsSchema = z.record(name, anyValue);
export type Analytics = z.infer<typeof AnalyticsSchema>;

// The referenced operations (spec 4.9). Field names marked "our choice" in service-facts.md are
// optional here, so a different real shape degrades to "not given" instead of failing the call.

/** A row of the campaign list: the metrics are zero and `metrics_pending` true without include_metrics. */
export const CampaignRowSchema = loose({
  id,
  adnet_campaign_id: nullableId,
  campaign_name: nullableName,
  campaign_type: nullableName,
  status: name,
  daily_budget_micros: z.number().nullish(),
  start_date: nullableName,
  impressions: z.number().nullish(),
  clicks: z.number().nullish(),
  cost_micros: z.number().nullish(),
  conversions: z.number().nullish(),
  metrics_pending: z.boolean().nullish(),
});
export const CampaignListSchema = z.array(CampaignRowSchema);
export type CampaignRow = z.infer<typeof CampaignRowSchema>;

/** Pause, resume and delete answer `{"action": "paused" | "resumed" | "deleted"}` (field name our choice). */
export const CampaignActionSchema = loose({ action: nullableName });

/** Our choice: `{already_applied, daily_budget_micros}`. */
export const AppliedBudgetSchema = loose({ already_applied: z.boolean().nullish(), daily_budget_micros: z.number().nullish() });
export type AppliedBudget = z.infer<typeof AppliedBudgetSchema>;

/** One boolean, always true (name our choice). */
export const DismissedSchema = loose({ dismissed: z.boolean().nullish() });

/** `authored_status` documented; its values and the other fields are our choice. */
export const EmailPreviewSchema = loose({ authored_status: name, subject: nullableName, html: nullableHtml });
export type EmailPreview = z.infer<typeof EmailPreviewSchema>;

/** A template row, without HTML (row fields our choice). */
export const EmailTemplateRowSchema = loose({ id, name: nullableName, subject: nullableName, updated_date: nullableName });
export const EmailTemplateListSchema = z.array(EmailTemplateRowSchema);
export type EmailTemplateRow = z.infer<typeof EmailTemplateRowSchema>;
export const EmailTemplateSchema = EmailTemplateRowSchema.extend({ html: nullableHtml });
export type EmailTemplate = z.infer<typeof EmailTemplateSchema>;

/** Our choice: `{"deleted": true}`. */
export const DeletedSchema = loose({ deleted: z.boolean().nullish() });

/** A group share (row fields our choice); `role` null means the default user role. */
export const GroupShareSchema = loose({
  id,
  group_id: nullableId,
  group_name: nullableName,
  role: nullableName,
  created_date: nullableName,
});
export const GroupShareListSchema = z.array(GroupShareSchema);
export type GroupShare = z.infer<typeof GroupShareSchema>;

/** Our choice: `{"removed": true}`. */
export const RemovedSchema = loose({ removed: z.boolean().nullish() });

/** A scheduled post (documented fields; `id` our choice). `status`: proposal, scheduled, failed, others may exist. */
export const SocialPostSchema = loose({
  id: nullableId,
  platform: nullableName,
  title: nullableName,
  body: nullableText,
  scheduled_at: nullableName,
  scheduled_timezone: nullableName,
  scheduled_local_at: nullableName,
  hashtags: z.array(name).nullish(),
  image_url: nullableText,
  status: nullableName,
});
export const SocialPostListSchema = z.array(SocialPostSchema);
export type SocialPost = z.infer<typeof SocialPostSchema>;

/** 202 `{"job_id": ...}` (documented). */
export const SchedulingStartedSchema = loose({ job_id: id });

/** Always 200; `synced` and `error` documented, the other names our choice. */
export const PullOutcomeSchema = loose({
  synced: z.boolean().nullish(),
  already_up_to_date: z.boolean().nullish(),
  commit_count: z.number().nullish(),
  head_sha: nullableId,
  error: nullableText,
  error_message: nullableText,
});
export type PullOutcome = z.infer<typeof PullOutcomeSchema>;

const ToolCallSchema = loose({ id: nullableId, name: nullableName, status: nullableName });
export const ChatMessageSchema = loose({
  id: nullableId,
  role: nullableName,
  content: nullableText,
  hidden: z.boolean().nullish(),
  tool_calls: z.array(ToolCallSchema).nullish(),
});
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

/** The app once a turn settles, or `{"queued": true}` when a busy builder queued the message. */
export const ChatTurnSchema = loose({
  queued: z.boolean().nullish(),
  id: nullableId,
  name: nullableName,
  status: loose({ state: nullableName, error_source: nullableName }).nullish(),
  conversation: loose({ messages: z.array(ChatMessageSchema).nullish() }).nullish(),
});
export type ChatTurn = z.infer<typeof ChatTurnSchema>;

/** Oldest first; the answer is a list of messages, or an object holding `messages` (our choice: both are read). */
export const ConversationSchema = z.union([
  z.array(ChatMessageSchema).transform((messages) => ({ messages })),
  loose({ messages: z.array(ChatMessageSchema) }),
]);
export type Conversation = z.infer<typeof ConversationSchema>;

/** `{"status": "healthy", ...}` (documented). */
export const HealthSchema = loose({ status: name });
