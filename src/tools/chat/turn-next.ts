import type { ChatMessage } from '../../api/schemas.js';
import { sanitize } from '../../text.js';
import type { EmailType } from '../emails/email-text.js';
import { aside, stepTo, type Steps } from '../format.js';

/** What follows a completed builder turn, from what the user asked and what the chat around it says. */

/** Characters of each message searched for a conflict: enough for a question, bounded for untrusted text. */
const SEARCH_CHARS = 2_000;
/** Words of a merge conflict in the chat: a conflict card, a resolution's question, the reply to its answer. */
const CONFLICT_WORDS = /\bmerge|\bconflict/i;
/** A request about the app's emails or templates: its result is worth reading back. */
const EMAIL_WORDS = /\be-?mails?\b|\btemplates?\b/i;
/** How people name each application email, so the preview call can name its type. */
const EMAIL_TYPE_WORDS: ReadonlyArray<[EmailType, RegExp]> = [
  ['password_reset', /\bpassword\b/i],
  ['email_verification', /\bverif(y|ication)\b|\bsign[ -]?up\b/i],
  ['user_invite', /\binvit(e|ation)\b/i],
  ['access_approved', /\baccess[ -]approv|\bapproval\b/i],
];

/**
 * The messages the user's newest message answered and the replies to it: from the previous user
 * message (exclusive) to the end. An open conflict shows there (a question or card before the
 * answer, or the builder's reply about the merge); older history does not count.
 */
function aroundNewestUserMessage(messages: readonly ChatMessage[]): ChatMessage[] {
  const users = messages.flatMap((message, i) => (message.role === 'user' && !message.hidden ? [i] : []));
  const from = users.length >= 2 ? users.at(-2)! + 1 : 0;
  return messages.slice(from).filter((message) => !message.hidden && message.role !== 'user');
}

/** The turn took place next to an open merge conflict (its question, card or the reply about it). */
export function touchesConflict(messages: readonly ChatMessage[]): boolean {
  return aroundNewestUserMessage(messages).some(
    (message) =>
      CONFLICT_WORDS.test(sanitize(message.content ?? '', SEARCH_CHARS)) ||
      (message.tool_calls ?? []).some((call) => CONFLICT_WORDS.test(sanitize(call.name ?? '', 60))),
  );
}

/** The application email a request names, when it names exactly one. */
function emailTypeOf(content: string): EmailType | undefined {
  const named = EMAIL_TYPE_WORDS.filter(([, words]) => words.test(content)).map(([type]) => type);
  return named.length === 1 ? named[0] : undefined;
}

/**
 * The next step after a completed turn that waits for nothing: finish an open merge with the free
 * pull before any paid resolution; read back an email or template the request was about; else nothing.
 */
export function nextAfterTurn(ctx: Steps, app_id: string, content: string, messages: readonly ChatMessage[]): string {
  const request = sanitize(content, SEARCH_CHARS);
  if (touchesConflict(messages)) {
    const resolve = aside(ctx, 'resolve_repo_conflicts', {}, (call) => `; only if it still reports merge_conflict, call ${call} (credits)`);
    return stepTo(ctx, 'pull_repo_changes', { app_id }, (call) => `If this answered the merge conflict's question, call ${call} (free) to finish the merge${resolve}.`);
  }
  if (EMAIL_WORDS.test(request)) {
    const type = emailTypeOf(request);
    const preview = type
      ? aside(ctx, 'preview_app_email', { app_id, email_type: type }, (call) => `${call} shows what recipients get`)
      : aside(ctx, 'preview_app_email', {}, (call) => `${call} shows an application email as recipients get it`);
    const ids = aside(ctx, 'list_email_templates', { app_id }, (call) => ` (ids from ${call})`);
    const template = aside(ctx, 'get_email_template', {}, (call) => `${call}${ids} shows the template`);
    const checks = type ? [preview, template] : [template, preview];
    const shown = checks.filter(Boolean);
    return shown.length > 0 ? `Check the change before telling the user: ${shown.join('; ')}.` : ctx.offered.missing('get_email_template');
  }
  return 'Nothing more is needed.';
}
