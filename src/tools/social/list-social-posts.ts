import { z } from 'zod';
import type { SocialPost } from '../../api/schemas.js';
import { sanitize } from '../../text.js';
import { defineTool } from '../define.js';
import { appId, text, whole } from '../fields.js';
import { approxTokens, fitBudget, nextCall, plural, today, weekLine, weeksOf } from '../format.js';
import { rangeOf, SOCIAL_CREDENTIAL_HINTS } from './calendar.js';
import { countsOf, describeCalendar, nextOf, postFacts, postLine, scheduleRange, type PostFacts } from './post-summary.js';

// Bounds that keep one result under 2,000 tokens however large the calendar grows: at most 12 rows,
// and an estimate (approxTokens, which errs high) of the whole result, text and facts together.
const MAX_SHOWN = 12;
const RESULT_BUDGET = 2_300;
/** Tokens kept back for the call that shows the rest of a long list. */
const PAGING_TOKENS = 60;
/** A calendar grows without bound (service facts); this only bounds the input. */
const MAX_SKIP = 100_000;
/** A caption in the calendar view (never in the model's text): two lines of a narrow grid cell. */
const CAPTION_MAX = 200;

const Count = z.strictObject({ name: z.string(), count: z.number() });
const Post = z.strictObject({
  id: z.string(),
  platform: z.string(),
  scheduled_at: z.string(),
  scheduled_local_at: z.string().optional(),
  scheduled_timezone: z.string().optional(),
  status: z.string(),
  title: z.string(),
});

export const listSocialPosts = defineTool({
  name: 'list_social_posts',
  title: 'List Social Posts',
  description:
    "An app's social calendar: counts, then matching posts earliest first. Statuses: proposal (unpublished until approved in the service), approved, scheduled, published, failed (final). start_scheduling_posts takes approved ones.",
  input: {
    app_id: appId,
    from: text(40).optional().describe('ISO 8601, included'),
    until: text(40).optional().describe('Excluded'),
    status: text(40).optional().describe('e.g. approved'),
    platform: z.enum(['instagram', 'linkedin']).optional().describe('Only this one'),
    skip: whole(0, MAX_SKIP).optional().describe('Matching posts to skip.'),
  },
  output: {
    today: z.string().describe('YYYY-MM-DD, UTC.'),
    next_week: z.strictObject({ from: z.string(), until: z.string() }).describe('Monday to Sunday, UTC; until excluded.'),
    total: z.number().describe('Posts on the whole calendar.'),
    by_status: z.array(Count),
    by_platform: z.array(Count),
    matching: z.number().describe('Posts matching the filters.'),
    posts: z.array(Post).describe('The first matching posts, earliest first.'),
    approved_waiting: z.number().describe('Approved posts in the from/until range not yet handed over.'),
    schedule_range: z
      .strictObject({ scheduled_from: z.string(), scheduled_until: z.string() })
      .optional()
      .describe('The range to pass to start_scheduling_posts.'),
    next_skip: z.number().optional().describe('skip value for the matching posts not shown.'),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  cost: 'none',
  statusHints: {
    ...SOCIAL_CREDENTIAL_HINTS,
    404: 'App not found: check app_id.',
    429: 'Rate limit: social-calendar reads share 40 requests per minute.',
    read_only: 'Set APPMGMT_API_KEY or APPMGMT_ACCESS_TOKEN to a personal credential that may read this app. Retrying will not help.',
  },
  async run({ app_id, from, until, status, platform, skip = 0 }, ctx) {
    const { start, end } = rangeOf('from', from, 'until', until);
    // Never send plan_id: it does not filter, it rewrites the calendar. The client has no way to.
    const all = await ctx.api.listSocialPosts(app_id, { signal: ctx.signal });
    const inRange = (post: SocialPost) => {
      if (start === undefined && end === undefined) return true;
      const at = Date.parse(post.scheduled_at ?? '');
      return Number.isFinite(at) && (start === undefined || at >= start) && (end === undefined || at < end);
    };
    const wanted = status?.toLowerCase();
    const matching = all.filter(
      (post) => inRange(post) && (!wanted || post.status?.toLowerCase() === wanted) && (!platform || post.platform?.toLowerCase() === platform),
    );
    const range = scheduleRange(all.filter(inRange), start, end);
    const counts = countsOf(all);
    const now = ctx.clock.now();
    const summary = { appId: app_id, total: all.length, counts, filters: { from: start, until: end, status, platform }, matching: matching.length, range, today: weekLine(now) };
    const { next_week } = weeksOf(now);
    const next = nextOf(ctx, app_id, range, all.filter(inRange), start !== undefined && end !== undefined, next_week);
    const facts = {
      today: today(now),
      next_week,
      total: all.length,
      by_status: counts.byStatus,
      by_platform: counts.byPlatform,
      matching: matching.length,
      approved_waiting: range.waiting,
      ...(range.scheduled_from ? { schedule_range: { scheduled_from: range.scheduled_from, scheduled_until: range.scheduled_until } } : {}),
    };
    // The rows get whatever the rest of the result leaves of the budget.
    const rest = approxTokens(describeCalendar({ ...summary, lines: [] })) + approxTokens(JSON.stringify(facts)) + 2 * approxTokens(next);
    const shown = fit(matching.slice(skip), RESULT_BUDGET - rest - PAGING_TOKENS);
    const nextSkip = skip + shown.length < matching.length ? skip + shown.length : undefined;
    const more = nextSkip === undefined ? '' : nextCall(ctx.config, 'list_social_posts', { app_id, from, until, status, platform, skip: nextSkip });
    return {
      text: describeCalendar({ ...summary, skip, lines: shown.map((row) => row.line) }),
      next: more ? `${next} The other ${plural(matching.length - nextSkip!, 'matching post')}: ${more}.` : next,
      structured: { ...facts, posts: shown.map((row) => row.facts), ...(nextSkip !== undefined ? { next_skip: nextSkip } : {}) },
      // The calendar view shows each listed post's caption, which the model's text leaves out.
      view: { posts: matching.slice(skip, skip + shown.length).map((post) => ({ id: sanitize(post.id ?? '', 100), caption: sanitize(post.body ?? '', CAPTION_MAX) })) },
    };
  },
});

/** The earliest matching posts that fit the row limits, each as its facts and its text line. */
function fit(matching: SocialPost[], budget: number): Array<{ facts: PostFacts; line: string }> {
  const rows = matching.slice(0, MAX_SHOWN).map((post) => {
    const facts = postFacts(post);
    return { facts, line: postLine(facts) };
  });
  return fitBudget(rows, budget, (row) => approxTokens(row.line) + approxTokens(JSON.stringify(row.facts)));
}
