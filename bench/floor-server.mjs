// The floor the bench holds ours against: a stateless SDK v2 server built with the same packages
// (@modelcontextprotocol/server and /node, zod) and one trivial tool, a new server per request (per
// connection for a 2025-era stdio session), as ours builds them. `--tools N` registers N such tools
// instead, to show what registering every tool on every request costs the SDK itself.
//   node bench/floor-server.mjs [--tools N]                 stdio
//   node bench/floor-server.mjs http [--port P] [--tools N]  Streamable HTTP on 127.0.0.1, "serving MCP on <url>/mcp" on stderr
import { createServer } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : Number(args[at + 1]);
};
const TOOLS = option('--tools', 1);

/** A fresh server with TOOLS trivial tools: `echo` (the one the bench calls), then echo_2, echo_3, ... */
function createFloorServer() {
  const server = new McpServer({ name: 'floor', version: '1.0.0' }, { capabilities: { tools: {} } });
  for (let i = 1; i <= TOOLS; i++) {
    server.registerTool(
      i === 1 ? 'echo' : `echo_${i}`,
      {
        title: 'Echo',
        description: 'Answers with the text it is given.',
        inputSchema: z.object({ text: z.string().max(1000).describe('What to answer with.') }),
        annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      },
      async ({ text }) => ({ content: [{ type: 'text', text }] }),
    );
  }
  return server;
}

if (args[0] === 'http') {
  const handler = createMcpHandler(() => createFloorServer(), { legacy: 'stateless' });
  const server = createServer(toNodeHandler(handler));
  server.listen(option('--port', 0), '127.0.0.1', () => {
    process.stderr.write(`serving MCP on http://127.0.0.1:${server.address().port}/mcp\n`);
  });
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
} else {
  serveStdio(() => createFloorServer(), { legacy: 'serve' });
}
