import { z } from 'zod';
import { ConfigError } from './errors.js';

/** Every environment variable the server reads, with what it means (also used by --help). */
export const ENV_VARS = {
  APPMGMT_BASE_URL: 'Base URL of the Application Management API (https://…)',
  APPMGMT_ACCESS_TOKEN: 'Personal access token, sent as Authorization: Bearer (email, campaigns, group shares, repository sync)',
  APPMGMT_API_KEY: 'Personal API key, sent as header api_key (scheduling jobs)',
  APPMGMT_MONITORING_URL: 'Base URL of the monitoring API (default: APPMGMT_BASE_URL)',
  APPMGMT_MONITORING_API_KEY: 'API key for the monitoring API (default: APPMGMT_API_KEY)',
  APPMGMT_TIMEOUT_MS: 'Timeout of every API call except conflict resolution (default 30000)',
  APPMGMT_RESOLVE_TIMEOUT_MS: 'Timeout of resolve_repo_conflicts, which can run for minutes (default 900000)',
  APPMGMT_READ_ONLY: 'true: register only the read tools',
  APPMGMT_APP_ID: 'Scope the server to one app: app_id disappears from the tool inputs',
  APPMGMT_TOOLS: 'Comma-separated tool names to enable (default: all)',
  APPMGMT_REQUIRE_HUMAN_CONFIRMATION: 'true: costly tools act only after the user approves in a client form',
  APPMGMT_MAX_DAILY_BUDGET_MICROS: 'Largest daily budget (micros) a campaign may be created with',
  APPMGMT_LOG_LEVEL: 'debug, info, warn or error (default info); logs go to stderr',
} as const;

export type EnvName = keyof typeof ENV_VARS;

const httpUrl = (name: EnvName) =>
  z
    .string()
    .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), {
      message: `${name} must be an http(s) URL such as https://api.example.com`,
    })
    .transform((value) => value.replace(/\/+$/, ''));

const bool = (name: EnvName) =>
  z
    .string()
    .regex(/^(true|false|1|0|yes|no)$/i, `${name} must be true or false`)
    .transform((value) => /^(true|1|yes)$/i.test(value));

const positiveInt = (name: EnvName) =>
  z
    .string()
    .regex(/^[1-9][0-9]*$/, `${name} must be a positive whole number`)
    .transform(Number);

const optionalSecret = z.string().min(1).optional();

const ConfigSchema = z.object({
  APPMGMT_BASE_URL: httpUrl('APPMGMT_BASE_URL').optional(),
  APPMGMT_ACCESS_TOKEN: optionalSecret,
  APPMGMT_API_KEY: optionalSecret,
  APPMGMT_MONITORING_URL: httpUrl('APPMGMT_MONITORING_URL').optional(),
  APPMGMT_MONITORING_API_KEY: optionalSecret,
  APPMGMT_TIMEOUT_MS: positiveInt('APPMGMT_TIMEOUT_MS').default(30_000),
  APPMGMT_RESOLVE_TIMEOUT_MS: positiveInt('APPMGMT_RESOLVE_TIMEOUT_MS').default(900_000),
  APPMGMT_READ_ONLY: bool('APPMGMT_READ_ONLY').default(false),
  APPMGMT_APP_ID: z.string().min(1).optional(),
  APPMGMT_TOOLS: z
    .string()
    .transform((value) => value.split(',').map((name) => name.trim()).filter(Boolean))
    .optional(),
  APPMGMT_REQUIRE_HUMAN_CONFIRMATION: bool('APPMGMT_REQUIRE_HUMAN_CONFIRMATION').default(false),
  APPMGMT_MAX_DAILY_BUDGET_MICROS: positiveInt('APPMGMT_MAX_DAILY_BUDGET_MICROS').optional(),
  APPMGMT_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
});

export interface Config {
  baseUrl?: string;
  accessToken?: string;
  apiKey?: string;
  monitoringUrl?: string;
  monitoringApiKey?: string;
  timeoutMs: number;
  resolveTimeoutMs: number;
  readOnly: boolean;
  appId?: string;
  tools?: string[];
  requireHumanConfirmation: boolean;
  maxDailyBudgetMicros?: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** Set when the server talks to the built-in sandbox: every result says so. */
  sandbox: boolean;
}

/** Command-line flags that override the environment (never secrets). */
export interface ConfigFlags {
  readOnly?: boolean;
  appId?: string;
  tools?: string[];
}

/**
 * Reads the configuration from the environment plus flags. Empty variables count as unset.
 * @throws ConfigError naming the variable and the rule when a value is malformed.
 */
export function loadConfig(
  env: Record<string, string | undefined>,
  flags: ConfigFlags = {},
): { config: Config; warnings: string[] } {
  const known = Object.fromEntries(
    Object.keys(ENV_VARS)
      .map((name) => [name, env[name]?.trim()])
      // Some MCP Bundle hosts pass an unset optional setting as its literal `${user_config.x}`.
      .filter(([, value]) => value !== undefined && value !== '' && !/^\$\{user_config\.[\w-]+\}$/.test(value)),
  );
  const parsed = ConfigSchema.safeParse(known);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0] ?? 'configuration');
    throw new ConfigError(issue.message.startsWith(name) ? issue.message : `${name}: ${issue.message}`);
  }
  const e = parsed.data;
  const config: Config = {
    baseUrl: e.APPMGMT_BASE_URL,
    accessToken: e.APPMGMT_ACCESS_TOKEN,
    apiKey: e.APPMGMT_API_KEY,
    monitoringUrl: e.APPMGMT_MONITORING_URL ?? e.APPMGMT_BASE_URL,
    monitoringApiKey: e.APPMGMT_MONITORING_API_KEY ?? e.APPMGMT_API_KEY,
    timeoutMs: e.APPMGMT_TIMEOUT_MS,
    resolveTimeoutMs: e.APPMGMT_RESOLVE_TIMEOUT_MS,
    readOnly: flags.readOnly ?? e.APPMGMT_READ_ONLY,
    appId: flags.appId ?? e.APPMGMT_APP_ID,
    tools: flags.tools ?? e.APPMGMT_TOOLS,
    requireHumanConfirmation: e.APPMGMT_REQUIRE_HUMAN_CONFIRMATION,
    maxDailyBudgetMicros: e.APPMGMT_MAX_DAILY_BUDGET_MICROS,
    logLevel: e.APPMGMT_LOG_LEVEL,
    sandbox: false,
  };
  return { config, warnings: unknownVariableWarnings(env) };
}

/** A typo such as APPMGMT_ACCES_TOKEN must never be silently ignored. */
function unknownVariableWarnings(env: Record<string, string | undefined>): string[] {
  const names = Object.keys(ENV_VARS);
  return Object.keys(env)
    .filter((name) => name.startsWith('APPMGMT_') && !(name in ENV_VARS))
    .map((name) => {
      const closest = names.reduce((best, candidate) =>
        distance(name, candidate) < distance(name, best) ? candidate : best,
      );
      const hint = distance(name, closest) <= 4 ? ` Did you mean ${closest}?` : '';
      return `Unknown variable ${name} is ignored.${hint}`;
    });
}

function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The secrets to redact from every text the server emits. */
export function secretsOf(config: Config): string[] {
  return [config.accessToken, config.apiKey, config.monitoringApiKey].filter(
    (secret): secret is string => typeof secret === 'string' && secret.length >= 4,
  );
}
