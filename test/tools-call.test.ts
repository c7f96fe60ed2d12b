import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../src/config.js';
import { silentLog } from '../src/log.js';
import { createServerFactory, type ServerFactory } from '../src/server.js';
import { defineTool, type AnyTool } from '../src/tools/define.js';
import { TOOLS } from '../src/tools/index.js';

/**
 * The server answers tools/call with one handler over tools prepared once per process, instead of
 * the SDK's registerTool for every tool on every request: these pin down that it still answers as
 * McpServer's own handler did.
 */

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** A tool whose result is `structured` as given, so a test can break its output schema on purpose. */
function toolAnswering(structured: Record<string, unknown>): AnyTool {
  return defineTool({
    name: 'check_connection',
    title: 'Check Connection',
    description: 'A stand-in for the test.',
    input: {},
    output: { status: z.string(), checked: z.number() },
    annotations: READ,
    cost: 'none',
    run: async () => ({ text: 'ok', next: 'Nothing more is needed.', structured }),
  });
}

async function clientOf(factory: ServerFactory) {
  const server = factory();
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  return { client, close: async () => (await client.close(), await server.close()) };
}

const config = () => loadConfig({ APPMGMT_BASE_URL: 'http://127.0.0.1:9' });

describe('tools/call', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it('answers an unknown tool name with a protocol error, as the SDK does', async () => {
    const session = await clientOf(createServerFactory({ config: config(), log: silentLog }));
    close = session.close;
    await expect(session.client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/Tool no_such_tool not found/);
  });

  it("turns a result that breaks its tool's output schema into the SDK's error result", async () => {
    const session = await clientOf(createServerFactory({ config: config(), log: silentLog, tools: [toolAnswering({ status: 'ok', checked: 'soon' })] }));
    close = session.close;
    const result = await session.client.callTool({ name: 'check_connection', arguments: {} });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([
      { type: 'text', text: 'Output validation error: Invalid structured content for tool check_connection: checked: Invalid input: expected number, received string' },
    ]);
    expect(result.structuredContent).toBeUndefined();
  });

  it('answers a result that matches its output schema with its text and facts', async () => {
    const session = await clientOf(createServerFactory({ config: config(), log: silentLog, tools: [toolAnswering({ status: 'ok', checked: 3 })] }));
    close = session.close;
    const result = await session.client.callTool({ name: 'check_connection', arguments: {} });
    expect(result).toEqual({
      content: [{ type: 'text', text: 'ok\nNext: Nothing more is needed.' }],
      structuredContent: { status: 'ok', checked: 3, next: 'Nothing more is needed.' },
    });
  });

  it('serves every tool of every server it builds from the one list it prepared, in registry order', async () => {
    const factory = createServerFactory({ config: config(), log: silentLog });
    const first = await clientOf(factory);
    const second = await clientOf(factory);
    close = async () => (await first.close(), await second.close());
    const [a, b] = await Promise.all([first.client.listTools(), second.client.listTools()]);
    expect(a.tools.map((tool) => tool.name)).toEqual(TOOLS.map((tool) => tool.name));
    expect(b).toEqual(a);
  });
});
