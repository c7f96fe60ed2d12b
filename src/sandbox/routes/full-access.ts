import { findApp, requireAccess, workspaceOf } from '../access.js';
import { authenticate } from '../auth.js';
import { isResponse, READ_ONLY_REFUSED } from '../respond.js';
import type { RouteContext } from '../router.js';
import type { SimResponse } from '../types.js';
import type { Guarded } from './guard.js';

/**
 * guardApp for the routes that read-only tokens may not call even to read (service facts,
 * "Credentials": preview/list/get/delete email template, list/update/remove group share): a
 * read-only credential is refused before the app is looked up, as for any write.
 */
export function guardFullAccess({ state, req, params }: RouteContext, access: 'editor' | 'viewer'): Guarded | SimResponse {
  const caller = authenticate(state, req, 'token');
  if (isResponse(caller)) return caller;
  if (caller.permission === 'read_only') return READ_ONLY_REFUSED;
  const app = findApp(state, caller, params.app_id ?? '');
  if (isResponse(app)) return app;
  const refused = requireAccess(state, caller, app, access);
  if (refused) return refused;
  return { caller, app, workspace: workspaceOf(state, app) };
}
