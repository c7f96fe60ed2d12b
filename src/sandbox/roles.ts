import type { State } from './state.js';
import type { App } from './world.js';

export interface EffectiveRole {
  member_id: string;
  email?: string;
  direct_role: string | null;
  /** Group id -> the role that group's share gives (null role means the app's default role). */
  group_roles: Record<string, string>;
  effective_role: string;
  /** 4.4 rule 2: members without an account get access once they have one. */
  access: 'active' | 'pending_account';
  invited: boolean;
}

/**
 * 4.4 rule 1: a member's effective app role is the highest of the role given directly and the roles
 * of every shared group they belong to; `app.roles` is ordered lowest first.
 */
export function effectiveRoles(state: State, app: App): EffectiveRole[] {
  const rank = (role: string) => app.roles.indexOf(role);
  const people = new Map<string, EffectiveRole>();
  const entry = (memberId: string): EffectiveRole => {
    let found = people.get(memberId);
    if (!found) {
      const direct = app.direct_roles[memberId] ?? null;
      found = {
        member_id: memberId,
        direct_role: direct,
        group_roles: {},
        effective_role: direct ?? app.roles[0]!,
        access: 'active',
        invited: app.invited_members.includes(memberId),
      };
      people.set(memberId, found);
    }
    return found;
  };
  for (const memberId of Object.keys(app.direct_roles)) entry(memberId);
  for (const share of app.group_shares) {
    const group = state.groups.find((candidate) => candidate.id === share.group_id);
    const role = share.role ?? app.roles[0]!;
    for (const member of group?.members ?? []) {
      const person = entry(member.id);
      person.email = member.email;
      person.group_roles[share.group_id] = role;
      if (!member.has_account) person.access = 'pending_account';
      if (rank(role) > rank(person.effective_role)) person.effective_role = role;
    }
  }
  return [...people.values()].sort((a, b) => a.member_id.localeCompare(b.member_id));
}
