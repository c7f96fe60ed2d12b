import type { SandboxDirectory } from './sandbox/directory.js';
import { z } from 'zod';
import { ConfigError } from './errors.js';
import { unfilledPlaceholder } from './placeholder.js';
import { limit } from './text.js';

/** Every environment variable the server reads, with what it means (also used by --help). */
export const ENV_VARS = {
  APPMGMT_BASE_URL: 'Base URL of the Application Management API (https://…)',
  APPMGMT_ACCESS_TOKEN: 'Personal access token, sent as Authorization: Bearer (every operation but monitoring analytics and the health check)',
  APPMGMT_API_KEY: 'Personal API key, sent as header api_key (the social calendar and scheduling jobs; else the token is used)',
  APPMGMT_MONITORING_URL: 'Base URL of the monitoring API (default: APPMGMT_BASE_URL)',
  APPMGMT_MONITORING_API_KEY: 'API key for the monitoring API (default: APPMGMT_API_KEY)',
  APPMGMT_ALLOW_INSECURE_HTTP: 'true: allow a plain http:// base URL to a host other than this machine',
  APPMGMT_TIMEOUT_MS: 'Timeout of every API call except conflict resolution and builder chat turns (default 30000, at most 86400000)',
  APPMGMT_RESOLVE_TIMEOUT_MS: 'Timeout of resolve_repo_conflicts and send_app_chat_message, which can run for minutes (default 900000, at most 86400000)',
  APPMGMT_READ_ONLY: 'true: register only the read tools',
  APPMGMT_APP_ID: 'Scope the server to one app: app_id disappears from the tool inputs',
  APPMGMT_TOOLS: 'Comma-separated tool names to enable (default: all)',
  APPMGMT_TOOLSETS: 'Comma-separated toolsets to enable: emails, campaigns, sharing, social, repo, chat, monitoring, or all (default)',
  APPMGMT_REQUIRE_HUMAN_CONFIRMATION: 'true: costly tools act only after the user approves in a client form',
  APPMGMT_APPROVAL_TIMEOUT_MS: 'How long a costly call waits for the user to answer the approval form (default 120000, at most 600000)',
  APPMGMT_MAX_DAILY_BUDGET_MICROS: 'Largest daily budget (micros) a campaign may be created with',
  APPMGMT_SPEND_LIMIT_DAILY_MICROS: "Each user's daily limit (micros, UTC day) on new daily budget committed by confirmed calls: created and resumed campaigns, budget increases",
  APPMGMT_SPEND_LIMIT_TOTAL_DAILY_MICROS: 'The same limit for all users of this server together (micros, UTC day)',
  APPMGMT_CREDIT_TURNS_DAILY: "Each user's daily limit (UTC day) on AI turns: confirmed builder chat messages and conflict resolutions",
  APPMGMT_LOG_LEVEL: 'debug, info, warn or error (default info); logs go to stderr',
  APPMGMT_HTTP_ALLOWED_HOSTS: "http: Host header values allowed besides this machine's names, comma-separated (mcp.example.com, mcp.example.com:8443)",
  APPMGMT_HTTP_ALLOWED_ORIGINS: 'http: browser origins allowed besides this machine, comma-separated (https://chat.example.com)',
  APPMGMT_HTTP_MAX_BODY_BYTES: 'http: largest request body accepted, in bytes (default 1048576, at most 67108864)',
  APPMGMT_STATE_URL: 'redis://host:port/db (or rediss://; db a number Redis has, 0-15 by default): keep the confirmation gate in Redis, shared by every replica',
  APPMGMT_STATE_SECRET: 'With APPMGMT_STATE_URL: at least 32 generated characters (openssl rand -hex 32), the same on every replica; signs approval state',
  APPMGMT_STATE_ALLOW_EVICTION: 'true: start even though Redis may evict keys (maxmemory-policy other than noeviction); the gate then refuses for a while after each loss',
  APPMGMT_OAUTH_ISSUER: 'http: turn on OAuth sign-in with the public origin clients reach this server at (https://mcp.example.com); Authorization then carries only tokens this server issued',
  APPMGMT_OAUTH_SEAL_KEYS: 'With APPMGMT_OAUTH_ISSUER: comma-separated keys of 64 hex characters (openssl rand -hex 32), newest first, the same on every replica; the first encrypts the credentials people give at consent, the others only decrypt',
  APPMGMT_OAUTH_REGISTRATION: 'With APPMGMT_OAUTH_ISSUER: how clients not in APPMGMT_OAUTH_CLIENTS_FILE may register: cimd, dcr, both comma-separated (default), or none',
  APPMGMT_OAUTH_CLIENTS_FILE: 'With APPMGMT_OAUTH_ISSUER: a JSON file of pre-registered clients, [{"client_id", "client_name", "redirect_uris": [...]}]',
  APPMGMT_OAUTH_CIMD_ALLOW_LOOPBACK: 'Tests only: true lets client metadata documents be fetched from this machine (127.0.0.0/8, ::1); private and link-local addresses stay refused',
  APPMGMT_AUDIT_LOG: 'File to append the audit trail to, one JSON line per step of every costly call (created 0600, fsynced per line; default: stderr lines marked audit:)',
} as const;

