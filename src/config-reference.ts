import { ConfigSchema, ENV_VARS, TOOLSET_NAMES, type EnvName } from './config.js';

/**
 * The configuration reference (docs/configuration.md) is rendered from here and from config.ts:
 * the meaning of each variable is its ENV_VARS line (the one --help prints), its default is the
 * schema's own, and this file adds what neither holds: which values it takes, which mode reads it,
 * and the longer note a newcomer needs. `npm run docs:config` writes the file;
 * test/docs/config-reference.test.ts fails when the two differ or a variable lacks its details.
 */

/** stdio: one person's server started by a client; http: the team server (`app-management-mcp http`). */
export type Mode = 'stdio' | 'http';

export interface EnvDetail {
  /** The values accepted, as a person writes them. */
  accepts: string;
  /** The modes whose server reads it. */
  modes: readonly Mode[];
  /** The largest value accepted; one more stops start-up (checked by the reference's test). */
  max?: number;
  /** What leaving it unset means; required for a setting without a schema default. */
  unset?: string;
  /** Whatever else a person setting it should know. */
  note?: string;
  /** It holds a credential (or, in a URL, a password): redacted from every text the server writes, and a client should keep it as a secret. */
  secret?: true;
}

const BOTH: readonly Mode[] = ['stdio', 'http'];
const STDIO: readonly Mode[] = ['stdio'];
const HTTP: readonly Mode[] = ['http'];
/** Over HTTP each request brings its own credentials; src/index.ts drops the server's own. */
const CREDENTIAL_NOTE =
  "`http` ignores it (each request brings its user's credentials in headers) and says so at start-up. With `--sandbox` the sandbox's demo credential replaces it, unless it is one of the sandbox's own (`pat_demo_owner_ro` and `key_demo_owner_ro` are its read-only ones).";
/** What a variable flagged `secret` promises, and asks of whoever sets it. */
const SECRET_TEXT = 'the server never shows it (a URL only without its password): results, errors, log and audit lines name the variable at most. Keep it out of files others can read, and mark it secret where a client asks (`sensitive` in manifest.json, `isSecret` in server.json).';
const BOOLEAN = '`true` or `false` (also `1`/`0`, `yes`/`no`, any letter case)';

