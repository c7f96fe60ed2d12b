import { HELP, parseCommandLine } from './cli.js';
import { loadConfig, secretsOf, stateDatabase, type Config } from './config.js';
import { ConfigError } from './errors.js';
import { createLog, type Log } from './log.js';
import { redactor, type Redact } from './text.js';
import { startTelemetry } from './observe/telemetry.js';
import type { AttachedSandbox } from './sandbox/attach.js';
import type { SandboxCredential } from './sandbox/directory.js';
import type { World } from './sandbox/world.js';
import { SERVER_NAME, SERVER_VERSION } from './version.js';

/** The only file that touches process: read config, pick live API or sandbox, connect stdio. */

/** A fatal error's line on stderr is cut here: a library's message may quote a whole source line of the bundle. */
const MAX_FATAL_CHARS = 2_000;
/** How long start-up waits for Redis to say whether it has the state URL's database; an unreachable Redis is an outage the store reports, not a reason to stop. */
const STATE_CHECK_TIMEOUT_MS = 3_000;

async function main(argv: string[]): Promise<void> {
  let redact: Redact = (text) => text;
  exitOnStrayError(() => redact);
  const command = parseCommandLine(argv);
  // The server is not running for these two, so stdout is free.
  if (command.name === 'help') return void process.stdout.write(HELP);
  if (command.name === 'version') return void process.stdout.write(`${SERVER_VERSION}\n`);
  if (command.name === 'sandbox') return runSandboxOnly(command.port?.toString(), command.sandboxWorld);

  const config = loadConfig(process.env, command.flags);
  const serverCredentials = secretsOf(config);
  const envCredentials = [config.accessToken, config.apiKey, config.monitoringApiKey].some(Boolean);
  // The demo credentials now; over stdio the sandbox loads after the first input, so initialize does not wait for it.
  let inputRead: () => void = () => undefined;
  const firstInput = command.name === 'http' ? undefined : new Promise<void>((resolve) => (inputRead = resolve));
  const sandboxListening = command.sandbox ? (await attachSandbox(config, command.sandboxWorld, firstInput)).listening : undefined;
  // With --sandbox, a credential the environment set and the sandbox kept is one of its published ones.
  const simulated = new Set(config.sandboxDirectory?.credentials?.map((credential) => credential.value));
  redact = redactor([...serverCredentials.filter((secret) => !simulated.has(secret)), ...secretsOf(config)]);
  const log = createLog({ level: config.logLevel, redact });
  sandboxListening?.catch(exitOnStartError);
  if (command.name === 'http') return runHttp(config, log, redact, command, envCredentials, sandboxListening);

  const [{ createServerFactory, trackCalls }, { serveStdio }] = await Promise.all([import('./server.js'), import('./transports/stdio.js')]);
  const shutdown = new AbortController();
  const calls = trackCalls();
  const store = await openStore(config, log);
  const allowanceStore = await openAllowance(store);
  const { audit } = await openAudit(config, log, redact);
  // OpenTelemetry only when the OTEL_* environment asks for it: otherwise nothing of it loads.
  const telemetry = await startTelemetry(process.env, { log, transport: 'pipe', store });
  // With --sandbox, tool calls that come before the sandbox listens wait for it.
  const factory = createServerFactory({ config, log, store, allowanceStore, shutdown: shutdown.signal, calls, stateSecret: config.stateSecret, audit, telemetry, ...(sandboxListening ? { ready: sandboxListening } : {}) });
  const { done, stop } = serveStdio(factory, { log, calls, shutdown });
  // For a person at a terminal (npm run sandbox); an MCP client's pipe gets no extra line.
  if (command.sandbox && process.stdin.isTTY) log.info(sandboxLine(config));
  // Listened to after the transport's own listener, so the input (the client's initialize) has been handled first.
  process.stdin.once('data', () => inputRead());
  // As when stdin closes: calls on their way upstream are cancelled and answer OUTCOME UNKNOWN before the exit.
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  await done;
  await telemetry?.shutdown();
  await store?.close();
  process.exit(0);
}

/**
 * Serves MCP over HTTP for a team: every request brings its user's credentials, never the server's
 * own (with --sandbox, a request without any uses the demo credentials). SIGTERM and SIGINT drain.
 */