export type EnvName = keyof typeof ENV_VARS;

const ENV_NAMES = Object.keys(ENV_VARS) as EnvName[];

/** A deadline above a day is a typo (an extra zero or two), not a wish. */
const MAX_TIMEOUT_MS = 86_400_000;
/** More AI turns a day than this is a typo, not a limit: a person cannot follow more. */
export const MAX_CREDIT_TURNS_DAILY = 1_000;
/** A billion units a day: any larger limit is a typo, and sums of amounts stay exact integers below it. */
export const MAX_SPEND_LIMIT_MICROS = 1e15;
/** A person answers a form within minutes; longer only holds a call and its warning open. */
const MAX_APPROVAL_TIMEOUT_MS = 600_000;
const DEFAULT_APPROVAL_TIMEOUT_MS = 120_000;
const DEFAULT_HTTP_MAX_BODY_BYTES = 1024 * 1024;
const MAX_HTTP_MAX_BODY_BYTES = 64 * 1024 * 1024;
/** The signing key of approval state: HMAC-SHA256 wants at least 256 bits. */
const MIN_STATE_SECRET_LENGTH = 32;
/**
 * Fewer different characters than this is a made-up secret (aaaa…, abcabc…), not a generated one:
 * 32 random hex characters hold about 14 different ones, and fewer than 8 almost never.
 */
const MIN_STATE_SECRET_DISTINCT = 8;
/** Redis has databases 0-15 unless its `databases` setting says more; a longer number is a typo (a port, an extra digit). */
const MAX_STATE_DB = 9_999;
/** An edit or two from a known name (separators and case aside) is a typo of it, not another program's variable. */
const NEAR_MISS_EDITS = 2;
/** Our prefix misspelled by one edit (APPMGNT, APMGMT) still names our settings. */
const PREFIX_EDITS = 1;

const httpUrl = (name: EnvName, credentials: string) =>
  z
    .string()
    .superRefine((value, ctx) => {
      // Messages never contain the value: it may hold a user name and password.
      const fail = (message: string) => ctx.addIssue({ code: 'custom', message });
      if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) {
        return fail(`${name} must be an http(s) URL such as https://api.example.com`);
      }
      const url = new URL(value);
      if (url.username || url.password) {
        fail(`${name} must not contain a user name or password; credentials belong in ${credentials}`);
      }
      if (/[?#]/.test(value)) {
        fail(`${name} must not have a query string or fragment (? or #); give only the base URL, such as https://api.example.com`);
      }
    })
    .transform((value) => value.replace(/\/+$/, ''));

const bool = (name: EnvName) =>
  z
    .string()
    .regex(/^(true|false|1|0|yes|no)$/i, `${name} must be true or false`)
    .transform((value) => /^(true|1|yes)$/i.test(value));

const positiveInt = (name: EnvName, max: number, maxText = String(max)) =>
  z
    .string()
    .regex(/^[1-9][0-9]*$/, `${name} must be a positive whole number`)
    .transform(Number)
    .refine((value) => value <= max, `${name} must be at most ${maxText}`);

/** Only the name is ever shown: the value is a secret. */
const secret = (name: EnvName, what: string) =>
  z
    .string()
    .regex(/^[^\s\p{Cc}\p{Cf}]+$/u, `${name} contains spaces or invisible characters; set it to the ${what} alone (the value is not shown)`)
    .optional();

const toolList = (name: string) =>
  z
    .string()
    .transform((value) => value.split(',').map((tool) => tool.trim()).filter(Boolean))
    .refine((tools) => tools.length > 0, `${name} names no tool; list tool names separated by commas, or leave it out`);

/** The toolsets a server can offer; the registry (src/tools/index.ts) groups its tools by these names. */
export const TOOLSET_NAMES = ['emails', 'campaigns', 'sharing', 'social', 'repo', 'chat', 'monitoring'] as const;
export type ToolsetName = (typeof TOOLSET_NAMES)[number];

/** Toolset names, or `all`; an unknown name is an error that lists the valid ones. */
const toolsetList = (name: string) =>
  z
    .string()
    .transform((value) => value.split(',').map((set) => set.trim().toLowerCase()).filter(Boolean))
    .superRefine((sets, ctx) => {
      if (sets.length === 0) ctx.addIssue({ code: 'custom', message: `${name} names no toolset; list toolsets separated by commas, or leave it out` });
      const unknown = sets.filter((set) => set !== 'all' && !(TOOLSET_NAMES as readonly string[]).includes(set));
      if (unknown.length > 0) {
        ctx.addIssue({ code: 'custom', message: `${name} has unknown toolset ${unknown.join(', ')}; the toolsets are ${TOOLSET_NAMES.join(', ')} (or all)` });
      }
    })
    .transform((sets) => (sets.includes('all') ? undefined : (sets as ToolsetName[])));

