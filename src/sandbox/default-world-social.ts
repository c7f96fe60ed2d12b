import type { WorldInput } from './world.js';

/*
 * The social calendar of app_demo in the default world. Times count from the moment the world starts
 * (09:00 UTC on Monday 2 November 2026 under the tests' manual clock):
 *
 * | post          | platform  | when (from start) | status    | what it shows                                    |
 * |---------------|-----------|-------------------|-----------|--------------------------------------------------|
 * | post_recap    | linkedin  | 5 days ago        | published | already out                                      |
 * | post_teaser   | instagram | yesterday         | failed    | cannot be revived                                |
 * | post_webinar  | linkedin  | day 1             | scheduled | already handed over: scheduling leaves it        |
 * | post_launch   | instagram | day 1             | approved  | approved, waiting to be scheduled (next week)    |
 * | post_tips     | linkedin  | day 2             | proposal  | not taken by scheduling                          |
 * | post_behind   | instagram | day 3             | approved  | waiting (next week)                              |
 * | post_feature  | linkedin  | day 4             | approved  | waiting (next week)                              |
 * | post_poll     | instagram | day 5             | proposal  | edited by a person: a plan_id rewrite keeps it   |
 * | post_weekend  | instagram | day 6             | proposal  | untouched: a plan_id rewrite drops it            |
 * | post_case     | linkedin  | day 10            | approved  | waiting, outside the next week                   |
 * | post_draft    | linkedin  | day 3             | proposal  | deleted: never listed                            |
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Days and hours after the world starts. */
const at = (days: number, hours = 0) => days * DAY + hours * HOUR;
const image = (name: string) => `https://files.sandbox.test/social/${name}.png`;

export const DEFAULT_POSTS: WorldInput['posts'] = [
  {
    id: 'post_recap',
    app_id: 'app_demo',
    platform: 'linkedin',
    title: 'October recap',
    body: 'What we shipped in October: shared calendars, reminders and a faster week view.',
    scheduled_at: at(-5, 1),
    scheduled_timezone: 'Europe/Berlin',
    hashtags: ['productivity'],
    status: 'published',
  },
  {
    id: 'post_teaser',
    app_id: 'app_demo',
    platform: 'instagram',
    title: 'Sneak peek',
    body: 'Something new is coming to Demo Planner this week.',
    scheduled_at: at(-1, 3),
    scheduled_timezone: 'America/New_York',
    image_url: image('teaser'),
    status: 'failed',
  },
  {
    id: 'post_webinar',
    app_id: 'app_demo',
    platform: 'linkedin',
    title: 'Webinar: plan a quarter in an hour',
    body: 'Join us live on Thursday.',
    scheduled_at: at(1, 5),
    scheduled_timezone: 'Europe/Berlin',
    hashtags: ['webinar', 'planning'],
    status: 'scheduled',
  },
  {
    id: 'post_launch',
    app_id: 'app_demo',
    platform: 'instagram',
    title: 'Launch day',
    body: 'Demo Planner 2.0 is here.',
    scheduled_at: at(1, 8),
    scheduled_timezone: 'America/New_York',
    hashtags: ['launch', 'planner'],
    image_url: image('launch'),
    status: 'approved',
  },
  {
    id: 'post_tips',
    app_id: 'app_demo',
    platform: 'linkedin',
    title: '3 planning tips for busy teams',
    body: 'Block focus time, share one calendar, review on Fridays.',
    scheduled_at: at(2),
    scheduled_timezone: 'Europe/Berlin',
    status: 'proposal',
  },
  {
    id: 'post_behind',
    app_id: 'app_demo',
    platform: 'instagram',
    title: 'Behind the scenes',
    body: 'How the team plans a release.',
    scheduled_at: at(3, 2),
    scheduled_timezone: 'UTC',
    image_url: image('team'),
    status: 'approved',
  },
  {
    id: 'post_feature',
    app_id: 'app_demo',
    platform: 'linkedin',
    title: 'Feature spotlight: shared calendars',
    body: 'One calendar for the whole team.',
    scheduled_at: at(4, 6),
    scheduled_timezone: 'Europe/Berlin',
    hashtags: ['teamwork'],
    status: 'approved',
  },
  {
    id: 'post_poll',
    app_id: 'app_demo',
    platform: 'instagram',
    title: 'Poll: how do you plan your week?',
    body: 'Paper, app or both?',
    scheduled_at: at(5, 1),
    scheduled_timezone: 'America/New_York',
    status: 'proposal',
    edited: true,
  },
  {
    id: 'post_weekend',
    app_id: 'app_demo',
    platform: 'instagram',
    title: 'Weekend reset checklist',
    body: 'Five minutes on Sunday saves an hour on Monday.',
    scheduled_at: at(6),
    scheduled_timezone: 'UTC',
    status: 'proposal',
  },
  {
    id: 'post_case',
    app_id: 'app_demo',
    platform: 'linkedin',
    title: 'Customer story: how Acme plans',
    body: 'Acme cut planning meetings in half.',
    scheduled_at: at(10, 4),
    scheduled_timezone: 'Europe/Berlin',
    status: 'approved',
  },
  {
    id: 'post_draft',
    app_id: 'app_demo',
    platform: 'linkedin',
    title: 'Old draft',
    scheduled_at: at(3),
    status: 'proposal',
    deleted: true,
  },
];
