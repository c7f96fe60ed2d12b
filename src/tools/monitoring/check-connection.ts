import { z } from 'zod';
import type { Config } from '../../config.js';
import { describeError } from '../../errors.js';
import { DailyLimitsSchema } from '../../gate/allowance.js';
import { idText, quote, sanitize } from '../../text.js';
import { SERVER_VERSION } from '../../version.js';
import { defineTool, type ToolContext } from '../define.js';
import { nextCall } from '../format.js';

const Credentials = z.strictObject({
  access_token: z.boolean(),
  api_key: z.boolean(),
  monitoring_api_key: z.string().describe('own, from_api_key or none'),
});
const Named = z.strictObject({ id: z.string(), name: z.string() });

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
    const lines = [
      `Service ${health.healthy ? 'healthy' : 'NOT healthy'}: ${health.text}`,
      `Server ${SERVER_VERSION}, ${config.sandbox ? 'sandbox (simulated service, demo credentials)' : 'live'}${config.readOnly ? ', read-only' : ''}${config.appId ? `, scoped to app ${idText(config.appId)}` : ''}.`,
      `Base URL: ${config.baseUrl ?? 'not set (APPMGMT_BASE_URL)'}${config.monitoringUrl && config.monitoringUrl !== config.baseUrl ? `; monitoring: ${config.monitoringUrl}` : ''}.`,
      `Credentials set: ${credentialText(config)}.`,
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
      next: nextStep(config, health.healthy),
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

function nextStep(config: Config, healthy: boolean): string {
  if (!healthy) return 'Fix the connection first: check APPMGMT_BASE_URL and the network.';
  if (!config.accessToken && !config.apiKey) return 'Set APPMGMT_ACCESS_TOKEN (and APPMGMT_API_KEY) in the client configuration; most tools need them.';
  if (config.appId) return `This server is scoped to app ${idText(config.appId)}: start with ${nextCall(config, 'list_ad_campaigns')} or another tool of this app.`;
  const apps = config.sandboxDirectory?.apps ?? [];
  if (apps.length === 1) return `The sandbox has one app: start with ${nextCall(config, 'list_ad_campaigns', { app_id: apps[0]!.id })} or another tool of it.`;
  if (apps.length > 1) return `Ask the user which of the ${apps.length} sandbox apps above to work on, then pass its id as app_id (e.g. list_ad_campaigns).`;
  return 'Ask the user for the app id (the service has no operation that lists apps), then call the tools with it.';
}
