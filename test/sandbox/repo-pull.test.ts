import { describe, expect, it } from 'vitest';
import { call, OWNER, paths, useSandbox } from './helpers.js';

describe('sandbox pull changes from the repository', () => {
  const s = useSandbox();
  const pull = (app: string, token = OWNER) => call(s.sandbox, 'POST', paths.pull(app), { token });
  const resolve = (app: string) => call(s.sandbox, 'POST', paths.resolve(app), { token: OWNER });
  const chat = (app: string, content: string) => call(s.sandbox, 'POST', paths.chat(app), { token: OWNER, body: { content } });
  const repo = (app: string) => s.sandbox.simulation.inspect().apps.find((a) => a.id === app)!.repository;

  it('applies the repository\'s new commits and answers their count and the head commit', async () => {
    const answer = await pull('app_notes');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ synced: true, already_up_to_date: false, commit_count: 3, head_sha: repo('app_notes').commits?.remote, error: null, error_message: null });
    expect(answer.body.head_sha).toMatch(/^[0-9a-f]{40}$/);
  });

  it('answers already_up_to_date, with no commits and no head, when nothing is new', async () => {
    await pull('app_notes');
    const again = await pull('app_notes');
    expect(again.body).toEqual({ synced: false, already_up_to_date: true, commit_count: 0, head_sha: null, error: null, error_message: null });
  });

  it('stops with merge_conflict when the new commits conflict with the app, applies nothing and leaves conflicts to resolve', async () => {
    const before = repo('app_demo').commits;
    const answer = await pull('app_demo');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ synced: false, already_up_to_date: false, commit_count: 0, head_sha: null, error: 'merge_conflict' });
    expect(answer.body.error_message).toMatch(/2 new commits conflict .* src\/pages\/Home\.tsx, src\/lib\/schedule\.ts/);
    expect(repo('app_demo')).toMatchObject({ merge_conflicts: true, remote_commits_ahead: 2, commits: before });
  });

  it('restarts from the same place: a pull after merge_conflict stops again until the conflicts are settled', async () => {
    await pull('app_demo');
    const again = await pull('app_demo');
    expect(again.body.error).toBe('merge_conflict');
    expect(again.body.error_message).toMatch(/still has merge conflicts/);
    expect(repo('app_demo').remote_commits_ahead).toBe(2);
  });

  it.each(['app_shop', 'app_blog', 'app_wiki', 'app_crm'])('answers not_connected with a readable reason for %s', async (app) => {
    const answer = await pull(app);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ synced: false, commit_count: 0, head_sha: null, error: 'not_connected' });
    expect(answer.body.error_message).toEqual(expect.stringMatching(/^[A-Z].*\.$/));
  });

  it('answers sync_in_progress while a builder turn holds the app, and pulls once it ends', async () => {
    s.sandbox.simulation.scenario('builder_busy');
    const busy = await pull('app_notes');
    expect(busy.body).toMatchObject({ synced: false, error: 'sync_in_progress' });
    expect(repo('app_notes').remote_commits_ahead).toBe(3);
    s.sandbox.clock.advance(5 * 60_000);
    expect((await pull('app_notes')).body).toMatchObject({ synced: true, commit_count: 3 });
  });

  it('completes the merge on the next pull once the resolution\'s question was answered in the chat', async () => {
    await pull('app_demo');
    expect((await resolve('app_demo')).body.status).toBe('needs_input');
    await chat('app_demo', 'Start weeks on Monday, and use the new name startOfWeek.');
    const answer = await pull('app_demo');
    expect(answer.body).toMatchObject({ synced: true, commit_count: 2, error: null });
    expect(answer.body.head_sha).toMatch(/^[0-9a-f]{40}$/);
    expect(repo('app_demo')).toMatchObject({ merge_conflicts: false, remote_commits_ahead: 0, conflicted_files: [] });
  });

  it('lands the resolution on the default branch and leaves the unpushed saved version for a push', async () => {
    expect((await call(s.sandbox, 'POST', paths.push('app_demo'), { token: OWNER })).body.error).toMatch(/Pull the changes/);
    await pull('app_demo');
    await resolve('app_demo');
    await chat('app_demo', 'Start weeks on Monday.');
    expect((await resolve('app_demo')).body.status).toBe('resolved');
    const { commits } = repo('app_demo');
    expect(commits?.saved).not.toBe(commits?.remote);
    const pushed = await call(s.sandbox, 'POST', paths.push('app_demo'), { token: OWNER });
    expect(pushed.body).toMatchObject({ success: true, commits_pushed: true, commit_hash: commits?.saved });
  });

  it('shares 20 requests a minute per caller (times the plan multiplier) with conflict resolution', async () => {
    // ws_demo's plan doubles the base: 40 a minute, whatever mix of pulls and resolutions.
    for (let i = 0; i < 20; i++) {
      expect((await pull('app_shop')).status).toBe(200);
      expect((await resolve('app_shop')).status).toBe(200);
    }
    const limited = await pull('app_shop');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await pull('app_shop', 'pat_demo_admin')).status).toBe(200);
  });

  it('refuses a read-only token and a credential without editor access', async () => {
    expect((await pull('app_notes', 'pat_demo_owner_ro')).status).toBe(403);
    expect((await pull('app_demo', 'pat_demo_viewer')).status).toBe(403);
  });
});