async function runHttp(
  config: Config,
  log: Log,
  redact: Redact,
  command: { port: number; host: string; sandbox: boolean },
  envCredentials: boolean,
  sandboxListening?: Promise<string>,
): Promise<void> {
  const [{ createServerFactory }, { serveHttp }] = await Promise.all([import('./server.js'), import('./transports/http.js')]);
  // Each request's caller copies the configuration, so the sandbox's URL must be in it before the first.
  await sandboxListening;
  if (envCredentials && !command.sandbox) {
    log.warn('APPMGMT_ACCESS_TOKEN, APPMGMT_API_KEY or APPMGMT_MONITORING_API_KEY is set, but over HTTP each request brings its own credentials in headers; the server never uses its own.');
  }
  // With OAuth on, a request without credentials is asked to sign in, even in the sandbox.
  const fallbackCredentials = command.sandbox && !config.oauth ? { accessToken: config.accessToken, apiKey: config.apiKey, monitoringApiKey: config.monitoringApiKey } : undefined;
  Object.assign(config, { accessToken: undefined, apiKey: undefined, monitoringApiKey: undefined } satisfies Partial<Config>);
  const shutdown = new AbortController();
  const redisStore = await openStore(config, log);
  const allowanceStore = await openAllowance(redisStore);
  const store = redisStore ?? (await import('./gate/store.js')).createMemoryStore({ now: Date.now });
  // Draining ends waits and polls at once, but lets requests on their way to the service finish
  // until the drain time is up; those still out then are cancelled, and answer OUTCOME UNKNOWN.
  const abortRequests = new AbortController();
  const { audit, grants } = await openAudit(config, log, redact);
  const auth = config.oauth ? await (await import('./auth/open.js')).openAuth(config, config.oauth, log, grants) : undefined;
  const telemetry = await startTelemetry(process.env, { log, transport: 'tcp', store });
  const factory = createServerFactory({ config, log, store, allowanceStore, shutdown: shutdown.signal, abortRequests: abortRequests.signal, stateSecret: config.stateSecret, audit, telemetry });
  const http = await serveHttp({
    factory,
    host: command.host,
    port: command.port,
    // The issuer's own host and origin: the consent page is served and posted there.
    allowedHosts: config.oauth ? [...config.http.allowedHosts, new URL(config.oauth.issuer).host] : config.http.allowedHosts,
    allowedOrigins: config.oauth ? [...config.http.allowedOrigins, config.oauth.issuer] : config.http.allowedOrigins,
    maxBodyBytes: config.http.maxBodyBytes,
    ...(fallbackCredentials ? { fallbackCredentials } : {}),
    ...(auth ? { auth } : {}),
    ready: () => store.health(),
    log,
    shutdown,
    abortRequests,
  });
  log.info(`serving MCP on ${http.url}/mcp (health: ${http.url}/healthz, readiness: ${http.url}/readyz)${config.stateUrl ? '; gate state in Redis' : ''}`);
  if (config.oauth) log.info(`OAuth sign-in on: clients connect to ${config.oauth.issuer}/mcp; people disconnect at ${config.oauth.issuer}/oauth/disconnect`);
  if (command.sandbox && fallbackCredentials) log.info(sandboxLine({ ...config, ...fallbackCredentials }));
  const stop = () =>
    void http
      .drain()
      .then(() => telemetry?.shutdown())
      .then(() => auth?.close())
      .then(() => store.close())
      .finally(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

/**
 * The Redis gate store when APPMGMT_STATE_URL is set (loaded only then: ioredis costs start-up time).
 * @throws ConfigError when Redis refuses the database the URL names.
 */
async function openStore(config: Config, log: Log) {
  if (!config.stateUrl) return undefined;
  await checkStateDatabase(config.stateUrl, log);
  const { amnesiaGraceMs, createRedisStore, evictionProblem } = await import('./gate/redis-store.js');
  const store = createRedisStore({ url: config.stateUrl, log, graceMs: amnesiaGraceMs(config) });
  const found = await store.evictionPolicy().catch((error: unknown) => ({ unknown: error instanceof Error ? error.message : String(error) }));
  if ('unknown' in found) {
    log.warn(`could not check Redis's maxmemory-policy at start-up (${found.unknown}); the gate needs noeviction, and /readyz reports the policy when it can read it`);
  } else if (found.policy !== 'noeviction') {
    if (!config.stateAllowEviction) {
      await store.close();
      throw new ConfigError(
        `${evictionProblem(found.policy)} Set maxmemory-policy noeviction on the Redis of APPMGMT_STATE_URL, or APPMGMT_STATE_ALLOW_EVICTION=true to start anyway.`,
      );
    }
    log.warn(`${evictionProblem(found.policy)} Starting anyway: APPMGMT_STATE_ALLOW_EVICTION=true.`);
  }
  return store;
}

/** Where the daily limits count: beside the gate's records in Redis when there is one, else (undefined) in the process. */
async function openAllowance(store: Awaited<ReturnType<typeof openStore>>) {
  return store && (await import('./gate/allowance-redis.js')).createRedisAllowanceStore(store);
}

/**
 * The audit trail of costly calls: appended to APPMGMT_AUDIT_LOG, else written to stderr as lines
 * marked `audit:` (over stdio too: MCP hosts keep a server's stderr in their logs, and a file
 * nobody asked for would be worse than a trail beside the log). `redact` is the log's: the server's
 * own credentials and, with --sandbox, the demo ones. A line not written within AUDIT_WRITE_TIMEOUT_MS
 * is a failed write.
 * @throws ConfigError when the path is not a regular file (or one to create) or cannot be opened for appending.
 */
async function openAudit(config: Config, log: Log, redact: Redact) {
  const [{ checkAuditFile, createAuditTrail, deadlineSink, fileSink, stderrSink }, { grantTrail }] = await Promise.all([import('./observe/audit.js'), import('./observe/audit-grants.js')]);
  if (config.auditLog) await checkAuditFile(config.auditLog, log);
  const sink = deadlineSink(config.auditLog ? fileSink(config.auditLog) : stderrSink(process.stderr));
  return { audit: createAuditTrail({ sink, now: Date.now, redact, log }), grants: grantTrail(sink, Date.now, redact) };
}

/**
 * Checks that Redis has the database APPMGMT_STATE_URL names: refused a SELECT as it connects,
 * ioredis only emits an error and carries on in database 0, where other data may live.
 * @throws ConfigError naming the variable when Redis refuses the database.
 */
async function checkStateDatabase(stateUrl: string, log: Log): Promise<void> {
  const db = stateDatabase(stateUrl);
  if (db === 0) return; // every Redis has database 0
  const url = new URL(stateUrl);
  const hide = redactor([url.password, decodeURIComponent(url.password)]); // config.ts made sure it decodes
  url.pathname = '/'; // connect in database 0, then ask for ours where the refusal can be read
  const { Redis } = await import('ioredis');
  const probe = new Redis(url.href, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: STATE_CHECK_TIMEOUT_MS, commandTimeout: STATE_CHECK_TIMEOUT_MS });
  probe.on('error', () => undefined); // every outcome is read from the promises below
  const why = (error: unknown) => hide(error instanceof Error ? error.message || error.name : String(error)).slice(0, 200);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${STATE_CHECK_TIMEOUT_MS / 1000} s`)), STATE_CHECK_TIMEOUT_MS)));
  try {
    await Promise.race([probe.connect(), late]);
    // Any refusal counts, not only "DB index is out of range": Redis Cluster refuses every SELECT but 0.
    await probe.select(db).catch((error: unknown) => {
      if (error instanceof Error && error.name === 'ReplyError') {
        throw new ConfigError(`APPMGMT_STATE_URL names database ${db}, which this Redis refuses (${why(error)}); Redis has databases 0 to 15 unless its databases setting allows more`);
      }
      throw error;
    });
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    log.warn(`could not check at start-up that Redis has database ${db} of APPMGMT_STATE_URL (${why(error)}); the gate's store connects in the background`);
  } finally {
    clearTimeout(timer);
    probe.disconnect();
  }
}

