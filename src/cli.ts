import { isIP } from 'node:net';
import { closest, ENV_VARS, type ConfigFlags } from './config.js';
import { ConfigError } from './errors.js';
import { unfilledPlaceholder } from './placeholder.js';
import { limit } from './text.js';
import { SERVER_NAME, SERVER_VERSION } from './version.js';

/** What the command line asks for: print help or the version, serve MCP on stdio or HTTP, or run only the sandbox API. */
export type Command =
  | { name: 'help' }
  | { name: 'version' }
  | { name: 'server'; sandbox: boolean; sandboxWorld?: string; flags: ConfigFlags }
  | { name: 'http'; sandbox: boolean; sandboxWorld?: string; flags: ConfigFlags; port: number; host: string }
  | { name: 'sandbox'; port?: number; sandboxWorld?: string };

/** stdio: no command word, the MCP server on stdin/stdout. */
type Target = 'stdio' | 'http' | 'sandbox';

interface FlagSpec {
  /** What the value is called in help, for a flag that takes one. */
  value?: string;
  short?: string;
  /** The commands it applies to. */
  for: readonly Target[];
  help: string;
}

const ALL: readonly Target[] = ['stdio', 'http', 'sandbox'];
const MCP: readonly Target[] = ['stdio', 'http'];

const FLAGS = {
  '--sandbox': {
    for: MCP,
    help: `use the built-in sandbox with demo credentials; to try its read-only ones, also set\n${' '.repeat(28)}APPMGMT_ACCESS_TOKEN=pat_demo_owner_ro APPMGMT_API_KEY=key_demo_owner_ro`,
  },
  '--sandbox-world': { value: 'FILE', for: ALL, help: 'load the sandbox world from a JSON file' },
  '--read-only': { for: MCP, help: 'register only the read tools (also APPMGMT_READ_ONLY=true)' },
  '--app-id': { value: 'ID', for: MCP, help: 'scope every tool to one app (also APPMGMT_APP_ID)' },
  '--tools': { value: 'a,b', for: MCP, help: 'enable only these tools (also APPMGMT_TOOLS)' },
  '--toolsets': { value: 'a,b', for: MCP, help: 'enable only these toolsets (also APPMGMT_TOOLSETS)' },
  '--port': { value: 'N', for: ['http', 'sandbox'], help: "with 'http' (default 8080) or 'sandbox' (default: a free port): port to listen on" },
  '--host': { value: 'H', for: ['http'], help: "with 'http': address to bind (default 127.0.0.1; others need APPMGMT_HTTP_ALLOWED_*)" },
  '--help': { short: '-h', for: ALL, help: 'print this help and exit' },
  '--version': { short: '-v', for: ALL, help: 'print the version and exit' },
} satisfies Record<string, FlagSpec>;

type FlagName = keyof typeof FLAGS;

const FLAG_NAMES = Object.keys(FLAGS) as FlagName[];
const COMMANDS = ['http', 'sandbox'];
/** The port `http` listens on by default. */
export const DEFAULT_HTTP_PORT = 8080;
const VALID_FLAGS = FLAG_NAMES.map((name) => usage(name)).join(', ');
/** A typo is an edit or two away (--readonly, --app_id); further off, a guess misleads (--bogus is not --tools). */
const SUGGEST_WITHIN_EDITS = 2;
/** An argument is quoted back at most this long: a flag and its value fit, a pasted document does not. */
const MAX_SHOWN_ARG_CHARS = 200;

export const HELP = `${SERVER_NAME} ${SERVER_VERSION}: MCP server for the Application Management API.

Usage:
  ${SERVER_NAME} [options]            run the MCP server on stdin/stdout (for an MCP client)
  ${SERVER_NAME} --sandbox            run it against the built-in simulated service (no account needed)
  ${SERVER_NAME} http [--port N] [--host H] [options]
                                          serve MCP over Streamable HTTP on /mcp for a team: each request
                                          brings its user's credentials (Authorization: Bearer <token>,
                                          X-Appmgmt-Api-Key, X-Appmgmt-Monitoring-Api-Key)
  ${SERVER_NAME} sandbox [--port N]   run only the simulated HTTP API, for curl and other clients

Options:
${FLAG_NAMES.map((name) => `  ${usage(name, true).padEnd(26)}${FLAGS[name].help}`).join('\n')}

Environment (secrets only here, never as flags):
${Object.entries(ENV_VARS)
  .map(([name, meaning]) => `  ${name.padEnd(36)}${meaning}`)
  .join('\n')}
`;

/**
 * Parses the arguments after `node index.js`. Reads nothing else: the environment is config.ts's.
 * @throws ConfigError with one line per problem, all of them at once: an unknown flag (naming the
 *   valid ones), a flag without its value or with one it does not take, a value the client left as
 *   its placeholder (`--app-id '${APPMGMT_APP_ID}'`), a value flag given twice,
 *   an unknown command, a flag that belongs to the other command, or a port outside 0–65535.
 */
