import { z } from 'zod';
import type { SchedulingJob } from '../../api/schemas.js';
import { CancelledError, describeError } from '../../errors.js';
import { idText, sanitize } from '../../text.js';
import { defineTool, type ToolContext, type ToolResult } from '../define.js';
import { appId, id, whole } from '../fields.js';
import { aside, nextCall, stepTo } from '../format.js';
import { SOCIAL_CREDENTIAL_HINTS } from './calendar.js';
import { scheduleRange, type ScheduleRange } from './post-summary.js';

/**
 * One poll every 5 s is 12 a minute: well inside the 40 per minute that every social-calendar read
 * shares (spec 8), leaving room for the client's retries and other callers.
 */
export const POLL_EVERY_MS = 5_000;
/** Five minutes: a job usually ends within one, and a tool call should not hold the client much longer. */
const MAX_WAIT_SECONDS = 300;

const COUNT_LABELS = {
  materialized: 'materialized',
  created_workflows: 'created workflows',
  reused_workflows: 'reused workflows',
  plan_limited: 'plan-limited',
  needs_reconnect: 'need an account reconnected',
  failed: 'failed',
  skipped: 'skipped',
} as const;
const COUNT_NAMES = ['selected', ...Object.keys(COUNT_LABELS)] as Array<'selected' | keyof typeof COUNT_LABELS>;

const count = z.number();
const Counts = z.strictObject({
  selected: count,
  materialized: count,
  created_workflows: count,
  reused_workflows: count,
  plan_limited: count,
  needs_reconnect: count,
  failed: count,
  skipped: count,
  other: count.describe('Sum of counts the service added that are not listed here.'),
});
type Counts = z.infer<typeof Counts>;

