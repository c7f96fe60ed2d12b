import { describe, expect, it } from 'vitest';
import { call, OWNER, paths, useSandbox } from './helpers.js';

describe('sandbox 4.4 share app with groups', () => {
  const s = useSandbox();
  const share = (body: unknown, token = OWNER, app = 'app_demo') => call(s.sandbox, 'POST', paths.shares(app), { token, body });
  const roles = () => Object.fromEntries(s.sandbox.simulation.effectiveRoles('app_demo').map((r) => [r.member_id, r]));

  it('shares with each group and answers one result per group in the order sent', async () => {
    const answer = await share({ group_ids: ['grp_sales', 'grp_design'], role: 'editor' });
    expect(answer.status).toBe(200);
    expect(answer.body.results.map((r: { group_id: string; success: boolean }) => [r.group_id, r.success])).toEqual([
      ['grp_sales', true],
      ['grp_design', true],
    ]);
  });

  it('fails an already shared group with reason already_shared and changes nothing', async () => {
    const answer = await share({ group_ids: ['grp_support'], role: 'admin' });
    expect(answer.body.results).toEqual([expect.objectContaining({ group_id: 'grp_support', success: false, reason: 'already_shared' })]);
    expect(roles().mem_ivy?.effective_role).toBe('user');
    const retry = await share({ group_ids: ['grp_design'] });
    const again = await share({ group_ids: ['grp_design'] });
    expect(retry.body.results[0].success).toBe(true);
    expect(again.body.results[0].reason).toBe('already_shared');
  });

  it('fails an unknown group, or one of another workspace, with a reason while the others succeed', async () => {
    const answer = await share({ group_ids: ['grp_nope', 'grp_design', 'grp_bakers'] });
    expect(answer.status).toBe(200);
    const [nope, design, bakers] = answer.body.results;
    expect(nope).toMatchObject({ success: false, reason: 'not_found' });
    expect(design.success).toBe(true);
    expect(bakers).toMatchObject({ success: false, reason: 'not_found' });
  });

  it('counts a repeated group id once', async () => {
    const answer = await share({ group_ids: ['grp_design', 'grp_design', 'grp_sales', 'grp_design'] });
    expect(answer.body.results.map((r: { group_id: string }) => r.group_id)).toEqual(['grp_design', 'grp_sales']);
    expect(answer.body.results.every((r: { success: boolean }) => r.success)).toBe(true);
  });

  it('answers 422 for no group ids and for more than 50 distinct ones', async () => {
    const none = await share({ group_ids: [] });
    expect(none.status).toBe(422);
    expect(none.body.detail[0]).toMatchObject({ loc: ['body', 'group_ids'], type: 'too_short' });
    const many = await share({ group_ids: Array.from({ length: 51 }, (_, i) => `grp_${i}`) });
    expect(many.status).toBe(422);
    expect(many.body.detail[0].type).toBe('too_long');
  });

  it('accepts 50 distinct ids even when repeats make the list longer', async () => {
    const ids = [...Array.from({ length: 50 }, (_, i) => `grp_${i}`), 'grp_0'];
    const answer = await share({ group_ids: ids });
    expect(answer.status).toBe(200);
    expect(answer.body.results).toHaveLength(50);
  });

  it('sends an invitation at most once per member per app', async () => {
    await share({ group_ids: ['grp_design'] });
    await share({ group_ids: ['grp_sales'] });
    const sent = s.sandbox.simulation.inspect().invitations.map((i) => i.member_id);
    // mem_eli is in both groups; mem_ivy was invited before; mem_gus has no account yet.
    expect(sent).toEqual(['mem_dana', 'mem_eli', 'mem_faye', 'mem_hana']);
  });

  it('gives each member the highest of their direct role and their groups roles', async () => {
    await share({ group_ids: ['grp_design'], role: 'user' });
    await share({ group_ids: ['grp_sales'], role: 'editor' });
    const byMember = roles();
    expect(byMember.mem_dana?.effective_role).toBe('admin'); // direct admin beats the group's user
    expect(byMember.mem_eli?.effective_role).toBe('editor'); // highest of its two groups
    expect(byMember.mem_faye?.effective_role).toBe('user');
    expect(byMember.mem_eli?.group_roles).toEqual({ grp_design: 'user', grp_sales: 'editor' });
  });

  it('assigns the default role when role is omitted or null', async () => {
    await share({ group_ids: ['grp_design'], role: null });
    expect(roles().mem_faye?.effective_role).toBe('user');
    expect(s.sandbox.simulation.inspect().apps.find((a) => a.id === 'app_demo')?.group_shares.at(-1)?.role).toBeNull();
  });

  it('gives members without an account access once they have one', async () => {
    await share({ group_ids: ['grp_sales'] });
    expect(roles().mem_gus).toMatchObject({ access: 'pending_account', invited: false });
    expect(roles().mem_hana).toMatchObject({ access: 'active', invited: true });
  });

  it('answers 422 for a role the app does not define', async () => {
    const answer = await share({ group_ids: ['grp_design'], role: 'owner' });
    expect(answer.status).toBe(422);
    expect(answer.body.detail[0].loc).toEqual(['body', 'role']);
  });

  it('answers 403 without editor access to the app', async () => {
    const answer = await share({ group_ids: ['grp_design'] }, 'pat_demo_viewer');
    expect(answer.status).toBe(403);
  });

  it('answers 403 to a workspace member even with editor access to the app', async () => {
    const answer = await share({ group_ids: ['grp_design'] }, 'pat_demo_member');
    expect(answer.status).toBe(403);
    expect(answer.body.detail).toMatch(/editor or admin role/);
  });

  it('lets a workspace editor with editor access share', async () => {
    const answer = await share({ group_ids: ['grp_design'] }, 'pat_demo_editor');
    expect(answer.body.results[0].success).toBe(true);
  });

  it('answers 402 when the workspace plan lacks workspace groups', async () => {
    const answer = await share({ group_ids: ['grp_free_team'] }, 'pat_free_owner', 'app_free');
    expect(answer.status).toBe(402);
    expect(answer.body.detail).toMatch(/workspace groups/);
  });
});