/** Everything about each variable that ENV_VARS and the schema do not say. */
export const ENV_DETAILS: Partial<Record<EnvName, EnvDetail>> = {
  APPMGMT_BASE_URL: {
    accepts: 'an `https://` URL without user name, password, query or fragment; plain `http://` only to this machine (`localhost`, `127.x.x.x`, `[::1]`) unless `APPMGMT_ALLOW_INSECURE_HTTP=true`',
    modes: BOTH,
    unset: 'tools that call the API answer with the variable to set and send nothing',
    note: 'Trailing slashes are dropped. With `--sandbox` the built-in sandbox\'s URL replaces it.',
  },
  APPMGMT_ACCESS_TOKEN: {
    secret: true,
    accepts: 'the token alone (no spaces or invisible characters); a malformed one is named, never shown',
    modes: STDIO,
    unset: 'each tool that needs it answers with the variable to set and sends nothing',
    note: `Used by every operation except the social calendar (which prefers \`APPMGMT_API_KEY\`), the monitoring analytics and the health check. ${CREDENTIAL_NOTE}`,
  },
  APPMGMT_API_KEY: {
    secret: true,
    accepts: 'the key alone (no spaces or invisible characters)',
    modes: STDIO,
    unset: 'the social calendar tools send the access token as Bearer instead',
    note: CREDENTIAL_NOTE,
  },
  APPMGMT_MONITORING_URL: {
    accepts: 'as `APPMGMT_BASE_URL`',
    modes: BOTH,
    unset: 'the value of `APPMGMT_BASE_URL`',
  },
  APPMGMT_MONITORING_API_KEY: {
    secret: true,
    accepts: "an admin's or owner's API key alone",
    modes: STDIO,
    unset: 'the value of `APPMGMT_API_KEY`',
    note: `Sent as \`api_key\` by \`get_workspace_analytics\`. ${CREDENTIAL_NOTE}`,
  },
  APPMGMT_ALLOW_INSECURE_HTTP: {
    accepts: BOOLEAN,
    modes: BOTH,
    note: 'Credentials then travel unencrypted to that host.',
  },
  APPMGMT_TIMEOUT_MS: {
    accepts: 'a whole number of milliseconds',
    modes: BOTH,
    max: 86_400_000,
    note: 'The deadline covers the whole answer: every attempt, retry waits and reading the body. A call that hits it answers "No answer within N s".',
  },
  APPMGMT_RESOLVE_TIMEOUT_MS: {
    accepts: 'a whole number of milliseconds',
    modes: BOTH,
    max: 86_400_000,
    note: 'The deadline of the two calls that run for minutes: `resolve_repo_conflicts` (an AI run over the conflicted files) and `send_app_chat_message` (a turn of the app\'s AI builder). Every other call uses `APPMGMT_TIMEOUT_MS`.',
  },
  APPMGMT_READ_ONLY: {
    accepts: BOOLEAN,
    modes: BOTH,
    note: 'Flag `--read-only` does the same; write handlers check the mode again.',
  },
  APPMGMT_APP_ID: {
    accepts: 'an app ID',
    modes: BOTH,
    unset: 'not scoped: each tool takes `app_id`',
    note: 'Flag `--app-id`; when both are given they must agree. An empty value (as an MCP Bundle host sends a blank field) means not scoped.',
  },
  APPMGMT_TOOLS: {
    accepts: 'tool names separated by commas; an unknown name stops start-up and the line lists the valid ones',
    modes: BOTH,
    unset: 'every tool of the offered toolsets',
    note: 'Flag `--tools`; when both are given they must name the same tools.',
  },
  APPMGMT_TOOLSETS: {
    accepts: `toolset names separated by commas (${TOOLSET_NAMES.map((name) => `\`${name}\``).join(', ')}), or \`all\`; any letter case`,
    modes: BOTH,
    unset: 'all toolsets',
    note: 'Flag `--toolsets`. `check_connection` is always offered; `APPMGMT_READ_ONLY` and `APPMGMT_TOOLS` narrow further.',
  },
  APPMGMT_REQUIRE_HUMAN_CONFIRMATION: {
    accepts: BOOLEAN,
    modes: BOTH,
    note: 'Clients that cannot show forms are refused costly tools, and told so on the first call; over HTTP that includes every 2025-era client.',
  },
  APPMGMT_APPROVAL_TIMEOUT_MS: {
    accepts: 'a whole number of milliseconds',
    modes: BOTH,
    max: 600_000,
    note: 'No answer within it sends nothing.',
  },
  APPMGMT_MAX_DAILY_BUDGET_MICROS: {
    accepts: 'a whole number of micros of the account currency (1,000,000 micros = 1 unit)',
    modes: BOTH,
    unset: 'no cap of ours (the service applies its own rules)',
    note: 'A campaign above it is refused before any request; it also bounds every `*_micros` amount in `campaign_settings`.',
  },
  APPMGMT_SPEND_LIMIT_DAILY_MICROS: {
    accepts: 'a whole number of micros of the account currency (1,000,000 micros = 1 unit)',
    modes: BOTH,
    max: 1e15,
    unset: 'no limit per user (nothing is counted unless another limit is set, or an OAuth connection chose one of its own)',
    note: "Counts what each user's confirmed calls add to daily budgets in a UTC day: a created or resumed campaign's daily budget, a budget recommendation's increase. A user is a person (their access token), whether it comes in a header or from an OAuth connection, so all their connections count together; at consent a person may choose a lower limit for one connection, at most this one. Every warning shows the allowance, a call that would go over is refused before anyone is asked, and `check_connection` shows what is left. Counted in the process, or in Redis with `APPMGMT_STATE_URL` (across replicas and restarts). How each outcome counts: [Safety](safety.md#the-rules).",
  },
  APPMGMT_SPEND_LIMIT_TOTAL_DAILY_MICROS: {
    accepts: 'a whole number of micros of the account currency',
    modes: BOTH,
    max: 1e15,
    unset: 'no limit for all users together',
    note: 'Counted as `APPMGMT_SPEND_LIMIT_DAILY_MICROS`, over every user of this server (with `APPMGMT_STATE_URL`, of every replica). A refusal lists only the caller\'s own calls.',
  },
  APPMGMT_CREDIT_TURNS_DAILY: {
    accepts: 'a whole number of AI turns',
    modes: BOTH,
    max: 1_000,
    unset: 'AI turns are not counted (unless an OAuth connection chose a limit of its own)',
    note: 'Each confirmed `send_app_chat_message` and `resolve_repo_conflicts` is one turn (the service does not say how many credits a turn takes); a turn the service surely refused (such as a 400 for a workspace out of credits) is given back. Per person, like `APPMGMT_SPEND_LIMIT_DAILY_MICROS`; at consent a person may choose a lower limit for one connection, at most this one.',
  },
  APPMGMT_LOG_LEVEL: {
    accepts: '`debug`, `info`, `warn` or `error`',
    modes: BOTH,
  },
  APPMGMT_HTTP_ALLOWED_HOSTS: {
    accepts: 'host names (with a port when clients use one) separated by commas',
    modes: HTTP,
    unset: "only this machine's names (`localhost`, `127.0.0.1`, `[::1]`) with the port",
    note: 'Required, with `APPMGMT_HTTP_ALLOWED_ORIGINS`, by `http --host` with an address other than this machine\'s.',
  },
  APPMGMT_HTTP_ALLOWED_ORIGINS: {
    accepts: 'browser origins (scheme, host and port only) separated by commas',
    modes: HTTP,
    unset: "only this machine's origins with the port",
  },
  APPMGMT_HTTP_MAX_BODY_BYTES: {
    accepts: 'a whole number of bytes',
    modes: HTTP,
    max: 67_108_864,
    note: 'A larger request body gets 413.',
  },
  APPMGMT_STATE_URL: {
    secret: true,
    accepts: '`redis://host:port/db` or `rediss://…`, the database a number this Redis has (0 to 15 unless its `databases` setting allows more)',
    modes: BOTH,
    unset: "the gate's state stays in the process",
    note: 'Needs `APPMGMT_STATE_SECRET`. Redis must run with `maxmemory-policy noeviction` and persistence: see [Running it for a team](team.md#the-redis-settings-the-gate-needs).',
  },
  APPMGMT_STATE_SECRET: {
    secret: true,
    accepts: 'at least 32 generated characters (`openssl rand -hex 32`) with at least 8 different ones, not one short piece repeated',
    modes: BOTH,
    unset: 'a random key per process; required with `APPMGMT_STATE_URL`',
    note: "The same on every replica. It keys the hashes of users' credentials and signs approval state.",
  },
  APPMGMT_STATE_ALLOW_EVICTION: {
    accepts: BOOLEAN,
    modes: BOTH,
    note: 'Without it a Redis whose `maxmemory-policy` is not `noeviction` stops start-up (exit 2).',
  },
  APPMGMT_OAUTH_ISSUER: {
    accepts: 'an `https://` origin (scheme, host and port, no path); plain `http://` only to this machine, for tests',
    modes: HTTP,
    unset: 'OAuth is off: `Authorization: Bearer` carries the service token itself (the compatibility path)',
    note: 'The server then is its own OAuth authorization server in front of the service\'s personal tokens: MCP at `<issuer>/mcp`, the consent page at `<issuer>/oauth/authorize`, disconnection at `<issuer>/oauth/disconnect`. Its host and origin are allowed as if listed in `APPMGMT_HTTP_ALLOWED_HOSTS` and `APPMGMT_HTTP_ALLOWED_ORIGINS`. Serve it behind TLS: [Sign-in with OAuth](team.md#sign-in-with-oauth-for-the-chat-apps).',
  },
  APPMGMT_OAUTH_SEAL_KEYS: {
    secret: true,
    accepts: 'one or more keys of 64 hex characters (`openssl rand -hex 32`), comma-separated, newest first',
    modes: HTTP,
    unset: 'a random key per process (then every connection ends at a restart); required with `APPMGMT_STATE_URL`',
    note: 'AES-256-GCM keys for the personal access tokens and API keys people give on the consent page. To rotate, put a new key first and keep the old one after it: each refresh seals its grant again with the new key; drop the old key once every grant has been refreshed or has ended (30 days at most). A grant sealed by a key no longer listed ends at its next use.',
  },
  APPMGMT_OAUTH_REGISTRATION: {
    accepts: '`cimd`, `dcr`, `cimd,dcr`, or `none`',
    modes: HTTP,
    unset: '`cimd,dcr`: client ID metadata documents and dynamic client registration',
    note: 'Clients in `APPMGMT_OAUTH_CLIENTS_FILE` can always connect. Self-registrations are capped at 10,000 at once and last 30 days.',
  },
  APPMGMT_OAUTH_CLIENTS_FILE: {
    accepts: 'a path to a JSON array of `{"client_id", "client_name", "redirect_uris"}`; a client_id must not be an https URL (those name metadata documents)',
    modes: HTTP,
    unset: 'no pre-registered client',
    note: 'Read once at start-up; a file that cannot be read or has a bad entry stops start-up (exit 2).',
  },
  APPMGMT_OAUTH_CIMD_ALLOW_LOOPBACK: {
    accepts: BOOLEAN,
    modes: HTTP,
    note: 'For tests only; the server warns at start-up when it is on. Metadata documents are otherwise never fetched from private, loopback, link-local or other special-use addresses.',
  },
  APPMGMT_AUDIT_LOG: {
    accepts: 'the path of a regular file (or one to create), in a directory the server can write to; not a symbolic link, FIFO, device or socket',
    modes: BOTH,
    unset: 'the lines go to stderr, each marked `[app-management-mcp] audit: `',
    note: 'Created with mode 0600 when missing (an existing file others may read gets a warning), appended to, each line fsynced. A path that cannot be opened, or is not a regular file (`/dev/stdout` is a link, `/dev/null` a device), stops start-up (exit 2). A spend whose confirmation or request cannot be recorded before it is sent is refused, and nothing is sent. What a line holds: [the audit trail](operations.md#the-audit-trail).',
  },
};

