import { quote, sanitize } from '../../text.js';

/** What the email tools share: the application email types and how HTML and dates are shown. */

export const EMAIL_TYPES = ['password_reset', 'email_verification', 'user_invite', 'access_approved'] as const;
export type EmailType = (typeof EMAIL_TYPES)[number];

/** Template names of the app's own versions of the application emails (spec 2.1). */
export const APPLICATION_EMAIL_NAMES: Record<string, EmailType> = {
  PasswordReset: 'password_reset',
  EmailVerification: 'email_verification',
  UserInvite: 'user_invite',
  AccessApproved: 'access_approved',
};

const count = (n: number) => n.toLocaleString('en-US');

/** An HTML body cut to `max` characters for the model, with its full length so the cut is never hidden. */
export function htmlExcerpt(html: string | null | undefined, max: number): { excerpt: string; length: number; line: string } {
  const full = html ?? '';
  const excerpt = sanitize(full, max);
  if (!full) return { excerpt, length: 0, line: 'HTML: none given.' };
  const cut = excerpt !== sanitize(full, Number.MAX_SAFE_INTEGER);
  const head = cut ? `HTML: ${count(full.length)} characters; the first ${count(max)}:` : `HTML (${count(full.length)} characters):`;
  return { excerpt, length: full.length, line: `${head} ${quote(excerpt, max)}` };
}

/** A date the API wrote, shortened to the day when it is ISO 8601. */
export function dayOf(value: string | null | undefined): string {
  if (!value) return '';
  const day = /^\d{4}-\d{2}-\d{2}/.exec(value)?.[0];
  return day ?? sanitize(value, 40);
}
