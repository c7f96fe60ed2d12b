// A minimal MCP client over stdio: starts the server, lists its tools and calls one.
//   node examples/stdio-client.mjs              # against the built-in sandbox (no account needed)
//   APPMGMT_BASE_URL=… APPMGMT_API_KEY=… node examples/stdio-client.mjs --live
// Run it from a clone of this repository (it uses the SDK from its node_modules) after `npm ci && npm run build`.
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const live = process.argv.includes('--live');
const serverPath = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const settings = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('APPMGMT_')));

const transport = new StdioClientTransport({
  command: process.execPath, // the same Node that runs this script
  args: live ? [serverPath] : [serverPath, '--sandbox'],
  // The SDK gives the server only a safe default environment (PATH, HOME, …): pass the settings.
  env: settings,
});
const client = new Client({ name: 'stdio-client-example', version: '1.0.0' });

await client.connect(transport);
try {
  const { tools } = await client.listTools();
  console.log(`tools: ${tools.map((tool) => tool.name).join(', ')}`);

  const result = await client.callTool({
    name: 'get_scheduling_job',
    arguments: { app_id: process.env.EXAMPLE_APP_ID ?? 'app_demo', job_id: process.env.EXAMPLE_JOB_ID ?? 'job_empty' },
  });
  for (const part of result.content) if (part.type === 'text') console.log(part.text);
  if (result.structuredContent) console.log(JSON.stringify(result.structuredContent));
  process.exitCode = result.isError ? 1 : 0;
} finally {
  await client.close();
}
