// The naive peer (issue 31): the server a user might write instead of ours. The same SDK v2 over
// stateless Streamable HTTP, a new server per request, and one tool making the same two upstream
// reads as our `list_campaign_suggestions` (the suggestions, then the campaign) with plain `fetch`,
// answering the raw JSON as text: no argument checks, no formatting, no redaction, no gate, no
// deadline. Its credential and API come from APPMGMT_BASE_URL and APPMGMT_ACCESS_TOKEN.
//   node bench/peer-server.mjs http [--port P]   "serving MCP on <url>/mcp" on stderr
import { createServer } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

const args = process.argv.slice(2);
const at = args.indexOf('--port');
const port = at === -1 ? 0 : Number(args[at + 1]);
const base = process.env.APPMGMT_BASE_URL;
const headers = { accept: 'application/json', authorization: `Bearer ${process.env.APPMGMT_ACCESS_TOKEN}` };

async function read(path) {
  const response = await fetch(`${base}${path}`, { headers });
  return response.text();
}

function createPeerServer() {
  const server = new McpServer({ name: 'peer', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool(
    'list_campaign_suggestions',
    {
      title: 'List Campaign Suggestions',
      description: "A campaign's optimization suggestions, and the campaign.",
      inputSchema: z.object({ app_id: z.string(), campaign_id: z.string() }),
    },
    async ({ app_id, campaign_id }) => {
      const campaign = `/api/apps/${app_id}/adnet-ads/campaigns/${campaign_id}`;
      const suggestions = await read(`${campaign}/optimization-suggestions`);
      const details = await read(campaign);
      return { content: [{ type: 'text', text: `${suggestions}\n${details}` }] };
    },
  );
  return server;
}

const handler = createMcpHandler(() => createPeerServer(), { legacy: 'stateless' });
const server = createServer(toNodeHandler(handler));
server.listen(port, '127.0.0.1', () => {
  process.stderr.write(`serving MCP on http://127.0.0.1:${server.address().port}/mcp\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
