import { BUILTIN_EMAILS, EMAIL_TYPES, isEmailType } from '../builtin-emails.js';
import { fail, isResponse, ok } from '../respond.js';
import type { Route } from '../router.js';
import { guardApp, rateLimit } from './guard.js';

/** 4.1 Customize application email. */
export const customizeEmail: Route = {
  method: 'POST',
  path: '/api/apps/:app_id/emails/system/:email_type/materialize',
  handle(context) {
    const { state, params } = context;
    const guarded = guardApp(context, 'token_or_api_key', 'editor');
    if (isResponse(guarded)) return guarded;
    const { app, workspace } = guarded;
    const emailType = params.email_type;
    if (!isEmailType(emailType)) {
      return fail(404, `Unknown email type "${emailType}"; use one of ${EMAIL_TYPES.join(', ')}.`);
    }
    // Section 7: "no editor access, app blocked" are both 403.
    if (app.blocked) return fail(403, 'This app is blocked.');
    // Section 8: per app, shared by every credential of the workspace.
    const limited = rateLimit(context, workspace, 'email_customization', app.id);
    if (limited) return limited;

    const builtin = BUILTIN_EMAILS[emailType];
    const existing = app.email_templates.find((template) => template.email_type === emailType);
    if (existing) return ok({ template_id: existing.template_id, name: builtin.name, created: false });
    if (!workspace.plan.paid_features) {
      return fail(402, `The ${workspace.plan.name} plan does not include custom application emails; upgrade to a paid plan.`);
    }
    // 2.1: the template starts as a copy of the email currently sent, placeholders included.
    const template = {
      template_id: state.ids.next('tpl'),
      email_type: emailType,
      ...builtin,
      updated_offset_ms: state.clock.now() - state.startedAt,
    };
    app.email_templates.push(template);
    return ok({ template_id: template.template_id, name: builtin.name, created: true });
  },
};
