/** The service's built-in application emails, as the sandbox sends them when an app has no version of its own. */

export const EMAIL_TYPES = ['password_reset', 'email_verification', 'user_invite', 'access_approved'] as const;
export type EmailType = (typeof EMAIL_TYPES)[number];

/** Whether a path segment names an application email (a plain check: the routes need no zod schema for it). */
export const isEmailType = (value: string | undefined): value is EmailType => (EMAIL_TYPES as readonly (string | undefined)[]).includes(value);

export interface EmailContent {
  /** The template name of the app's own version (spec 2.1). */
  name: string;
  subject: string;
  html: string;
}

const page = (heading: string, body: string, button: string) =>
  `<html><body style="font-family:sans-serif"><h1>${heading}</h1><p>Hi {{first_name}},</p><p>${body}</p>` +
  `<p><a href="{{action_url}}" style="padding:12px 20px;background:#2f6fed;color:#fff">${button}</a></p>` +
  `<p>If you did not expect this email, you can ignore it.</p><p>The {{app_name}} team</p></body></html>`;

export const BUILTIN_EMAILS: Record<EmailType, EmailContent> = {
  password_reset: {
    name: 'PasswordReset',
    subject: 'Reset your {{app_name}} password',
    html: page('Reset your password', 'Someone asked to reset the password of your {{app_name}} account. The link works for one hour.', 'Reset password'),
  },
  email_verification: {
    name: 'EmailVerification',
    subject: 'Verify your email for {{app_name}}',
    html: page('Verify your email', 'Confirm that this address belongs to you to finish signing up to {{app_name}}.', 'Verify email'),
  },
  user_invite: {
    name: 'UserInvite',
    subject: "You're invited to {{app_name}}",
    html: page("You're invited", '{{inviter_name}} invited you to join {{app_name}}.', 'Accept invitation'),
  },
  access_approved: {
    name: 'AccessApproved',
    subject: 'Your access to {{app_name}} was approved',
    html: page('Access approved', 'Your request to access {{app_name}} was approved. You can sign in now.', 'Open the app'),
  },
};

/** Sample values a preview fills in, as the service renders "with sample values". */
const SAMPLE_VALUES: Record<string, string> = {
  first_name: 'Alex',
  action_url: 'https://example.sandbox.test/action/sample',
  inviter_name: 'Sam',
};

/** The email as a recipient gets it: known placeholders replaced by sample values, `app_name` by the app's name. */
export function render(text: string, appName: string): string {
  return text.replace(/\{\{\s*(\w+)\s*\}\}/g, (match, key: string) => (key === 'app_name' ? appName : (SAMPLE_VALUES[key] ?? match)));
}
