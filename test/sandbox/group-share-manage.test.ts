import { describe, expect, it } from 'vitest';
import { DEFAULT_WORLD } from '../../src/sandbox/default-world.js';
import { startSandbox } from '../../src/sandbox/http.js';
import { parseWorld } from '../../src/sandbox/world.js';
import { call, OWNER, paths, useSandbox } from './helpers.js';

const shareAt = (app: string, id: string) => `/api/apps/${app}/group-shares/${id}`;

describe('sandbox list, update and remove group shares', () => {
  const s = useSandbox();
  const list = (token = OWNER) => call(s.sandbox, 'GET', paths.shares('app_demo'), { token });
  const share = (body: unknown) => call(s.sandbox, 'POST', paths.shares('app_demo'), { token: OWNER, body });
  const update = (id: string, body: unknown, token = OWNER) => call(s.sandbox, 'PUT', shareAt('app_demo', id), { token, body });
  const remove = (id: string, token = OWNER) => call(s.sandbox, 'DELETE', shareAt('app_demo', id), { token });
  const roles = () => Object.fromEntries(s.sandbox.simulation.effectiveRoles('app_demo').map((r) => [r.member_id, r]));
  /** Shares the app with a group and returns the new share's id. */
  async function shared(groupId: string, role: string | null = null): Promise<string> {
    const answer = await share({ group_ids: [groupId], role });
    return answer.body.results[0].share_id;
  }

  it('lists every share with id, group_id, group_name, role and created_date', async () => {
    const answer = await list();
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual([
      { id: 'gsh_seed_support', group_id: 'grp_support', group_name: 'Support', role: 'user', created_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/) },
    ]);
  });

  it('lists a share made by sharing with groups under the share_id that sharing answered, dated now', async () => {
    const id = await shared('grp_design');
    const answer = await list();
    expect(answer.body.at(-1)).toEqual({ id, group_id: 'grp_design', group_name: 'Design', role: null, created_date: new Date(s.sandbox.clock.now()).toISOString() });
  });

  it('gives a share written into the world without an id one that update and remove accept', async () => {
    const world = structuredClone(DEFAULT_WORLD) as Record<string, any>;
    world.apps.find((app: { id: string }) => app.id === 'app_demo').group_shares = [{ group_id: 'grp_sales', role: 'editor' }];
    const sandbox = await startSandbox({ world: parseWorld(world) });
    try {
      const [row] = (await call(sandbox, 'GET', paths.shares('app_demo'), { token: OWNER })).body;
      expect(row.id).toEqual(expect.any(String));
      expect((await call(sandbox, 'PUT', shareAt('app_demo', row.id), { token: OWNER, body: { role: 'admin' } })).status).toBe(200);
      expect((await call(sandbox, 'DELETE', shareAt('app_demo', row.id), { token: OWNER })).status).toBe(200);
    } finally {
      await sandbox.close();
    }
  });

  it("changes a share's role and answers the share, and members' effective roles follow", async () => {
    const id = await shared('grp_design');
    const answer = await update(id, { role: 'editor' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id, group_id: 'grp_design', group_name: 'Design', role: 'editor' });
    expect(roles().mem_faye?.effective_role).toBe('editor');
  });

  it('gives the default role for a null or missing role', async () => {
    const id = await shared('grp_design', 'editor');
    expect((await update(id, { role: null })).body.role).toBeNull();
    expect(roles().mem_faye?.effective_role).toBe('user');
    await update(id, { role: 'editor' });
    expect((await update(id, {})).body.role).toBeNull();
  });

  it('changes nothing when the same role is sent again', async () => {
    const id = await shared('grp_design', 'editor');
    const before = (await list()).body;
    expect((await update(id, { role: 'editor' })).status).toBe(200);
    expect((await list()).body).toEqual(before);
  });

  it('does not lower a member who has a higher role directly or through another group when a group role is lowered', async () => {
    const design = await shared('grp_design', 'admin');
    await shared('grp_sales', 'editor');
    await update(design, { role: 'user' });
    const byMember = roles();
    expect(byMember.mem_faye?.effective_role).toBe('user'); // only in Design
    expect(byMember.mem_eli?.effective_role).toBe('editor'); // Sales still gives editor
    expect(byMember.mem_dana?.effective_role).toBe('admin'); // direct admin
  });

  it("answers 422 for a role that is not one of the app's roles, and changes nothing", async () => {
    const answer = await update('gsh_seed_support', { role: 'owner' });
    expect(answer.status).toBe(422);
    expect(answer.body.detail[0].loc).toEqual(['body', 'role']);
    expect((await list()).body[0].role).toBe('user');
  });

  it('answers 403 to a workspace member, even with editor access to the app', async () => {
    const answer = await update('gsh_seed_support', { role: 'admin' }, 'pat_demo_member');
    expect(answer.status).toBe(403);
    expect((await remove('gsh_seed_support', 'pat_demo_member')).status).toBe(403);
  });

  it('answers 403 to a viewer of the app, for the list too', async () => {
    expect((await list('pat_demo_viewer')).status).toBe(403);
    expect((await update('gsh_seed_support', { role: 'admin' }, 'pat_demo_viewer')).status).toBe(403);
  });

  it('answers 404 for an unknown share on update and remove', async () => {
    expect((await update('gsh_nope', { role: 'admin' })).status).toBe(404);
    expect((await remove('gsh_nope')).status).toBe(404);
  });

  it('removes a share: members who had access only through it lose it, others keep their highest remaining role', async () => {
    const design = await shared('grp_design', 'editor');
    await shared('grp_sales', 'user');
    const answer = await remove(design);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ removed: true });
    expect((await list()).body.map((row: { id: string }) => row.id)).not.toContain(design);
    const byMember = roles();
    expect(byMember.mem_faye).toBeUndefined(); // only in Design: no access left
    expect(byMember.mem_eli?.effective_role).toBe('user'); // Sales remains
    expect(byMember.mem_dana?.effective_role).toBe('admin'); // direct role remains
  });

  it('answers 404 when removing a share that is already removed', async () => {
    expect((await remove('gsh_seed_support')).status).toBe(200);
    expect((await remove('gsh_seed_support')).status).toBe(404);
  });

  it.each([
    ['GET', paths.shares('app_demo')],
    ['PUT', shareAt('app_demo', 'gsh_seed_support')],
    ['DELETE', shareAt('app_demo', 'gsh_seed_support')],
  ])('refuses a read-only token on %s %s with 403 read_only_credential_route_not_allowed', async (method, path) => {
    const answer = await call(s.sandbox, method, path, { token: 'pat_demo_owner_ro', ...(method === 'PUT' ? { body: { role: 'admin' } } : {}) });
    expect(answer.status).toBe(403);
    expect(answer.body.detail).toBe('read_only_credential_route_not_allowed');
  });
});

describe('sandbox group shares on a plan without workspace groups', () => {
  const world = structuredClone(DEFAULT_WORLD) as Record<string, any>;
  world.apps.find((app: { id: string }) => app.id === 'app_free').group_shares = [{ group_id: 'grp_free_team', role: null, share_id: 'gsh_free' }];
  const s = useSandbox({ world: parseWorld(world) });

  it('answers 402 to an update and changes nothing', async () => {
    const answer = await call(s.sandbox, 'PUT', shareAt('app_free', 'gsh_free'), { token: 'pat_free_owner', body: { role: 'admin' } });
    expect(answer.status).toBe(402);
    expect(answer.body.detail).toMatch(/workspace groups/);
    expect((await call(s.sandbox, 'GET', paths.shares('app_free'), { token: 'pat_free_owner' })).body[0].role).toBeNull();
  });

  it('still removes a share: removal works on any plan', async () => {
    const answer = await call(s.sandbox, 'DELETE', shareAt('app_free', 'gsh_free'), { token: 'pat_free_owner' });
    expect(answer.status).toBe(200);
    expect((await call(s.sandbox, 'GET', paths.shares('app_free'), { token: 'pat_free_owner' })).body).toEqual([]);
  });
});
