import { describe, expect, it } from 'vitest';
import { call, paths, smartBody, useSandbox } from './helpers.js';

const WRITES = [
  paths.email('app_demo', 'user_invite'),
  paths.campaigns('app_demo'),
  paths.shares('app_demo'),
  paths.resolve('app_demo'),
  paths.push('app_demo'),
];

describe('sandbox section 5 authentication', () => {
  const s = useSandbox();

  it.each([
    ['POST', paths.email('app_demo', 'user_invite')],
    ['POST', paths.campaigns('app_demo')],
    ['GET', paths.suggestions('app_demo', 'cmp_demo')],
    ['POST', paths.shares('app_demo')],
    ['GET', paths.job('app_demo', 'job_empty')],
    ['POST', paths.resolve('app_demo')],
    ['POST', paths.push('app_demo')],
    ['GET', paths.analytics('ws_demo')],
  ])('answers 401 to %s %s without a credential', async (method, path) => {
    const answer = await call(s.sandbox, method, path);
    expect(answer.status).toBe(401);
    expect(typeof answer.body.detail).toBe('string');
  });

  it('answers 401 for an unknown access token', async () => {
    const answer = await call(s.sandbox, 'POST', paths.push('app_demo'), { token: 'pat_forged' });
    expect(answer.status).toBe(401);
  });

  it.each(WRITES)('refuses a write with a read-only token: 403 read_only_credential_route_not_allowed on %s', async (path) => {
    const answer = await call(s.sandbox, 'POST', path, { token: 'pat_demo_owner_ro', body: smartBody() });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({ detail: 'read_only_credential_route_not_allowed' });
  });

  it('lets a read-only token read', async () => {
    const answer = await call(s.sandbox, 'GET', paths.suggestions('app_demo', 'cmp_demo'), { token: 'pat_demo_owner_ro' });
    expect(answer.status).toBe(200);
  });

  it.each([
    ['email customization', 'POST', paths.email('app_demo', 'user_invite'), 'token'],
    ['email customization', 'POST', paths.email('app_demo', 'user_invite'), 'apiKey'],
    ['ad', 'POST', paths.campaigns('app_demo'), 'token'],
    ['ad', 'GET', paths.suggestions('app_demo', 'cmp_demo'), 'token'],
    ['social-calendar', 'GET', paths.job('app_demo', 'job_empty'), 'apiKey'],
    ['repository', 'POST', paths.resolve('app_demo'), 'token'],
    ['repository', 'POST', paths.push('app_demo'), 'token'],
  ])('refuses a workspace API key on the %s endpoints (%s %s)', async (_, method, path, how) => {
    const answer = await call(s.sandbox, method, path, how === 'token' ? { token: 'wsk_demo' } : { apiKey: 'wsk_demo' });
    expect(answer.status).toBe(403);
    expect(answer.body.detail).toMatch(/Workspace API keys/);
  });

  it('answers 404 for an app in another workspace than the credential', async () => {
    const answer = await call(s.sandbox, 'POST', paths.push('app_eu'), { token: 'pat_demo_owner' });
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ detail: 'App not found.' });
  });

  it('answers 403 for a token limited to another app', async () => {
    expect((await call(s.sandbox, 'POST', paths.push('app_demo'), { token: 'pat_demo_owner_shop' })).status).toBe(403);
    expect((await call(s.sandbox, 'POST', paths.push('app_shop'), { token: 'pat_demo_owner_shop' })).status).toBe(200);
  });

  it('answers 401 for a personal API key sent where an access token is expected', async () => {
    const answer = await call(s.sandbox, 'POST', paths.push('app_demo'), { token: 'key_demo_owner' });
    expect(answer.status).toBe(401);
    expect(answer.body.detail).toMatch(/Wrong kind of credential/);
  });
});
