import { fail, isResponse, ok } from '../respond.js';
import type { Route } from '../router.js';
import { iso, type ResolutionOutcome, type State } from '../state.js';
import type { App, Workspace } from '../world.js';
import { guardApp, rateLimit } from './guard.js';

/** 4.6 Resolve repository sync conflicts. */
export const resolveConflicts: Route = {
  method: 'POST',
  path: '/api/apps/:app_id/repohost/sync/resolve-conflicts',
  handle(context) {
    const { state } = context;
    const guarded = guardApp(context, 'token', 'editor');
    if (isResponse(guarded)) return guarded;
    const { app, workspace, caller } = guarded;
    // Service facts: pull and conflict resolution share 20 per minute per caller.
    const limited = rateLimit(context, workspace, 'repo_sync', caller.secret);
    if (limited) return limited;
    const repo = app.repository;
    // Nothing for an AI turn to work on: answered without running one or spending credits.
    if (repo.connection !== 'healthy') return ok({ status: 'failed', message: 'The app is not connected to a working repository.' });
    if (!repo.merge_conflicts) return ok({ status: 'failed', message: 'There are no merge conflicts to resolve; pull first.' });
    if (workspace.credits < workspace.credits_per_ai_turn) {
      return fail(400, `Out of credits: resolving conflicts needs ${workspace.credits_per_ai_turn} credits and the workspace has ${workspace.credits}. No AI turn was run.`);
    }
    return ok({ status: run(state, app, workspace) });
  },
};

/**
 * One AI turn over the conflicted files, plus one more automatic attempt when publishing finds that
 * the repository moved on (4.6). Each turn costs credits. The answer comes when the run ends, so the
 * sandbox clock moves on by the run's length.
 */
function run(state: State, app: App, workspace: Workspace): ResolutionOutcome {
  const repo = app.repository;
  const turnMs = repo.resolution_ms * state.flags.resolutionSlowdown;
  let outcome = state.flags.resolutionOutcome ?? repo.resolution_outcome;
  let attempts = 1;
  workspace.credits -= workspace.credits_per_ai_turn;
  const publishes = outcome === 'resolved' || outcome === 'apply_pending';
  if (publishes && repo.remote_moved_on) {
    if (workspace.credits >= workspace.credits_per_ai_turn) {
      attempts = 2;
      workspace.credits -= workspace.credits_per_ai_turn;
      repo.remote_moved_on = false;
    } else {
      outcome = 'conflict';
    }
  }
  if (outcome === 'resolved' || outcome === 'apply_pending') {
    repo.merge_conflicts = false;
    repo.conflicted_files = [];
  }
  if (outcome === 'resolved') {
    // 4.6: the resolution always lands on the default branch, as a new saved version.
    const commit = state.ids.commitHash();
    state.commits.set(app.id, { saved: commit, remote: commit });
    repo.has_saved_version = true;
    repo.saved_version_pushed = true;
  }
  const durationMs = turnMs * attempts;
  state.resolutions.push({
    app_id: app.id,
    outcome,
    attempts,
    credits_used: attempts * workspace.credits_per_ai_turn,
    duration_ms: durationMs,
    at: iso(state.clock.now()),
  });
  state.clock.advance(durationMs);
  return outcome;
}
