import { z } from 'zod';
import { BuilderChatSchema } from './world-schema-chat.js';
import { EmailTemplateSchema } from './world-schema-emails.js';

/** Zod schemas of the sandbox world's parts. Times are offsets from the moment the world starts. */

const Id = z.string().min(1);
const Count = z.number().int().nonnegative();
const Ms = z.number().int().nonnegative();

export const WorkspaceRoleSchema = z.enum(['owner', 'admin', 'editor', 'member']);
export const AppAccessSchema = z.enum(['editor', 'viewer']);
export const PermissionSchema = z.enum(['full_access', 'read_only']);
export { EmailTypeSchema } from './world-schema-emails.js';
export const ResolutionOutcomeSchema = z.enum(['resolved', 'apply_pending', 'needs_input', 'conflict', 'failed']);
export const RateLimitedOperationSchema = z.enum(['email_customization', 'group_sharing', 'social_calendar', 'social_calendar_writes', 'repo_sync']);

export const WorkspaceSchema = z.strictObject({
  id: Id,
  name: z.string(),
  plan: z.strictObject({
    name: z.string().min(1),
    paid_features: z.boolean(),
    workspace_groups: z.boolean(),
    /** Section 8 / service facts: base limits are multiplied by plan (1x, 2x, 3x, 5x, 10x). */
    rate_limit_multiplier: z.number().positive().default(1),
  }),
  payment_method: z.boolean(),
  good_standing: z.boolean(),
  eu_advertiser: z.boolean().default(false),
  political_declaration_on_file: z.boolean().default(false),
  conversion_tracking_verified: z.boolean(),
  /** Suggestion ids dismissed for the whole account, oldest first (the service keeps a bounded number). */
  dismissed_insights: z.array(z.string()).default([]),
  currency: z.string().regex(/^[A-Z]{3}$/, 'expected a three-letter currency code such as USD'),
  min_daily_budget_micros: Count,
  credits: Count,
  credits_per_ai_turn: z.number().int().positive().default(5),
  /** "Some workspaces have a different limit" (section 8): a different base, still multiplied by plan. */
  rate_limits: z.partialRecord(RateLimitedOperationSchema, z.number().int().positive()).default({}),
  monitoring: z
    .strictObject({
      tier: z.string().default('enterprise'),
      daily_message_limit: Count.default(5000),
      messages_today: Count.default(0),
      monthly_message_limit: Count.default(100_000),
      messages_this_month: Count.default(0),
      bonus_credits: Count.default(0),
      gift_card_balance_cents: Count.default(0),
      member_daily_limit: Count.default(250),
      member_messages_today: z.record(Id, Count).default({}),
    })
    .prefault({}),
});

export const UserSchema = z.strictObject({
  id: Id,
  name: z.string(),
  email: z.string().min(3),
  workspace_roles: z.record(Id, WorkspaceRoleSchema),
  /** Owners and admins edit every app of their workspace; others need an entry here. */
  app_access: z.record(Id, AppAccessSchema).default({}),
});

export const CredentialsSchema = z
  .strictObject({
    access_tokens: z
      .array(
        z.strictObject({
          token: Id,
          user_id: Id,
          workspace_id: Id,
          permission: PermissionSchema,
          /** A token reaches every app of its workspace, or only this one. */
          app_id: Id.optional(),
        }),
      )
      .default([]),
    personal_api_keys: z
      .array(z.strictObject({ key: Id, user_id: Id, workspace_id: Id, permission: PermissionSchema.default('full_access') }))
      .default([]),
    workspace_api_keys: z.array(z.strictObject({ key: Id, workspace_id: Id })).default([]),
  })
  .prefault({});

export const GroupSchema = z.strictObject({
  id: Id,
  workspace_id: Id,
  name: z.string(),
  members: z
    .array(
      z.strictObject({
        id: Id,
        email: z.string().min(3),
        /** Synced from an identity provider but never signed up: access waits for the account (4.4 rule 2). */
        has_account: z.boolean().default(true),
      }),
    )
    .default([]),
});

export const RepositorySchema = z
  .strictObject({
    connection: z.enum(['none', 'error', 'revoked', 'no_installation', 'healthy']),
    name: z.string().default(''),
    default_branch: z.string().min(1).default('main'),
    /** Conflicts left by a pull, waiting for a resolution (4.6). */
    merge_conflicts: z.boolean().default(false),
    conflicted_files: z.array(z.string()).default([]),
    /** Commits on the default branch that the app does not have yet: a pull applies them. */
    remote_commits_ahead: Count.default(0),
    /** Those commits change what the app changed: a pull stops with merge_conflict and leaves conflicted_files. */
    remote_conflicts: z.boolean().default(false),
    /** What a resolution ending needs_input asks in the app's chat. */
    conflict_question: z.string().min(1).default('Both sides changed the same lines of the conflicted files. Keep the app\'s version, the repository\'s, or combine them?'),
    /** Set when a chat message answered that question: the next resolution resolves, the next pull completes the merge. */
    conflict_question_answered: z.boolean().default(false),
    remote_moved_on: z.boolean().default(false),
    resolution_outcome: ResolutionOutcomeSchema.default('resolved'),
    /** Simulated length of one AI turn of conflict resolution. */
    resolution_ms: Ms.default(90_000),
    has_saved_version: z.boolean().default(true),
    saved_version_pushed: z.boolean().default(false),
    push_ms: Ms.default(1_200),
  })
  .prefault({ connection: 'none' });

export const AppSchema = z.strictObject({
  id: Id,
  workspace_id: Id,
  name: z.string(),
  blocked: z.boolean().default(false),
  /** Roles of the app's User entity, lowest first; the first is the default role. */
  roles: z.array(z.string().min(1)).min(1).default(['user', 'admin']),
  /** Member id -> role given directly to that person on this app. */
  direct_roles: z.record(Id, z.string().min(1)).default({}),
  email_templates: z.array(EmailTemplateSchema).default([]),
  /** The app sends from its own verified email domain and passed review: only then is its own email_verification version sent. */
  sends_from_own_domain: z.boolean().default(false),
  group_shares: z
    .array(
      z.strictObject({
        group_id: Id,
        role: z.string().min(1).nullable(),
        share_id: Id.optional(),
        /** When it was shared, in ms from the moment the world starts (negative: before it). */
        created_offset_ms: z.number().int().default(-14 * 86_400_000),
      }),
    )
    .default([]),
  /** Members already sent this app's invitation email. */
  invited_members: z.array(Id).default([]),
  repository: RepositorySchema,
  chat: BuilderChatSchema,
});

export const DemoCredentialsSchema = z.strictObject({
  access_token: Id,
  api_key: Id,
  monitoring_api_key: Id,
});
