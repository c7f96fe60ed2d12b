import { z } from 'zod';
import type { PushOutcome } from '../../api/schemas.js';
import { idText, quote, sanitize } from '../../text.js';
import { defineTool, type ToolResult } from '../define.js';
import { appId } from '../fields.js';
import { aside, type Steps } from '../format.js';

export const pushAppToRepo = defineTool({
  name: 'push_app_to_repo',
  title: 'Push App to Repository',
  description:
    "Push the app's latest saved version to its repohost repository (saved work, not the current chat turn). Saved versions push automatically: use this to retry. Free, safe to repeat.",
  input: { app_id: appId },
  output: {
    pushed: z.boolean().describe('true: the repository moved forward'),
    commit_hash: z.string().optional(),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  cost: 'none',
  statusHints: {
    403: 'The credential may not push this app: it needs editor access, and workspace API keys are refused by repository endpoints.',
    404: 'App not found (or not in the credential\'s workspace).',
  },
  async run({ app_id }, ctx) {
    const outcome = await ctx.api.pushAppToRepo(app_id, { signal: ctx.signal });
    return describePush(ctx, app_id, outcome);
  },
});

function describePush(ctx: Steps, app_id: string, outcome: PushOutcome): ToolResult {
  const app = idText(app_id);
  if (outcome.skipped) {
    return {
      isError: true,
      text: `Push skipped for app ${app}: the repository connection has no repohost app installation.`,
      next: "Install the repohost app for the repository in the service's settings, then call push_app_to_repo again.",
    };
  }
  if (!outcome.success) {
    return {
      isError: true,
      text: `Push FAILED for app ${app}: ${quote(outcome.error ?? 'no reason given', 300)}`,
      next: `${aside(ctx, 'pull_repo_changes', { app_id }, (call) => `If the repository moved on, call ${call} first. `)}If the connection is revoked or in error, reconnect it in the service. Then call push_app_to_repo again.`,
    };
  }
  const commit = outcome.commit_hash ? idText(outcome.commit_hash) : undefined;
  const hash = outcome.commit_hash ? { commit_hash: sanitize(outcome.commit_hash, 100) } : {};
  if (outcome.commits_pushed && commit) {
    const took = typeof outcome.duration_ms === 'number' ? ` in ${(outcome.duration_ms / 1000).toFixed(1)} s` : '';
    return { text: `Pushed app ${app} to its repository: commit ${commit}${took}.`, next: 'Nothing more is needed.', structured: { pushed: true, ...hash } };
  }
  return {
    text: `Nothing to push for app ${app}: the repository already has the latest saved version${commit ? ` (${commit})` : ''}.`,
    next: 'Nothing more is needed.',
    structured: { pushed: false, ...hash },
  };
}
