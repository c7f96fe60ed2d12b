import { fail, READ_ONLY_REFUSED } from './respond.js';
import type { State } from './state.js';
import type { SimRequest, SimResponse } from './types.js';

export interface Caller {
  kind: 'access_token' | 'personal_api_key' | 'workspace_api_key';
  /** The secret itself: "per caller" limits count on it. */
  secret: string;
  workspaceId: string;
  userId?: string;
  permission: 'full_access' | 'read_only';
  /** Set on an access token that reaches only this app. */
  appId?: string;
}

/**
 * How a route takes its credential (section 5): `token` is `Authorization: Bearer`, `api_key` the
 * `api_key` header. Email customization takes either: the auth table names a token, rule 5.1 a key.
 */
export type CredentialRule = 'token' | 'api_key' | 'token_or_api_key';

const EXPECTED: Record<CredentialRule, string> = {
  token: 'a personal access token in "Authorization: Bearer <ACCESS_TOKEN>"',
  api_key: 'a personal API key in the "api_key" header',
  token_or_api_key: 'a personal access token in "Authorization: Bearer <ACCESS_TOKEN>" or a personal API key in the "api_key" header',
};

/** Looks a secret up among every kind of credential of the world. */
export function identify(state: State, secret: string): Caller | undefined {
  const { access_tokens, personal_api_keys, workspace_api_keys } = state.credentials;
  const token = access_tokens.find((t) => t.token === secret);
  if (token) {
    const caller: Caller = { kind: 'access_token', secret, workspaceId: token.workspace_id, userId: token.user_id, permission: token.permission };
    return token.app_id ? { ...caller, appId: token.app_id } : caller;
  }
  const key = personal_api_keys.find((k) => k.key === secret);
  if (key) return { kind: 'personal_api_key', secret, workspaceId: key.workspace_id, userId: key.user_id, permission: key.permission };
  const workspaceKey = workspace_api_keys.find((k) => k.key === secret);
  if (workspaceKey) return { kind: 'workspace_api_key', secret, workspaceId: workspaceKey.workspace_id, permission: 'full_access' };
  return undefined;
}

/**
 * Section 5: 401 for a missing or unknown credential or the wrong kind; 403 for a workspace API key
 * (no app route of this interface accepts one) and for a read-only credential on any write.
 */
export function authenticate(state: State, req: SimRequest, rule: CredentialRule): Caller | SimResponse {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
  const apiKey = req.headers.api_key?.trim() || undefined;
  const offered = [
    ...(rule !== 'api_key' && bearer ? [{ secret: bearer, via: 'token' as const }] : []),
    ...(rule !== 'token' && apiKey ? [{ secret: apiKey, via: 'api_key' as const }] : []),
  ];
  if (offered.length === 0) return fail(401, `Missing credentials: this endpoint needs ${EXPECTED[rule]}.`);
  let caller: Caller | undefined;
  let via: 'token' | 'api_key' = 'token';
  for (const candidate of offered) {
    caller = identify(state, candidate.secret);
    via = candidate.via;
    if (caller) break;
  }
  if (!caller) return fail(401, 'Invalid credentials.');
  if (caller.kind === 'workspace_api_key') {
    return fail(403, 'Workspace API keys are not accepted by this endpoint; use a personal credential.');
  }
  const wanted = via === 'token' ? 'access_token' : 'personal_api_key';
  if (caller.kind !== wanted) return fail(401, `Wrong kind of credential: this endpoint needs ${EXPECTED[rule]}.`);
  if (req.method !== 'GET' && caller.permission === 'read_only') return READ_ONLY_REFUSED;
  return caller;
}
