import { z } from 'zod';
import { workspaceRole } from '../access.js';
import { fail, invalid, invalidBody, isResponse, objectBody, ok } from '../respond.js';
import type { Route, RouteContext } from '../router.js';
import { iso, type State } from '../state.js';
import type { SimResponse } from '../types.js';
import type { App } from '../world.js';
import { guardFullAccess } from './full-access.js';
import type { Guarded } from './guard.js';

type Share = App['group_shares'][number];

/** A share written into the world without an id still needs one for update and remove. */
export const shareIdOf = (share: Share) => share.share_id ?? `gsh_${share.group_id}`;

function view(state: State, share: Share) {
  return {
    id: shareIdOf(share),
    group_id: share.group_id,
    group_name: state.groups.find((group) => group.id === share.group_id)?.name ?? null,
    role: share.role,
    created_date: iso(state.startedAt + share.created_offset_ms),
  };
}

const BodySchema = z.looseObject({ role: z.string().min(1).nullish() });

/**
 * Changing or removing a share, like sharing (spec 4.4 rule 6, 5.2): editor access to the app and an
 * editor or admin role in the workspace; then the share itself, or 404.
 */
function guardShare(context: RouteContext): { guarded: Guarded; share: Share } | SimResponse {
  const guarded = guardFullAccess(context, 'editor');
  if (isResponse(guarded)) return guarded;
  const role = workspaceRole(context.state, guarded.caller.userId, guarded.workspace.id);
  if (role !== 'owner' && role !== 'admin' && role !== 'editor') {
    return fail(403, 'Managing group shares needs an editor or admin role in the workspace.');
  }
  const share = guarded.app.group_shares.find((candidate) => shareIdOf(candidate) === context.params.share_id);
  if (!share) return fail(404, 'Group share not found.');
  return { guarded, share };
}

/** List group shares: every share at once, no paging; editor access, no read-only tokens. */
export const listGroupShares: Route = {
  method: 'GET',
  path: '/api/apps/:app_id/group-shares',
  handle(context) {
    const guarded = guardFullAccess(context, 'editor');
    if (isResponse(guarded)) return guarded;
    return ok(guarded.app.group_shares.map((share) => view(context.state, share)));
  },
};

/** Update group share: the whole new value; null or no role is the default role; the plan must include groups. */
export const updateGroupShare: Route = {
  method: 'PUT',
  path: '/api/apps/:app_id/group-shares/:share_id',
  handle(context) {
    const found = guardShare(context);
    if (isResponse(found)) return found;
    const { guarded, share } = found;
    const object = objectBody(context.req.body);
    if (isResponse(object)) return object;
    const parsed = BodySchema.safeParse(object);
    if (!parsed.success) return invalidBody(parsed.error.issues);
    const role = parsed.data.role ?? null;
    const roles = guarded.app.roles;
    if (role !== null && !roles.includes(role)) {
      return invalid({ loc: ['body', 'role'], msg: `Input should be one of ${roles.map((r) => `'${r}'`).join(', ')}`, type: 'enum' });
    }
    if (!guarded.workspace.plan.workspace_groups) {
      return fail(402, `The ${guarded.workspace.plan.name} plan does not include workspace groups; upgrade to change group shares.`);
    }
    // Effective roles follow from the shares (roles.ts): a lower group role never lowers a member's direct role.
    share.role = role;
    return ok(view(context.state, share));
  },
};

/** Remove group share: works on any plan; members keep their highest remaining role. */
export const removeGroupShare: Route = {
  method: 'DELETE',
  path: '/api/apps/:app_id/group-shares/:share_id',
  handle(context) {
    const found = guardShare(context);
    if (isResponse(found)) return found;
    const shares = found.guarded.app.group_shares;
    shares.splice(shares.indexOf(found.share), 1);
    return ok({ removed: true });
  },
};
