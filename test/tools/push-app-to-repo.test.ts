import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connect, type Harness } from '../helpers.js';

describe('push_app_to_repo', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await connect();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  it('posts to the manual sync path with the bearer token and no body', async () => {
    h.sandbox.script({ status: 200, body: { success: true, commits_pushed: true, skipped: false, commit_hash: 'abc1234', error: null, duration_ms: 2300 } });
    const result = await h.call('push_app_to_repo', { app_id: 'app_demo' });
    const [request] = h.sandbox.requests;
    expect(request?.method).toBe('POST');
    expect(request?.rawPath).toBe('/api/apps/app_demo/repohost/sync/manual');
    expect(request?.headers.authorization).toBe(`Bearer ${h.config.accessToken}`);
    expect(request?.body).toBeUndefined();
    expect(result).toEqual({
      isError: false,
      text: 'Pushed app app_demo to its repository: commit abc1234 in 2.3 s.\nNext: Nothing more is needed.',
      structured: { pushed: true, commit_hash: 'abc1234', next: 'Nothing more is needed.' },
    });
  });

  it('says when there was nothing to push', async () => {
    h.sandbox.script({ status: 200, body: { success: true, commits_pushed: false, skipped: false, commit_hash: null, error: null, duration_ms: 800 } });
    const result = await h.call('push_app_to_repo', { app_id: 'app_demo' });
    expect(result.isError).toBe(false);
    expect(result.text).toBe('Nothing to push for app app_demo: the repository already has the latest saved version.\nNext: Nothing more is needed.');
  });

  it('shows a 200 with success false as a failure with the quoted reason', async () => {
    h.sandbox.script({ status: 200, body: { success: false, commits_pushed: false, skipped: false, commit_hash: null, error: 'App not connected to repohost', duration_ms: null } });
    const result = await h.call('push_app_to_repo', { app_id: 'app_demo' });
    expect(result.isError).toBe(true);
    expect(result.text).toContain('Push FAILED for app app_demo: "App not connected to repohost"');
  });

  it('names pull_repo_changes when a push failed because the repository moved on', async () => {
    const result = await h.call('push_app_to_repo', { app_id: 'app_demo' }); // the default world: app_demo has commits to pull
    expect(result.isError).toBe(true);
    expect(result.text).toMatchInlineSnapshot(`
      "Push FAILED for app app_demo: "The repository has commits the app does not have. Pull the changes, then push again."
      Next: If the repository moved on, call pull_repo_changes {"app_id":"app_demo"} first. If the connection is revoked or in error, reconnect it in the service. Then call push_app_to_repo again."
    `);
  });

  it('reports a skip only as a missing installation', async () => {
    h.sandbox.script({ status: 200, body: { success: false, commits_pushed: false, skipped: true, commit_hash: null, error: 'no installation', duration_ms: null } });
    const result = await h.call('push_app_to_repo', { app_id: 'app_demo' });
    expect(result.isError).toBe(true);
    expect(result.text).toContain('no repohost app installation');
  });

  it('encodes the app id so it cannot change the path', async () => {
    h.sandbox.script({ status: 404, body: { detail: 'Not Found' } });
    await h.call('push_app_to_repo', { app_id: 'a/../b' });
    expect(h.sandbox.requests[0]?.rawPath).toBe('/api/apps/a%2F..%2Fb/repohost/sync/manual');
  });
});