/** Variables of other programs that src reads, with what they do here; `PREFIX_*` stands for a family. */
export const OTHER_ENV_VARS: Record<string, string> = {
  'OTEL_*': "OpenTelemetry's standard variables: `OTEL_EXPORTER_OTLP_ENDPOINT` (or a per-signal endpoint) turns on the export of traces and metrics over OTLP/HTTP; without one nothing of OpenTelemetry loads. Which ones count and what is exported: [OpenTelemetry](operations.md#turn-opentelemetry-on).",
  NODE_DISABLE_COMPILE_CACHE: "Node.js's own switch; set to anything, `dist/index.js` also runs without its V8 code cache (a slower start-up; no cache is read or written).",
  NODE_COMPILE_CACHE: "Node.js's own variable; when set, `dist/index.js` keeps its V8 code cache in `app-management-mcp/` inside that directory instead of the user's cache directory.",
  XDG_CACHE_HOME: 'On Linux and other Unix systems except macOS: when it is an absolute path, the V8 code cache goes to `$XDG_CACHE_HOME/app-management-mcp/`; otherwise to `~/.cache/app-management-mcp/` (on macOS always `~/Library/Caches/app-management-mcp/`).',
  LOCALAPPDATA: 'On Windows: the V8 code cache goes to `%LOCALAPPDATA%\\app-management-mcp\\`; without it no cache is kept.',
  NODE_OPTIONS: "Node.js's own; `dist/index.js` does not act on it, but hashes it (with Node's command-line flags) into the code cache's file name, because V8 rejects a cache made under other V8 flags: each set of flags keeps a cache of its own.",
};

