import { findApp, requireAccess, workspaceOf } from '../access.js';
import { authenticate, type Caller, type CredentialRule } from '../auth.js';
import { limitFor, type LimitedOperation } from '../limits.js';
import { isResponse } from '../respond.js';
import type { RouteContext } from '../router.js';
import type { SimResponse } from '../types.js';
import type { App, Workspace } from '../world.js';

export interface Guarded {
  caller: Caller;
  app: App;
  workspace: Workspace;
}

/** The checks every app route starts with, in order: credential (401/403), app (404), access (403). */
export function guardApp(
  { state, req, params }: RouteContext,
  credential: CredentialRule,
  access: 'editor' | 'viewer',
): Guarded | SimResponse {
  const caller = authenticate(state, req, credential);
  if (isResponse(caller)) return caller;
  const app = findApp(state, caller, params.app_id ?? '');
  if (isResponse(app)) return app;
  const refused = requireAccess(state, caller, app, access);
  if (refused) return refused;
  return { caller, app, workspace: workspaceOf(state, app) };
}

/** Counts one request against a section 8 limit; a 429 answer when the minute's window is full. */
export function rateLimit(
  { state }: RouteContext,
  workspace: Workspace,
  operation: LimitedOperation,
  bucket: string,
): SimResponse | undefined {
  return state.limiter.hit(`${operation}:${bucket}`, limitFor(workspace, operation));
}
