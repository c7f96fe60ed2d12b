import { z } from 'zod';
import type { CustomizedEmail } from '../../api/schemas.js';
import { idText, quote, sanitize } from '../../text.js';
import { defineTool, type ToolResult } from '../define.js';
import { appId } from '../fields.js';
import { aside, capitalized, type Steps } from '../format.js';
import { EMAIL_TYPES, type EmailType } from './email-text.js';

export const customizeAppEmail = defineTool({
  name: 'customize_app_email',
  title: 'Customize App Email',
  description:
    "Give the app its own copy of a built-in email, which only the app's AI edits. Needs a paid plan. Safe to repeat. Beta. Edit with send_app_chat_message.",
  input: {
    app_id: appId,
    email_type: z.enum(EMAIL_TYPES).describe('Which built-in email.'),
  },
  output: {
    template_id: z.string(),
    name: z.string().describe('PasswordReset, EmailVerification, UserInvite or AccessApproved'),
    created: z.boolean().describe('false: the app already had it, unchanged'),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  cost: 'none',
  statusHints: {
    401: 'The access token is missing, invalid or expired. Set APPMGMT_ACCESS_TOKEN to a valid personal access token.',
    402: 'The app has no template for this email yet and the workspace plan does not include custom email templates. A paid plan is needed.',
    403: 'Not allowed: customizing needs a personal token of a user with editor access to the app (workspace API keys are refused), and the app must not be blocked.',
    404: "App not found, or not in the token's workspace. Check app_id.",
    429: 'Rate limit: 10 requests per minute per app, shared by every personal token in the workspace.',
  },
  async run({ app_id, email_type }, ctx) {
    const email = await ctx.api.customizeAppEmail(app_id, email_type, { signal: ctx.signal });
    return describeEmail(ctx, app_id, email_type, email);
  },
});

function describeEmail(ctx: Steps, app: string, type: EmailType, email: CustomizedEmail): ToolResult {
  const template = `template ${idText(email.template_id)} (${quote(email.name, 60)})`;
  const sent =
    type === 'email_verification'
      ? `It replaces the built-in verification email only when the app sends from its own email domain and this version passes a review; until then the built-in one is sent${aside(ctx, 'preview_app_email', {}, (call) => ` (${call} shows which, as authored_status)`)}.`
      : 'The app sends this copy instead of the built-in email.';
  const lines = [
    email.created
      ? `Created an editable ${type} email for app ${app}: ${template}.`
      : `App ${app} already had its own ${type} email: ${template}, unchanged.`,
    sent,
  ];
  return {
    text: lines.join('\n'),
    next: emailNext(ctx, app, type),
    structured: { template_id: sanitize(email.template_id, 200), name: sanitize(email.name, 60), created: email.created },
  };
}

/** Check which version is sent, then edit through the app's AI: each when this caller is offered it. */
function emailNext(ctx: Steps, app: string, type: EmailType): string {
  const steps = [
    aside(ctx, 'preview_app_email', { app_id: app, email_type: type }, (call) => `See which version recipients get with ${call}`),
    aside(ctx, 'send_app_chat_message', {}, (call) => `to edit the content, ask the app's AI with ${call}, keeping placeholders such as {{first_name}} and {{action_url}}`),
  ].filter(Boolean);
  if (steps.length === 0) return `Nothing more is needed to create it. Editing it: ${ctx.offered.missing('send_app_chat_message')}`;
  return `${capitalized(steps.join('; '))}.`;
}
