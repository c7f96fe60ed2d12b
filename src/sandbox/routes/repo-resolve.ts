import { askConflictQuestion, postConflictCard } from '../chat.js';
import { fail, isResponse, ok } from '../respond.js';
import type { Route } from '../router.js';
import { iso, type ResolutionOutcome, type State } from '../state.js';
import type { App, Workspace } from '../world.js';
import { guardApp, rateLimit } from './guard.js';
import { takeRemote } from './repo-pull.js';

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
  // The question was answered in the chat: this run has what it needed.
  if (outcome === 'needs_input' && repo.conflict_question_answered) outcome = 'resolved';
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
  if (outcome === 'apply_pending') {
    repo.merge_conflicts = false;
    repo.remote_conflicts = false;
    repo.conflicted_files = [];
  }
  // 4.6: the resolution always lands on the default branch; unpushed saved work of the app stays unpushed on top.
  if (outcome === 'resolved') takeRemote(state, app, true);
  // Service facts: after needs_input the question waits in the chat; after conflict the chat has a fresh conflict card.
  if (outcome === 'needs_input') askConflictQuestion(state, app);
  if (outcome === 'conflict') postConflictCard(state, app);
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