export const getSchedulingJob = defineTool({
  name: 'get_scheduling_job',
  title: 'Get Scheduling Job',
  description:
    "A scheduling job's status, with counts once completed. wait_seconds waits up to that long for it to end.",
  input: {
    app_id: appId,
    job_id: id('From start_scheduling_posts.'),
    wait_seconds: whole(0, MAX_WAIT_SECONDS).default(0).describe('0: check once.'),
  },
  output: {
    job_id: z.string(),
    status: z.string().describe('pending, running, completed, failed'),
    phase: z.string().optional(),
    done: z.boolean(),
    counts: Counts.optional().describe('Once completed'),
    approved_waiting: z.number().optional().describe('Once completed: approved posts on the calendar still not handed over.'),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  cost: 'none',
  statusHints: {
    ...SOCIAL_CREDENTIAL_HINTS,
    404: 'App or job not found: check app_id and job_id.',
    429: 'Rate limit: all social-calendar reads share 40 requests per minute.',
    read_only: 'Set APPMGMT_API_KEY or APPMGMT_ACCESS_TOKEN to a personal credential that may read this app. Retrying will not help.',
  },
  async run({ app_id, job_id, wait_seconds }, ctx) {
    const { api, clock, signal, progress } = ctx;
    const started = clock.now();
    const deadline = started + wait_seconds * 1000;
    let job = await api.getSchedulingJob(app_id, job_id, { signal });
    while (!isDone(job) && clock.now() < deadline) {
      await progress(`Job ${job_id}: ${sanitize(job.status, 20)}, phase ${sanitize(job.phase ?? '?', 40)}.`);
      try {
        await clock.sleep(Math.min(POLL_EVERY_MS, deadline - clock.now()), signal);
      } catch (error) {
        if (error instanceof CancelledError && ctx.shutdown.aborted) break; // shutting down: answer with what we have
        throw error;
      }
      job = await api.getSchedulingJob(app_id, job_id, { signal });
    }
    const waiting = job.status === 'completed' ? await stillWaiting(ctx, app_id) : undefined;
    return describeJob(ctx, app_id, job_id, job, wait_seconds > 0 ? Math.round((clock.now() - started) / 1000) : undefined, waiting);
  },
});

/**
 * Approved posts on the whole calendar that no run has taken yet: a job's counts cover only its own
 * range, so "completed" alone cannot say whether anything still waits. One calendar read; if it
 * fails, the job's own answer still stands and the text says what could not be checked.
 */
async function stillWaiting({ api, signal, config }: ToolContext, app: string): Promise<ScheduleRange | { unchecked: string }> {
  try {
    return scheduleRange(await api.listSocialPosts(app, { signal }), undefined, undefined);
  } catch (error) {
    if (signal.aborted) throw error;
    return { unchecked: (describeError(error, {}, config.timeoutMs) ?? 'the calendar read failed').split('\n')[0]! };
  }
}

const isDone = (job: SchedulingJob) => job.status === 'completed' || job.status === 'failed';

function describeJob(
  ctx: ToolContext,
  app: string,
  jobId: string,
  job: SchedulingJob,
  waitedSeconds: number | undefined,
  waiting?: ScheduleRange | { unchecked: string },
): ToolResult {
  const status = sanitize(job.status, 20);
  const phase = job.phase ? sanitize(job.phase, 40) : undefined;
  const counts = job.status === 'completed' && job.result ? countsOf(job.result) : undefined;
  const structured = { job_id: sanitize(jobId, 200), status, ...(phase ? { phase } : {}), done: isDone(job), ...(counts ? { counts } : {}) };
  const at = phase ? ` (phase ${phase})` : '';
  const shownId = idText(jobId);
  if (job.status === 'failed') {
    return {
      isError: true,
      text: `Job ${shownId} FAILED${at}. The service gives no cause (its error is a fixed flag). Posts already handled keep their status; the rest are untouched.`,
      // The job does not carry its range: the caller started it and knows it.
      next: stepTo(ctx, 'start_scheduling_posts', { app_id: app }, (call) => `Schedule the same range again: call ${call} with the scheduled_from and scheduled_until you started.`),
    };
  }
  if (job.status === 'completed') {
    const problems = counts && counts.failed + counts.needs_reconnect + counts.plan_limited > 0;
    const list = (say: (call: string) => string) => aside(ctx, 'list_social_posts', { app_id: app }, say);
    const lines = [`Job ${shownId} completed: ${counts ? countsText(counts) : 'no result counts given'}.`];
    let next = problems
      ? `Some posts were not placed${list((call) => `: see them with ${call}`)}; once the cause is fixed (plan limit, account to reconnect), start the same range again.`
      : 'Nothing more is needed.';
    if (waiting && 'unchecked' in waiting) {
      lines.push(`Could not check the calendar for approved posts still waiting: ${waiting.unchecked}`);
      if (!problems) next = stepTo(ctx, 'list_social_posts', { app_id: app }, (call) => `See whether approved posts still wait with ${call}.`);
    } else if (waiting && waiting.waiting > 0 && waiting.scheduled_from) {
      lines.push(`Still waiting: ${waiting.waiting} approved post${waiting.waiting === 1 ? '' : 's'} on the calendar not handed over yet, from ${waiting.scheduled_from} until ${waiting.scheduled_until}.`);
      if (!problems) {
        const range = { app_id: app, scheduled_from: waiting.scheduled_from, scheduled_until: waiting.scheduled_until };
        next =
          aside(ctx, 'start_scheduling_posts', range, (call) => `Only if the user wants them published too, call ${call} (all of them; a narrower range takes fewer).`) ||
          'Nothing more is needed for the range this job took.';
      }
    } else if (waiting) lines.push('No approved post on the calendar is still waiting.');
    return {
      structured: { ...structured, ...(waiting && !('unchecked' in waiting) ? { approved_waiting: waiting.waiting } : {}) },
      text: lines.join('\n'),
      next,
    };
  }
  const again = nextCall(ctx.config, 'get_scheduling_job', { app_id: app, job_id: jobId, wait_seconds: 60 });
  const text =
    waitedSeconds === undefined ? `Job ${shownId}: ${status}${at}. Not finished.` : `Job ${shownId}: ${status}${at}, still not finished after waiting ${waitedSeconds} s.`;
  return { structured, text, next: `Call ${again} to wait for it.` };
}

/** The known counts as fixed fields; any the service adds are summed into `other`. */
function countsOf(result: NonNullable<SchedulingJob['result']>): Counts {
  const number = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  const known = Object.fromEntries(COUNT_NAMES.map((name) => [name, number(result[name])])) as Omit<Counts, 'other'>;
  const other = Object.entries(result)
    .filter(([name]) => !(COUNT_NAMES as string[]).includes(name))
    .reduce((sum, [, value]) => sum + number(value), 0);
  return { ...known, other };
}

/** "12 selected: 10 created workflows, 2 reused workflows"; only non-zero counts besides selected. */
function countsText(counts: Counts): string {
  const others = Object.entries(COUNT_LABELS)
    .filter(([key]) => counts[key as keyof Counts] > 0)
    .map(([key, label]) => `${counts[key as keyof Counts]} ${label}`);
  if (counts.other > 0) others.push(`${counts.other} in counts not known to this server`);
  const selected = `${counts.selected} selected`;
  return others.length ? `${selected}: ${others.join(', ')}` : selected;
}
