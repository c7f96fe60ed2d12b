import { z } from 'zod';
import { workspaceRole } from '../access.js';
import { fail, invalid, invalidBody, isResponse, objectBody, ok } from '../respond.js';
import type { Route } from '../router.js';
import { iso, type State } from '../state.js';
import type { App, Group } from '../world.js';
import { guardApp, rateLimit } from './guard.js';

export const MAX_GROUPS = 50;

const BodySchema = z.looseObject({
  group_ids: z.array(z.string().min(1)),
  role: z.string().min(1).nullish(),
});

interface ShareResult {
  group_id: string;
  success: boolean;
  share_id?: string;
  reason?: string;
  error?: string;
}

/** 4.4 Share app with groups. */
export const shareWithGroups: Route = {
  method: 'POST',
  path: '/api/apps/:app_id/group-shares',
  handle(context) {
    const { state, req } = context;
    const guarded = guardApp(context, 'token', 'editor');
    if (isResponse(guarded)) return guarded;
    const { app, workspace, caller } = guarded;
    const role = workspaceRole(state, caller.userId, workspace.id);
    if (role !== 'owner' && role !== 'admin' && role !== 'editor') {
      return fail(403, 'Sharing with groups needs an editor or admin role in the workspace.');
    }
    // Section 8: all personal access tokens of a workspace share one allowance.
    const limited = rateLimit(context, workspace, 'group_sharing', workspace.id);
    if (limited) return limited;

    const object = objectBody(req.body);
    if (isResponse(object)) return object;
    const parsed = BodySchema.safeParse(object);
    if (!parsed.success) return invalidBody(parsed.error.issues);
    const groupIds = [...new Set(parsed.data.group_ids)]; // 2.4: a repeated id counts once
    if (groupIds.length < 1 || groupIds.length > MAX_GROUPS) {
      return invalid({
        loc: ['body', 'group_ids'],
        msg: `group_ids needs 1 to ${MAX_GROUPS} distinct ids; got ${groupIds.length}`,
        type: groupIds.length < 1 ? 'too_short' : 'too_long',
      });
    }
    const shareRole = parsed.data.role ?? null;
    if (shareRole !== null && !app.roles.includes(shareRole)) {
      return invalid({ loc: ['body', 'role'], msg: `Input should be one of ${app.roles.map((r) => `'${r}'`).join(', ')}`, type: 'enum' });
    }
    if (!workspace.plan.workspace_groups) {
      return fail(402, `The ${workspace.plan.name} plan does not include workspace groups; upgrade to share apps with groups.`);
    }
    return ok({ results: groupIds.map((groupId) => shareOne(state, app, groupId, shareRole)) });
  },
};

/** 4.4 rules 4 and 5: each group on its own; an existing share fails with `already_shared` and changes nothing. */
function shareOne(state: State, app: App, groupId: string, role: string | null): ShareResult {
  const group = state.groups.find((candidate) => candidate.id === groupId && candidate.workspace_id === app.workspace_id);
  if (!group) return { group_id: groupId, success: false, reason: 'not_found', error: 'No such group in this workspace.' };
  if (app.group_shares.some((share) => share.group_id === groupId)) {
    return { group_id: groupId, success: false, reason: 'already_shared', error: 'The app is already shared with this group.' };
  }
  const shareId = state.ids.next('gsh');
  app.group_shares.push({ group_id: groupId, role, share_id: shareId, created_offset_ms: state.clock.now() - state.startedAt });
  invite(state, app, group);
  return { group_id: groupId, success: true, share_id: shareId };
}

/** 4.4 rule 3: each member who gets access is sent an invitation email, at most once per app. */
function invite(state: State, app: App, group: Group): void {
  for (const member of group.members) {
    if (!member.has_account || app.invited_members.includes(member.id)) continue;
    app.invited_members.push(member.id);
    state.invitations.push({ app_id: app.id, member_id: member.id, email: member.email, sent_at: iso(state.clock.now()) });
  }
}
