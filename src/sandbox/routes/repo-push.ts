import { isResponse, ok } from '../respond.js';
import type { Route } from '../router.js';
import type { State } from '../state.js';
import type { App } from '../world.js';
import { guardApp } from './guard.js';

/** Plain-text reasons (2.8: `error` is not a branchable code). */
const NOT_PUSHED = {
  none: 'App not connected to a repository. Connect one in the app settings.',
  error: 'The repository connection is in an error state. Reconnect the repository in the app settings.',
  revoked: 'Access to the repository was revoked. Reconnect the repository in the app settings.',
  no_installation: 'The repository connection has no repohost app installation. Install the app on the repository.',
} as const;

/** 4.7 Push changes to the repository. A failed push is reported in the body, never as an HTTP error. */
export const pushToRepo: Route = {
  method: 'POST',
  path: '/api/apps/:app_id/repohost/sync/manual',
  handle(context) {
    const guarded = guardApp(context, 'token', 'editor');
    if (isResponse(guarded)) return guarded;
    return ok(push(context.state, guarded.app));
  },
};

function push(state: State, app: App) {
  const repo = app.repository;
  const outcome = { success: false, commits_pushed: false, skipped: false, commit_hash: null as string | null, error: null as string | null, duration_ms: null as number | null };
  if (repo.connection !== 'healthy') {
    // 2.8: `skipped` is true for exactly one reason, a connection without an installation.
    return { ...outcome, skipped: repo.connection === 'no_installation', error: NOT_PUSHED[repo.connection] };
  }
  const commits = state.commits.get(app.id) ?? { saved: null, remote: null };
  // Nothing saved on the main line: nothing to push, and no push started.
  if (!repo.has_saved_version || commits.saved === null) return { ...outcome, success: true };
  if (repo.remote_moved_on || repo.remote_commits_ahead > 0) {
    return {
      ...outcome,
      error: 'The repository has commits the app does not have. Pull the changes, then push again.',
      duration_ms: repo.push_ms,
    };
  }
  if (repo.saved_version_pushed) {
    // The repository already had the commit: the push ran but moved nothing.
    return { ...outcome, success: true, commit_hash: commits.saved, duration_ms: Math.round(repo.push_ms / 4) };
  }
  repo.saved_version_pushed = true;
  state.commits.set(app.id, { saved: commits.saved, remote: commits.saved });
  return { ...outcome, success: true, commits_pushed: true, commit_hash: commits.saved, duration_ms: repo.push_ms };
}
