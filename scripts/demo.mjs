// `npm run demo`: a scripted MCP client session against the sandbox, printing what the model sees.
// It starts the simulated API on its own (so the demo can move its clock), then the MCP server over
// stdio pointed at it, and calls every tool: both confirmation steps and a few failures included.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const bold = (text) => (process.stdout.isTTY ? `\x1b[1m${text}\x1b[0m` : text);

const sandbox = spawn(process.execPath, [bin, 'sandbox', '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
const env = await readSandboxSettings(sandbox);
const transport = new StdioClientTransport({ command: process.execPath, args: [bin], env: { ...env, APPMGMT_LOG_LEVEL: 'warn' } });
const client = new Client({ name: 'demo', version: '1.0.0' });

try {
  await client.connect(transport);
  const { tools } = await client.listTools();
  console.log(bold(`Connected. ${tools.length} tools: ${tools.map((t) => t.name).join(', ')}\n`));

  await step('A paid workspace customizes an email', 'customize_app_email', { app_id: 'app_demo', email_type: 'password_reset' });
  await step('Asking again returns the same template', 'customize_app_email', { app_id: 'app_demo', email_type: 'password_reset' });
  await step('An app these credentials cannot see (404)', 'customize_app_email', { app_id: 'app_elsewhere', email_type: 'password_reset' });

  const campaign = {
    app_id: 'app_demo',
    campaign_name: 'Winter launch',
    campaign_type: 'SMART',
    daily_budget_micros: 15_000_000,
    landing_page: 'https://shop.example.com/winter',
    keyword_themes: ['handmade mugs', 'ceramic gifts'],
    geo_targets: ['2840'],
    headlines: ['Handmade mugs', 'Ceramic gifts', 'Free shipping'],
    descriptions: ['Mugs thrown by hand in small batches.', 'Order by Friday for delivery next week.'],
  };
  await step('Campaign creation, first call: a cost warning, nothing sent', 'create_ad_campaign', campaign);
  await step('Second call with confirm: true and the same arguments: created', 'create_ad_campaign', { ...campaign, confirm: true });
  await step('Confirming again sends nothing: a new warning is needed', 'create_ad_campaign', { ...campaign, confirm: true });
  await step('A local check fails before anything is sent', 'create_ad_campaign', { ...campaign, campaign_type: 'PERFORMANCE_MAX' });

  await step('Suggestions for a running campaign', 'list_campaign_suggestions', { app_id: 'app_demo', campaign_id: 'cmp_demo' });
  await step('Share with groups (one already shared)', 'share_app_with_groups', { app_id: 'app_demo', group_ids: ['grp_design', 'grp_sales', 'grp_support'], role: 'editor' });

  await step('A scheduling job that is still pending', 'get_scheduling_job', { app_id: 'app_demo', job_id: 'job_running' });
  await control('advance', { ms: 60_000 });
  console.log(bold('(the sandbox clock moves on one minute)\n'));
  await step('The same job, finished', 'get_scheduling_job', { app_id: 'app_demo', job_id: 'job_running' });
  await step('A job that failed', 'get_scheduling_job', { app_id: 'app_demo', job_id: 'job_failed' });

  await step('Conflict resolution, first call: the credit warning', 'resolve_repo_conflicts', { app_id: 'app_demo' });
  await step('Confirmed: the AI run resolves the conflicts', 'resolve_repo_conflicts', { app_id: 'app_demo', confirm: true });
  await step('Push to the repository', 'push_app_to_repo', { app_id: 'app_demo' });
  await step('Push with no repository-host installation: skipped', 'push_app_to_repo', { app_id: 'app_crm' });
  await step('Push over a revoked connection: failed', 'push_app_to_repo', { app_id: 'app_wiki' });

  await step('Workspace analytics (owner key)', 'get_workspace_analytics', { workspace_id: 'ws_demo' });
  await step('A workspace this key may not read (401)', 'get_workspace_analytics', { workspace_id: 'ws_free' });
} finally {
  await client.close();
  sandbox.kill();
}

async function step(title, name, args) {
  console.log(bold(`── ${title}`));
  console.log(`> ${name} ${JSON.stringify(args)}`);
  const result = await client.callTool({ name, arguments: args });
  const text = result.content.map((part) => part.text ?? '').join('\n');
  console.log(`${result.isError ? '[isError] ' : ''}${text}`);
  if (result.structuredContent) console.log(`structuredContent: ${JSON.stringify(result.structuredContent)}`);
  console.log();
}

async function control(action, body) {
  const response = await fetch(`${env.APPMGMT_BASE_URL}/_sandbox/${action}`, { method: 'POST', body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`sandbox control ${action} answered ${response.status}`);
}

/** The standalone sandbox prints its URL and demo credentials on stderr as NAME=value lines. */
async function readSandboxSettings(child) {
  let text = '';
  child.stderr.setEncoding('utf8');
  for await (const chunk of child.stderr) {
    text += chunk;
    if (text.includes('APPMGMT_MONITORING_API_KEY=') && text.includes('\n', text.indexOf('APPMGMT_MONITORING_API_KEY='))) break;
  }
  const settings = Object.fromEntries([...text.matchAll(/^\s*(APPMGMT_[A-Z_]+)=(\S+)$/gm)].map((m) => [m[1], m[2]]));
  if (!settings.APPMGMT_BASE_URL) {
    child.kill();
    await once(child, 'exit');
    throw new Error(`the sandbox did not start:\n${text}`);
  }
  return settings;
}