/**
 * An error nobody awaited (one a library raises on its own, say) ends the process with one short
 * line: node's own report would print the source line it came from, all of the minified bundle's.
 */
function exitOnStrayError(redact: () => Redact): void {
  const fatal = (error: unknown) => {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    process.stderr.write(`${SERVER_NAME}: internal error, exiting: ${redact()(message).replace(/\s+/g, ' ').slice(0, MAX_FATAL_CHARS)}\n`);
    process.exit(1);
  };
  process.on('uncaughtException', fatal);
  process.on('unhandledRejection', fatal);
}

/** The sandbox in this process for --sandbox (see sandbox/attach.ts); a --sandbox-world file is read and validated first. */
async function attachSandbox(config: Config, worldFile: string | undefined, after: Promise<void> | undefined): Promise<AttachedSandbox> {
  const [{ attachSandbox: attach }, world] = await Promise.all([import('./sandbox/attach.js'), worldFile ? readWorld(worldFile) : undefined]);
  return attach(config, { ...(world ? { world } : {}), ...(after ? { after } : {}), start: (chosen) => startSandboxWith(chosen, { control: false, unref: true }) });
}

/** @throws Error naming the file's bad field (see parseWorld). */
async function readWorld(worldFile: string): Promise<World> {
  const { loadWorldFile } = await import('./sandbox/world.js');
  return loadWorldFile(worldFile);
}

