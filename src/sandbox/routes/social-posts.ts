import { isResponse, ok } from '../respond.js';
import type { Route } from '../router.js';
import { DAY_MS, iso, type State } from '../state.js';
import type { App } from '../world.js';
import type { WorldPost } from '../world-schema-social.js';
import { guardApp, rateLimit } from './guard.js';
import { jobView } from './jobs.js';

/** Proposals a `plan_id` rewrite backfills (the real count is not documented). */
const BACKFILLED = 4;
const HOUR_MS = 3_600_000;

/** A post's time in epoch ms: a number counts from the moment the world started. */
export function postTime(state: State, post: WorldPost): number {
  return typeof post.scheduled_at === 'number' ? state.startedAt + post.scheduled_at : Date.parse(post.scheduled_at);
}

/** The app's posts that are listed: not deleted, earliest first. */
export function calendarOf(state: State, appId: string): WorldPost[] {
  return state.posts
    .filter((post) => post.app_id === appId && !post.deleted)
    .map((post, index) => ({ post, index, at: postTime(state, post) }))
    .sort((a, b) => a.at - b.at || a.index - b.index)
    .map(({ post }) => post);
}

/**
 * Hands the posts of completed jobs over for publishing (approved -> scheduled). Jobs advance with
 * the clock and are viewed lazily, so their effect on the posts is applied when posts are next read.
 */
export function settleJobs(state: State, appId: string): void {
  for (const job of state.jobs) {
    if (job.app_id !== appId || job.post_ids.length === 0 || jobView(state, job).status !== 'completed') continue;
    for (const post of state.posts) {
      if (job.post_ids.includes(post.id) && post.status === 'approved') post.status = 'scheduled';
    }
  }
}

/** List scheduled posts (service facts, "Social calendar"): the whole calendar, no paging. */
export const listPosts: Route = {
  method: 'GET',
  path: '/api/apps/:app_id/social-calendar/posts',
  handle(context) {
    const { state, req } = context;
    const guarded = guardApp(context, 'token_or_api_key', 'viewer');
    if (isResponse(guarded)) return guarded;
    // Counts against the 40 per minute of the social-calendar reads, per workspace like 4.5.
    const limited = rateLimit(context, guarded.workspace, 'social_calendar', guarded.workspace.id);
    if (limited) return limited;
    settleJobs(state, guarded.app.id);
    const planId = req.query.get('plan_id');
    // Documented trap: plan_id does not filter, it rewrites the calendar.
    if (planId !== null) rewriteForPlan(state, guarded.app, planId);
    return ok(calendarOf(state, guarded.app.id).map((post) => postView(state, post)));
  },
};

/** What `plan_id` does: drops the proposals nobody touched and backfills new ones from the plan. */
function rewriteForPlan(state: State, app: App, planId: string): void {
  for (const post of state.posts) {
    if (post.app_id === app.id && post.status === 'proposal' && !post.edited) post.deleted = true;
  }
  const today = Math.floor(state.clock.now() / DAY_MS) * DAY_MS;
  for (let n = 1; n <= BACKFILLED; n++) {
    state.posts.push({
      id: state.ids.next('post'),
      app_id: app.id,
      platform: n % 2 ? 'instagram' : 'linkedin',
      title: `Plan ${planId.slice(0, 60)}: post ${n}`,
      body: '',
      scheduled_at: iso(today + n * DAY_MS + 12 * HOUR_MS),
      scheduled_timezone: 'UTC',
      hashtags: [],
      image_url: null,
      status: 'proposal',
      edited: false,
      deleted: false,
    });
  }
}

function postView(state: State, post: WorldPost) {
  const at = postTime(state, post);
  return {
    id: post.id,
    platform: post.platform,
    title: post.title,
    body: post.body,
    scheduled_at: iso(at),
    scheduled_timezone: post.scheduled_timezone,
    scheduled_local_at: localTime(at, post.scheduled_timezone),
    hashtags: post.hashtags,
    image_url: post.image_url,
    status: post.status,
  };
}

/** `2026-11-03T12:00:00`: the wall-clock time in `timeZone`, without an offset. */
function localTime(ms: number, timeZone: string): string {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  const part = Object.fromEntries(format.formatToParts(new Date(ms)).map(({ type, value }) => [type, value]));
  return `${part.year}-${part.month}-${part.day}T${part.hour}:${part.minute}:${part.second}`;
}
