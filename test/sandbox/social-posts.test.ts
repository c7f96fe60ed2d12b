import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_START } from '../../src/sandbox/clock.js';
import { DEFAULT_WORLD } from '../../src/sandbox/default-world.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import { MAX_ELIGIBLE, STARTING_MS } from '../../src/sandbox/routes/social-schedule.js';
import { parseWorld } from '../../src/sandbox/world.js';
import { call, OWNER, paths, useSandbox } from './helpers.js';

const posts = (app: string) => `/api/apps/${app}/social-calendar/posts`;
const schedule = (app: string) => `/api/apps/${app}/social-calendar/posts/schedule`;
const KEY = 'key_demo_owner';
const DAY = 86_400_000;
const MINUTE = 60_000;

/** The default world as it starts at 09:00 UTC on 2 November 2026, so its posts have fixed times. */
function atDefaultStart(s: { readonly sandbox: Sandbox }) {
  beforeEach(() => {
    s.sandbox.clock.set(DEFAULT_START);
    s.sandbox.reset();
  });
}

describe('sandbox social calendar: list posts', () => {
  const s = useSandbox();
  atDefaultStart(s);
  const list = async (query = '', credential: { apiKey?: string; token?: string } = { apiKey: KEY }) =>
    call(s.sandbox, 'GET', posts('app_demo') + query, credential);
  const statusOf = (body: Array<{ id: string; status: string }>) => Object.fromEntries(body.map((post) => [post.id, post.status]));

  it('lists every non-deleted post of the app, earliest first, with the documented fields', async () => {
    const { status, body } = await list();
    expect(status).toBe(200);
    expect(body.map((post: { id: string }) => post.id)).toEqual([
      'post_recap',
      'post_teaser',
      'post_webinar',
      'post_launch',
      'post_tips',
      'post_behind',
      'post_feature',
      'post_poll',
      'post_weekend',
      'post_case',
    ]);
    const times = body.map((post: { scheduled_at: string }) => Date.parse(post.scheduled_at));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(body[3]).toEqual({
      id: 'post_launch',
      platform: 'instagram',
      title: 'Launch day',
      body: 'Demo Planner 2.0 is here.',
      scheduled_at: '2026-11-03T17:00:00.000Z',
      scheduled_timezone: 'America/New_York',
      scheduled_local_at: '2026-11-03T12:00:00',
      hashtags: ['launch', 'planner'],
      image_url: 'https://files.sandbox.test/social/launch.png',
      status: 'approved',
    });
  });

  it('accepts a personal API key or a personal access token as Bearer, and refuses a workspace API key', async () => {
    expect((await list('', { apiKey: KEY })).status).toBe(200);
    expect((await list('', { token: OWNER })).status).toBe(200);
    expect((await list('', { apiKey: 'key_demo_owner_ro' })).status).toBe(200);
    expect((await list('', {})).status).toBe(401);
    const workspaceKey = await list('', { apiKey: 'wsk_demo' });
    expect(workspaceKey.status).toBe(403);
    expect(workspaceKey.body.detail).toMatch(/Workspace API keys/);
  });

  it('answers an empty calendar for an app without posts and 404 for an app of another workspace', async () => {
    expect((await call(s.sandbox, 'GET', posts('app_shop'), { apiKey: KEY })).body).toEqual([]);
    expect((await call(s.sandbox, 'GET', posts('app_eu'), { apiKey: KEY })).status).toBe(404);
  });

  it('rewrites the calendar when plan_id is sent: untouched proposals are dropped, edited ones kept, new ones backfilled', async () => {
    const before = statusOf((await list()).body);
    const { body } = await list('?plan_id=plan_1');
    const after = statusOf(body);
    expect(after).not.toHaveProperty('post_tips');
    expect(after).not.toHaveProperty('post_weekend');
    expect(after.post_poll).toBe('proposal');
    const backfilled = Object.keys(after).filter((id) => !(id in before));
    expect(backfilled).toHaveLength(4);
    expect(backfilled.every((id) => after[id] === 'proposal')).toBe(true);
    // The rewrite is lasting: a plain list afterwards shows the rewritten calendar.
    expect(statusOf((await list()).body)).toEqual(after);
  });

  it('counts against the 40 social-calendar reads per minute, times the plan multiplier', async () => {
    s.sandbox.clock.advance(MINUTE - (s.sandbox.clock.now() % MINUTE));
    const statuses: number[] = [];
    for (let i = 0; i < 81; i++) statuses.push((await list()).status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(80);
    expect(statuses.at(-1)).toBe(429);
  });
});

describe('sandbox social calendar: start scheduling posts', () => {
  const s = useSandbox();
  atDefaultStart(s);
  const start = (from: string, until: string, credential: { apiKey?: string; token?: string } = { apiKey: KEY }) =>
    call(s.sandbox, 'POST', schedule('app_demo'), { ...credential, body: { scheduled_from: from, scheduled_until: until } });
  const job = async (id: string) => (await call(s.sandbox, 'GET', paths.job('app_demo', id), { apiKey: KEY })).body;
  const statuses = async () =>
    Object.fromEntries((await call(s.sandbox, 'GET', posts('app_demo'), { apiKey: KEY })).body.map((p: { id: string; status: string }) => [p.id, p.status]));
  const WEEK = ['2026-11-02T09:00:00Z', '2026-11-09T09:00:00Z'] as const;

  it('answers 202 with a job that runs on the clock, then the approved posts of the range are scheduled', async () => {
    const started = await start(...WEEK);
    expect(started.status).toBe(202);
    const id = started.body.job_id;
    expect(await job(id)).toMatchObject({ status: 'pending', result: null });
    s.sandbox.clock.advance(STARTING_MS);
    expect(await job(id)).toMatchObject({ status: 'running', phase: 'prepare' });
    expect((await statuses()).post_launch).toBe('approved');
    s.sandbox.clock.advance(35_000);
    expect(await job(id)).toMatchObject({ status: 'completed', result: { selected: 3, materialized: 3, created_workflows: 3 } });
    expect(await statuses()).toMatchObject({
      post_launch: 'scheduled',
      post_behind: 'scheduled',
      post_feature: 'scheduled',
      post_tips: 'proposal',
      post_poll: 'proposal',
      post_case: 'approved',
      post_webinar: 'scheduled',
      post_teaser: 'failed',
    });
  });

  it('accepts a bearer access token too', async () => {
    expect((await start(...WEEK, { token: OWNER })).status).toBe(202);
  });

  it('takes only approved posts: a range holding only proposals gives a job completed at once', async () => {
    const started = await start('2026-11-04T00:00:00Z', '2026-11-05T00:00:00Z');
    expect(await job(started.body.job_id)).toMatchObject({ status: 'completed', result: { selected: 0 } });
    expect((await statuses()).post_tips).toBe('proposal');
  });

  it('returns the job in flight when the same window is started again', async () => {
    const first = await start(...WEEK);
    s.sandbox.clock.advance(10_000);
    const again = await start('2026-11-02T09:00:00.000Z', '2026-11-09T09:00:00+00:00');
    expect(again).toMatchObject({ status: 202, body: { job_id: first.body.job_id } });
  });

  it('answers 409 while another start for the app is still starting, and accepts once it has started', async () => {
    await start(...WEEK);
    const conflict = await start('2026-11-10T00:00:00Z', '2026-11-20T00:00:00Z');
    expect(conflict.status).toBe(409);
    expect(conflict.body.detail).toMatch(/still starting/);
    s.sandbox.clock.advance(STARTING_MS);
    expect((await start('2026-11-10T00:00:00Z', '2026-11-20T00:00:00Z')).status).toBe(202);
  });

  it('never takes a post twice: an overlapping range leaves the posts a running job holds', async () => {
    await start(...WEEK);
    s.sandbox.clock.advance(STARTING_MS);
    const overlapping = await start('2026-11-01T00:00:00Z', '2026-11-20T00:00:00Z');
    s.sandbox.clock.advance(60_000);
    expect((await job(overlapping.body.job_id)).result.selected).toBe(1); // only post_case
  });

  it('reads a date as midnight UTC and a time without offset as UTC', async () => {
    const started = await start('2026-11-03', '2026-11-03T17:00:01');
    s.sandbox.clock.advance(60_000);
    expect((await job(started.body.job_id)).result.selected).toBe(1); // post_launch at 17:00 UTC
  });

  it('leaves the posts approved when the job fails, so the same range can be started again', async () => {
    const first = await start(...WEEK);
    s.sandbox.simulation.scenario('jobs_fail');
    s.sandbox.clock.advance(60_000);
    expect((await job(first.body.job_id)).status).toBe('failed');
    expect((await statuses()).post_launch).toBe('approved');
    s.sandbox.simulation.scenario('default');
    const second = await start(...WEEK);
    expect(second.body.job_id).not.toBe(first.body.job_id);
    s.sandbox.clock.advance(60_000);
    expect((await statuses()).post_launch).toBe('scheduled');
  });

  it.each([
    ['a missing field', { scheduled_from: '2026-11-02' }, 'scheduled_until'],
    ['a date that is not ISO 8601', { scheduled_from: 'next monday', scheduled_until: '2026-11-09' }, 'scheduled_from'],
    ['a date that does not exist', { scheduled_from: '2026-02-30', scheduled_until: '2026-03-09' }, 'scheduled_from'],
    ['an end not after the start', { scheduled_from: '2026-11-09', scheduled_until: '2026-11-09' }, 'scheduled_until'],
  ])('answers a 2.9 validation body for %s', async (_, body, field) => {
    const answer = await call(s.sandbox, 'POST', schedule('app_demo'), { apiKey: KEY, body });
    expect(answer.status).toBe(422);
    expect(answer.body.detail[0].loc).toEqual(['body', field]);
  });

  it('refuses a read-only credential and a viewer of the app', async () => {
    const readOnly = await start(...WEEK, { apiKey: 'key_demo_owner_ro' });
    expect(readOnly).toMatchObject({ status: 403, body: { detail: 'read_only_credential_route_not_allowed' } });
    expect((await start(...WEEK, { token: 'pat_demo_viewer' })).status).toBe(403);
  });

  it('limits starts to 20 a minute times the multiplier, apart from the 40 reads', async () => {
    s.sandbox.clock.advance(MINUTE - (s.sandbox.clock.now() % MINUTE));
    const answers: number[] = [];
    for (let i = 0; i < 41; i++) answers.push((await start(...WEEK)).status); // the same window: the job in flight
    expect(answers.filter((status) => status === 202)).toHaveLength(40);
    const limited = await start(...WEEK);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await call(s.sandbox, 'GET', posts('app_demo'), { apiKey: KEY })).status).toBe(200);
  });
});

