import { z } from 'zod';
import type { SchedulingJob } from '../api/schemas.js';
import { defineTool, type ToolResult } from './define.js';
import { appId, id } from './fields.js';
import { sanitize } from './format.js';

/**
 * One poll every 5 s is 12 a minute: well inside the 40 per minute that every social-calendar read
 * shares (spec 8), leaving room for the client's retries and other callers.
 */
export const POLL_EVERY_MS = 5_000;

const COUNT_LABELS = {
  materialized: 'materialized',
  created_workflows: 'created workflows',
  reused_workflows: 'reused workflows',
  plan_limited: 'plan-limited',
  needs_reconnect: 'need an account reconnected',
  failed: 'failed',
  skipped: 'skipped',
} as const;

export const getSchedulingJob = defineTool({
  name: 'get_scheduling_job',
  title: 'Get Scheduling Job',
  description:
    'Status of a social-calendar scheduling job (job_id from starting to schedule posts), with result counts once completed. wait_seconds polls every 5 s until it completes or fails; if still running, call again. A failed job shows as FAILED: schedule the same range again.',
  input: {
    app_id: appId,
    job_id: id('ID of the scheduling job.'),
    wait_seconds: z.int().min(0).max(300).default(0).describe('Seconds to wait for the job to finish (0: check once).'),
  },
  output: {
    job_id: z.string(),
    status: z.string().describe('pending, running, completed, failed'),
    phase: z.string().optional(),
    done: z.boolean(),
    counts: z.record(z.string(), z.number()).optional().describe('Once completed'),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  cost: 'none',
  statusHints: {
    401: 'The API key is missing, invalid or expired: set APPMGMT_API_KEY to a personal API key (this endpoint uses the api_key header).',
    403: 'The API key may not read this app; workspace API keys are refused, use a personal API key.',
    404: 'App or job not found: check app_id and job_id.',
    429: 'Rate limit: all social-calendar reads share 40 requests per minute.',
    read_only: 'Set APPMGMT_API_KEY to a personal API key that may read this app. Retrying will not help.',
  },
  async run({ app_id, job_id, wait_seconds }, { api, clock, signal, progress }) {
    const started = clock.now();
    const deadline = started + wait_seconds * 1000;
    let job = await api.getSchedulingJob(app_id, job_id, { signal });
    while (!isDone(job) && clock.now() < deadline) {
      await progress(`Job ${job_id}: ${sanitize(job.status, 20)}, phase ${sanitize(job.phase ?? '?', 40)}.`);
      await clock.sleep(Math.min(POLL_EVERY_MS, deadline - clock.now()), signal);
      job = await api.getSchedulingJob(app_id, job_id, { signal });
    }
    return describeJob(job_id, job, wait_seconds > 0 ? Math.round((clock.now() - started) / 1000) : undefined);
  },
});

const isDone = (job: SchedulingJob) => job.status === 'completed' || job.status === 'failed';

function describeJob(jobId: string, job: SchedulingJob, waitedSeconds: number | undefined): ToolResult {
  const status = sanitize(job.status, 20);
  const phase = job.phase ? sanitize(job.phase, 40) : undefined;
  const counts = job.status === 'completed' && job.result ? countsOf(job.result) : undefined;
  const structured = { job_id: jobId, status, ...(phase ? { phase } : {}), done: isDone(job), ...(counts ? { counts } : {}) };
  const at = phase ? ` (phase ${phase})` : '';
  if (job.status === 'failed') {
    return {
      isError: true,
      text: `Job ${jobId} FAILED${at}. The service gives no cause (its error is a fixed flag). Posts already handled keep their status; the rest are untouched. Next: schedule the same range again (the start-scheduling operation in the service).`,
    };
  }
  if (job.status === 'completed') {
    const problems = counts && (counts.failed ?? 0) + (counts.needs_reconnect ?? 0) + (counts.plan_limited ?? 0) > 0;
    return {
      structured,
      text: `Job ${jobId} completed: ${counts ? countsText(counts) : 'no result counts given'}. Done${problems ? '; some posts were not scheduled, check them in the service' : ''}.`,
    };
  }
  const next =
    waitedSeconds === undefined
      ? 'Not finished: call get_scheduling_job again, or with wait_seconds (up to 300) to wait for it.'
      : `Still ${status} after waiting ${waitedSeconds} s: call get_scheduling_job again.`;
  return { structured, text: `Job ${jobId}: ${status}${at}. ${next}` };
}

function countsOf(result: NonNullable<SchedulingJob['result']>): Record<string, number> {
  return Object.fromEntries(Object.entries(result).filter((entry): entry is [string, number] => typeof entry[1] === 'number'));
}

/** "12 selected: 10 created workflows, 2 reused workflows"; only non-zero counts besides selected. */
function countsText(counts: Record<string, number>): string {
  const others = Object.entries(COUNT_LABELS)
    .filter(([key]) => (counts[key] ?? 0) > 0)
    .map(([key, label]) => `${counts[key]} ${label}`);
  const selected = `${counts.selected ?? 0} selected`;
  return others.length ? `${selected}: ${others.join(', ')}` : selected;
}
