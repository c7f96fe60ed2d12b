// `npm run demo`: a scripted MCP client session against the sandbox, printing what the model sees.
// It starts the MCP server over stdio with --sandbox (the simulated service inside it, demo
// credentials, every result marked [sandbox]) and walks two whole workflows the way a model would,
// reading every id from an earlier result: repository sync with a conflict the AI asks about (pull,
// resolve, answer in the chat, pull again, push) and campaign care (list, suggestions, apply a budget
// recommendation, pause, resume, delete). Both confirmation steps of every costly call are shown,
// and a few refusals. The audit trail of the costly calls goes to a file, named at the end.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const bold = (text) => (process.stdout.isTTY ? `\x1b[1m${text}\x1b[0m` : text);

const audit = join(mkdtempSync(join(tmpdir(), 'app-management-mcp-demo-')), 'audit.jsonl');
const transport = new StdioClientTransport({ command: process.execPath, args: [bin, '--sandbox'], env: { APPMGMT_LOG_LEVEL: 'warn', APPMGMT_AUDIT_LOG: audit } });
const client = new Client({ name: 'demo', version: '1.0.0' });

try {
  await client.connect(transport);
  const { tools } = await client.listTools();
  console.log(bold(`Connected. ${tools.length} tools.\n`));
  await step('Start here: is the service there, and what is set up?', 'check_connection', {});
  const app = 'app_demo'; // the user names the app; check_connection listed it

  console.log(bold('═══ Workflow: bring the app and its repository in step\n'));
  await step('Pull the repository into the app', 'pull_repo_changes', { app_id: app });
  await confirmed('The pull found a merge conflict: resolve it with an AI run (credits)', 'resolve_repo_conflicts', { app_id: app });
  const conversation = await step('The run needs an answer: read the chat', 'read_app_conversation', { app_id: app });
  console.log(bold(`(the model shows the question to the user, who answers)\n`));
  await confirmed('Answer the question in the chat (a builder turn: credits)', 'send_app_chat_message', {
    app_id: app,
    content: conversation.waiting ? 'Keep the weekly view from the repository and the colours from the app.' : 'Please continue.',
  });
  await step('Pull again: with the question answered, the merge finishes (free)', 'pull_repo_changes', { app_id: app });
  await step('Push the saved work', 'push_app_to_repo', { app_id: app });

  console.log(bold('═══ Workflow: look after the ad campaigns\n'));
  const listed = await step('List the campaigns (ids come from here)', 'list_ad_campaigns', { app_id: app });
  const campaign = listed.structured.campaigns.find((row) => row.status === 'ENABLED').campaign_id;
  const suggestions = await step('Suggestions for the active campaign with the most spend, as the list suggests', 'list_campaign_suggestions', { app_id: app, campaign_id: campaign });
  const budget = [...suggestions.structured.high, ...suggestions.structured.medium, ...suggestions.structured.low].find(
    (row) => row.recommendation_type === 'CAMPAIGN_BUDGET' && row.recommendation_resource_name,
  );
  await confirmed('Apply the ad platform\'s budget recommendation (money)', 'apply_budget_recommendation', {
    app_id: app,
    campaign_id: campaign,
    recommendation_resource_name: budget.recommendation_resource_name,
    recommended_daily_budget_micros: budget.recommended_daily_budget_micros,
  });
  await step('The campaign now has the new budget', 'get_ad_campaign', { app_id: app, campaign_id: campaign });
  await step('Pause it: stops spend, no confirmation needed', 'pause_ad_campaign', { app_id: app, campaign_id: campaign });
  await confirmed('Resume it (money)', 'resume_ad_campaign', { app_id: app, campaign_id: campaign });
  await confirmed('Delete it for good (permanent)', 'delete_ad_campaign', { app_id: app, campaign_id: campaign });
  await step('It stays listed, as REMOVED', 'list_ad_campaigns', { app_id: app });

  console.log(bold('═══ A few refusals\n'));
  await step('confirm: true without a warning sends nothing', 'delete_email_template', { app_id: app, template_id: 'tpl_seed_digest', confirm: true });
  await step('An app these credentials cannot see (404)', 'customize_app_email', { app_id: 'app_elsewhere', email_type: 'password_reset' });
  await step('A local check fails before anything is sent', 'create_ad_campaign', {
    app_id: app,
    campaign_name: 'Winter',
    campaign_type: 'PERFORMANCE_MAX',
    daily_budget_micros: 15_000_000,
    landing_page: 'https://shop.example.com/winter',
  });
} finally {
  await client.close();
}
const steps = readFileSync(audit, 'utf8').split('\n').filter(Boolean).length;
console.log(bold(`The audit trail of this session: ${steps} lines (one per step of each costly call) in ${audit}`));

/** One call, printed as the model sees it; returns the structured content and whether the AI waits. */
async function step(title, name, args) {
  console.log(bold(`── ${title}`));
  console.log(`> ${name} ${JSON.stringify(args)}`);
  const result = await client.callTool({ name, arguments: args });
  const text = result.content.map((part) => part.text ?? '').join('\n');
  console.log(`${result.isError ? '[isError] ' : ''}${text}`);
  if (result.structuredContent) console.log(`structuredContent: ${JSON.stringify(result.structuredContent)}`);
  console.log();
  return { structured: result.structuredContent ?? {}, waiting: /waiting/i.test(text) };
}

/** Both steps of a costly call: the warning (nothing sent), then the confirmed call the user agreed to. */
async function confirmed(title, name, args) {
  await step(`${title}: first call, a warning`, name, args);
  console.log(bold('(the user agrees)\n'));
  return step(`${title}: confirmed`, name, { ...args, confirm: true });
}
