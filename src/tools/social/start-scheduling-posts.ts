import { z } from 'zod';
import { idText, sanitize } from '../../text.js';
import { defineTool } from '../define.js';
import { appId, text } from '../fields.js';
import { aside, stepTo, todayLine } from '../format.js';
import { isoOf, MAX_PER_RUN, rangeOf, SOCIAL_CREDENTIAL_HINTS } from './calendar.js';

/** How long get_scheduling_job is asked to wait: a job usually finishes within a minute. */
const WAIT_SECONDS = 60;

export const startSchedulingPosts = defineTool({
  name: 'start_scheduling_posts',
  title: 'Start Scheduling Posts',
  description:
    "Hand the approved posts in [scheduled_from, scheduled_until) over for publishing (not proposals). Repeating returns the job in flight.",
  input: {
    app_id: appId,
    scheduled_from: text(40).describe('ISO 8601 date or instant, included.'),
    scheduled_until: text(40).describe('ISO 8601, excluded.'),
  },
  output: {
    job_id: z.string(),
    scheduled_from: z.string().describe('As sent, in UTC.'),
    scheduled_until: z.string().describe('As sent, in UTC.'),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  cost: 'none',
  statusHints: {
    ...SOCIAL_CREDENTIAL_HINTS,
    404: 'App not found: check app_id.',
    409: 'Another start of scheduling for this app is still starting; this call started nothing. That passes within seconds: call again shortly with the same range.',
    422: `Refused: more than ${MAX_PER_RUN} approved posts fall in this range (schedule smaller ranges, e.g. split it in two), or the range is invalid (see below).`,
    429: 'Rate limit: social-calendar writes share 20 requests per minute.',
    read_only: 'Starting scheduling needs a full-access personal credential in APPMGMT_API_KEY (or APPMGMT_ACCESS_TOKEN). Retrying will not help.',
  },
  async run({ app_id, scheduled_from, scheduled_until }, ctx) {
    const { start, end } = rangeOf('scheduled_from', scheduled_from, 'scheduled_until', scheduled_until);
    const range = { scheduled_from: isoOf(start!), scheduled_until: isoOf(end!) };
    const { job_id } = await ctx.api.startSchedulingPosts(app_id, range, { signal: ctx.signal });
    const job = sanitize(job_id, 200);
    return {
      text: [
        `Scheduling started on app ${idText(app_id)} for posts from ${range.scheduled_from} until ${range.scheduled_until} (the end excluded): job ${idText(job_id)}.`,
        'It takes the approved posts in the range not yet handed over; proposals stay on the calendar unpublished. A range with nothing to schedule gives a job that is already completed.',
        todayLine(ctx.clock.now()),
      ].join('\n'),
      next:
        stepTo(ctx, 'get_scheduling_job', { app_id, job_id: job, wait_seconds: WAIT_SECONDS }, (call) => `Call ${call} to wait for it; once completed it says which approved posts still wait.`) +
        (ctx.offered.has('get_scheduling_job') ? '' : aside(ctx, 'list_social_posts', { app_id }, (call) => ` ${call} shows which posts are scheduled.`)),
      structured: { job_id: job, ...range },
    };
  },
});