/** Comma-separated values, each checked and normalized by `each` (which returns an error message or the value). */
const list = (name: EnvName, each: (value: string) => { ok: string } | { error: string }) =>
  z.string().transform((text, ctx) => {
    const values: string[] = [];
    for (const item of text.split(',').map((value) => value.trim()).filter(Boolean)) {
      const checked = each(item);
      if ('error' in checked) ctx.addIssue({ code: 'custom', message: `${name}: ${JSON.stringify(item.slice(0, 100))} ${checked.error}` });
      else values.push(checked.ok);
    }
    if (values.length === 0 && ctx.issues.length === 0) ctx.addIssue({ code: 'custom', message: `${name} names nothing; list values separated by commas, or leave it out` });
    return values;
  });

/** A Host header value: a name or address, with a port only when the clients use one. */
function hostValue(value: string): { ok: string } | { error: string } {
  const lower = value.toLowerCase();
  if (!URL.canParse(`http://${lower}`) || /[/?#@]/.test(lower)) return { error: 'is not a host name; give a name such as mcp.example.com or mcp.example.com:8443' };
  const url = new URL(`http://${lower}`);
  return url.host === lower || `${url.hostname}:80` === lower ? { ok: lower } : { error: 'is not a host name in its plain form; give a name such as mcp.example.com' };
}

/** A browser origin: scheme, host and port only, as browsers send it. */
function originValue(value: string): { ok: string } | { error: string } {
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) return { error: 'is not an origin; give one such as https://chat.example.com' };
  const url = new URL(value);
  if (url.pathname !== '/' || url.search || url.hash || url.username || url.password) {
    return { error: 'has more than an origin; give only the scheme and host, such as https://chat.example.com' };
  }
  return { ok: url.origin };
}

const FlagsSchema = z.object({
  readOnly: z.boolean().optional(),
  appId: z.string().trim().min(1, '--app-id is empty; give an app ID or leave the flag out').optional(),
  tools: toolList('--tools').optional(),
  toolsets: toolsetList('--toolsets').optional(),
  /** `http` only: the address to bind; its rules are checked with the allowed hosts and origins. */
  host: z.string().optional(),
});

/** Every setting, from the environment and the command line; all problems are reported at once (its defaults are the reference's). */
export const ConfigSchema = z
  .object({
    APPMGMT_BASE_URL: httpUrl('APPMGMT_BASE_URL', 'APPMGMT_ACCESS_TOKEN and APPMGMT_API_KEY').optional(),
    APPMGMT_ACCESS_TOKEN: secret('APPMGMT_ACCESS_TOKEN', 'token'),
    APPMGMT_API_KEY: secret('APPMGMT_API_KEY', 'key'),
    APPMGMT_MONITORING_URL: httpUrl('APPMGMT_MONITORING_URL', 'APPMGMT_MONITORING_API_KEY').optional(),
    APPMGMT_MONITORING_API_KEY: secret('APPMGMT_MONITORING_API_KEY', 'key'),
    APPMGMT_ALLOW_INSECURE_HTTP: bool('APPMGMT_ALLOW_INSECURE_HTTP').default(false),
    APPMGMT_TIMEOUT_MS: positiveInt('APPMGMT_TIMEOUT_MS', MAX_TIMEOUT_MS, '86400000 (24 hours)').default(30_000),
    APPMGMT_RESOLVE_TIMEOUT_MS: positiveInt('APPMGMT_RESOLVE_TIMEOUT_MS', MAX_TIMEOUT_MS, '86400000 (24 hours)').default(900_000),
    APPMGMT_READ_ONLY: bool('APPMGMT_READ_ONLY').default(false),
    APPMGMT_STATE_ALLOW_EVICTION: bool('APPMGMT_STATE_ALLOW_EVICTION').default(false),
    APPMGMT_OAUTH_ISSUER: z
      .string()
      .superRefine((value, ctx) => {
        const problem = issuerProblem(value);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .transform((value) => new URL(value).origin)
      .optional(),
    APPMGMT_OAUTH_SEAL_KEYS: z
      .string()
      .transform((value) => value.split(',').map((key) => key.trim()).filter(Boolean))
      .refine(
        (keys) => keys.length > 0 && keys.every((key) => /^[0-9a-f]{64}$/i.test(key)),
        'APPMGMT_OAUTH_SEAL_KEYS must be keys of 64 hex characters, newest first, separated by commas (the values are not shown); generate one with: openssl rand -hex 32',
      )
      .refine((keys) => new Set(keys.map((key) => key.toLowerCase())).size === keys.length, 'APPMGMT_OAUTH_SEAL_KEYS names one key twice')
      .optional(),
    APPMGMT_OAUTH_REGISTRATION: z
      .string()
      .transform((value) => value.split(',').map((item) => item.trim().toLowerCase()).filter(Boolean))
      .refine(
        (items) => items.length > 0 && (items.join() === 'none' || items.every((item) => item === 'cimd' || item === 'dcr')),
        'APPMGMT_OAUTH_REGISTRATION must be cimd, dcr, both separated by a comma, or none',
      )
      .optional(),
    APPMGMT_OAUTH_CLIENTS_FILE: z.string().optional(),
    APPMGMT_OAUTH_CIMD_ALLOW_LOOPBACK: bool('APPMGMT_OAUTH_CIMD_ALLOW_LOOPBACK').default(false),
    APPMGMT_AUDIT_LOG: z.string().optional(),
    APPMGMT_APP_ID: z.string().optional(),
    APPMGMT_TOOLS: toolList('APPMGMT_TOOLS').optional(),
    APPMGMT_TOOLSETS: toolsetList('APPMGMT_TOOLSETS').optional(),
    APPMGMT_REQUIRE_HUMAN_CONFIRMATION: bool('APPMGMT_REQUIRE_HUMAN_CONFIRMATION').default(false),
    APPMGMT_APPROVAL_TIMEOUT_MS: positiveInt('APPMGMT_APPROVAL_TIMEOUT_MS', MAX_APPROVAL_TIMEOUT_MS, '600000 (10 minutes)').default(
      DEFAULT_APPROVAL_TIMEOUT_MS,
    ),
    APPMGMT_MAX_DAILY_BUDGET_MICROS: positiveInt('APPMGMT_MAX_DAILY_BUDGET_MICROS', Number.MAX_SAFE_INTEGER).optional(),
    APPMGMT_SPEND_LIMIT_DAILY_MICROS: positiveInt('APPMGMT_SPEND_LIMIT_DAILY_MICROS', MAX_SPEND_LIMIT_MICROS, '1000000000000000 (a billion units a day)').optional(),
    APPMGMT_SPEND_LIMIT_TOTAL_DAILY_MICROS: positiveInt('APPMGMT_SPEND_LIMIT_TOTAL_DAILY_MICROS', MAX_SPEND_LIMIT_MICROS, '1000000000000000 (a billion units a day)').optional(),
    APPMGMT_CREDIT_TURNS_DAILY: positiveInt('APPMGMT_CREDIT_TURNS_DAILY', MAX_CREDIT_TURNS_DAILY).optional(),
    APPMGMT_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error'], { error: 'APPMGMT_LOG_LEVEL must be debug, info, warn or error' }).default('info'),
    APPMGMT_HTTP_ALLOWED_HOSTS: list('APPMGMT_HTTP_ALLOWED_HOSTS', hostValue).optional(),
    APPMGMT_HTTP_ALLOWED_ORIGINS: list('APPMGMT_HTTP_ALLOWED_ORIGINS', originValue).optional(),
    APPMGMT_HTTP_MAX_BODY_BYTES: positiveInt('APPMGMT_HTTP_MAX_BODY_BYTES', MAX_HTTP_MAX_BODY_BYTES, '67108864 (64 MiB)').default(DEFAULT_HTTP_MAX_BODY_BYTES),
    APPMGMT_STATE_URL: z
      .string()
      .superRefine((value, ctx) => {
        const problem = stateUrlProblem(value);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .optional(),
    APPMGMT_STATE_SECRET: z
      .string()
      .min(MIN_STATE_SECRET_LENGTH, `APPMGMT_STATE_SECRET must be at least ${MIN_STATE_SECRET_LENGTH} characters (the value is not shown); generate one with: openssl rand -hex 32`)
      .refine(
        (value) => value.length < MIN_STATE_SECRET_LENGTH || !guessable(value),
        `APPMGMT_STATE_SECRET is too easy to guess: it needs at least ${MIN_STATE_SECRET_DISTINCT} different characters and must not repeat one short piece (the value is not shown); generate one with: openssl rand -hex 32`,
      )
      .optional(),
    flags: FlagsSchema,
  })
  // zod runs this even when a field failed, handing it that field's raw string: every check here
  // tolerates raw values, so its problems join the fields' own instead of waiting for a second run.
  .superRefine((e, ctx) => {
    const fail = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    for (const name of ['APPMGMT_BASE_URL', 'APPMGMT_MONITORING_URL'] as const) {
      const value = e[name];
      if (value === undefined || !URL.canParse(value) || e.APPMGMT_ALLOW_INSECURE_HTTP === true) continue;
      const url = new URL(value);
      if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
        fail(name, `${name} uses plain http:// to ${url.host}, which is not this machine; use https://, or set APPMGMT_ALLOW_INSECURE_HTTP=true`);
      }
    }
    const { appId, tools } = e.flags;
    if (appId && e.APPMGMT_APP_ID && appId !== e.APPMGMT_APP_ID) {
      fail('flags', `--app-id ${JSON.stringify(appId)} and APPMGMT_APP_ID ${JSON.stringify(e.APPMGMT_APP_ID)} disagree; set the app in one place`);
    }
    if (Array.isArray(tools) && Array.isArray(e.APPMGMT_TOOLS) && setKey(tools) !== setKey(e.APPMGMT_TOOLS)) {
      fail('flags', '--tools and APPMGMT_TOOLS name different tools; set them in one place');
    }
    if (e.APPMGMT_STATE_URL !== undefined && e.APPMGMT_STATE_SECRET === undefined) {
      fail('APPMGMT_STATE_SECRET', 'APPMGMT_STATE_SECRET must be set with APPMGMT_STATE_URL: the same secret of at least 32 characters on every replica (generate one with: openssl rand -hex 32)');
    }
    const host = e.flags.host;
    if (host !== undefined && !isLoopback(host.toLowerCase()) && !isLoopback(`[${host}]`)) {
      const missing = (['APPMGMT_HTTP_ALLOWED_HOSTS', 'APPMGMT_HTTP_ALLOWED_ORIGINS'] as const).filter((name) => e[name] === undefined);
      if (missing.length > 0) {
        fail('flags', `--host ${host} serves other machines, so ${missing.join(' and ')} must name the host names and browser origins clients use (comma-separated); nothing is allowed by default beyond this machine`);
      }
    }
    const oauthOnly = (['APPMGMT_OAUTH_SEAL_KEYS', 'APPMGMT_OAUTH_REGISTRATION', 'APPMGMT_OAUTH_CLIENTS_FILE'] as const).filter((name) => e[name] !== undefined);
    if (e.APPMGMT_OAUTH_ISSUER === undefined && oauthOnly.length > 0) {
      fail('APPMGMT_OAUTH_ISSUER', `${oauthOnly.join(', ')} only work with APPMGMT_OAUTH_ISSUER; set it to this server's public origin, or leave them out`);
    }
    if (e.APPMGMT_OAUTH_ISSUER !== undefined && e.APPMGMT_STATE_URL !== undefined && e.APPMGMT_OAUTH_SEAL_KEYS === undefined) {
      fail('APPMGMT_OAUTH_SEAL_KEYS', 'APPMGMT_OAUTH_SEAL_KEYS must be set with APPMGMT_OAUTH_ISSUER and APPMGMT_STATE_URL: the same key on every replica, or a grant made on one could not be used on another (generate one with: openssl rand -hex 32)');
    }
    const registration = e.APPMGMT_OAUTH_REGISTRATION;
    if (Array.isArray(registration) && registration.join() === 'none' && e.APPMGMT_OAUTH_CLIENTS_FILE === undefined) {
      fail('APPMGMT_OAUTH_REGISTRATION', 'APPMGMT_OAUTH_REGISTRATION=none leaves no client able to connect; list clients in APPMGMT_OAUTH_CLIENTS_FILE, or allow cimd or dcr');
    }
    const sets = e.flags.toolsets;
    if (Array.isArray(sets) && Array.isArray(e.APPMGMT_TOOLSETS) && setKey(sets) !== setKey(e.APPMGMT_TOOLSETS)) {
      fail('flags', '--toolsets and APPMGMT_TOOLSETS name different toolsets; set them in one place');
    }
  });

export interface Config {
  baseUrl?: string;
  accessToken?: string;
  apiKey?: string;
  monitoringUrl?: string;
  monitoringApiKey?: string;
  /** A plain http:// base URL to another machine was allowed (APPMGMT_ALLOW_INSECURE_HTTP). */
  allowInsecureHttp: boolean;
  timeoutMs: number;
  resolveTimeoutMs: number;
  readOnly: boolean;
  appId?: string;
  tools?: string[];
  /** The toolsets offered; undefined means all. check_connection is always offered. */
  toolsets?: ToolsetName[];
  requireHumanConfirmation: boolean;
  /** How long a costly call waits for the person to answer the client's approval form. */
  approvalTimeoutMs: number;
  maxDailyBudgetMicros?: number;
  /**
   * The daily limit per person on new daily budget, in micros (gate/allowance.ts). An OAuth grant
   * may carry a lower one of its own (auth/grant.ts Bound), counted beside it.
   */
  spendLimitDailyMicros?: number;
  /** The same limit for all callers together. */
  spendLimitTotalDailyMicros?: number;
  /** The daily limit per person on AI turns (builder chat messages and conflict resolutions). */
  creditTurnsDaily?: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** Set when the server talks to the built-in sandbox: every result says so. */
  sandbox: boolean;
  http: {
    /** Host header values allowed besides the loopback names with the port. */
    allowedHosts: string[];
    /** Origins allowed besides the loopback ones with the port. */
    allowedOrigins: string[];
    maxBodyBytes: number;
  };
  /** Redis URL of the gate's shared state; unset: the in-process store. */
  stateUrl?: string;
  /** Signs approval state; set whenever stateUrl is. */
  stateSecret?: string;
  /** Start even when Redis's maxmemory-policy may evict the gate's keys. */
  stateAllowEviction?: boolean;
  /** The audit trail's file (APPMGMT_AUDIT_LOG); unset: stderr. */
  auditLog?: string;
  /** OAuth for `http` (APPMGMT_OAUTH_*); unset: off. */
  oauth?: OAuthConfig;
  /** In the sandbox: the demo workspace, its apps, groups and credentials, which check_connection shows (sandbox/directory.ts). */
  sandboxDirectory?: SandboxDirectory;
}

export interface OAuthConfig {
  /** The public origin, without a trailing slash. */
  issuer: string;
  /** Newest first; empty when none was set (one process with the in-process store: a random key). */
  sealKeys: string[];
  registration: { cimd: boolean; dcr: boolean };
  clientsFile?: string;
  /** Tests only: metadata documents on this machine may be fetched. */
  cimdAllowLoopback: boolean;
}

/** Command-line flags; they may narrow the environment's settings, never widen or contradict them (never secrets). */
export interface ConfigFlags {
  readOnly?: boolean;
  appId?: string;
  /** The flag's text, comma-separated like APPMGMT_TOOLS. */
  tools?: string;
  /** The flag's text, comma-separated like APPMGMT_TOOLSETS. */
  toolsets?: string;
  /** `http --host`. */
  host?: string;
}

/**
 * Reads the configuration from the environment plus flags. Empty variables count as unset
 * (MCP Bundle hosts send a blank optional setting that way).
 * @throws ConfigError with one line per problem, all of them at once: a malformed value (a secret
 *   only by name), a setting the client left as its placeholder (`${NAME}`, `$NAME`, `%NAME%`:
 *   src/placeholder.ts), an unknown, wrongly cased or misspelled APPMGMT_* name with the closest
 *   known one, an empty --app-id or --tools, or a flag that disagrees with its variable.
 */
export function loadConfig(env: Record<string, string | undefined>, flags: ConfigFlags = {}): Config {
  const given = ENV_NAMES.flatMap((name) => {
    const value = env[name]?.trim();
    return value ? [[name, value] as const] : [];
  });
  // A client that found no value for `${NAME}` passes the text on: guessing "unset" instead could
  // drop a read-only switch, and taking it as a value scopes to an app called `${APPMGMT_APP_ID}`.
  const unfilled = new Map(given.flatMap(([name, value]) => {
    const problem = unfilledPlaceholder(name, value);
    return problem ? [[name, problem] as const] : [];
  }));
  const known = Object.fromEntries(given.filter(([name]) => !unfilled.has(name)));
  // Parsed once per process: zod's generated fast path would cost more to build (about 4 ms of start-up) than it saves.
  const parsed = ConfigSchema.safeParse({ ...known, flags }, { jitless: true });
  const problems = [
    ...unfilled.values(),
    ...(parsed.success ? [] : issueLines(parsed.error.issues)),
    ...unknownVariables(env),
  ];
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems.join('\n'));
  const e = parsed.data;
  return {
    baseUrl: e.APPMGMT_BASE_URL,
    accessToken: e.APPMGMT_ACCESS_TOKEN,
    apiKey: e.APPMGMT_API_KEY,
    monitoringUrl: e.APPMGMT_MONITORING_URL ?? e.APPMGMT_BASE_URL,
    monitoringApiKey: e.APPMGMT_MONITORING_API_KEY ?? e.APPMGMT_API_KEY,
    allowInsecureHttp: e.APPMGMT_ALLOW_INSECURE_HTTP,
    timeoutMs: e.APPMGMT_TIMEOUT_MS,
    resolveTimeoutMs: e.APPMGMT_RESOLVE_TIMEOUT_MS,
    readOnly: e.APPMGMT_READ_ONLY || e.flags.readOnly === true,
    appId: e.flags.appId ?? e.APPMGMT_APP_ID,
    tools: e.flags.tools ?? e.APPMGMT_TOOLS,
    toolsets: e.flags.toolsets ?? e.APPMGMT_TOOLSETS,
    requireHumanConfirmation: e.APPMGMT_REQUIRE_HUMAN_CONFIRMATION,
    approvalTimeoutMs: e.APPMGMT_APPROVAL_TIMEOUT_MS,
    maxDailyBudgetMicros: e.APPMGMT_MAX_DAILY_BUDGET_MICROS,
    spendLimitDailyMicros: e.APPMGMT_SPEND_LIMIT_DAILY_MICROS,
    spendLimitTotalDailyMicros: e.APPMGMT_SPEND_LIMIT_TOTAL_DAILY_MICROS,
    creditTurnsDaily: e.APPMGMT_CREDIT_TURNS_DAILY,
    logLevel: e.APPMGMT_LOG_LEVEL,
    http: {
      allowedHosts: e.APPMGMT_HTTP_ALLOWED_HOSTS ?? [],
      allowedOrigins: e.APPMGMT_HTTP_ALLOWED_ORIGINS ?? [],
      maxBodyBytes: e.APPMGMT_HTTP_MAX_BODY_BYTES,
    },
    stateUrl: e.APPMGMT_STATE_URL,
    stateSecret: e.APPMGMT_STATE_SECRET,
    stateAllowEviction: e.APPMGMT_STATE_ALLOW_EVICTION,
    auditLog: e.APPMGMT_AUDIT_LOG,
    ...(e.APPMGMT_OAUTH_ISSUER ? { oauth: oauthOf(e) } : {}),
    sandbox: false,
  };
}

function oauthOf(e: z.infer<typeof ConfigSchema>): OAuthConfig {
  const registration = e.APPMGMT_OAUTH_REGISTRATION ?? ['cimd', 'dcr'];
  return {
    issuer: e.APPMGMT_OAUTH_ISSUER!,
    sealKeys: (e.APPMGMT_OAUTH_SEAL_KEYS ?? []).map((key) => key.toLowerCase()),
    registration: { cimd: registration.includes('cimd'), dcr: registration.includes('dcr') },
    ...(e.APPMGMT_OAUTH_CLIENTS_FILE ? { clientsFile: e.APPMGMT_OAUTH_CLIENTS_FILE } : {}),
    cimdAllowLoopback: e.APPMGMT_OAUTH_CIMD_ALLOW_LOOPBACK,
  };
}

/** Why a value cannot be the OAuth issuer, or undefined: an https origin (plain http only to this machine). */
function issuerProblem(value: string): string | undefined {
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) return 'APPMGMT_OAUTH_ISSUER must be the https:// origin clients reach this server at, such as https://mcp.example.com';
  const url = new URL(value);
  if (url.username || url.password || url.search || url.hash || /[?#]/.test(value) || (url.pathname !== '/' && url.pathname !== '')) {
    return 'APPMGMT_OAUTH_ISSUER must be an origin only (scheme, host and port), such as https://mcp.example.com; MCP is then served at its /mcp';
  }
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) return `APPMGMT_OAUTH_ISSUER uses plain http:// to ${url.host}; OAuth needs https:// (plain http only to this machine, for tests)`;
  return undefined;
}

/** One line per issue, in the order of ENV_VARS, then the flags. */
function issueLines(issues: z.core.$ZodIssue[]): string[] {
  const rank = (issue: z.core.$ZodIssue) => {
    const index = ENV_NAMES.indexOf(issue.path[0] as EnvName);
    return index === -1 ? ENV_NAMES.length : index;
  };
  return [...issues]
    .sort((a, b) => rank(a) - rank(b))
    .map((issue) => {
      const name = String(issue.path[0] ?? 'configuration');
      return /^(APPMGMT_|--)/.test(issue.message) ? issue.message : `${name}: ${issue.message}`;
    });
}

/**
 * A typo such as APPMGMT_READONLY, appmgmt_read_only, APP_MGMT_READ_ONLY or APPMGNT_TOOLS must
 * never be silently ignored.
 */
function unknownVariables(env: Record<string, string | undefined>): string[] {
  return Object.keys(env)
    .filter((name) => !(ENV_NAMES as string[]).includes(name))
    .flatMap((name) => {
      const upper = name.toUpperCase();
      if ((ENV_NAMES as string[]).includes(upper)) return [`Unknown variable ${name}; did you mean ${upper} (names are upper case)?`];
      if (upper.startsWith('APPMGMT_') || nearMiss(name)) return [`Unknown variable ${limit(name, MAX_COMPARED_CHARS)}; did you mean ${nearestName(name)}?`];
      return [];
    });
}

/** Upper case letters and digits only: APP_MGMT-read.only and APPMGMT_READ_ONLY compare equal. */
const squeezed = (name: string) => name.toUpperCase().replace(/[^A-Z0-9]/g, '');
const PREFIX = 'APPMGMT';
const SQUEEZED_NAMES = ENV_NAMES.map(squeezed);
const SQUEEZED_SUFFIXES = SQUEEZED_NAMES.map((name) => name.slice(PREFIX.length));
/** Longer than any known name plus a typo's worth: a name beyond it cannot be a typo of one (and costs time to compare). */
const LONGEST_NAME = Math.max(...ENV_NAMES.map((name) => name.length)) + NEAR_MISS_EDITS + 2;

/**
 * A name of ours written another way: our prefix with other separators or case (APP_MGMT_…,
 * appmgmt-…), a whole name an edit or two from one of ours (APPMGMNT_READ_ONLY, APPMGMTREADONLY),
 * or our prefix misspelled before a known name (APMGMT_READONLY). Other programs' names such as
 * MY_APPMGMT_THING, APPMGMTX or APIMGMT_URL pass.
 */
function nearMiss(name: string): boolean {
  if (name.length > LONGEST_NAME) return false;
  const words = name.toUpperCase().split(/[^A-Z0-9]+/).filter(Boolean);
  for (const taken of [1, 2]) {
    if (words.length <= taken) break;
    const prefix = words.slice(0, taken).join('');
    const rest = words.slice(taken).join('');
    if (prefix === PREFIX) return true;
    if (within(prefix, PREFIX, PREFIX_EDITS) && SQUEEZED_SUFFIXES.some((suffix) => within(rest, suffix, NEAR_MISS_EDITS))) return true;
  }
  const key = squeezed(name);
  return SQUEEZED_NAMES.some((known) => within(key, known, NEAR_MISS_EDITS));
}

/** The known name closest to `name`, separators and letter case aside (`name` cut to LONGEST_NAME first: no name is longer). */
function nearestName(name: string): EnvName {
  const key = squeezed(name.slice(0, LONGEST_NAME));
  const scored = ENV_NAMES.map((candidate) => ({ candidate, edits: distance(key, squeezed(candidate)) }));
  return scored.reduce((best, next) => (next.edits < best.edits ? next : best)).candidate;
}

/**
 * A word longer than this is compared with nothing: every name it could be a typo of (settings,
 * flags, tool arguments) is far shorter, and comparing costs time in the word's length.
 */
export const MAX_COMPARED_CHARS = 64;

/**
 * The candidate nearest to `word` within `maxEdits` edits, ignoring letter case (ties: the first),
 * or undefined. A word over MAX_COMPARED_CHARS is no typo of any name and is not compared, so the
 * cost is bounded whatever the word's length.
 */
export function closest<T extends string>(word: string, candidates: readonly T[], maxEdits: number): T | undefined {
  if (word.length > MAX_COMPARED_CHARS) return undefined;
  const key = word.toUpperCase();
  let best: T | undefined;
  let fewest = maxEdits + 1;
  for (const candidate of candidates) {
    const edits = editsWithin(key, candidate.toUpperCase(), Math.min(maxEdits, fewest - 1));
    if (edits !== undefined && edits < fewest) [best, fewest] = [candidate, edits];
  }
  return best;
}

/**
 * Whether a and b are at most `edits` edits apart. Lengths further apart than that already say no:
 * checking every variable of the environment this way was 5-8% of the start-up (issue 19's profile).
 */
const within = (a: string, b: string, edits: number) => editsWithin(a, b, edits) !== undefined;

/**
 * The Levenshtein distance of a and b when it is at most `max`, else undefined. Only the band of
 * cells within `max` of the diagonal can hold such a distance (kept as 2·max+1 cells a row), and a
 * row whose every cell is over `max` ends the search: O(max × length), never O(length²) (issue 25).
 */
export function editsWithin(a: string, b: string, max: number): number | undefined {
  if (max < 0 || Math.abs(a.length - b.length) > max) return undefined;
  const width = 2 * max + 1;
  const over = max + 1;
  // Cell k of row i is the distance of a[0, i) and b[0, j) for j = i + k - max.
  let previous = Array.from({ length: width }, (_, k) => (k >= max && k - max <= b.length ? k - max : over));
  let current = new Array<number>(width);
  for (let i = 1; i <= a.length; i++) {
    current.fill(over);
    let smallest = over;
    for (let k = 0; k < width; k++) {
      const j = i + k - max;
      if (j < 0 || j > b.length) continue;
      const deleted = k + 1 < width ? previous[k + 1]! + 1 : over;
      const inserted = k > 0 ? current[k - 1]! + 1 : over;
      const substituted = j === 0 ? i : previous[k]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[k] = Math.min(deleted, inserted, substituted, over);
      smallest = Math.min(smallest, current[k]!);
    }
    if (smallest > max) return undefined;
    [previous, current] = [current, previous];
  }
  const edits = previous[b.length - a.length + max]!;
  return edits <= max ? edits : undefined;
}

/** Levenshtein distance, in full: only for names already cut short (nearestName). */
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

/** localhost, 127.0.0.0/8 and [::1]: the only hosts a plain http:// URL may name by default. */
export function isLoopback(hostname: string): boolean {
  // WHATWG URL has already normalized 0x7f.1, 2130706433 and [0:0::1] to these forms.
  return hostname === 'localhost' || /^127\.\d+\.\d+\.\d+$/.test(hostname) || hostname === '[::1]';
}

function setKey(names: string[]): string {
  return [...new Set(names)].sort().join(',');
}

/**
 * Why a state URL cannot be used as ioredis would read it, or undefined. Never contains the value:
 * it may hold a password.
 */
function stateUrlProblem(value: string): string | undefined {
  if (!URL.canParse(value) || !/^rediss?:$/.test(new URL(value).protocol)) return 'APPMGMT_STATE_URL must be a redis:// or rediss:// URL, such as redis://redis.internal:6379/0';
  const url = new URL(value);
  if (decoded(url.username) === undefined || decoded(url.password) === undefined) {
    return 'APPMGMT_STATE_URL has a malformed % escape in its user name or password (the value is not shown); write a % sign itself as %25';
  }
  // ioredis reads the path as the database and SELECTs it; a word or a negative number there ended in a crash or in database 0.
  const db = url.pathname.replace(/^\//, '');
  if (db !== '' && !(/^[0-9]{1,5}$/.test(db) && Number(db) <= MAX_STATE_DB)) {
    return `APPMGMT_STATE_URL must end with a database number from 0 to ${MAX_STATE_DB}, such as redis://redis.internal:6379/0 (Redis has 0 to 15 unless its databases setting allows more)`;
  }
  if (url.searchParams.has('db')) return 'APPMGMT_STATE_URL gives the database as ?db=; give it as the path instead, such as redis://redis.internal:6379/0';
  return undefined;
}

function decoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** A state secret a person typed rather than generated: too few different characters, or one short piece repeated. */
function guessable(secret: string): boolean {
  const repeated = `${secret}${secret}`.indexOf(secret, 1) < secret.length;
  return new Set(secret).size < MIN_STATE_SECRET_DISTINCT || repeated;
}

/** The database number a valid state URL names (0 when it names none). */
export function stateDatabase(stateUrl: string): number {
  return Number(new URL(stateUrl).pathname.replace(/^\//, '') || '0');
}

/**
 * The secrets to redact from every text the server emits. The sandbox world's own credentials are
 * simulated and published (check_connection names them), so they are not among them.
 */
export function secretsOf(config: Config): string[] {
  const statePassword = config.stateUrl && URL.canParse(config.stateUrl) ? decoded(new URL(config.stateUrl).password) : undefined;
  const simulated = new Set(config.sandboxDirectory?.credentials?.map((credential) => credential.value));
  return [config.accessToken, config.apiKey, config.monitoringApiKey, config.stateSecret, statePassword, ...(config.oauth?.sealKeys ?? [])].filter(
    (secret): secret is string => typeof secret === 'string' && secret.length >= 4 && !simulated.has(secret),
  );
}
