import { describe, expect, it } from 'vitest';
import { DEFAULT_WORLD } from '../../src/sandbox/default-world.js';
import { startSandbox } from '../../src/sandbox/http.js';
import { parseWorld } from '../../src/sandbox/world.js';
import { call, OWNER, paths, useSandbox } from './helpers.js';

const preview = (app: string, type: string) => `/api/apps/${app}/emails/system/${type}/preview`;
const templates = (app: string, query = '') => `/api/apps/${app}/emails${query}`;
const template = (app: string, id: string) => `/api/apps/${app}/emails/${id}`;

/** The default world with changes to app_demo, in a sandbox of its own. */
async function worldWith(change: (app: Record<string, any>) => void) {
  const world = structuredClone(DEFAULT_WORLD) as Record<string, any>;
  change(world.apps.find((app: { id: string }) => app.id === 'app_demo'));
  return startSandbox({ world: parseWorld(world) });
}

describe('sandbox preview application email', () => {
  const s = useSandbox();

  it('reports builtin and renders the built-in email with sample values when the app has no version of its own', async () => {
    const answer = await call(s.sandbox, 'GET', preview('app_demo', 'password_reset'), { token: OWNER });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ authored_status: 'builtin', subject: 'Reset your Demo Planner password' });
    expect(answer.body.html).toContain('Hi Alex,');
    expect(answer.body.html).not.toContain('{{');
  });

  it("reports custom and renders the app's own version when that is the one sent", async () => {
    const answer = await call(s.sandbox, 'GET', preview('app_demo', 'user_invite'), { token: OWNER });
    expect(answer.body.authored_status).toBe('custom');
    expect(answer.body.subject).toBe("You're invited to Demo Planner");
  });

  it('reports custom_not_sent for a customized email_verification while the app does not send from its own domain', async () => {
    await call(s.sandbox, 'POST', paths.email('app_demo', 'email_verification'), { token: OWNER });
    const answer = await call(s.sandbox, 'GET', preview('app_demo', 'email_verification'), { token: OWNER });
    expect(answer.body.authored_status).toBe('custom_not_sent');
  });

  it('reports custom for a customized email_verification once the app sends from its own verified domain', async () => {
    const sandbox = await worldWith((app) => {
      app.sends_from_own_domain = true;
      app.email_templates.push({ template_id: 'tpl_verify', email_type: 'email_verification', subject: 'Welcome aboard' });
    });
    try {
      const answer = await call(sandbox, 'GET', preview('app_demo', 'email_verification'), { token: OWNER });
      expect(answer.body).toMatchObject({ authored_status: 'custom', subject: 'Welcome aboard' });
    } finally {
      await sandbox.close();
    }
  });

  it('answers 404 for an unknown email type', async () => {
    const answer = await call(s.sandbox, 'GET', preview('app_demo', 'welcome'), { token: OWNER });
    expect(answer.status).toBe(404);
  });

  it('answers 429 after 20 previews a minute times the plan multiplier (2 on pro)', async () => {
    for (let i = 0; i < 40; i++) expect((await call(s.sandbox, 'GET', preview('app_demo', 'user_invite'), { token: OWNER })).status).toBe(200);
    const limited = await call(s.sandbox, 'GET', preview('app_demo', 'user_invite'), { token: OWNER });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});

