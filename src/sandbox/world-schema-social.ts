import { z } from 'zod';

/** Zod schema of the social calendar's posts. */

const Id = z.string().min(1);

/**
 * Post statuses. `proposal`, `scheduled` and `failed` are documented; the service has others.
 * Our choice (documented nowhere): a post approved on the calendar but not yet handed over for
 * publishing has status `approved`; it is what start-scheduling takes, and a post an earlier run
 * could not place stays `approved`. `published` is a post already out.
 */
export const POST_STATUSES = ['proposal', 'approved', 'scheduled', 'failed', 'published'] as const;
export const PostStatusSchema = z.enum(POST_STATUSES);

export const PostSchema = z.strictObject({
  id: Id,
  app_id: Id,
  platform: z.enum(['instagram', 'linkedin']),
  title: z.string(),
  body: z.string().default(''),
  /** Milliseconds from the moment the world starts (negative: before it), or an ISO 8601 instant. */
  scheduled_at: z.union([z.number().int(), z.iso.datetime({ offset: true })]),
  /** IANA time zone the post was planned in; the answer also gives the local time there. */
  scheduled_timezone: z.string().min(1).default('UTC'),
  hashtags: z.array(z.string()).default([]),
  image_url: z.string().nullable().default(null),
  status: PostStatusSchema,
  /** A person changed this proposal: a `plan_id` rewrite keeps it (it drops untouched proposals). */
  edited: z.boolean().default(false),
  /** Deleted posts are never listed. */
  deleted: z.boolean().default(false),
});

export type WorldPost = z.output<typeof PostSchema>;

/** World reference checks for posts: unique ids, known apps, timezones the runtime knows. */
export function checkPosts(
  posts: WorldPost[],
  apps: Set<string>,
  issue: (path: PropertyKey[], message: string) => void,
): void {
  const seen = new Set<string>();
  const zones = new Map<string, boolean>();
  posts.forEach((post, i) => {
    if (seen.has(post.id)) issue(['posts', i, 'id'], `duplicate id "${post.id}"`);
    seen.add(post.id);
    if (!apps.has(post.app_id)) issue(['posts', i, 'app_id'], `unknown app "${post.app_id}"`);
    const zone = post.scheduled_timezone;
    if (!zones.has(zone)) zones.set(zone, knownTimeZone(zone));
    if (!zones.get(zone)) issue(['posts', i, 'scheduled_timezone'], `unknown time zone "${zone}"`);
  });
}

/**
 * Whether the runtime knows the zone. Asked once per zone, not per post: a formatter costs about a
 * millisecond to build (11 ms for the built-in world's posts in issue 19's profile).
 */
function knownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