export function parseCommandLine(argv: readonly string[]): Command {
  const { given, positionals, problems } = readFlags(argv);
  const [command, ...extra] = positionals;
  if (command !== undefined && !COMMANDS.includes(command)) {
    problems.push(`Unknown command ${quote(command)}; the commands are http and sandbox (without one, the MCP server runs on stdio)`);
  }
  for (const argument of extra) problems.push(`Unexpected argument ${quote(argument)}; flags start with --, see --help`);
  const target: Target = command === 'sandbox' || command === 'http' ? command : 'stdio';
  for (const name of given.keys()) {
    const belongs: readonly Target[] = FLAGS[name].for;
    if (belongs.includes(target)) continue;
    problems.push(
      target === 'sandbox'
        ? `${name} does not apply to the sandbox command, which runs only the simulated API; leave it out`
        : `${name} applies only to ${belongs.map((other) => `the ${other} command (${SERVER_NAME} ${other} ${usage(name)})`).join(' or ')}`,
    );
  }
  const port = given.get('--port');
  if (port !== undefined && !(/^[0-9]{1,5}$/.test(port) && Number(port) <= 65535)) problems.push('--port must be a whole number from 0 to 65535');
  const host = given.get('--host');
  if (host !== undefined && !isBindAddress(host)) problems.push(`--host ${quote(host)} is not an address to bind; give an IP address such as 0.0.0.0 or ::, or a host name`);
  if (given.get('--sandbox-world') === '') problems.push('--sandbox-world is empty; give a JSON file or leave the flag out');
  if (problems.length > 0) throw new ConfigError(problems.join('\n'));

  if (given.has('--help')) return { name: 'help' };
  if (given.has('--version')) return { name: 'version' };
  const sandboxWorld = given.get('--sandbox-world');
  if (target === 'sandbox') return { name: 'sandbox', port: port === undefined ? undefined : Number(port), sandboxWorld };
  const mcp = {
    sandbox: given.has('--sandbox') || sandboxWorld !== undefined,
    sandboxWorld,
    flags: {
      readOnly: given.has('--read-only') || undefined,
      appId: given.get('--app-id'),
      tools: given.get('--tools'),
      toolsets: given.get('--toolsets'),
      ...(host === undefined ? {} : { host }),
    },
  };
  if (target === 'http') return { name: 'http', ...mcp, port: port === undefined ? DEFAULT_HTTP_PORT : Number(port), host: host ?? '127.0.0.1' };
  return { name: 'server', ...mcp };
}

/** An IPv4 or IPv6 address, or a host name: what node's listen() takes. */
function isBindAddress(host: string): boolean {
  return isIP(host) !== 0 || /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(host);
}

/** Splits the arguments into known flags (switches map to ''), positionals, and what is wrong with the flags. */
function readFlags(argv: readonly string[]) {
  const problems: string[] = [];
  const given = new Map<FlagName, string>();
  const positionals: string[] = [];
  let afterSwitch: FlagName | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const previousSwitch = afterSwitch;
    afterSwitch = undefined;
    if (!isFlagLike(arg)) {
      // `--read-only false` reads as a command named "false"; say what went wrong instead.
      if (previousSwitch && positionals.length === 0 && !COMMANDS.includes(arg)) problems.push(`${previousSwitch} takes no value; ${quote(arg)} is not a command`);
      else positionals.push(arg);
      continue;
    }
    const equals = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const written = equals === -1 ? arg : arg.slice(0, equals);
    const inline = equals === -1 ? undefined : arg.slice(equals + 1);
    const name = flagNamed(written);
    if (!name) {
      problems.push(unknownFlag(written));
      continue;
    }
    const spec: FlagSpec = FLAGS[name];
    let value = '';
    if (spec.value === undefined) {
      if (inline !== undefined) problems.push(`${name} takes no value`);
      afterSwitch = name;
    } else if (inline !== undefined) {
      value = inline;
    } else if (i + 1 < argv.length && !isFlagLike(argv[i + 1]!)) {
      value = argv[++i]!;
    } else {
      problems.push(`${name} needs a value: ${usage(name)}`);
      continue;
    }
    // Two values would mean one is silently dropped, possibly a narrower --app-id or --tools.
    if (given.has(name) && spec.value !== undefined) problems.push(`${name} is given more than once; give it once`);
    // Refused here, before its own rules would call `${PORT}` a bad port or `${APP}` an app.
    const unfilled = unfilledPlaceholder(name, value);
    if (unfilled) {
      problems.push(unfilled);
      continue;
    }
    given.set(name, value);
  }
  return { given, positionals, problems };
}

/** `--x`, `-h`; not `-1` (a negative number is a value, and a wrong one for every flag we have). */
function isFlagLike(arg: string): boolean {
  return /^-(-|[A-Za-z])/.test(arg);
}

function flagNamed(written: string): FlagName | undefined {
  return FLAG_NAMES.find((name) => name === written || (FLAGS[name] as FlagSpec).short === written);
}

function unknownFlag(written: string): string {
  const nearest = closest(written, FLAG_NAMES, SUGGEST_WITHIN_EDITS);
  const hint = nearest ? `did you mean ${nearest}? The flags are` : 'the flags are';
  return `Unknown flag ${quote(written)}; ${hint} ${VALID_FLAGS}`;
}

function usage(name: FlagName, withShort = false): string {
  const spec: FlagSpec = FLAGS[name];
  return [name, withShort && spec.short ? `, ${spec.short}` : '', spec.value ? ` ${spec.value}` : ''].join('');
}

/** An argument as typed, on one line, cut to MAX_SHOWN_ARG_CHARS. */
function quote(text: string): string {
  const shown = limit(text, MAX_SHOWN_ARG_CHARS);
  return /^[\w.,:/@+-]+$/.test(shown) ? shown : JSON.stringify(shown);
}
