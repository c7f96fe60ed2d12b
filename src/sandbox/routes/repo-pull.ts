import { builderBusy, runQueued } from '../chat.js';
import { isResponse, ok } from '../respond.js';
import type { Route } from '../router.js';
import type { State } from '../state.js';
import type { App, Workspace } from '../world.js';
import { guardApp, rateLimit } from './guard.js';

/**
 * Our choice: every connection but a healthy one answers not_connected (the service documents no
 * other code for them), with the reason in words as push (2.8) gives it.
 */
const NOT_CONNECTED = {
  none: 'App not connected to a repository. Connect one in the app settings.',
  error: 'The repository connection is in an error state. Reconnect the repository in the app settings.',
  revoked: 'Access to the repository was revoked. Reconnect the repository in the app settings.',
  no_installation: 'The repository connection has no repohost app installation. Install the app on the repository.',
} as const;

/**
 * Pull changes (service facts, "Repository sync"). Always 200; on any error nothing moves, so the
 * next pull starts from the same place. Shares the 20 per minute per caller of conflict resolution.
 */
export const pullChanges: Route = {
  method: 'POST',
  path: '/api/apps/:app_id/repohost/sync',
  handle(context) {
    const guarded = guardApp(context, 'token', 'editor');
    if (isResponse(guarded)) return guarded;
    const { app, workspace, caller } = guarded;
    const limited = rateLimit(context, workspace, 'repo_sync', caller.secret);
    if (limited) return limited;
    return ok(pull(context.state, app, workspace));
  },
};

function pull(state: State, app: App, workspace: Workspace) {
  const repo = app.repository;
  const nothing = { synced: false, already_up_to_date: false, commit_count: 0, head_sha: null as string | null, error: null as string | null, error_message: null as string | null };
  const failed = (error: string, message: string) => ({ ...nothing, error, error_message: message });
  if (repo.connection !== 'healthy') return failed('not_connected', NOT_CONNECTED[repo.connection]);
  runQueued(state, app, workspace);
  if (builderBusy(state, app)) {
    return failed('sync_in_progress', 'A builder turn is running on the app. Pull again when it has finished.');
  }
  const files = repo.conflicted_files.length ? ` in ${repo.conflicted_files.join(', ')}` : '';
  if (repo.merge_conflicts && !repo.conflict_question_answered) {
    return failed('merge_conflict', `The app still has merge conflicts${files} from an earlier pull. Resolve them first.`);
  }
  if (!repo.merge_conflicts && repo.remote_commits_ahead > 0 && repo.remote_conflicts) {
    // Nothing is applied; the app now has conflicts for a resolution (4.6) to work on.
    repo.merge_conflicts = true;
    return failed('merge_conflict', `The repository's ${repo.remote_commits_ahead} new commits conflict with the app's changes${files}. Nothing was applied; resolve the conflicts.`);
  }
  if (!repo.merge_conflicts && repo.remote_commits_ahead === 0) return { ...nothing, already_up_to_date: true };
  // Open conflicts got here only with their question answered in the chat: the answer settles the merge.
  const count = Math.max(repo.remote_commits_ahead, repo.merge_conflicts ? 1 : 0);
  const head = takeRemote(state, app, repo.merge_conflicts);
  return { ...nothing, synced: true, commit_count: count, head_sha: head };
}

/**
 * The app takes the repository's new commits: a merge commit lands on the default branch when
 * conflicts were settled (`merge`), and saved work of the app that was not pushed yet stays unpushed,
 * replayed on top (a push sends it). Clears every conflict mark. Returns the app's new head commit.
 */
export function takeRemote(state: State, app: App, merge: boolean): string {
  const repo = app.repository;
  const commits = state.commits.get(app.id) ?? { saved: null, remote: null };
  const remote = merge || commits.remote === null ? state.ids.commitHash() : commits.remote;
  const unpushed = repo.has_saved_version && !repo.saved_version_pushed && commits.saved !== null;
  const saved = unpushed ? state.ids.commitHash() : remote;
  state.commits.set(app.id, { saved, remote });
  Object.assign(repo, {
    has_saved_version: true,
    saved_version_pushed: !unpushed,
    remote_commits_ahead: 0,
    remote_conflicts: false,
    merge_conflicts: false,
    conflicted_files: [],
    conflict_question_answered: false,
  });
  return saved;
}
