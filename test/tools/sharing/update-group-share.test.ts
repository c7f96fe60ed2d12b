import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connect, type Harness } from '../../helpers.js';

const PATH = '/api/apps/app_demo/group-shares/gsh_2';
const SHARE = { id: 'gsh_2', group_id: 'grp_design', group_name: 'Design', role: 'editor', created_date: '2026-11-02T09:00:00Z' };

describe('update_group_share', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await connect();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  const update = (args: Record<string, unknown> = {}) => h.call('update_group_share', { app_id: 'app_demo', share_id: 'gsh_2', ...args });

  it('puts the whole new value with the bearer token and shows the role the group now gives', async () => {
    h.sandbox.script({ status: 200, body: SHARE });
    const result = await update({ role: 'editor' });
    expect(h.sandbox.requests).toHaveLength(1);
    const [request] = h.sandbox.requests;
    expect(request?.method).toBe('PUT');
    expect(request?.rawPath).toBe(PATH);
    expect(request?.headers.authorization).toBe(`Bearer ${h.config.accessToken}`);
    expect(request?.headers['content-type']).toContain('application/json');
    expect(request?.headers['x-request-id']).toBeUndefined();
    expect(request?.body).toEqual({ role: 'editor' });
    expect(result.isError).toBe(false);
    expect(result.structured).toEqual({
      share_id: 'gsh_2',
      group_id: 'grp_design',
      group_name: 'Design',
      role: 'editor',
      next: 'Nothing more is needed; list_group_shares {"app_id":"app_demo"} shows every share and its role.',
    });
    expect(result.text).toMatchInlineSnapshot(`
      "Share gsh_2 of app app_demo: group grp_design ("Design") now gives its members role "editor".
      If this lowered the role, members who have a higher role directly or through another shared group keep it: a member gets the highest of those roles.
      Next: Nothing more is needed; list_group_shares {"app_id":"app_demo"} shows every share and its role."
    `);
  });

  it('sends role null when role is omitted, for the default user role', async () => {
    h.sandbox.script({ status: 200, body: { ...SHARE, role: null } });
    const result = await update();
    expect(h.sandbox.requests[0]?.body).toEqual({ role: null });
    expect(result.structured?.role).toBe('');
    expect(result.text).toContain('now gives its members default role (user)');
    expect(result.text).toContain('members who have a higher role directly or through another shared group keep it');
  });

  it('does not warn about lowering when the new role is admin', async () => {
    h.sandbox.script({ status: 200, body: { ...SHARE, role: 'admin' } });
    const result = await update({ role: 'admin' });
    expect(result.text).not.toContain('lowered');
  });

  it('says so when the service answers with another role than the one sent', async () => {
    h.sandbox.script({ status: 200, body: { ...SHARE, role: 'user' } });
    const result = await update({ role: 'editor' });
    expect(result.text).toContain('The service answered with role "user", not the role "editor" sent.');
  });

  it('changes the role of a share of the default world, found through list_group_shares', async () => {
    const list = await h.call('list_group_shares', { app_id: 'app_demo' });
    const shareId = (list.structured?.shares as Array<{ share_id: string }>)[0]!.share_id;
    const result = await h.call('update_group_share', { app_id: 'app_demo', share_id: shareId, role: 'editor' });
    expect(result.isError).toBe(false);
    expect(result.structured).toMatchObject({ share_id: shareId, group_id: 'grp_support', role: 'editor' });
    expect(h.sandbox.simulation.effectiveRoles('app_demo').find((r) => r.member_id === 'mem_ivy')?.effective_role).toBe('editor');
  });

  describe('errors', () => {
    it.each([
      [401, /^401: The access token is missing, invalid or expired/],
      [402, /^402: The workspace plan does not include workspace groups/],
      [403, /^403: Not allowed: changing a share needs editor access to the app and an editor or admin role in the workspace/],
      [404, /^404: App or share not found \(the share may have been removed\): list_group_shares shows/],
    ])('explains %i for this operation', async (status, expected) => {
      h.sandbox.script({ status, body: { detail: 'Denied by the service' } });
      const result = await update({ role: 'admin' });
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(expected);
      expect(result.text).toContain('Reason given: "Denied by the service"');
    });

    it("explains a role the app does not define, from the default world's 422", async () => {
      const result = await h.call('update_group_share', { app_id: 'app_demo', share_id: 'gsh_seed_support', role: 'owner' });
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(/^422: The role is not one of this app's roles; nothing changed\. The service's answer below names the roles it accepts/);
      expect(result.text).toContain("- body.role: Input should be one of 'user', 'editor', 'admin'");
    });

    it('names the read-only token and says nothing changed', async () => {
      // Its own harness: the client remembers a read-only token, and this file's harness keeps the full-access one.
      const ro = await connect({ config: { accessToken: 'pat_demo_owner_ro' } });
      try {
        const result = await ro.call('update_group_share', { app_id: 'app_demo', share_id: 'gsh_seed_support', role: 'admin' });
        expect(result.text).toContain('Changing a share needs a full-access token');
        expect(result.text).toContain('Nothing changed.');
      } finally {
        await ro.close();
      }
    });

    it('retries a 429 twice (the same value again changes nothing)', async () => {
      h.sandbox.script({ status: 429, headers: { 'retry-after': '0' }, times: 2 });
      h.sandbox.script({ status: 200, body: SHARE });
      const result = await update({ role: 'editor' });
      expect(h.sandbox.requests).toHaveLength(3);
      expect(h.sandbox.requests.every((r) => r.method === 'PUT' && r.rawPath === PATH)).toBe(true);
      expect(result.isError).toBe(false);
    });
  });

  it.each([
    [{ app_id: 'app_demo', role: 'admin' }, 'share_id'],
    [{ app_id: 'app_demo', share_id: 'gsh_2', role: '' }, 'role'],
    [{ app_id: 'app_demo', share_id: 'gsh_2', role: 'x'.repeat(101) }, 'role'],
    [{ app_id: 'app_demo', share_id: '..', role: 'admin' }, 'share_id'],
    [{ app_id: 'app_demo', share_id: 'gsh_2', group_id: 'grp_design' }, 'group_id'],
  ])('rejects invalid input %#, naming the field, and sends nothing', async (args, field) => {
    const result = await h.call('update_group_share', args);
    expect(result.isError).toBe(true);
    expect(result.text).toContain(field);
    expect(h.sandbox.requests).toHaveLength(0);
  });
});
