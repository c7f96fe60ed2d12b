import { HELP, parseCommandLine } from './cli.js';
import { loadConfig, secretsOf, type Config } from './config.js';
import { ConfigError } from './errors.js';
import { createLog, type Log } from './log.js';
import { redactor } from './text.js';
import { SERVER_NAME, SERVER_VERSION } from './version.js';

/** The only file that touches process: read config, pick live API or sandbox, connect stdio. */

async function main(argv: string[]): Promise<void> {
  const command = parseCommandLine(argv);
  // The server is not running for these two, so stdout is free.
  if (command.name === 'help') return void process.stdout.write(HELP);
  if (command.name === 'version') return void process.stdout.write(`${SERVER_VERSION}\n`);
  if (command.name === 'sandbox') return runSandboxOnly(command.port?.toString(), command.sandboxWorld);

  const config = loadConfig(process.env, command.flags);
  const serverCredentials = secretsOf(config);
  if (command.sandbox) await attachSandbox(config, command.sandboxWorld);
  const log = createLog({ level: config.logLevel, redact: redactor([...serverCredentials, ...secretsOf(config)]) });
  if (command.name === 'http') return runHttp(config, log, command, [config.accessToken, config.apiKey, config.monitoringApiKey].some(Boolean));

  const [{ createServerFactory, trackCalls }, { serveStdio }] = await Promise.all([import('./server.js'), import('./transports/stdio.js')]);
  const shutdown = new AbortController();
  const calls = trackCalls();
  const store = await openStore(config, log);
  const { done } = serveStdio(createServerFactory({ config, log, store, shutdown: shutdown.signal, calls, stateSecret: config.stateSecret }), { log, calls, shutdown });
  await done;
  await store?.close();
  process.exit(0);
}

/**
 * Serves MCP over HTTP for a team: every request brings its user's credentials, never the server's
 * own (with --sandbox, a request without any uses the demo credentials). SIGTERM and SIGINT drain.
 */
async function runHttp(config: Config, log: Log, command: { port: number; host: string; sandbox: boolean }, envCredentials: boolean): Promise<void> {
  const [{ createServerFactory }, { serveHttp }] = await Promise.all([import('./server.js'), import('./transports/http.js')]);
  if (envCredentials && !command.sandbox) {
    log.warn('APPMGMT_ACCESS_TOKEN, APPMGMT_API_KEY or APPMGMT_MONITORING_API_KEY is set, but over HTTP each request brings its own credentials in headers; the server never uses its own.');
  }
  const fallbackCredentials = command.sandbox ? { accessToken: config.accessToken, apiKey: config.apiKey, monitoringApiKey: config.monitoringApiKey } : undefined;
  Object.assign(config, { accessToken: undefined, apiKey: undefined, monitoringApiKey: undefined } satisfies Partial<Config>);
  const shutdown = new AbortController();
  const store = (await openStore(config, log)) ?? (await import('./gate/store.js')).createMemoryStore({ now: Date.now });
  // Draining ends waits and polls at once, but lets requests on their way to the service finish.
  const factory = createServerFactory({ config, log, store, shutdown: shutdown.signal, abortRequests: new AbortController().signal, stateSecret: config.stateSecret });
  const http = await serveHttp({
    factory,
    host: command.host,
    port: command.port,
    allowedHosts: config.http.allowedHosts,
    allowedOrigins: config.http.allowedOrigins,
    maxBodyBytes: config.http.maxBodyBytes,
    ...(fallbackCredentials ? { fallbackCredentials } : {}),
    ready: () => store.ping(),
    log,
    shutdown,
  });
  log.info(`serving MCP on ${http.url}/mcp (health: ${http.url}/healthz, readiness: ${http.url}/readyz)${config.stateUrl ? '; gate state in Redis' : ''}`);
  const stop = () =>
    void http
      .drain()
      .then(() => store.close())
      .finally(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

/** The Redis gate store when APPMGMT_STATE_URL is set (loaded only then: ioredis costs start-up time). */
async function openStore(config: Config, log: Log) {
  if (!config.stateUrl) return undefined;
  const { createRedisStore } = await import('./gate/redis-store.js');
  return createRedisStore({ url: config.stateUrl, log });
}

/** Starts the simulated service in this process and points the config at it with demo credentials. */
async function attachSandbox(config: Config, worldFile?: string) {
  const [sandbox, { directoryOf }] = await Promise.all([startSandboxFrom(worldFile, { control: false, unref: true }), import('./sandbox/directory.js')]);
  const { accessToken, apiKey, monitoringApiKey } = sandbox.simulation.credentials;
  Object.assign(config, {
    baseUrl: sandbox.url,
    monitoringUrl: sandbox.url,
    accessToken,
    apiKey,
    monitoringApiKey,
    sandbox: true,
    sandboxDirectory: directoryOf(sandbox.simulation.world, accessToken),
  } satisfies Partial<Config>);
}

async function startSandboxFrom(worldFile: string | undefined, options: { port?: number; control: boolean; unref?: boolean }) {
  const [{ startSandbox }, { createRealClock }, { loadWorldFile }] = await Promise.all([
    import('./sandbox/http.js'),
    import('./sandbox/clock.js'),
    import('./sandbox/world.js'),
  ]);
  const world = worldFile ? loadWorldFile(worldFile) : undefined;
  return startSandbox({ ...options, clock: createRealClock(), ...(world ? { world } : {}) });
}

async function runSandboxOnly(portText: string | undefined, worldFile: string | undefined): Promise<void> {
  const port = portText === undefined ? 0 : Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError('--port must be a whole number from 0 to 65535');
  const sandbox = await startSandboxFrom(worldFile, { port, control: true });
  const { accessToken, apiKey, monitoringApiKey } = sandbox.simulation.credentials;
  process.stderr.write(
    [
      `Sandbox API listening on ${sandbox.url} (simulated service; Ctrl+C stops it).`,
      `  APPMGMT_BASE_URL=${sandbox.url}`,
      `  APPMGMT_ACCESS_TOKEN=${accessToken}`,
      `  APPMGMT_API_KEY=${apiKey}`,
      `  APPMGMT_MONITORING_API_KEY=${monitoringApiKey}`,
      `Control: POST ${sandbox.url}/_sandbox/reset | /_sandbox/advance {"ms":60000} | /_sandbox/scenario {"name":"..."}`,
      '',
    ].join('\n'),
  );
  const stop = () => void sandbox.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  // A ConfigError holds every problem found, one per line; each gets its own prefixed line.
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(message.split('\n').map((line) => `${SERVER_NAME}: ${line}\n`).join(''));
  process.exit(2);
});
