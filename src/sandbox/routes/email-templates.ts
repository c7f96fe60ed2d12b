import { BUILTIN_EMAILS, EMAIL_TYPES, isEmailType, render } from '../builtin-emails.js';
import { fail, invalid, isResponse, ok } from '../respond.js';
import type { Route, RouteContext } from '../router.js';
import { iso, type State } from '../state.js';
import type { SimResponse } from '../types.js';
import type { Workspace } from '../world.js';
import type { EmailTemplate } from '../world-schema-emails.js';
import { guardFullAccess } from './full-access.js';

/** Service facts: the list answers at most 200 templates, with no paging. */
export const MAX_TEMPLATES = 200;
/** Our choice: the documentation names `limit` but not what an absent one means. */
const DEFAULT_LIMIT = 50;

/** Service facts, "Rate limits": base requests per minute, per workspace, times the plan multiplier. */
const LIMITS = { preview: 20, read: 60, delete: 20 } as const;

function limit({ state }: RouteContext, workspace: Workspace, kind: keyof typeof LIMITS): SimResponse | undefined {
  return state.limiter.hit(`email_${kind}:${workspace.id}`, Math.max(1, Math.floor(LIMITS[kind] * workspace.plan.rate_limit_multiplier)));
}

const updatedDate = (state: State, template: EmailTemplate) => iso(state.startedAt + template.updated_offset_ms);
const row = (state: State, template: EmailTemplate) => ({
  id: template.template_id,
  name: template.name,
  subject: template.subject,
  updated_date: updatedDate(state, template),
});

/** Preview application email: which version is sent (`authored_status`), rendered with sample values. */
export const previewEmail: Route = {
  method: 'GET',
  path: '/api/apps/:app_id/emails/system/:email_type/preview',
  handle(context) {
    const guarded = guardFullAccess(context, 'viewer');
    if (isResponse(guarded)) return guarded;
    const { app, workspace } = guarded;
    const emailType = context.params.email_type;
    if (!isEmailType(emailType)) {
      return fail(404, `Unknown email type "${emailType}"; use one of ${EMAIL_TYPES.join(', ')}.`);
    }
    const limited = limit(context, workspace, 'preview');
    if (limited) return limited;
    const own = app.email_templates.find((template) => template.email_type === emailType);
    // Spec 4.1: the app's own verification email is sent only from its own domain, after review.
    const status = !own ? 'builtin' : emailType === 'email_verification' && !app.sends_from_own_domain ? 'custom_not_sent' : 'custom';
    const sent = status === 'custom' && own ? own : BUILTIN_EMAILS[emailType];
    return ok({ email_type: emailType, authored_status: status, subject: render(sent.subject, app.name), html: render(sent.html, app.name) });
  },
};

/** List email templates: newest first, without HTML, at most `limit` and at most 200. */
export const listEmailTemplates: Route = {
  method: 'GET',
  path: '/api/apps/:app_id/emails',
  handle(context) {
    const guarded = guardFullAccess(context, 'viewer');
    if (isResponse(guarded)) return guarded;
    const { app, workspace } = guarded;
    const raw = context.req.query.get('limit');
    const asked = raw === null ? DEFAULT_LIMIT : Number(raw);
    if (!Number.isInteger(asked) || asked < 1) {
      return invalid({ loc: ['query', 'limit'], msg: 'Input should be a positive integer', type: 'int_parsing' });
    }
    const limited = limit(context, workspace, 'read');
    if (limited) return limited;
    const newestFirst = app.email_templates
      .map((template, index) => ({ template, index }))
      .sort((a, b) => b.template.updated_offset_ms - a.template.updated_offset_ms || b.index - a.index);
    return ok(newestFirst.slice(0, Math.min(asked, MAX_TEMPLATES)).map(({ template }) => row(context.state, template)));
  },
};

/** Get email template: one template with its HTML. */
export const getEmailTemplate: Route = {
  method: 'GET',
  path: '/api/apps/:app_id/emails/:template_id',
  handle(context) {
    const guarded = guardFullAccess(context, 'viewer');
    if (isResponse(guarded)) return guarded;
    const limited = limit(context, guarded.workspace, 'read');
    if (limited) return limited;
    const template = guarded.app.email_templates.find((candidate) => candidate.template_id === context.params.template_id);
    if (!template) return fail(404, 'Email template not found.');
    return ok({ ...row(context.state, template), html: template.html });
  },
};

/**
 * Delete email template: permanent. Removing the app's own version of an application email makes
 * the built-in one be sent again (spec section 3), which the preview then reports as `builtin`.
 */
export const deleteEmailTemplate: Route = {
  method: 'DELETE',
  path: '/api/apps/:app_id/emails/:template_id',
  handle(context) {
    const guarded = guardFullAccess(context, 'editor');
    if (isResponse(guarded)) return guarded;
    const limited = limit(context, guarded.workspace, 'delete');
    if (limited) return limited;
    const templates = guarded.app.email_templates;
    const index = templates.findIndex((candidate) => candidate.template_id === context.params.template_id);
    if (index < 0) return fail(404, 'Email template not found.');
    templates.splice(index, 1);
    return ok({ deleted: true });
  },
};
