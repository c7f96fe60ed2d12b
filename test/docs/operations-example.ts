import { testedBlocks } from './markdown.js';

/**
 * The audit trail as docs/operations.md and README.md show it: the three lines of a real trail and
 * the jq query, read from the documents themselves, and what the example trail was written with.
 */

/** The documents that show the example trail and the query; both must show the same. */
export const AUDIT_DOCS = ['docs/operations.md', 'README.md'] as const;
/** Where the documents put the trail; tests write theirs elsewhere. */
export const DOC_TRAIL_PATH = '/var/log/app-management-mcp/audit.jsonl';
/**
 * The APPMGMT_STATE_SECRET the documented trail was written with. The user id is a keyed hash of
 * the caller's credential, so with this secret the sandbox's demo credential is the user the
 * documents show, and a test can write the very same lines again.
 */
export const EXAMPLE_STATE_SECRET = 'docs-example-state-secret-5c1e9a47b2d08f63';
/** The call of the documented trail (only its digest is in the lines; the name is not). */
export const EXAMPLE_CAMPAIGN = {
  app_id: 'app_demo',
  campaign_name: 'Spring launch',
  campaign_type: 'SMART',
  daily_budget_micros: 25_000_000,
  landing_page: 'https://demo-planner.sandbox.test/',
};

/** The lines of the one `jsonl` block of `file`. */
export function exampleTrail(file: string): string[] {
  const blocks = testedBlocks(file, (block) => block.lang === 'jsonl');
  if (blocks.length !== 1) throw new Error(`${file} has ${blocks.length} jsonl blocks, not one`);
  return blocks[0]!.text.split('\n').filter((line) => line.trim());
}

/** The one shell block of `file` that runs jq over the trail for what was spent, whole: its query spans lines inside quotes. */
export function spentTodayCommand(file: string): string {
  const commands = testedBlocks(file, (block) => block.lang === 'sh' && /^jq /.test(block.text) && block.testedBy === 'test/observe/audit-jq.test.ts');
  if (commands.length !== 1) throw new Error(`${file} has ${commands.length} jq commands, not one`);
  return commands[0]!.text.trim();
}
