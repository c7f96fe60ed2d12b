import { fail, isResponse, ok } from '../respond.js';
import type { Route } from '../router.js';
import { EmailTypeSchema } from '../world-schema.js';
import { guardApp, rateLimit } from './guard.js';

const TEMPLATE_NAMES = {
  password_reset: 'PasswordReset',
  email_verification: 'EmailVerification',
  user_invite: 'UserInvite',
  access_approved: 'AccessApproved',
} as const;

/** 4.1 Customize application email. */
export const customizeEmail: Route = {
  method: 'POST',
  path: '/api/apps/:app_id/emails/system/:email_type/materialize',
  handle(context) {
    const { state, params } = context;
    const guarded = guardApp(context, 'token_or_api_key', 'editor');
    if (isResponse(guarded)) return guarded;
    const { app, workspace } = guarded;
    const emailType = EmailTypeSchema.safeParse(params.email_type);
    if (!emailType.success) {
      return fail(404, `Unknown email type "${params.email_type}"; use one of ${EmailTypeSchema.options.join(', ')}.`);
    }
    // Section 7: "no editor access, app blocked" are both 403.
    if (app.blocked) return fail(403, 'This app is blocked.');
    // Section 8: per app, shared by every credential of the workspace.
    const limited = rateLimit(context, workspace, 'email_customization', app.id);
    if (limited) return limited;

    const name = TEMPLATE_NAMES[emailType.data];
    const existing = app.email_templates.find((template) => template.email_type === emailType.data);
    if (existing) return ok({ template_id: existing.template_id, name, created: false });
    if (!workspace.plan.paid_features) {
      return fail(402, `The ${workspace.plan.name} plan does not include custom application emails; upgrade to a paid plan.`);
    }
    const template = { template_id: state.ids.next('tpl'), email_type: emailType.data };
    app.email_templates.push(template);
    return ok({ template_id: template.template_id, name, created: true });
  },
};
