import type { World } from './world.js';

/** What a person is shown to start with in the sandbox: no API operation lists apps, workspaces or groups. */
export interface SandboxDirectory {
  workspace_id: string;
  apps: Array<{ id: string; name: string }>;
  groups: Array<{ id: string; name: string }>;
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
  const workspaceId = world.credentials.access_tokens.find((token) => token.token === accessToken)?.workspace_id ?? world.workspaces[0]!.id;
  return {
    workspace_id: workspaceId,
    apps: world.apps.filter((app) => app.workspace_id === workspaceId).map(({ id, name }) => ({ id, name })),
    groups: world.groups.filter((group) => group.workspace_id === workspaceId).map(({ id, name }) => ({ id, name })),
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
