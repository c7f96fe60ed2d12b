import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/http.js';
import { call, OWNER, paths, useSandbox } from './helpers.js';

describe('sandbox 4.6 resolve repository sync conflicts', () => {
  const s = useSandbox();
  const resolve = (app: string, token = OWNER) => call(s.sandbox, 'POST', paths.resolve(app), { token });
  const credits = (workspace: string) => s.sandbox.simulation.inspect().workspaces.find((w) => w.id === workspace)?.credits;

  it('resolves the conflicts in one AI turn, spends its credits and takes the run time', async () => {
    // app_forum's run needs an answer first; once the chat has one, the next run resolves.
    expect((await resolve('app_forum')).body.status).toBe('needs_input');
    await call(s.sandbox, 'POST', paths.chat('app_forum'), { token: OWNER, body: { content: 'Keep the app version.' } });
    const creditsBefore = credits('ws_demo')!;
    const before = s.sandbox.clock.now();
    const answer = await resolve('app_forum');
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe('resolved');
    expect(credits('ws_demo')).toBe(creditsBefore - 5);
    expect(s.sandbox.clock.now() - before).toBe(90_000);
    const app = s.sandbox.simulation.inspect().apps.find((a) => a.id === 'app_forum');
    expect(app?.repository.merge_conflicts).toBe(false);
  });

  it('retries once automatically when publishing finds the remote moved on', async () => {
    const answer = await resolve('app_docs');
    expect(answer.body.status).toBe('resolved');
    expect(s.sandbox.simulation.inspect().resolutions[0]).toMatchObject({ app_id: 'app_docs', attempts: 2, credits_used: 10 });
    expect(credits('ws_demo')).toBe(490);
  });

  it('answers needs_input when the run waits for an answer in the app chat', async () => {
    const answer = await resolve('app_forum');
    expect(answer.body.status).toBe('needs_input');
    expect(s.sandbox.simulation.inspect().apps.find((a) => a.id === 'app_forum')?.repository.merge_conflicts).toBe(true);
  });

  it.each(['conflict', 'apply_pending', 'failed'])('answers %s when the scenario sets that outcome', async (outcome) => {
    s.sandbox.simulation.scenario(`resolution_${outcome}`);
    expect((await resolve('app_forum')).body.status).toBe(outcome);
  });

  it('answers 400 when the workspace is out of credits, and runs no AI turn', async () => {
    const answer = await resolve('app_free', 'pat_free_owner');
    expect(answer.status).toBe(400);
    expect(answer.body.detail).toMatch(/Out of credits/);
    expect(s.sandbox.simulation.inspect().resolutions).toEqual([]);
  });

  it('answers 400 out of credits under the out_of_credits scenario', async () => {
    s.sandbox.simulation.scenario('out_of_credits');
    expect((await resolve('app_forum')).status).toBe(400);
  });

  it('takes ten times as long under slow_resolution', async () => {
    s.sandbox.simulation.scenario('slow_resolution');
    const before = s.sandbox.clock.now();
    await resolve('app_forum');
    expect(s.sandbox.clock.now() - before).toBe(900_000);
  });

  it('answers failed without spending credits when there is nothing to resolve', async () => {
    expect((await resolve('app_notes')).body.status).toBe('failed');
    expect((await resolve('app_shop')).body.status).toBe('failed');
    expect(credits('ws_demo')).toBe(500);
  });
});

describe('sandbox 4.7 push changes to the repository', () => {
  const s = useSandbox();
  const push = (app: string, token = OWNER) => call(s.sandbox, 'POST', paths.push(app), { token });
  const FREE_OWNER = 'pat_free_owner';

  it('pushes the latest saved version and answers its commit hash', async () => {
    const answer = await push('app_free', FREE_OWNER);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ success: true, commits_pushed: true, skipped: false, error: null, duration_ms: 1200 });
    expect(answer.body.commit_hash).toMatch(/^[0-9a-f]{40}$/);
  });

  it('answers commits_pushed false when the repository already has the commit', async () => {
    const first = await push('app_free', FREE_OWNER);
    const second = await push('app_free', FREE_OWNER);
    expect(second.body).toMatchObject({ success: true, commits_pushed: false, commit_hash: first.body.commit_hash });
  });

  it('answers success with nothing pushed when no version is saved', async () => {
    const answer = await push('app_notes');
    expect(answer.body).toEqual({ success: true, commits_pushed: false, skipped: false, commit_hash: null, error: null, duration_ms: null });
  });

  it('answers skipped: true only for a connection without a repohost installation', async () => {
    const answer = await push('app_crm');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ success: false, skipped: true, commit_hash: null, duration_ms: null });
    expect(answer.body.error).toMatch(/installation/);
  });

  it.each(['app_shop', 'app_blog', 'app_wiki'])('answers success false with a plain-text error and no duration for %s', async (app) => {
    const answer = await push(app);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ success: false, commits_pushed: false, skipped: false, commit_hash: null, duration_ms: null });
    expect(answer.body.error).toEqual(expect.stringMatching(/^[A-Z][^_]*\.$/));
  });

  it('fails a push that started when the remote moved on', async () => {
    const answer = await push('app_docs');
    expect(answer.body).toMatchObject({ success: false, commits_pushed: false, skipped: false });
    expect(answer.body.duration_ms).toBeGreaterThan(0);
    expect(answer.body.error).toMatch(/Pull/);
  });

  it('fails a push while the repository has commits the app has not pulled', async () => {
    const answer = await push('app_demo');
    expect(answer.body).toMatchObject({ success: false, commits_pushed: false, skipped: false, commit_hash: null });
    expect(answer.body.error).toMatch(/Pull the changes, then push again/);
  });

  it('answers the same commit hashes for the same world and the same requests', async () => {
    const other = await startSandbox();
    try {
      const here = await push('app_free', FREE_OWNER);
      const there = await call(other, 'POST', paths.push('app_free'), { token: FREE_OWNER });
      expect(there.body.commit_hash).toBe(here.body.commit_hash);
    } finally {
      await other.close();
    }
  });
});
