import { expect } from 'vitest';
import type { Sandbox } from '../../src/sandbox/http.js';

/**
 * What "next week's approved posts" means, worked out apart from the server: the calendar read
 * straight from the sandbox over HTTP, and next week counted here from the sandbox's clock.
 */

const DAY_MS = 86_400_000;

export interface CalendarPost {
  id: string;
  status: string;
  scheduled_at: string;
}

/** Every post of `app` as the sandbox holds it, read with the demo owner's API key. */
export async function calendarOf(sandbox: Sandbox, app: string): Promise<CalendarPost[]> {
  const response = await fetch(`${sandbox.url}/api/apps/${app}/social-calendar/posts`, { headers: { api_key: 'key_demo_owner' } });
  expect(response.status).toBe(200);
  return ((await response.json()) as CalendarPost[]).map(({ id, status, scheduled_at }) => ({ id, status, scheduled_at }));
}

/** The coming Monday 00:00 UTC to the Monday after it (excluded), as epoch milliseconds. */
export function nextWeekOf(now: number): { from: number; until: number } {
  const midnight = Math.floor(now / DAY_MS) * DAY_MS;
  const daysToMonday = (8 - new Date(now).getUTCDay()) % 7 || 7;
  const from = midnight + daysToMonday * DAY_MS;
  return { from, until: from + 7 * DAY_MS };
}

/**
 * Checks that exactly the posts approved in `week` before became scheduled, and that every other post
 * kept its status; returns the ids that were scheduled, so a caller can insist there were some.
 */
export function expectOnlyWeekScheduled(before: CalendarPost[], after: CalendarPost[], week: { from: number; until: number }): string[] {
  const inWeek = (post: CalendarPost) => Date.parse(post.scheduled_at) >= week.from && Date.parse(post.scheduled_at) < week.until;
  const expected = before.map((post) => ({ id: post.id, status: post.status === 'approved' && inWeek(post) ? 'scheduled' : post.status }));
  expect(after.map(({ id, status }) => ({ id, status }))).toEqual(expected);
  return before.filter((post) => post.status === 'approved' && inWeek(post)).map((post) => post.id);
}
