import { describe, expect, it } from 'vitest';
import { call, OWNER, paths, useSandbox } from './helpers.js';

describe('sandbox 4.1 customize application email', () => {
  const s = useSandbox();

  it('creates a template on a paid plan and answers created: true', async () => {
    const answer = await call(s.sandbox, 'POST', paths.email('app_demo', 'password_reset'), { token: OWNER });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ template_id: 'tpl_0001', name: 'PasswordReset', created: true });
  });

  it('answers 200 created: false with the same template when the app already has it', async () => {
    const first = await call(s.sandbox, 'POST', paths.email('app_demo', 'email_verification'), { token: OWNER });
    const second = await call(s.sandbox, 'POST', paths.email('app_demo', 'email_verification'), { token: OWNER });
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ template_id: first.body.template_id, name: 'EmailVerification', created: false });
  });

  it('answers 200 created: false for an existing template even without a paid plan', async () => {
    const answer = await call(s.sandbox, 'POST', paths.email('app_free', 'password_reset'), { token: 'pat_free_owner' });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ template_id: 'tpl_seed_free_reset', name: 'PasswordReset', created: false });
  });

  it('answers 402 for a new template without a paid plan', async () => {
    const answer = await call(s.sandbox, 'POST', paths.email('app_free', 'user_invite'), { token: 'pat_free_owner' });
    expect(answer.status).toBe(402);
    expect(answer.body.detail).toMatch(/free plan/);
    expect(s.sandbox.simulation.inspect().apps.find((app) => app.id === 'app_free')?.email_templates).toHaveLength(1);
  });

  it('answers 404 for an unknown email_type', async () => {
    const answer = await call(s.sandbox, 'POST', paths.email('app_demo', 'welcome'), { token: OWNER });
    expect(answer.status).toBe(404);
    expect(answer.body.detail).toMatch(/password_reset/);
  });

  it('answers 404 for an unknown app', async () => {
    const answer = await call(s.sandbox, 'POST', paths.email('app_nope', 'user_invite'), { token: OWNER });
    expect(answer.status).toBe(404);
  });

  it('answers 403 for a blocked app', async () => {
    const answer = await call(s.sandbox, 'POST', paths.email('app_blocked', 'user_invite'), { token: OWNER });
    expect(answer.status).toBe(403);
    expect(answer.body.detail).toMatch(/blocked/);
  });

  it('answers 403 without editor access to the app', async () => {
    const answer = await call(s.sandbox, 'POST', paths.email('app_demo', 'user_invite'), { token: 'pat_demo_viewer' });
    expect(answer.status).toBe(403);
  });

  it('accepts a personal API key as well as an access token', async () => {
    const answer = await call(s.sandbox, 'POST', paths.email('app_demo', 'access_approved'), { apiKey: 'key_demo_owner' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ name: 'AccessApproved', created: true });
  });

  it('refuses a read-only key with 403', async () => {
    const answer = await call(s.sandbox, 'POST', paths.email('app_demo', 'access_approved'), { apiKey: 'key_demo_owner_ro' });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({ detail: 'read_only_credential_route_not_allowed' });
  });
});
