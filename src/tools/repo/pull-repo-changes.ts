import { z } from 'zod';
import type { PullOutcome } from '../../api/schemas.js';
import { idText, quote, sanitize } from '../../text.js';
import { defineTool, type ToolResult } from '../define.js';
import { appId } from '../fields.js';
import { aside, nextCall, plural, stepTo, type Steps } from '../format.js';

export const pullRepoChanges = defineTool({
  name: 'pull_repo_changes',
  title: 'Pull Repository Changes',
  description:
    "Apply the new commits of the app's repohost repository to the app. Free; on failure nothing moves. Also finishes a merge once the AI's conflict question is answered.",
  input: { app_id: appId },
  output: {
    synced: z.boolean().describe('true: commits were applied'),
    already_up_to_date: z.boolean(),
    commit_count: z.number().describe('Commits applied'),
    head_sha: z.string().optional().describe('Head commit after the pull'),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  cost: 'none',
  statusHints: {
    401: 'The credential is missing, invalid or expired: set APPMGMT_ACCESS_TOKEN to a valid personal access token.',
    403: 'The credential may not pull into this app: it needs editor access, and workspace API keys are refused by repository endpoints.',
    404: "App not found (or not in the credential's workspace).",
    429: 'Rate limit: pull and conflict resolution share 20 requests per minute per caller. Nothing moved; wait a minute, then pull again.',
  },
  async run({ app_id }, ctx) {
    const outcome = await ctx.api.pullRepoChanges(app_id, { signal: ctx.signal });
    return describePull(ctx, app_id, outcome);
  },
});

function describePull(ctx: Steps, app_id: string, outcome: PullOutcome): ToolResult {
  const app = idText(app_id);
  const again = nextCall(ctx.config, 'pull_repo_changes', { app_id });
  if (outcome.error) {
    const code = sanitize(outcome.error, 40);
    const said = outcome.error_message ? ` The service said: ${quote(outcome.error_message, 300)}` : '';
    switch (code) {
      case 'merge_conflict':
        return {
          isError: true,
          text: `Pull STOPPED for app ${app} (merge_conflict): the repository's new commits conflict with the app's own changes, so nothing was applied.${said}`,
          next: stepTo(ctx, 'resolve_repo_conflicts', { app_id }, (call) => `Call ${call} to let the AI resolve them (it consumes credits: a confirmation will be asked first).`),
        };
      case 'sync_in_progress':
        return {
          isError: true,
          text: `Pull NOT done for app ${app} (sync_in_progress): another pull or a builder turn holds the app; nothing moved.${said}`,
          next: `Wait until the other pull or the builder's turn ends (a minute or more), then call ${again} again.`,
        };
      case 'not_connected':
        return {
          isError: true,
          text: `Pull FAILED for app ${app} (not_connected): the app has no working repository connection; nothing moved.${said}`,
          next: `Connect (or reconnect) the repository in the app's settings in the service, then call ${again} again.`,
        };
      default:
        return {
          isError: true,
          text: `Pull FAILED for app ${app} (${quote(code, 40)}); nothing moved.${said}`,
          next: `Act on what the service said, then call ${again} again; the pull restarts from the same place.`,
        };
    }
  }
  const count = typeof outcome.commit_count === 'number' && outcome.commit_count > 0 ? Math.round(outcome.commit_count) : 0;
  const head = outcome.head_sha ? sanitize(outcome.head_sha, 100) : undefined;
  const structured = { synced: outcome.synced === true, already_up_to_date: outcome.already_up_to_date === true, commit_count: count, ...(head ? { head_sha: head } : {}) };
  const at = head ? `; the app is now at commit ${idText(head)}` : '';
  if (outcome.already_up_to_date) {
    return { structured, text: `App ${app} is already up to date with its repository: nothing to pull${at}.`, next: 'Nothing more is needed.' };
  }
  if (outcome.synced || count > 0) {
    return {
      structured,
      text: `Pulled ${plural(count, 'commit')} from the repository into app ${app}${at}.`,
      // A pull never sends the app's own saved work, and its answer does not say whether any is waiting.
      next: `Nothing more is needed${aside(ctx, 'push_app_to_repo', { app_id }, (call) => `, unless the app has saved work not yet in the repository: ${call} sends it (free)`)}.`,
    };
  }
  return {
    structured,
    text: `The pull for app ${app} reported no commits applied and no error; the app is probably up to date${at}.`,
    next: 'Nothing more is needed.',
  };
}
