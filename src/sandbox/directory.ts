import type { World } from './world.js';

/** What a person is shown to start with in the sandbox: no API operation lists apps, workspaces or groups. */
export interface SandboxDirectory {
  workspace_id: string;
  apps: Array<{ id: string; name: string }>;
  groups: Array<{ id: string; name: string }>;
  /**
   * The world's personal credentials and their permission: simulated, published with the world, so
   * not secrets (results name them); `demo` marks the demo user's own, which check_connection names,
   * the read-only ones among them (issue 29).
   */
  credentials?: SandboxCredential[];
}

export interface SandboxCredential {
  kind: 'access token' | 'API key';
  value: string;
  permission: 'full_access' | 'read_only';
  demo: boolean;
}

/** Credentials a person can use against the sandbox's default world. */
export interface DemoCredentials {
  /** full_access personal access token of the owner. */
  accessToken: string;
  /** personal API key of the owner (scheduling jobs, monitoring). */
  apiKey: string;
  monitoringApiKey: string;
}

/** The demo credentials' workspace, its apps and its groups. */
export function directoryOf(world: World, accessToken: string): SandboxDirectory {
  const owner = world.credentials.access_tokens.find((token) => token.token === accessToken);
  const workspaceId = owner?.workspace_id ?? world.workspaces[0]!.id;
  // The demo user's own credentials for every app of the workspace: the ones a person tries first.
  const demo = (userId: string, workspace: string, app?: string) => userId === owner?.user_id && workspace === workspaceId && !app;
  return {
    workspace_id: workspaceId,
    apps: world.apps.filter((app) => app.workspace_id === workspaceId).map(({ id, name }) => ({ id, name })),
    groups: world.groups.filter((group) => group.workspace_id === workspaceId).map(({ id, name }) => ({ id, name })),
    credentials: [
      ...world.credentials.access_tokens.map((token) => ({
        kind: 'access token' as const,
        value: token.token,
        permission: token.permission,
        demo: demo(token.user_id, token.workspace_id, token.app_id),
      })),
      ...world.credentials.personal_api_keys.map((key) => ({ kind: 'API key' as const, value: key.key, permission: key.permission, demo: demo(key.user_id, key.workspace_id) })),
    ],
  };
}

/**
 * The credentials `--sandbox` serves with: the world's demo ones, except where the environment set
 * one of the world's own (APPMGMT_ACCESS_TOKEN=pat_demo_owner_ro tries the read-only token). A
 * credential the world does not know (a real one, say) is never sent to the sandbox.
 */
export function sandboxCredentials(world: World, given: Partial<DemoCredentials>): DemoCredentials {
  const demo = demoCredentials(world);
  const tokens = new Set(world.credentials.access_tokens.map((token) => token.token));
  const keys = new Set(world.credentials.personal_api_keys.map((key) => key.key));
  const apiKey = given.apiKey && keys.has(given.apiKey) ? given.apiKey : demo.apiKey;
  return {
    accessToken: given.accessToken && tokens.has(given.accessToken) ? given.accessToken : demo.accessToken,
    apiKey,
    monitoringApiKey: given.monitoringApiKey && keys.has(given.monitoringApiKey) ? given.monitoringApiKey : given.apiKey === apiKey ? apiKey : demo.monitoringApiKey,
  };
}


/** The world's `demo` credentials, or else an owner's full-access token and personal API key. */
export function demoCredentials(world: World): DemoCredentials {
  if (world.demo) {
    return { accessToken: world.demo.access_token, apiKey: world.demo.api_key, monitoringApiKey: world.demo.monitoring_api_key };
  }
  const isOwner = (userId: string, workspaceId: string) =>
    world.users.find((user) => user.id === userId)?.workspace_roles[workspaceId] === 'owner';
  const token = world.credentials.access_tokens.find((t) => t.permission === 'full_access' && !t.app_id && isOwner(t.user_id, t.workspace_id));
  const key = world.credentials.personal_api_keys.find((k) => k.permission === 'full_access' && isOwner(k.user_id, k.workspace_id));
  return { accessToken: token?.token ?? '', apiKey: key?.key ?? '', monitoringApiKey: key?.key ?? '' };
}
