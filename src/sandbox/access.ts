import type { Caller } from './auth.js';
import { fail } from './respond.js';
import type { State } from './state.js';
import type { SimResponse } from './types.js';
import type { App, Workspace } from './world.js';

export type WorkspaceRole = 'owner' | 'admin' | 'editor' | 'member';

/** An app the caller's workspace holds; another workspace's app is as unknown as a missing one. */
export function findApp(state: State, caller: Caller, appId: string): App | SimResponse {
  const app = state.apps.find((candidate) => candidate.id === appId);
  if (!app || app.workspace_id !== caller.workspaceId) return fail(404, 'App not found.');
  if (caller.appId && caller.appId !== app.id) return fail(403, 'This access token is limited to another app.');
  return app;
}

export function workspaceOf(state: State, app: App): Workspace {
  const workspace = state.workspaces.find((candidate) => candidate.id === app.workspace_id);
  if (!workspace) throw new Error(`app ${app.id} has no workspace`); // parseWorld rules this out
  return workspace;
}

export function workspaceRole(state: State, userId: string | undefined, workspaceId: string): WorkspaceRole | undefined {
  return state.users.find((user) => user.id === userId)?.workspace_roles[workspaceId];
}

/** Owners and admins edit every app of their workspace; others have what their per-app access says. */
export function appAccess(state: State, caller: Caller, app: App): 'editor' | 'viewer' | undefined {
  const role = workspaceRole(state, caller.userId, app.workspace_id);
  if (!role) return undefined;
  if (role === 'owner' || role === 'admin') return 'editor';
  return state.users.find((user) => user.id === caller.userId)?.app_access[app.id];
}

/** 403 unless the caller has at least `needed` access to the app. */
export function requireAccess(state: State, caller: Caller, app: App, needed: 'editor' | 'viewer'): SimResponse | undefined {
  const access = appAccess(state, caller, app);
  if (access === 'editor' || (needed === 'viewer' && access === 'viewer')) return undefined;
  return fail(403, needed === 'editor' ? 'Editor access to this app is needed.' : 'You have no access to this app.');
}