describe('sandbox list and get email templates', () => {
  const s = useSandbox();

  it('lists the templates newest first with id, name, subject and updated_date, without HTML', async () => {
    const created = await call(s.sandbox, 'POST', paths.email('app_demo', 'password_reset'), { token: OWNER });
    const answer = await call(s.sandbox, 'GET', templates('app_demo', '?limit=10'), { token: OWNER });
    expect(answer.status).toBe(200);
    expect(answer.body.map((row: { id: string }) => row.id)).toEqual([created.body.template_id, 'tpl_seed_digest', 'tpl_seed_invite']);
    expect(answer.body[1]).toEqual({ id: 'tpl_seed_digest', name: 'WeeklyDigest', subject: 'Your week in {{app_name}}', updated_date: expect.any(String) });
    expect(answer.body.every((row: object) => !('html' in row))).toBe(true);
  });

  it('answers at most limit templates', async () => {
    const answer = await call(s.sandbox, 'GET', templates('app_demo', '?limit=1'), { token: OWNER });
    expect(answer.body.map((row: { id: string }) => row.id)).toEqual(['tpl_seed_digest']);
  });

  it('answers at most 200 templates whatever the limit', async () => {
    const sandbox = await worldWith((app) => {
      app.email_templates = Array.from({ length: 205 }, (_, i) => ({ template_id: `tpl_${i}`, name: `T${i}`, updated_offset_ms: -i * 1000 }));
    });
    try {
      const answer = await call(sandbox, 'GET', templates('app_demo', '?limit=500'), { token: OWNER });
      expect(answer.body).toHaveLength(200);
      expect(answer.body[0].id).toBe('tpl_0');
    } finally {
      await sandbox.close();
    }
  });

  it('answers 422 for a limit that is not a positive integer', async () => {
    const answer = await call(s.sandbox, 'GET', templates('app_demo', '?limit=zero'), { token: OWNER });
    expect(answer.status).toBe(422);
    expect(answer.body.detail[0].loc).toEqual(['query', 'limit']);
  });

  it('gets one template with its HTML', async () => {
    const answer = await call(s.sandbox, 'GET', template('app_demo', 'tpl_seed_digest'), { token: OWNER });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id: 'tpl_seed_digest', name: 'WeeklyDigest' });
    expect(answer.body.html).toContain('{{digest_items}}');
  });

  it('gives a customized template the built-in name, subject and HTML it was copied from', async () => {
    const created = await call(s.sandbox, 'POST', paths.email('app_demo', 'access_approved'), { token: OWNER });
    const answer = await call(s.sandbox, 'GET', template('app_demo', created.body.template_id), { token: OWNER });
    expect(answer.body).toMatchObject({ name: 'AccessApproved', subject: 'Your access to {{app_name}} was approved' });
    expect(answer.body.html).toContain('{{action_url}}');
  });

  it('answers 404 for an unknown template id', async () => {
    const answer = await call(s.sandbox, 'GET', template('app_demo', 'tpl_nope'), { token: OWNER });
    expect(answer.status).toBe(404);
  });

  it('lets a viewer of the app read templates', async () => {
    const answer = await call(s.sandbox, 'GET', templates('app_demo', '?limit=5'), { token: 'pat_demo_viewer' });
    expect(answer.status).toBe(200);
  });
});

describe('sandbox delete email template', () => {
  const s = useSandbox();
  const remove = (id: string, token = OWNER) => call(s.sandbox, 'DELETE', template('app_demo', id), { token });

  it('deletes the template, so it is neither listed nor found afterwards', async () => {
    const answer = await remove('tpl_seed_digest');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ deleted: true });
    const listed = await call(s.sandbox, 'GET', templates('app_demo', '?limit=10'), { token: OWNER });
    expect(listed.body.map((row: { id: string }) => row.id)).toEqual(['tpl_seed_invite']);
    expect((await call(s.sandbox, 'GET', template('app_demo', 'tpl_seed_digest'), { token: OWNER })).status).toBe(404);
  });

  it("makes the app send the built-in version again after its own version of an application email is deleted", async () => {
    await remove('tpl_seed_invite');
    const answer = await call(s.sandbox, 'GET', preview('app_demo', 'user_invite'), { token: OWNER });
    expect(answer.body.authored_status).toBe('builtin');
  });

  it('answers 404 for an unknown template, and for one already deleted', async () => {
    expect((await remove('tpl_nope')).status).toBe(404);
    await remove('tpl_seed_digest');
    expect((await remove('tpl_seed_digest')).status).toBe(404);
  });

  it('needs editor access: a viewer of the app gets 403 and nothing is deleted', async () => {
    const answer = await remove('tpl_seed_digest', 'pat_demo_viewer');
    expect(answer.status).toBe(403);
    expect((await call(s.sandbox, 'GET', template('app_demo', 'tpl_seed_digest'), { token: OWNER })).status).toBe(200);
  });
});

describe('sandbox email template routes and credentials', () => {
  const s = useSandbox();
  const routes: Array<[string, string]> = [
    ['GET', preview('app_demo', 'user_invite')],
    ['GET', templates('app_demo', '?limit=5')],
    ['GET', template('app_demo', 'tpl_seed_digest')],
    ['DELETE', template('app_demo', 'tpl_seed_digest')],
  ];

  it.each(routes)('refuses a read-only token on %s %s with 403 read_only_credential_route_not_allowed', async (method, path) => {
    const answer = await call(s.sandbox, method, path, { token: 'pat_demo_owner_ro' });
    expect(answer.status).toBe(403);
    expect(answer.body.detail).toBe('read_only_credential_route_not_allowed');
  });

  it.each(routes)('refuses a workspace API key on %s %s with 403', async (method, path) => {
    const answer = await call(s.sandbox, method, path, { token: 'wsk_demo' });
    expect(answer.status).toBe(403);
  });

  it.each(routes)('answers 401 without a credential on %s %s', async (method, path) => {
    expect((await call(s.sandbox, method, path)).status).toBe(401);
  });
});
