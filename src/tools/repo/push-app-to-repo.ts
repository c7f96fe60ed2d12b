import type { PushOutcome } from '../api/schemas.js';
import { defineTool } from './define.js';
import { appId } from './fields.js';
import { quote } from './format.js';

export const pushAppToRepo = defineTool({
  name: 'push_app_to_repo',
  title: 'Push App to Repository',
  description:
    "Push the app's latest saved version on the main line to its connected repohost repository (saved work, not the current chat turn). Saved versions are pushed automatically; use this to retry a failed push. Free; safe to repeat. A failed push is reported as an error with the reason.",
  input: { app_id: appId },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  cost: 'none',
  statusHints: {
    403: 'The credential may not push this app: it needs editor access, and workspace API keys are refused by repository endpoints.',
    404: 'App not found (or not in the credential\'s workspace).',
  },
  async run({ app_id }, { api, signal }) {
    const outcome = await api.pushAppToRepo(app_id, { signal });
    return describePush(app_id, outcome);
  },
});

function describePush(app: string, outcome: PushOutcome) {
  const took = typeof outcome.duration_ms === 'number' ? ` in ${(outcome.duration_ms / 1000).toFixed(1)} s` : '';
  if (outcome.skipped) {
    return {
      isError: true,
      text: `Push skipped for app ${app}: the repository connection has no repohost app installation. Install the repohost app for the repository in the service's settings, then push again.`,
    };
  }
  if (!outcome.success) {
    return {
      isError: true,
      text: `Push FAILED for app ${app}: ${quote(outcome.error ?? 'no reason given')}. Fix the repository connection (reconnect it if revoked or in error), then call push_app_to_repo again.`,
    };
  }
  if (outcome.commits_pushed && outcome.commit_hash) {
    return { text: `Pushed app ${app} to its repository: commit ${outcome.commit_hash}${took}.` };
  }
  return { text: `Nothing to push for app ${app}: the repository already has the latest saved version${took}.` };
}
