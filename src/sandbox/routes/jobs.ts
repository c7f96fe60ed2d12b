import { fail, isResponse, ok } from '../respond.js';
import type { Route } from '../router.js';
import type { State } from '../state.js';
import type { Job } from '../world.js';
import { guardApp, rateLimit } from './guard.js';

/** 2.5: `error` is always this one message, with no cause. */
export const JOB_FAILED_MESSAGE = 'Scheduling failed. Try again.';

const PHASES = ['prepare', 'sandbox_sync', 'finalize'] as const;

const NOTHING_SCHEDULED = {
  selected: 0,
  materialized: 0,
  created_workflows: 0,
  reused_workflows: 0,
  plan_limited: 0,
  needs_reconnect: 0,
  failed: 0,
  skipped: 0,
};

/** 4.5 Get scheduling job. */
export const getJob: Route = {
  method: 'GET',
  path: '/api/apps/:app_id/social-calendar/posts/schedule/:job_id',
  handle(context) {
    const { state, params } = context;
    // Service facts, "Credentials": a personal API key, or a personal access token as Bearer.
    const guarded = guardApp(context, 'token_or_api_key', 'viewer');
    if (isResponse(guarded)) return guarded;
    // Section 8: "other social-calendar operations" share 40 per minute; the sandbox counts per workspace.
    const limited = rateLimit(context, guarded.workspace, 'social_calendar', guarded.workspace.id);
    if (limited) return limited;
    const job = state.jobs.find((candidate) => candidate.id === params.job_id && candidate.app_id === guarded.app.id);
    if (!job) return fail(404, 'Job not found.');
    return ok(jobView(state, job));
  },
};

/**
 * Section 3: pending until the job starts, then running through the display phases, then completed
 * with `result` or failed with `error`; a range with nothing to schedule is completed at once.
 */
export function jobView(state: State, job: Job) {
  const base = { job_id: job.id };
  if (job.empty_range) {
    return { ...base, status: 'completed', phase: 'completed', result: NOTHING_SCHEDULED, error: null };
  }
  let elapsed = state.clock.now() - state.startedAt - job.starts_after_ms;
  if (elapsed < 0) return { ...base, status: 'pending', phase: 'pending', result: null, error: null };
  for (const phase of PHASES) {
    elapsed -= job.phase_ms[phase];
    if (elapsed < 0) return { ...base, status: 'running', phase, result: null, error: null };
    if (job.fails_in_phase === phase) return { ...base, status: 'failed', phase, result: null, error: JOB_FAILED_MESSAGE };
  }
  return { ...base, status: 'completed', phase: 'completed', result: job.result, error: null };
}