async function startSandboxWith(world: World | undefined, options: { port?: number; control: boolean; unref?: boolean }) {
  const [{ startSandbox }, { createRealClock }] = await Promise.all([import('./sandbox/http.js'), import('./sandbox/clock.js')]);
  return startSandbox({ ...options, clock: createRealClock(), ...(world ? { world } : {}) });
}

async function runSandboxOnly(portText: string | undefined, worldFile: string | undefined): Promise<void> {
  const port = portText === undefined ? 0 : Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError('--port must be a whole number from 0 to 65535');
  const sandbox = await startSandboxWith(worldFile ? await readWorld(worldFile) : undefined, { port, control: true });
  const { accessToken, apiKey, monitoringApiKey } = sandbox.simulation.credentials;
  const { directoryOf } = await import('./sandbox/directory.js');
  const readOnly = readOnlyOf(directoryOf(sandbox.simulation.world, accessToken).credentials);
  process.stderr.write(
    [
      `Sandbox API listening on ${sandbox.url} (simulated service; Ctrl+C stops it).`,
      `  APPMGMT_BASE_URL=${sandbox.url}`,
      `  APPMGMT_ACCESS_TOKEN=${accessToken}`,
      `  APPMGMT_API_KEY=${apiKey}`,
      `  APPMGMT_MONITORING_API_KEY=${monitoringApiKey}`,
      ...(readOnly ? [`Read-only, to see what a read-only credential can do: ${readOnly}`] : []),
      `Control: POST ${sandbox.url}/_sandbox/reset | /_sandbox/advance {"ms":60000} | /_sandbox/scenario {"name":"..."}`,
      '',
    ].join('\n'),
  );
  const stop = () => void sandbox.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** "APPMGMT_ACCESS_TOKEN=pat_demo_owner_ro APPMGMT_API_KEY=key_demo_owner_ro": the demo user's read-only credentials, as settings. */
function readOnlyOf(credentials: SandboxCredential[] | undefined): string {
  const variable = { 'access token': 'APPMGMT_ACCESS_TOKEN', 'API key': 'APPMGMT_API_KEY' } as const;
  return (credentials ?? [])
    .filter((credential) => credential.demo && credential.permission === 'read_only')
    .map((credential) => `${variable[credential.kind]}=${credential.value}`)
    .join(' ');
}

/** The --sandbox start-up line: the credentials in use with their permission, and the read-only ones to try (issue 29). */
function sandboxLine(config: Config): string {
  const credentials = config.sandboxDirectory?.credentials ?? [];
  const permission = (value: string | undefined) => (credentials.find((credential) => credential.value === value)?.permission === 'read_only' ? 'read-only' : 'full access');
  const toTry = readOnlyOf(credentials.filter((credential) => credential.value !== config.accessToken && credential.value !== config.apiKey));
  return `sandbox: a simulated service, with access token ${config.accessToken} (${permission(config.accessToken)}) and API key ${config.apiKey} (${permission(config.apiKey)})${toTry ? `; to try read-only ones, start with ${toTry}` : ''}`;
}

/** Start-up failed (a bad setting, a bad world file, a sandbox that cannot listen): the reason on stderr, exit code 2. */
function exitOnStartError(error: unknown): never {
  // A ConfigError holds every problem found, one per line; each gets its own prefixed line.
  const message = error instanceof ConfigError ? error.message : (error instanceof Error ? error.message : String(error)).slice(0, MAX_FATAL_CHARS);
  process.stderr.write(message.split('\n').map((line) => `${SERVER_NAME}: ${line}\n`).join(''));
  process.exit(2);
}

main(process.argv.slice(2)).catch(exitOnStartError);
