import { z } from 'zod';
import { fail, invalid, invalidBody, isResponse, objectBody } from '../respond.js';
import type { Route } from '../router.js';
import type { State } from '../state.js';
import type { App, Job } from '../world.js';
import { guardApp, rateLimit } from './guard.js';
import { jobView } from './jobs.js';
import { calendarOf, postTime, settleJobs } from './social-posts.js';

/** Service facts: more eligible posts than this in range is a 422 ("schedule smaller ranges"). */
export const MAX_ELIGIBLE = 100;
/** A new job stays pending this long: the "still starting" window in which another start answers 409. */
export const STARTING_MS = 2_000;

const BodySchema = z.looseObject({ scheduled_from: z.string().min(1), scheduled_until: z.string().min(1) });
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?$/i;

/** Start scheduling posts (service facts, "Social calendar"): 202 `{job_id}`. */
export const startScheduling: Route = {
  method: 'POST',
  path: '/api/apps/:app_id/social-calendar/posts/schedule',
  handle(context) {
    const { state, req } = context;
    const guarded = guardApp(context, 'token_or_api_key', 'editor');
    if (isResponse(guarded)) return guarded;
    const limited = rateLimit(context, guarded.workspace, 'social_calendar_writes', guarded.workspace.id);
    if (limited) return limited;
    const object = objectBody(req.body);
    if (isResponse(object)) return object;
    const parsed = BodySchema.safeParse(object);
    if (!parsed.success) return invalidBody(parsed.error.issues);
    const from = instant(parsed.data.scheduled_from);
    const until = instant(parsed.data.scheduled_until);
    if (from === undefined) return badInstant('scheduled_from');
    if (until === undefined) return badInstant('scheduled_until');
    if (until <= from) {
      return invalid({ loc: ['body', 'scheduled_until'], msg: 'scheduled_until must be after scheduled_from (the range is half-open)', type: 'value_error' });
    }
    return start(state, guarded.app, from, until);
  },
};

function start(state: State, app: App, from: number, until: number) {
  settleJobs(state, app.id);
  const range = { from: new Date(from).toISOString(), until: new Date(until).toISOString() };
  const inFlight = state.jobs.filter((job) => job.app_id === app.id && ['pending', 'running'].includes(jobView(state, job).status));
  // "Calling again for the same window normally returns the job in flight."
  const same = inFlight.find((job) => job.range?.from === range.from && job.range.until === range.until);
  if (same) return accepted(same.id);
  if (inFlight.some((job) => job.range && jobView(state, job).status === 'pending')) {
    return fail(409, 'Another scheduling start for this app is still starting. Retry in a few seconds.');
  }
  // Posts an unfinished job already took are not taken twice: nothing is published twice.
  const taken = new Set(inFlight.flatMap((job) => job.post_ids));
  const eligible = calendarOf(state, app.id).filter((post) => {
    const at = postTime(state, post);
    return post.status === 'approved' && at >= from && at < until && !taken.has(post.id);
  });
  if (eligible.length > MAX_ELIGIBLE) {
    return fail(422, `${eligible.length} posts to schedule in this range; at most ${MAX_ELIGIBLE} per run. Schedule smaller ranges.`);
  }
  const count = eligible.length;
  const job: Job = {
    id: state.ids.next('job'),
    app_id: app.id,
    // Section 3: a range with nothing to schedule gives a job that is completed at once.
    empty_range: count === 0,
    starts_after_ms: state.clock.now() - state.startedAt + STARTING_MS,
    phase_ms: { prepare: 10_000, sandbox_sync: 20_000, finalize: 5_000 },
    fails_in_phase: null,
    range,
    post_ids: eligible.map((post) => post.id),
    result: { selected: count, materialized: count, created_workflows: count, reused_workflows: 0, plan_limited: 0, needs_reconnect: 0, failed: 0, skipped: 0 },
  };
  state.jobs.push(job);
  return accepted(job.id);
}

const accepted = (jobId: string) => ({ status: 202, body: { job_id: jobId } });

const badInstant = (field: string) =>
  invalid({ loc: ['body', field], msg: 'Input should be an ISO 8601 date or datetime', type: 'datetime_parsing' });

/** ISO 8601 date or date-time in epoch ms; without an offset it is UTC (service facts). */
function instant(text: string): number | undefined {
  if (!ISO_8601.test(text)) return undefined;
  const zoned = text.length > 10 && !/(Z|[+-]\d{2}:\d{2})$/i.test(text) ? `${text}Z` : text;
  const ms = Date.parse(zoned);
  const day = Date.parse(text.slice(0, 10));
  // Date.parse rolls 30 February over into March: a real date reads back the same.
  const real = Number.isFinite(day) && new Date(day).toISOString().startsWith(text.slice(0, 10));
  return real && Number.isFinite(ms) ? ms : undefined;
}
