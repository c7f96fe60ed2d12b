import { z } from 'zod';
import { idText, quote, sanitize } from '../../text.js';
import { defineTool, type ToolContext, type Warning } from '../define.js';
import { appId, id } from '../fields.js';
import { aside, capitalized } from '../format.js';
import { APPLICATION_EMAIL_NAMES, dayOf } from './email-text.js';

const input = {
  app_id: appId,
  template_id: id('From list_email_templates.'),
};
type Args = { app_id: string; template_id: string };

export const deleteEmailTemplate = defineTool({
  name: 'delete_email_template',
  title: 'Delete Email Template',
  description:
    "Delete an email template for good: sends of it by name then fail, and an app's own application email reverts to the built-in one. Needs editor access.",
  input,
  output: {
    template_id: z.string(),
    deleted: z.boolean(),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  cost: 'permanent',
  gate: {
    warn: (args, ctx) => warning(args, ctx),
    unknownOutcome:
      'The template may or may not be deleted (if the service could not remove the file, nothing was deleted). Check with list_email_templates or get_email_template (a 404 means it is gone) before trying again.',
    done: ({ isError }) => (isError ? 'the service answered that the template was not deleted' : 'deleted the template'),
  },
  statusHints: {
    401: 'The access token is missing, invalid or expired. Set APPMGMT_ACCESS_TOKEN to a valid personal access token. Nothing was deleted.',
    403: 'Not allowed: deleting needs a token of a user with editor access to the app (workspace API keys are refused). Nothing was deleted.',
    404: 'App or template not found: it may already be deleted. list_email_templates shows the current template_ids.',
    429: 'Rate limit: 20 deletes per minute (times the plan multiplier). Nothing was deleted.',
    read_only: 'Deleting needs a full-access token: set APPMGMT_ACCESS_TOKEN to a full_access personal access token. Nothing was deleted.',
  },
  async run({ app_id, template_id }, ctx) {
    const answer = await ctx.api.deleteEmailTemplate(app_id, template_id, { signal: ctx.signal });
    const shown = idText(template_id);
    if (answer.deleted === false) {
      return {
        isError: true,
        text: `The service answered that template ${shown} was not deleted (the file could not be removed); nothing changed, so a retry is safe.`,
        next: `Call delete_email_template again without confirm for a fresh warning${aside(ctx, 'list_email_templates', { app_id }, (call) => `, or check with ${call}`)}.`,
      };
    }
    return {
      text: `Deleted email template ${shown} of app ${idText(app_id)}. If it was the app's own version of an application email, the built-in version is sent again.`,
      next: afterDelete(ctx, app_id),
      structured: { template_id: sanitize(template_id, 200), deleted: true },
    };
  },
});

/**
 * Reads the template (never writes) to say exactly what disappears and which case applies. The same
 * read proves the token, the app and the template before the gate remembers anything (issue 16).
 */
async function warning({ app_id, template_id }: Args, ctx: ToolContext): Promise<Warning> {
  const template = await ctx.api.getEmailTemplate(app_id, template_id, { signal: ctx.signal });
  const name = sanitize(template.name ?? '', 100);
  const type = APPLICATION_EMAIL_NAMES[name];
  const updated = template.updated_date ? `, updated ${dayOf(template.updated_date)}` : '';
  const details = [
    `Template: ${quote(name, 100)}, subject ${quote(template.subject ?? '', 150)}${updated}, HTML ${(template.html ?? '').length} characters.`,
    `Workflows and backend functions that send ${quote(name, 100)} by name keep that name in their code: those sends fail once it is gone.`,
  ];
  if (type) {
    details.push(
      `This is the app's own version of the ${type} email: the app sends the service's built-in ${type} email again${aside(ctx, 'customize_app_email', {}, (call) => ` (${call} makes a fresh copy of the built-in one, not of this content)`)}.`,
    );
  }
  details.push('Needs editor access. If the service cannot remove the file, nothing is deleted and a retry is safe.');
  return {
    action: `Delete email template ${idText(template_id)} (${quote(name, 100)}) of app ${idText(app_id)}`,
    // What changes for recipients and senders is part of the decision, so it is in the cost line too
    // (clients that show only the structured warning see it).
    cost: `Permanent: the template and its content are deleted and cannot be restored${type ? `; the app then sends the built-in ${type} email` : ''}; sends of ${quote(name, 100)} by name fail.`,
    details,
  };
}

/** Where a deleted template's effect shows: the application email now sent, and the templates left. */
function afterDelete(ctx: ToolContext, app_id: string): string {
  const steps = [
    aside(ctx, 'preview_app_email', { app_id }, (call) => `check which version an application email sends now with ${call} plus its email_type`),
    aside(ctx, 'list_email_templates', { app_id }, (call) => `see the remaining templates with ${call}`),
  ].filter(Boolean);
  if (steps.length === 0) return 'Nothing more is needed.';
  return `${capitalized(steps.join(', or '))}.`;
}
