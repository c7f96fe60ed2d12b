import { z } from 'zod';
import { duration, idText, quote, sanitize } from '../../text.js';
import { defineTool, type ToolContext, type ToolResult } from '../define.js';
import { appId } from '../fields.js';

/** Issue 4.4 asks for a progress notification at least every 15 s; 10 s leaves room for a slow loop. */
export const PROGRESS_EVERY_MS = 10_000;

export const resolveRepoConflicts = defineTool({
  name: 'resolve_repo_conflicts',
  title: 'Resolve Repository Conflicts',
  description:
    "Run an AI turn over the files a repohost pull left in merge conflict and publish the result on the repository's default branch. Consumes credits; can take minutes. Two calls: the first returns a cost warning for the user; after they agree, repeat with confirm: true. Never retried.",
  input: { app_id: appId },
  output: {
    status: z.string().describe('resolved, apply_pending, needs_input, conflict or failed'),
    message: z.string().optional().describe("The service's own words, when it gave some."),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  cost: 'credits',
  gate: {
    warn: ({ app_id }, { config }) => ({
      action: `Run an AI turn over the conflicted files of app ${idText(app_id)} and publish the resolution on the repository's default branch`,
      cost: 'the credits of one AI turn, two if the repository moves on while publishing (one automatic retry).',
      details: [
        'Request: POST, no body.',
        `It can take minutes: this server waits up to ${duration(config.resolveTimeoutMs)} (APPMGMT_RESOLVE_TIMEOUT_MS) and sends progress meanwhile.`,
      ],
    }),
    unknownOutcome:
      "The AI run may still finish and publish to the default branch, and credits may have been used. Check the repository's default branch and the app's chat in the service before resolving again.",
  },
  statusHints: {
    400: 'Refused; no AI turn ran and no credits were used. Usually the workspace is out of credits: add credits in the service, then start over with a new warning.',
    401: 'The credential is missing, invalid or expired: set APPMGMT_ACCESS_TOKEN to a valid personal access token.',
    403: 'The credential may not do this: it needs editor access to the app, and workspace API keys are refused by repository endpoints.',
    404: "App not found (or not in the credential's workspace).",
    429: 'Rate limit: pull and conflict resolution share 20 requests per minute. Nothing ran (never retried automatically); wait a minute, then start over with a new warning.',
  },
  async run({ app_id }, ctx) {
    const ticking = new AbortController();
    const stop = () => ticking.abort();
    ctx.signal.addEventListener('abort', stop, { once: true });
    void keepAlive(ctx, ticking.signal);
    try {
      const outcome = await ctx.api.resolveRepoConflicts(app_id, { signal: ctx.signal });
      const message = typeof outcome.message === 'string' && outcome.message.trim() ? outcome.message : undefined;
      return describeOutcome(idText(app_id), sanitize(outcome.status, 40), message);
    } finally {
      stop();
      ctx.signal.removeEventListener('abort', stop);
    }
  },
});

/** Progress while the HTTP request is open, so clients that reset their timeout on progress keep waiting. */
async function keepAlive(ctx: ToolContext, stopped: AbortSignal): Promise<void> {
  const started = ctx.clock.now();
  await ctx.progress('AI conflict resolution started; waiting for the service.');
  for (;;) {
    try {
      await ctx.clock.sleep(PROGRESS_EVERY_MS, stopped);
    } catch {
      return; // the request ended or was cancelled
    }
    if (stopped.aborted) return;
    await ctx.progress(`AI conflict resolution still running (${duration(ctx.clock.now() - started)} so far).`);
  }
}

function describeOutcome(app: string, status: string, message: string | undefined): ToolResult {
  const said = message ? ` The service said: ${quote(message, 300)}` : '';
  const structured = { status, ...(message ? { message: sanitize(message, 300) } : {}) };
  switch (status) {
    case 'resolved':
      return {
        structured,
        text: `Conflicts of app ${app} RESOLVED: the resolution is published on the repository's default branch.${said}`,
        next: 'Nothing more is needed: the repository already has the resolution (no push needed). Verify the default branch if you like.',
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
        text: `The AI run for app ${app} needs input (needs_input): it asked a question in the app's chat.${said}`,
        next: "Answer the question in the app's chat in the service, then check the repository's default branch.",
      };
    case 'conflict':
      return {
        isError: true,
        text: `Conflicts of app ${app} NOT resolved (conflict): they are left in place, and the app's chat has a fresh conflict card. Credits were used.${said}`,
        next: 'Resolve them by hand, or try again: a new attempt needs a new warning and consumes credits again.',
      };
    case 'failed':
      return message
        ? {
            isError: true,
            text: `Conflict resolution for app ${app} FAILED.${said}`,
            next: 'Act on what the service said (for example pull first), then start over with a new warning.',
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
        next: "Check the repository's default branch and the app's chat before trying again.",
      };
  }
}
