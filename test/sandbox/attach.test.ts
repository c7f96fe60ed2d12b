import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, secretsOf, type Config } from '../../src/config.js';
import { silentLog } from '../../src/log.js';
import { attachSandbox, type AttachOptions } from '../../src/sandbox/attach.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import { createServer } from '../../src/server.js';

/** Lets every callback already due run: timers aside, whatever could settle a call has had its turn. */
const turns = async (count: number) => {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** A server wired as src/index.ts wires it for `--sandbox` on stdio, connected to a client in memory. */
async function serve(config: Config, start: AttachOptions['start']) {
  const attached = attachSandbox(config, { start });
  const server = createServer({ config, log: silentLog, ready: attached.listening });
  const client = new Client({ name: 'attach-test', version: '1.0.0' });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  return { attached, client };
}

describe('the sandbox attached to the server (--sandbox)', () => {
  let sandbox: Sandbox | undefined;
  let client: Client | undefined;
  afterEach(async () => {
    await client?.close();
    await sandbox?.close();
    sandbox = client = undefined;
  });

  it('sets the demo credentials and the directory before the sandbox listens', () => {
    const config = loadConfig({});
    const attached = attachSandbox(config, { start: () => new Promise(() => undefined) });
    expect(config).toMatchObject({ sandbox: true, accessToken: 'pat_demo_owner', apiKey: 'key_demo_owner', monitoringApiKey: 'key_demo_owner' });
    expect(config.sandboxDirectory?.workspace_id).toBe('ws_demo');
    expect(config.baseUrl).toBeUndefined();
    expect(attached.listening).toBeInstanceOf(Promise);
  });

  it("keeps a credential the environment set when it is one of the sandbox world's own, and replaces any other", () => {
    const config = loadConfig({ APPMGMT_ACCESS_TOKEN: 'pat_demo_owner_ro', APPMGMT_API_KEY: 'a-real-key-never-sent-to-the-sandbox' });
    attachSandbox(config, { start: () => new Promise(() => undefined) });
    expect(config).toMatchObject({ accessToken: 'pat_demo_owner_ro', apiKey: 'key_demo_owner', monitoringApiKey: 'key_demo_owner' });
    // The world's credentials are simulated and published: results may name them, so they are not redacted.
    expect(secretsOf(config)).toEqual([]);
    expect(config.sandboxDirectory?.credentials?.filter((credential) => credential.demo)).toEqual([
      { kind: 'access token', value: 'pat_demo_owner', permission: 'full_access', demo: true },
      { kind: 'access token', value: 'pat_demo_owner_ro', permission: 'read_only', demo: true },
      { kind: 'API key', value: 'key_demo_owner', permission: 'full_access', demo: true },
      { kind: 'API key', value: 'key_demo_owner_ro', permission: 'read_only', demo: true },
    ]);
  });

  it('answers initialize while the sandbox is still starting, and holds tool calls until it listens', async () => {
    const config = loadConfig({});
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started = false;
    const served = await serve(config, async (world) => {
      started = true;
      await held;
      sandbox = await startSandbox({ world });
      return sandbox;
    });
    client = served.client;
    expect(client.getServerVersion()?.name).toBe('app-management-mcp');
    expect(config.baseUrl).toBeUndefined();

    let answered = false;
    const call = client.callTool({ name: 'check_connection', arguments: {} }).finally(() => (answered = true));
    await turns(20);
    expect(started).toBe(true);
    expect(answered).toBe(false);

    release();
    const result = await call;
    const text = (result.content as Array<{ text: string }>)[0]?.text ?? '';
    expect(result.isError).not.toBe(true);
    expect(text).toContain('Service healthy');
    expect(text).toContain(`Base URL: ${sandbox?.url}`);
  });

  it('fails its calls with the reason when the sandbox cannot start', async () => {
    const config = loadConfig({});
    const served = await serve(config, () => Promise.reject(new Error('listen EADDRINUSE 127.0.0.1')));
    client = served.client;
    await expect(served.attached.listening).rejects.toThrow('EADDRINUSE');
    const result = await client.callTool({ name: 'check_connection', arguments: {} });
    expect(result.isError).toBe(true);
    expect(config.baseUrl).toBeUndefined();
  });
});
