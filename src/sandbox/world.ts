import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { AdnetSchema, CampaignSchema, JobSchema, WebSchema } from './world-schema-activity.js';
import { AppSchema, CredentialsSchema, DemoCredentialsSchema, GroupSchema, UserSchema, WorkspaceSchema } from './world-schema.js';
import { checkPosts, PostSchema } from './world-schema-social.js';

export const WorldSchema = z
  .strictObject({
    /** Seeds generated ids and commit hashes: same world and same requests give the same answers. */
    seed: z.number().int().default(1),
    /** The credentials `--sandbox` hands to the server; derived from the owners' credentials when absent. */
    demo: DemoCredentialsSchema.optional(),
    adnet: AdnetSchema,
    web: WebSchema,
    workspaces: z.array(WorkspaceSchema).min(1),
    users: z.array(UserSchema).default([]),
    credentials: CredentialsSchema,
    groups: z.array(GroupSchema).default([]),
    apps: z.array(AppSchema).default([]),
    campaigns: z.array(CampaignSchema).default([]),
    jobs: z.array(JobSchema).default([]),
    /** The apps' social calendars. */
    posts: z.array(PostSchema).default([]),
  })
  .superRefine(checkReferences);

export type World = z.output<typeof WorldSchema>;
export type WorldInput = z.input<typeof WorldSchema>;
export type Workspace = World['workspaces'][number];
export type User = World['users'][number];
export type App = World['apps'][number];
export type Group = World['groups'][number];
export type WorldCampaign = World['campaigns'][number];
export type Job = World['jobs'][number];
export type Repository = App['repository'];

/**
 * Validates a world description.
 * @throws Error whose message names each bad field, e.g. `world.workspaces[0].currency: ...`.
 */
export function parseWorld(json: unknown): World {
  const parsed = WorldSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.slice(0, 5).map((issue) => `${fieldPath(issue.path)}: ${issue.message}`);
  const more = parsed.error.issues.length - lines.length;
  throw new Error(`invalid sandbox world: ${lines.join('; ')}${more > 0 ? ` (and ${more} more)` : ''}`);
}

/**
 * Reads and validates a world file (`--sandbox-world FILE`).
 * @throws Error when the file cannot be read, is not JSON, or fails `parseWorld`.
 */
export function loadWorldFile(path: string): World {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read sandbox world ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`sandbox world ${path} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  return parseWorld(json);
}

function fieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (text, key) => (typeof key === 'number' ? `${text}[${key}]` : `${text}.${String(key)}`),
    'world',
  );
}

// Typed `unknown` because World is inferred from the schema this refines.
function checkReferences(world: unknown, ctx: z.RefinementCtx): void {
  const w = world as World;
  const ids = (items: { id: string }[]) => new Set(items.map((item) => item.id));
  const workspaces = ids(w.workspaces);
  const users = ids(w.users);
  const apps = ids(w.apps);
  const groups = ids(w.groups);
  const issue = (path: PropertyKey[], message: string) => ctx.addIssue({ code: 'custom', path, message });
  const need = (set: Set<string>, id: string | undefined, path: PropertyKey[], what: string) => {
    if (id !== undefined && !set.has(id)) issue(path, `unknown ${what} "${id}"`);
  };

  for (const key of ['workspaces', 'users', 'apps', 'groups', 'campaigns', 'jobs'] as const) {
    const seen = new Set<string>();
    w[key].forEach((item, i) => {
      if (seen.has(item.id)) issue([key, i, 'id'], `duplicate id "${item.id}"`);
      seen.add(item.id);
    });
  }
  w.users.forEach((user, i) => {
    for (const ws of Object.keys(user.workspace_roles)) need(workspaces, ws, ['users', i, 'workspace_roles', ws], 'workspace');
    for (const app of Object.keys(user.app_access)) need(apps, app, ['users', i, 'app_access', app], 'app');
  });
  w.apps.forEach((app, i) => {
    need(workspaces, app.workspace_id, ['apps', i, 'workspace_id'], 'workspace');
    app.group_shares.forEach((share, j) => need(groups, share.group_id, ['apps', i, 'group_shares', j, 'group_id'], 'group'));
    Object.values(app.direct_roles).forEach((role) => {
      if (!app.roles.includes(role)) issue(['apps', i, 'direct_roles'], `role "${role}" is not one of ${app.roles.join(', ')}`);
    });
  });
  w.groups.forEach((group, i) => need(workspaces, group.workspace_id, ['groups', i, 'workspace_id'], 'workspace'));
  w.campaigns.forEach((campaign, i) => need(apps, campaign.app_id, ['campaigns', i, 'app_id'], 'app'));
  w.jobs.forEach((job, i) => need(apps, job.app_id, ['jobs', i, 'app_id'], 'app'));
  checkPosts(w.posts, apps, issue);

  const secrets = new Set<string>();
  const credential = (secret: string, path: PropertyKey[]) => {
    if (secrets.has(secret)) issue(path, 'the same secret is used twice');
    secrets.add(secret);
  };
  w.credentials.access_tokens.forEach((t, i) => {
    const path = ['credentials', 'access_tokens', i];
    credential(t.token, [...path, 'token']);
    need(users, t.user_id, [...path, 'user_id'], 'user');
    need(workspaces, t.workspace_id, [...path, 'workspace_id'], 'workspace');
    need(apps, t.app_id, [...path, 'app_id'], 'app');
  });
  w.credentials.personal_api_keys.forEach((k, i) => {
    const path = ['credentials', 'personal_api_keys', i];
    credential(k.key, [...path, 'key']);
    need(users, k.user_id, [...path, 'user_id'], 'user');
    need(workspaces, k.workspace_id, [...path, 'workspace_id'], 'workspace');
  });
  w.credentials.workspace_api_keys.forEach((k, i) => {
    credential(k.key, ['credentials', 'workspace_api_keys', i, 'key']);
    need(workspaces, k.workspace_id, ['credentials', 'workspace_api_keys', i, 'workspace_id'], 'workspace');
  });
  if (w.demo) {
    for (const field of ['access_token', 'api_key', 'monitoring_api_key'] as const) {
      if (!secrets.has(w.demo[field])) issue(['demo', field], 'not a credential of this world');
    }
  }
}
