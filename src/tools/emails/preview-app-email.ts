import { z } from 'zod';
import type { EmailPreview } from '../../api/schemas.js';
import { idText, quote, sanitize } from '../../text.js';
import { defineTool, type ToolContext, type ToolResult } from '../define.js';
import { appId } from '../fields.js';
import { aside, capitalized, stepTo } from '../format.js';
import { EMAIL_TYPES, htmlExcerpt, type EmailType } from './email-text.js';

/** Characters of HTML shown: enough to recognise the email, a few hundred tokens at most. */
export const PREVIEW_HTML_CHARS = 800;

// authored_status values are our choice (service facts): the service's version, the app's own, or
// the app's own that is not sent (email_verification needs the app's own domain and a review).
const MEANING: Record<string, string> = {
  builtin: "the service's built-in version is sent; the app has no version of its own",
  custom: "the app's own version is sent",
  custom_not_sent:
    "the app has its own version, but the service's built-in one is sent: for email_verification the app must send from its own email domain and its version must pass review",
};

export const previewAppEmail = defineTool({
  name: 'preview_app_email',
  title: 'Preview App Email',
  description:
    'Show an application email as recipients get it (sample values) and which version is sent: authored_status builtin, custom or custom_not_sent. Read-only.',
  input: {
    app_id: appId,
    email_type: z.enum(EMAIL_TYPES).describe('Which application email.'),
  },
  output: {
    email_type: z.string(),
    authored_status: z.string().describe('builtin, custom or custom_not_sent'),
    subject: z.string(),
    html_excerpt: z.string().describe(`At most ${PREVIEW_HTML_CHARS} characters.`),
    html_length: z.number().describe('Characters of the whole HTML.'),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  cost: 'none',
  statusHints: {
    401: 'The access token is missing, invalid or expired. Set APPMGMT_ACCESS_TOKEN to a valid personal access token.',
    403: 'Not allowed: the token may not read this app (workspace API keys are refused).',
    404: "App not found (or not in the token's workspace), or not one of the four email types. Check app_id.",
    429: 'Rate limit: 20 previews per minute (times the plan multiplier).',
    read_only: 'Previews need a full-access token even though they change nothing: set APPMGMT_ACCESS_TOKEN to a full_access personal access token. Retrying will not help.',
  },
  async run({ app_id, email_type }, ctx) {
    const preview = await ctx.api.previewAppEmail(app_id, email_type, { signal: ctx.signal });
    return describePreview(ctx, app_id, email_type, preview);
  },
});

function describePreview(ctx: ToolContext, app: string, type: EmailType, preview: EmailPreview): ToolResult {
  const status = sanitize(preview.authored_status, 40);
  const html = htmlExcerpt(preview.html, PREVIEW_HTML_CHARS);
  const meaning = MEANING[status] ?? 'a value this server does not know; read it as the service wrote it';
  const lines = [
    `Preview of the ${type} email of app ${idText(app)}: authored_status ${idText(status)}: ${meaning}.`,
    `Subject: ${quote(preview.subject ?? '', 300)}`,
    html.line,
  ];
  return {
    text: lines.join('\n'),
    next: nextStep(ctx, app, type, status),
    structured: {
      email_type: type,
      authored_status: status,
      subject: sanitize(preview.subject ?? '', 300),
      html_excerpt: html.excerpt,
      html_length: html.length,
    },
  };
}

function nextStep(ctx: ToolContext, app: string, type: EmailType, status: string): string {
  const templates = aside(ctx, 'list_email_templates', { app_id: app }, (call) => call);
  const read = templates && aside(ctx, 'get_email_template', {}, (call) => `to read the app's version, call ${templates} for its template_id, then ${call}`);
  if (status === 'builtin') {
    return stepTo(ctx, 'customize_app_email', { app_id: app, email_type: type }, (call) => `To give the app its own editable version, call ${call}.`);
  }
  if (status === 'custom_not_sent') {
    return `The built-in version stays in use until the app sends from its own verified email domain and passes review (set up in the service)${read ? `; ${read}` : ''}.`;
  }
  const edit = aside(ctx, 'send_app_chat_message', {}, (call) => `${call} asks the app's AI to change it`);
  const steps = [read, edit].filter(Boolean);
  if (steps.length === 0) return 'Nothing more is needed: the preview above is what recipients get.';
  return `${capitalized(steps.join('; '))}.`;
}
