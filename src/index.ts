import { parseArgs } from 'node:util';
import { ENV_VARS, loadConfig, secretsOf, type Config } from './config.js';
import { ConfigError } from './errors.js';
import { createLog } from './log.js';
import { redactor } from './tools/format.js';
import { SERVER_NAME, SERVER_VERSION } from './version.js';

/** The only file that touches process: read config, pick live API or sandbox, connect stdio. */

const HELP = `${SERVER_NAME} ${SERVER_VERSION}: MCP server for the Application Management API (stdio).

Usage:
  ${SERVER_NAME} [options]            run the MCP server on stdin/stdout (for an MCP client)
  ${SERVER_NAME} --sandbox            run it against the built-in simulated service (no account needed)
  ${SERVER_NAME} sandbox [--port N]   run only the simulated HTTP API, for curl and other clients

Options:
  --sandbox                 use the built-in sandbox with demo credentials
  --sandbox-world FILE      load the sandbox world from a JSON file
  --read-only               register only the read tools (also APPMGMT_READ_ONLY=true)
  --app-id ID               scope every tool to one app (also APPMGMT_APP_ID)
  --tools a,b               enable only these tools (also APPMGMT_TOOLS)
  --port N                  with 'sandbox': port to listen on (default: a free port)
  --help, --version

Environment (secrets only here, never as flags):
${Object.entries(ENV_VARS)
  .map(([name, meaning]) => `  ${name.padEnd(36)}${meaning}`)
  .join('\n')}
`;

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      sandbox: { type: 'boolean' },
      'sandbox-world': { type: 'string' },
      'read-only': { type: 'boolean' },
      'app-id': { type: 'string' },
      tools: { type: 'string' },
      port: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
  if (values.help) return void process.stderr.write(HELP);
  if (values.version) return void process.stderr.write(`${SERVER_VERSION}\n`);

  if (positionals[0] === 'sandbox') return runSandboxOnly(values.port, values['sandbox-world']);
  if (positionals.length > 0) throw new ConfigError(`Unknown command ${positionals[0]}; see --help.`);

  const { config, warnings } = loadConfig(process.env, {
    readOnly: values['read-only'],
    appId: values['app-id'],
    tools: values.tools?.split(',').map((name) => name.trim()).filter(Boolean),
  });
  if (values.sandbox || values['sandbox-world']) await attachSandbox(config, values['sandbox-world']);
  const log = createLog({ level: config.logLevel, redact: redactor(secretsOf(config)) });
  for (const warning of warnings) log.warn(warning);

  const [{ createServer }, { StdioServerTransport }] = await Promise.all([
    import('./server.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
  ]);
  const server = createServer({ config, log });
  await server.connect(new StdioServerTransport());
  if (process.stdin.isTTY) {
    log.info('running on stdio and waiting for an MCP client. This is a server: add it to a client (see README), or run with --help.');
  }
}

/** Starts the simulated service in this process and points the config at it with demo credentials. */
async function attachSandbox(config: Config, worldFile?: string) {
  const sandbox = await startSandboxFrom(worldFile, { control: false, unref: true });
  const { accessToken, apiKey, monitoringApiKey } = sandbox.simulation.credentials;
  Object.assign(config, {
    baseUrl: sandbox.url,
    monitoringUrl: sandbox.url,
    accessToken,
    apiKey,
    monitoringApiKey,
    sandbox: true,
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
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`${SERVER_NAME}: ${message}\n`);
  process.exit(2);
});
