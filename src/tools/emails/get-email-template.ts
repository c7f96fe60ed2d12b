import { z } from 'zod';
import type { EmailTemplate } from '../../api/schemas.js';
import { idText, quote, sanitize } from '../../text.js';
import { defineTool, type ToolContext, type ToolResult } from '../define.js';
import { appId, id } from '../fields.js';
import { aside, stepTo } from '../format.js';
import { APPLICATION_EMAIL_NAMES, dayOf, htmlExcerpt } from './email-text.js';

/** Characters of HTML shown: about 500 tokens, so text and structured facts stay under 2,000 together. */
export const TEMPLATE_HTML_CHARS = 1_500;

export const getEmailTemplate = defineTool({
  name: 'get_email_template',
  title: 'Get Email Template',
  description: `One email template: name, subject, HTML (first ${TEMPLATE_HTML_CHARS} characters) and length. Read-only. To edit, ask the app's AI (send_app_chat_message).`,
  input: {
    app_id: appId,
    template_id: id('From list_email_templates.'),
  },
  output: {
    template_id: z.string(),
    name: z.string(),
    subject: z.string(),
    updated_date: z.string(),
    html_excerpt: z.string().describe(`At most ${TEMPLATE_HTML_CHARS} characters.`),
    html_length: z.number().describe('Characters of the whole HTML.'),
    application_email: z.string().describe('Email type when it is the app\'s own version of one; else empty.'),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  cost: 'none',
  statusHints: {
    401: 'The access token is missing, invalid or expired. Set APPMGMT_ACCESS_TOKEN to a valid personal access token.',
    403: 'Not allowed: the token may not read this app (workspace API keys are refused).',
    404: 'App or template not found (the template may have been deleted): list_email_templates shows the current template_ids.',
    429: 'Rate limit: 60 template reads per minute (times the plan multiplier), shared with list_email_templates.',
    read_only: 'Reading a template needs a full-access token even though it changes nothing: set APPMGMT_ACCESS_TOKEN to a full_access personal access token. Retrying will not help.',
  },
  async run({ app_id, template_id }, ctx) {
    const template = await ctx.api.getEmailTemplate(app_id, template_id, { signal: ctx.signal });
    return describeTemplate(ctx, app_id, template_id, template);
  },
});

function describeTemplate(ctx: ToolContext, app: string, templateId: string, template: EmailTemplate): ToolResult {
  const name = sanitize(template.name ?? '', 100);
  const html = htmlExcerpt(template.html, TEMPLATE_HTML_CHARS);
  const type = APPLICATION_EMAIL_NAMES[name] ?? '';
  const updated = template.updated_date ? `, updated ${dayOf(template.updated_date)}` : '';
  const lines = [
    `Template ${idText(template.id || templateId)} (${quote(name, 100)}) of app ${idText(app)}${updated}.`,
    ...(type ? [`It is the app's own version of the ${type} email${aside(ctx, 'preview_app_email', {}, (call) => ` (${call} shows whether it is the one sent)`)}.`] : []),
    `Subject: ${quote(template.subject ?? '', 300)}`,
    html.line,
    'No API edits its content: changes are made by the app\'s AI, through a chat message.',
  ];
  return {
    text: lines.join('\n'),
    next: ctx.offered.has('send_app_chat_message')
      ? stepTo(ctx, 'send_app_chat_message', { app_id: app, content: `In the email template ${sanitize(name, 60)}, <the change>` }, (call) => `To change it, call ${call} (costs credits), keeping placeholders such as {{first_name}}.`)
      : `Nothing more is needed to read it. To change it: ${ctx.offered.missing('send_app_chat_message')}`,
    structured: {
      template_id: sanitize(template.id || templateId, 200),
      name,
      subject: sanitize(template.subject ?? '', 300),
      updated_date: sanitize(template.updated_date ?? '', 40),
      html_excerpt: html.excerpt,
      html_length: html.length,
      application_email: type,
    },
  };
}
