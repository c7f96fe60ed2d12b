import { describe, expect, it } from 'vitest';
import { HELP, parseCommandLine } from '../src/cli.js';
import { ENV_VARS } from '../src/config.js';
import { ConfigError } from '../src/errors.js';

const VALID_FLAGS = '--sandbox, --sandbox-world FILE, --read-only, --app-id ID, --tools a,b, --toolsets a,b, --port N, --host H, --help, --version';

/** The lines of the ConfigError that parseCommandLine throws (fails the test if it does not throw one). */
function problems(argv: string[]): string[] {
  try {
    parseCommandLine(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message.split('\n');
  }
  throw new Error(`parseCommandLine accepted ${JSON.stringify(argv)}`);
}

describe('parseCommandLine', () => {
  it('runs the MCP server when given nothing', () => {
    expect(parseCommandLine([])).toEqual({ name: 'server', sandbox: false, sandboxWorld: undefined, flags: { readOnly: undefined, appId: undefined, tools: undefined } });
  });

  it('passes the server flags through as they were typed, in both spellings', () => {
    expect(parseCommandLine(['--read-only', '--app-id', 'app_demo', '--tools=a, b'])).toEqual({
      name: 'server',
      sandbox: false,
      sandboxWorld: undefined,
      flags: { readOnly: true, appId: 'app_demo', tools: 'a, b' },
    });
  });

  it('passes an empty --app-id or --tools on, for the configuration to refuse', () => {
    expect(parseCommandLine(['--app-id', '', '--tools='])).toMatchObject({ flags: { appId: '', tools: '' } });
  });

  it('uses the sandbox with --sandbox or --sandbox-world', () => {
    expect(parseCommandLine(['--sandbox'])).toMatchObject({ name: 'server', sandbox: true });
    expect(parseCommandLine(['--sandbox-world', 'world.json'])).toMatchObject({ name: 'server', sandbox: true, sandboxWorld: 'world.json' });
  });

  it('reads the sandbox command with its port and world', () => {
    expect(parseCommandLine(['sandbox'])).toEqual({ name: 'sandbox', port: undefined, sandboxWorld: undefined });
    expect(parseCommandLine(['sandbox', '--port', '0', '--sandbox-world=w.json'])).toEqual({ name: 'sandbox', port: 0, sandboxWorld: 'w.json' });
    expect(parseCommandLine(['--port=65535', 'sandbox'])).toEqual({ name: 'sandbox', port: 65535, sandboxWorld: undefined });
  });

  it('reads the http command: port 8080 and loopback by default, server flags and --host passed on', () => {
    expect(parseCommandLine(['http'])).toMatchObject({ name: 'http', port: 8080, host: '127.0.0.1', sandbox: false });
    expect(parseCommandLine(['http', '--port', '0', '--host', '0.0.0.0', '--sandbox', '--read-only'])).toEqual({
      name: 'http',
      port: 0,
      host: '0.0.0.0',
      sandbox: true,
      sandboxWorld: undefined,
      flags: { readOnly: true, appId: undefined, tools: undefined, toolsets: undefined, host: '0.0.0.0' },
    });
    expect(parseCommandLine(['http', '--host=::'])).toMatchObject({ host: '::' });
  });

  it('answers --help and --version in long and short form, help first', () => {
    expect(parseCommandLine(['--help'])).toEqual({ name: 'help' });
    expect(parseCommandLine(['-h'])).toEqual({ name: 'help' });
    expect(parseCommandLine(['--version'])).toEqual({ name: 'version' });
    expect(parseCommandLine(['-v'])).toEqual({ name: 'version' });
    expect(parseCommandLine(['-v', '--help'])).toEqual({ name: 'help' });
  });

  describe('mistakes', () => {
    it('refuses a value the client left as its placeholder, naming the flag and the variable, with that line alone', () => {
      expect(problems(['--app-id', '${APPMGMT_APP_ID}', '--tools=$APPMGMT_TOOLS'])).toEqual([
        "--app-id is still ${APPMGMT_APP_ID}: the MCP client did not fill it, so APPMGMT_APP_ID is not set where the client starts; set APPMGMT_APP_ID there (or write the value itself into the client's configuration), then restart",
        "--tools is still $APPMGMT_TOOLS: the MCP client did not fill it, so APPMGMT_TOOLS is not set where the client starts; set APPMGMT_TOOLS there (or write the value itself into the client's configuration), then restart",
      ]);
      expect(problems(['http', '--port', '%PORT%'])).toEqual([
        "--port is still %PORT%: the MCP client did not fill it, so PORT is not set where the client starts; set PORT there (or write the value itself into the client's configuration), then restart",
      ]);
    });

    it('names an unknown flag and lists the valid ones, in one line', () => {
      expect(problems(['--verbose'])).toEqual([`Unknown flag --verbose; the flags are ${VALID_FLAGS}`]);
      expect(problems(['-x'])).toEqual([`Unknown flag -x; the flags are ${VALID_FLAGS}`]);
    });

    it('suggests the flag an unknown one was probably meant to be', () => {
      expect(problems(['--readonly'])).toEqual([`Unknown flag --readonly; did you mean --read-only? The flags are ${VALID_FLAGS}`]);
      expect(problems(['--app_id=x'])).toEqual([`Unknown flag --app_id; did you mean --app-id? The flags are ${VALID_FLAGS}`]);
    });

    it('names a flag whose value is missing', () => {
      expect(problems(['--app-id'])).toEqual(['--app-id needs a value: --app-id ID']);
      expect(problems(['--tools', '--read-only'])).toEqual(['--tools needs a value: --tools a,b']);
      expect(problems(['sandbox', '--port'])).toEqual(['--port needs a value: --port N']);
    });

    it('refuses a value on a flag that takes none', () => {
      expect(problems(['--read-only=false'])).toEqual(['--read-only takes no value']);
      expect(problems(['--read-only', 'false'])).toEqual(['--read-only takes no value; false is not a command']);
    });

    it('refuses a value flag given twice rather than picking one', () => {
      expect(problems(['--app-id', 'a', '--app-id', 'b'])).toEqual(['--app-id is given more than once; give it once']);
    });

    it('refuses --port without the sandbox command', () => {
      expect(problems(['--port', '8080'])).toEqual(['--port applies only to the http command (app-management-mcp http --port N) or the sandbox command (app-management-mcp sandbox --port N)']);
    });

    it('refuses server flags with the sandbox command', () => {
      expect(problems(['sandbox', '--read-only', '--app-id', 'a', '--tools', 'x', '--sandbox'])).toEqual([
        '--read-only does not apply to the sandbox command, which runs only the simulated API; leave it out',
        '--app-id does not apply to the sandbox command, which runs only the simulated API; leave it out',
        '--tools does not apply to the sandbox command, which runs only the simulated API; leave it out',
        '--sandbox does not apply to the sandbox command, which runs only the simulated API; leave it out',
      ]);
    });

    it('refuses --host anywhere but http, and a --host that is not an address', () => {
      expect(problems(['--host', '0.0.0.0'])).toEqual(['--host applies only to the http command (app-management-mcp http --host H)']);
      expect(problems(['sandbox', '--host', '0.0.0.0'])).toEqual(['--host does not apply to the sandbox command, which runs only the simulated API; leave it out']);
      expect(problems(['http', '--host', 'http://0.0.0.0'])).toEqual(['--host http://0.0.0.0 is not an address to bind; give an IP address such as 0.0.0.0 or ::, or a host name']);
      expect(problems(['http', '--host', 'a b'])).toHaveLength(1);
    });

    it('names an unknown command and the valid one', () => {
      expect(problems(['serve'])).toEqual(['Unknown command serve; the commands are http and sandbox (without one, the MCP server runs on stdio)']);
      expect(problems(['sandbox', '8080'])).toEqual(['Unexpected argument 8080; flags start with --, see --help']);
    });

    it.each(['-1', '65536', '80.5', 'http', ''])('refuses the port %j', (port) => {
      expect(problems(['sandbox', '--port', port])).toEqual(['--port must be a whole number from 0 to 65535']);
    });

    it('refuses an empty --sandbox-world', () => {
      expect(problems(['--sandbox-world='])).toEqual(['--sandbox-world is empty; give a JSON file or leave the flag out']);
    });

    it('reports every mistake at once, one line each', () => {
      expect(problems(['--bogus', 'sandbox', '--read-only', '--port', 'x'])).toEqual([
        `Unknown flag --bogus; the flags are ${VALID_FLAGS}`,
        '--read-only does not apply to the sandbox command, which runs only the simulated API; leave it out',
        '--port must be a whole number from 0 to 65535',
      ]);
    });

    it('keeps a hostile argument on one line', () => {
      const [line] = problems(['--x\nforged line']);
      expect(line).toBe(`Unknown flag "--x\\nforged line"; the flags are ${VALID_FLAGS}`);
    });
  });
});

describe('HELP', () => {
  it('lists every flag, both commands and every variable with its meaning', () => {
    for (const flag of VALID_FLAGS.split(', ')) expect(HELP).toContain(flag);
    expect(HELP).toMatch(/--help, -h/);
    expect(HELP).toMatch(/--version, -v/);
    expect(HELP).toMatch(/sandbox \[--port N\]/);
    expect(HELP).toMatch(/http \[--port N\] \[--host H\]/);
    for (const [name, meaning] of Object.entries(ENV_VARS)) expect(HELP).toContain(`${name.padEnd(36)}${meaning}`);
  });
});
