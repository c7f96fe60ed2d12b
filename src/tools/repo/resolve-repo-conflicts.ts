import { z } from 'zod';
import { duration, idText, quote, sanitize } from '../../text.js';
import { defineTool, type ToolResult } from '../define.js';
import { appId } from '../fields.js';
import { aside, stepTo, type Steps } from '../format.js';
import { withProgress } from '../progress.js';

/** Messages the warning's read asks for: it only proves the token and the app. */
const PROOF_READ_MESSAGES = 1;

export const resolveRepoConflicts = defineTool({
  name: 'resolve_repo_conflicts',
  title: 'Resolve Repository Conflicts',
  description:
    "Run an AI turn over the files a pull left in merge conflict; publish the result on the default branch. Consumes credits (twice if the repository moves on meanwhile: the service retries once); can take minutes. This server never resends it.",
  input: { app_id: appId },
  output: {
    status: z.string().describe('resolved, apply_pending, needs_input, conflict or failed'),
    message: z.string().optional().describe("The service's own words, when it gave some."),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  cost: 'credits',
  gate: {
    warn: async ({ app_id }, { api, config, signal }) => {
      // Repository endpoints have no read; the cheapest read of the same app with the same token is
      // one chat message, where a needs_input question would also land. It proves the token and the
      // app before the gate remembers anything (issue 16).
      await api.readAppConversation(app_id, PROOF_READ_MESSAGES, { signal });
      return {
        action: `Run an AI turn over the conflicted files of app ${idText(app_id)} and publish the resolution on the repository's default branch`,
        cost: 'the credits of one AI turn, two if the repository moves on while publishing (the service then retries once; this server never resends it).',
        details: [`It can take minutes: this server waits up to ${duration(config.resolveTimeoutMs)} and sends progress meanwhile.`],
      };
    },
    unknownOutcome:
      "The AI run may still finish and publish to the default branch, and credits may have been used. Check the repository's default branch and the app's chat before resolving again. read_app_conversation reads the chat.",
    done: ({ structured }) => (typeof structured?.status === 'string' ? `the AI conflict resolution ran (status ${structured.status})` : 'the AI conflict resolution ran and did not resolve the conflicts'),
  },
  statusHints: {
    400: 'Refused; no AI turn ran and no credits were used. Usually the workspace is out of credits: add credits in the service, then start over with a new warning.',
    401: 'The credential is missing, invalid or expired: set APPMGMT_ACCESS_TOKEN to a valid personal access token.',
    403: 'The credential may not do this: it needs editor access to the app, and workspace API keys are refused by repository endpoints.',
    404: "App not found (or not in the credential's workspace): no AI turn ran and no credits were used. No operation lists apps: the app id comes from the user.",
    429: 'Rate limit: pull and conflict resolution share 20 requests per minute. Nothing ran (this server never resends it); wait a minute, then start over with a new warning.',
  },
  async run({ app_id }, ctx) {
    const outcome = await withProgress(ctx, 'AI conflict resolution', () => ctx.api.resolveRepoConflicts(app_id, { signal: ctx.signal }));
    const message = typeof outcome.message === 'string' && outcome.message.trim() ? outcome.message : undefined;
    return describeOutcome(ctx, app_id, sanitize(outcome.status, 40), message);
  },
});

/** A readable reason that tells the caller to pull first (the sandbox and the service both say so). */
const SAYS_PULL = /\bpull/i;

function describeOutcome(ctx: Steps, app_id: string, status: string, message: string | undefined): ToolResult {
  const app = idText(app_id);
  const step = (tool: string, say: (call: string) => string) => stepTo(ctx, tool, { app_id }, say);
  const also = (tool: string, say: (call: string) => string) => aside(ctx, tool, { app_id }, say);
  const said = message ? ` The service said: ${quote(message, 300)}` : '';
  const structured = { status, ...(message ? { message: sanitize(message, 300) } : {}) };
  switch (status) {
    case 'resolved':
      return {
        structured,
        text: `Conflicts of app ${app} RESOLVED: the resolution is published on the repository's default branch.${said}`,
        next:
          also('push_app_to_repo', (push) => `If a push of the app failed earlier because the repository had moved on, call ${push} now; otherwise nothing more is needed.`) ||
          'Nothing more is needed.',
      };
    case 'apply_pending':
      return {
        structured,
        text: `The resolution for app ${app} is still being applied (apply_pending).${said}`,
        next: "Check the repository's default branch again shortly; do not call resolve_repo_conflicts again.",
      };
    case 'needs_input':
      return {
        structured,
        text: `The AI run for app ${app} needs input (needs_input): it asked a question in the app's chat, and the conflicts stay in place until it is answered. Credits were used.${said}`,
        next: ctx.offered.has('read_app_conversation')
          ? step(
              'read_app_conversation',
              (read) =>
                `Read the question with ${read}${also('send_app_chat_message', () => ' and answer it with send_app_chat_message')}${also('pull_repo_changes', (pull) => `; then ${pull} (free) finishes the merge. Only if that pull still reports merge_conflict, resolve again (a new warning)`)}.`,
            )
          : `${ctx.offered.missing('read_app_conversation')} The question waits in the app's chat in the service.`,
      };
    case 'conflict':
      return {
        isError: true,
        text: `Conflicts of app ${app} NOT resolved (conflict): they are left in place, and the app's chat has a fresh conflict card. Credits were used.${said}`,
        next: ctx.offered.has('read_app_conversation')
          ? step('read_app_conversation', (read) => `Read the conflict card with ${read}, then resolve by hand or try again (a new warning; it consumes credits again).`)
          : `${ctx.offered.missing('read_app_conversation')} Resolve by hand, or try again (a new warning; it consumes credits again).`,
      };
    case 'failed':
      if (message && SAYS_PULL.test(message)) {
        return {
          isError: true,
          text: `Conflict resolution for app ${app} FAILED.${said}`,
          next: step('pull_repo_changes', (pull) => `Call ${pull} first; if it reports merge_conflict, start over with a new warning.`),
        };
      }
      return message
        ? {
            isError: true,
            text: `Conflict resolution for app ${app} FAILED.${said}`,
            next: 'Act on what the service said, then start over with a new warning.',
          }
        : {
            isError: true,
            text: `Conflict resolution for app ${app} FAILED with no outcome and no reason given; credits may have been used.`,
            next: 'Try again later (a new warning), or resolve the conflicts by hand.',
          };
    default:
      return {
        isError: true,
        text: `Conflict resolution for app ${app} ended with an unrecognised status ${quote(status, 40)}.${said}`,
        next: `Check the repository's default branch and the app's chat${also('read_app_conversation', (read) => ` (${read})`)} before trying again.`,
      };
  }
}
