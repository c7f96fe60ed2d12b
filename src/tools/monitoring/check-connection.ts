import { z } from 'zod';
import type { Config } from '../../config.js';
import { describeError, READ_ONLY_CODE, type SentCredential } from '../../errors.js';
import { DailyLimitsSchema } from '../../gate/allowance.js';
import { idText, quote, sanitize } from '../../text.js';
import { SERVER_VERSION } from '../../version.js';
import { defineTool, type ToolContext } from '../define.js';
import { nextCall, type Steps } from '../format.js';

const Credentials = z.strictObject({
  access_token: z.boolean(),
  api_key: z.boolean(),
  monitoring_api_key: z.string().describe('own, from_api_key or none'),
});
const Named = z.strictObject({ id: z.string(), name: z.string() });
const Permission = z.string().describe('full_access, read_only, unknown or not_set');

export const checkConnection = defineTool({
  name: 'check_connection',
  title: 'Check Connection',
  description:
    "Check that the service answers (no credential needed) and show this server's mode, version and which settings and credentials are set, never their values. Start here; in the sandbox it lists the demo ids.",
  input: {},
  output: {
    healthy: z.boolean(),
    health: z.string().describe('The health check status, or why it could not run.'),
    version: z.string(),
    mode: z.string().describe('live or sandbox'),
    read_only: z.boolean(),
    app_id: z.string().optional().describe('Set when the server is scoped to one app.'),
    base_url: z.string().optional(),
    monitoring_url: z.string().optional(),
    credentials: Credentials,
    daily_limits: DailyLimitsSchema.optional(),
    permission: z.strictObject({ access_token: Permission, api_key: Permission }),
    read_only_to_try: z.array(z.string()).optional().describe('Sandbox only: its read-only credentials.'),
    workspace_id: z.string().optional().describe('Sandbox only.'),
    apps: z.array(Named).optional().describe('Sandbox only.'),
    groups: z.array(Named).optional().describe('Sandbox only.'),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  cost: 'none',
  async run(_args, ctx) {
    const { config } = ctx;
    const [health, limits] = await Promise.all([checkHealth(ctx), ctx.allowance?.()]);
    const credentials = {
      access_token: Boolean(config.accessToken),
      api_key: Boolean(config.apiKey),
      monitoring_api_key: config.monitoringApiKey ? (config.monitoringApiKey === config.apiKey ? 'from_api_key' : 'own') : 'none',
    };
    const directory = config.sandboxDirectory;
    const permission = permissionOf(ctx);
    const lines = [
      `Service ${health.healthy ? 'healthy' : 'NOT healthy'}: ${health.text}`,
      `Server ${SERVER_VERSION}, ${config.sandbox ? 'sandbox (simulated service, demo credentials)' : 'live'}${config.readOnly ? ', read-only' : ''}${config.appId ? `, scoped to app ${idText(config.appId)}` : ''}.`,
      `Base URL: ${config.baseUrl ?? 'not set (APPMGMT_BASE_URL)'}${config.monitoringUrl && config.monitoringUrl !== config.baseUrl ? `; monitoring: ${config.monitoringUrl}` : ''}.`,
      `Credentials set: ${credentialText(config)}.`,
      ...permission.lines,
    ];
    if (limits) lines.push(limits.text);
    if (directory) {
      lines.push(
        `Sandbox workspace ${idText(directory.workspace_id)}; apps: ${directory.apps.map((app) => `${idText(app.id)} (${quote(app.name, 40)})`).join(', ')}.`,
        `Groups: ${directory.groups.map((group) => `${idText(group.id)} (${quote(group.name, 40)})`).join(', ')}.`,
      );
    }
    return {
      text: lines.join('\n'),
      next: nextStep(ctx, health.healthy),
      structured: {
        healthy: health.healthy,
        health: health.text,
        version: SERVER_VERSION,
        mode: config.sandbox ? 'sandbox' : 'live',
        read_only: config.readOnly,
        ...(config.appId ? { app_id: sanitize(config.appId, 200) } : {}),
        ...(config.baseUrl ? { base_url: config.baseUrl } : {}),
        ...(config.monitoringUrl ? { monitoring_url: config.monitoringUrl } : {}),
        credentials,
        ...(limits?.facts ? { daily_limits: limits.facts } : {}),
        permission: permission.facts,
        ...(permission.toTry.length ? { read_only_to_try: permission.toTry } : {}),
        ...(directory ? { workspace_id: directory.workspace_id, apps: directory.apps, groups: directory.groups } : {}),
      },
    };
  },
});

/** The health check's verdict; a failure to reach it is the answer here, not an error. */
async function checkHealth({ api, config, signal }: ToolContext): Promise<{ healthy: boolean; text: string }> {
  if (!config.monitoringUrl) return { healthy: false, text: 'not checked: set APPMGMT_BASE_URL (or APPMGMT_MONITORING_URL).' };
  try {
    const answer = await api.monitoringHealth({ signal });
    const status = sanitize(answer.status, 40);
    return { healthy: status === 'healthy', text: `the health check answered ${quote(status, 40)}.` };
  } catch (error) {
    const why = describeError(error, { 404: 'The health check was not found.' }, config.timeoutMs) ?? 'the check failed unexpectedly.';
    return { healthy: false, text: `the health check failed: ${why.split('\n')[0]}` };
  }
}

function credentialText(config: Config): string {
  const set = (value: string | undefined, name: string) => `${name} ${value ? 'yes' : 'no'}`;
  const monitoring = config.monitoringApiKey ? (config.monitoringApiKey === config.apiKey ? 'yes (the API key)' : 'yes') : 'no';
  return [set(config.accessToken, 'access token'), set(config.apiKey, 'API key'), `monitoring key ${monitoring}`].join(', ');
}

type Level = 'full_access' | 'read_only' | 'unknown' | 'not_set';
const LEVEL_TEXT: Record<Level, string> = { full_access: 'full access', read_only: 'READ-ONLY', unknown: 'unknown', not_set: 'not set' };
const VARIABLE: Record<SentCredential, string> = { accessToken: 'APPMGMT_ACCESS_TOKEN', apiKey: 'APPMGMT_API_KEY' };

/**
 * What this server can tell about each credential's permission level, and what it cannot (issue 29):
 * the service reports it only by refusing a change (403 read_only_credential_route_not_allowed),
 * which the API client remembers; the sandbox knows its own credentials, and names its read-only ones.
 */
function permissionOf({ api, config }: ToolContext): { facts: { access_token: Level; api_key: Level }; lines: string[]; toTry: string[] } {
  const known = config.sandboxDirectory?.credentials ?? [];
  const level = (credential: SentCredential): { level: Level; since?: number } => {
    const value = config[credential];
    if (!value) return { level: 'not_set' };
    const since = api.readOnlySince(credential);
    if (since !== undefined) return { level: 'read_only', since };
    const recorded = known.find((candidate) => candidate.value === value)?.permission;
    return { level: recorded ?? 'unknown' };
  };
  const token = level('accessToken');
  const key = level('apiKey');
  const part = (name: string, { level: found, since }: { level: Level; since?: number }) =>
    `${name} ${LEVEL_TEXT[found]}${since !== undefined ? ` (the service refused a request with it at ${new Date(since).toISOString()} as read-only)` : ''}`;
  const lines = [`Permission level: ${part('access token', token)}, ${part('API key', key)}${config.sandbox ? ' (as the sandbox records them)' : ''}.`];
  if (!config.sandbox && (token.level === 'unknown' || key.level === 'unknown')) {
    lines.push(
      `The service has no call that reports a credential's permission: a read-only one is refused on its first change (403 ${READ_ONLY_CODE}), and from then on this server says so before any change made with it, without sending it.`,
    );
  }
  const toTry = known
    .filter((credential) => credential.demo && credential.permission === 'read_only' && credential.value !== config.accessToken && credential.value !== config.apiKey)
    .map((credential) => `${VARIABLE[credential.kind === 'access token' ? 'accessToken' : 'apiKey']}=${credential.value}`);
  if (toTry.length) lines.push(`The sandbox's read-only credentials, to see what one can do: start the server with ${toTry.join(' and ')}.`);
  return { facts: { access_token: token.level, api_key: key.level }, lines, toTry };
}

function nextStep(ctx: Steps, healthy: boolean): string {
  const { config } = ctx;
  if (!healthy) return 'Fix the connection first: check APPMGMT_BASE_URL and the network.';
  if (!config.accessToken && !config.apiKey) return 'Set APPMGMT_ACCESS_TOKEN (and APPMGMT_API_KEY) in the client configuration; most tools need them.';
  const start = FIRST_STEPS.find((name) => ctx.offered.has(name));
  if (config.appId) {
    return `This server is scoped to app ${idText(config.appId)}: ${start ? `start with ${nextCall(config, start)} or another tool of this app` : 'use the tools offered here'}.`;
  }
  const apps = config.sandboxDirectory?.apps ?? [];
  if (apps.length === 1) return `The sandbox has one app: ${start ? `start with ${nextCall(config, start, { app_id: apps[0]!.id })} or another tool of it` : 'use the tools offered here'}.`;
  // Issue 29: a question about every app is answered app by app, not by asking the user to pick one.
  if (apps.length > 1) {
    return `Work on the app the user names, passing its id as app_id${start ? ` (e.g. ${start})` : ''}; for a question about all ${apps.length} sandbox apps above, call the tool once per app_id.`;
  }
  return 'Ask the user for the app id (the service has no operation that lists apps), then call the tools with it.';
}

/** Where a first look at an app starts, in order of preference, among the tools a caller is offered. */
const FIRST_STEPS = ['list_ad_campaigns', 'list_social_posts', 'list_email_templates', 'list_group_shares', 'read_app_conversation', 'pull_repo_changes'];
