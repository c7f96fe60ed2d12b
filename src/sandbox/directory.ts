import type { World } from './world.js';

/** What a person is shown to start with in the sandbox: no API operation lists apps, workspaces or groups. */
export interface SandboxDirectory {
  workspace_id: string;
  apps: Array<{ id: string; name: string }>;
  groups: Array<{ id: string; name: string }>;
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
