import type { Config } from '../config.js';
import { defaultWorld } from './built-in-world.js';
import { directoryOf, sandboxCredentials } from './directory.js';
import type { World } from './world.js';

/** The sandbox inside the MCP server (`--sandbox`), attached to its configuration. */
export interface AttachedSandbox {
  /** The sandbox's URL once it listens and the configuration points at it; rejects when it cannot start. */
  listening: Promise<string>;
}

export interface AttachOptions {
  /** A `--sandbox-world` file, validated already; the built-in world when absent. */
  world?: World;
  /** Starts the simulated service on a free port of 127.0.0.1. */
  start(world: World): Promise<{ url: string }>;
  /** The sandbox starts one turn of the event loop after this resolves (over stdio: the first input, the client's initialize, has been read); at once when absent. */
  after?: Promise<unknown>;
}

/**
 * Points `config` at a sandbox in this process. What the server needs before any tool call comes
 * from the world at once: the demo credentials (which the log and every answer redact, and which
 * name the gate's scope) and the directory check_connection shows. The simulated service itself
 * starts a turn of the event loop after `after`, so a client's `initialize` read then is answered
 * before the sandbox loads; tool calls wait for `listening` (the server's `ready`).
 */
export function attachSandbox(config: Config, options: AttachOptions): AttachedSandbox {
  const world = options.world ?? defaultWorld();
  const credentials = sandboxCredentials(world, config);
  Object.assign(config, { ...credentials, sandbox: true, sandboxDirectory: directoryOf(world, credentials.accessToken) } satisfies Partial<Config>);
  const listening = Promise.resolve(options.after)
    .then(() => new Promise<void>((turn) => setImmediate(turn)))
    .then(() => options.start(world))
    .then(({ url }) => {
      Object.assign(config, { baseUrl: url, monitoringUrl: url } satisfies Partial<Config>);
      return url;
    });
  return { listening };
}