describe('sandbox social calendar: a range with more than 100 posts to schedule', () => {
  let sandbox: Sandbox;
  afterEach(() => sandbox.close());

  it(`answers 422 with more than ${MAX_ELIGIBLE} eligible posts and accepts a smaller range`, async () => {
    const many = Array.from({ length: MAX_ELIGIBLE + 1 }, (_, i) => ({
      id: `post_bulk_${i}`,
      app_id: 'app_shop',
      platform: 'linkedin' as const,
      title: `Bulk ${i}`,
      scheduled_at: DAY + i * 60_000,
      status: 'approved' as const,
    }));
    sandbox = await startSandbox({ world: parseWorld({ ...DEFAULT_WORLD, posts: many }) });
    const body = (until: string) => ({ scheduled_from: '2026-11-03T00:00:00Z', scheduled_until: until });
    const tooMany = await call(sandbox, 'POST', schedule('app_shop'), { apiKey: KEY, body: body('2026-11-04T00:00:00Z') });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.detail).toMatch(/Schedule smaller ranges/);
    // The 101st post is at 09:00 + 100 min: a range ending there holds 100.
    const fits = await call(sandbox, 'POST', schedule('app_shop'), { apiKey: KEY, body: body('2026-11-03T10:40:00Z') });
    expect(fits.status).toBe(202);
  });
});

describe('sandbox world: posts', () => {
  const post = { id: 'post_x', app_id: 'app_demo', platform: 'instagram', title: 'X', scheduled_at: 0, status: 'approved' };

  it.each([
    ['an unknown app', { ...post, app_id: 'app_nope' }, /posts\[0\]\.app_id: unknown app "app_nope"/],
    ['an unknown time zone', { ...post, scheduled_timezone: 'Mars/Olympus' }, /posts\[0\]\.scheduled_timezone/],
    ['a platform other than instagram or linkedin', { ...post, platform: 'tiktok' }, /posts\[0\]\.platform/],
  ])('refuses a post with %s', (_, bad, message) => {
    expect(() => parseWorld({ ...DEFAULT_WORLD, posts: [bad] })).toThrow(message);
  });

  it('refuses two posts with the same id', () => {
    expect(() => parseWorld({ ...DEFAULT_WORLD, posts: [post, post] })).toThrow(/posts\[1\]\.id: duplicate id "post_x"/);
  });
});