const MODE_TEXT: Record<string, string> = { 'stdio,http': 'both', stdio: 'stdio', http: 'http' };

/** The schema's default for a variable, as a person writes it, or undefined when it has none. */
export function schemaDefault(name: EnvName): string | undefined {
  const field = ConfigSchema.shape[name] as { def: { type: string; defaultValue?: unknown } } | undefined;
  return field?.def.type === 'default' ? String(field.def.defaultValue) : undefined;
}

/** The default, or what leaving it unset means. */
function defaultText(name: EnvName, detail: EnvDetail | undefined): string {
  const given = schemaDefault(name);
  return given === undefined ? `unset: ${detail?.unset ?? '?'}` : `\`${given}\``;
}

function section(name: EnvName): string {
  const detail = ENV_DETAILS[name];
  const lines = [`### \`${name}\``, '', `${ENV_VARS[name]}.`, ''];
  if (detail) {
    lines.push(`- Accepts: ${detail.accepts}${detail.max === undefined ? '' : `, at most ${detail.max}`}.`);
    lines.push(`- ${defaultText(name, detail).replace(/^unset: /, 'Unset: ').replace(/^`/, 'Default: `')}.`);
    lines.push(`- Read by: ${detail.modes.map((mode) => `\`${mode}\``).join(' and ')}.`);
    if (detail.secret) lines.push(`- Secret: ${SECRET_TEXT}`);
    if (detail.note) lines.push(`- ${detail.note}`);
    lines.push('');
  }
  return lines.join('\n');
}

const INTRO = `# Configuration reference

<!-- Generated by \`npm run docs:config\` from src/config.ts and src/config-reference.ts; edit those, not this file. -->

Settings come from the environment; secrets are never command-line flags. \`node dist/index.js --help\`
prints the flags and these variables. Modes: \`stdio\` is the server a client starts for one person;
\`http\` is \`app-management-mcp http\`, the server for a team, where each request brings its user's
credentials. With \`--sandbox\` the base URLs and credentials are the built-in sandbox's. The
\`sandbox\` command (only the simulated API) reads none of these.

## It fails closed

A typo must never silently weaken a safety setting, so any problem stops start-up with exit code 2
and one line per problem on stderr, all of them at once:

- an unknown \`APPMGMT_*\` name, in any letter case, or a near miss of the prefix (\`APP_MGMT_READ_ONLY\`,
  \`APPMGMNT_READ_ONLY\`), with the closest known name ("did you mean APPMGMT_READ_ONLY?");
- a malformed value (a secret is named, never shown), or a number above its maximum;
- a base URL that is not \`http(s)\`, holds a user name or password, a query string or a fragment, or
  is plain \`http://\` to another machine without \`APPMGMT_ALLOW_INSECURE_HTTP=true\`;
- a flag that would widen or contradict the environment: an empty \`--app-id\` or \`--tools\`, or one
  that names another app, other tools or other toolsets than its variable;
- a value, in a variable or a flag, that is still the placeholder a client did not fill
  (\`\${APPMGMT_APP_ID}\`, \`$APPMGMT_APP_ID\`, \`%APPMGMT_APP_ID%\`, \`\${user_config.read_only}\`):
  the setting and the variable are named ([the exact rule](troubleshooting.md#troubleshooting));
- an \`APPMGMT_STATE_URL\` whose path is not a database number or names one Redis refuses, or
  \`APPMGMT_STATE_URL\` without \`APPMGMT_STATE_SECRET\`, or a secret that is too short or guessable;
- an unknown flag, a flag without its value, or one that belongs to another command; \`http --host\`
  with an address other than this machine's unless both \`APPMGMT_HTTP_ALLOWED_*\` are set.

An empty variable counts as unset: MCP Bundle hosts (Claude Desktop) send a blank optional setting
that way. A missing credential does not stop the server: each tool that needs it answers with the
variable to set.
`;

/** docs/configuration.md, whole. */
export function renderConfigurationReference(): string {
  const names = Object.keys(ENV_VARS) as EnvName[];
  const table = [
    '| variable | read by | default, or what unset means |',
    '|---|---|---|',
    ...names.map((name) => {
      const detail = ENV_DETAILS[name];
      return `| [\`${name}\`](#${name.toLowerCase()}) | ${detail ? MODE_TEXT[detail.modes.join(',')] : '?'} | ${defaultText(name, detail)} |`;
    }),
  ].join('\n');
  const others = Object.entries(OTHER_ENV_VARS)
    .map(([name, meaning]) => `- \`${name}\`: ${meaning}`)
    .join('\n');
  return `${INTRO}\n## The variables\n\n${table}\n\n${names.map(section).join('\n')}\n## Other programs' variables it reads\n\n${others}\n`;
}
