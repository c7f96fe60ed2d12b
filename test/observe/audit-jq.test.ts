import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { testedBlocks } from '../docs/markdown.js';
import { AUDIT_DOCS, DOC_TRAIL_PATH, EXAMPLE_STATE_SECRET, exampleTrail, spentTodayCommand } from '../docs/operations-example.js';
import { connectHttp, startHttp } from '../http/harness.js';
import { campaign, parseTrail } from './audit-support.js';
import { hasJq } from '../jq.js';

/**
 * The jq command docs/operations.md and README.md give for "what did user X spend today", read from
 * the documents and run through bash as written, with only the trail's path swapped for a test's
 * file: on a real trail the built server writes for two users, and on the documents' own three
 * lines. Skipped where jq is not installed, unless REQUIRE_JQ_TESTS is set.
 */

const DOC = AUDIT_DOCS[0];
/** How the command names today; only the run on the documents' own (older) lines swaps it for their day. */
const TODAY = '"$(date -u +%F)"';


interface Answer {
  spends: Array<Record<string, unknown>>;
  daily_budget_micros: Record<string, number>;
}

/** Runs the documented command through bash on `trail` instead of the documented path. */
function runCommand(command: string, trail: string): Answer {
  expect(command).toContain(DOC_TRAIL_PATH);
  return JSON.parse(execFileSync('bash', ['-c', command.replace(DOC_TRAIL_PATH, trail)], { encoding: 'utf8' })) as Answer;
}

const utcDay = () => new Date().toISOString().slice(0, 10);

describe('the documented jq command', () => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-jq-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is the same in README.md as in docs/operations.md, and asks for today (UTC) of the user the example lines show', () => {
    const [operations, readme] = AUDIT_DOCS.map(spentTodayCommand);
    expect(readme).toBe(operations);
    expect(operations).toMatch(/^jq -nR --arg user [0-9a-f]{32} --arg day "\$\(date -u \+%F\)" '\n\[inputs \| fromjson\?\] \| /);
    const [first] = parseTrail(exampleTrail(DOC).join('\n'));
    expect(operations).toContain(`--arg user ${first!.user} `);
  });

  it.skipIf(!hasJq)("answers what one user spent today on a real trail, and nothing of another user's", async ({ skip }) => {
    const trail = join(dir, 'audit.jsonl');
    const day = utcDay();
    // The secret the documents' trail was written with: the sandbox's demo credential is then their user.
    const server = await startHttp(['--sandbox'], { APPMGMT_AUDIT_LOG: trail, APPMGMT_STATE_SECRET: EXAMPLE_STATE_SECRET });
    try {
      const owner = await connectHttp(server.mcp, '2025-11-25'); // the sandbox's demo credentials
      const admin = await connectHttp(server.mcp, '2025-11-25', { headers: { authorization: 'Bearer pat_demo_admin' } });
      for (const [client, name, micros] of [
        [owner, 'Jq spring', 5_000_000],
        [owner, 'Jq summer', 7_500_000],
        [admin, 'Jq other', 3_000_000],
      ] as const) {
        await client.callTool('create_ad_campaign', campaign(name, micros));
        expect((await client.callTool('create_ad_campaign', { ...campaign(name, micros), confirm: true })).isError).toBe(false);
      }
      await owner.close();
      await admin.close();
    } finally {
      await server.stop();
    }

    const answer = runCommand(spentTodayCommand(DOC), trail);
    if (utcDay() !== day) skip('the UTC day changed while the trail was written; "today" is another day now');
    expect(answer.spends.map(({ tool, app, amount_micros, outcome }) => ({ tool, app, amount_micros, outcome }))).toEqual([
      { tool: 'create_ad_campaign', app: 'app_demo', amount_micros: 5_000_000, outcome: 'success' },
      { tool: 'create_ad_campaign', app: 'app_demo', amount_micros: 7_500_000, outcome: 'success' },
    ]);
    expect(answer.daily_budget_micros).toEqual({ success: 12_500_000 });
    // The other user's spend is in the trail, under another id.
    const lines = parseTrail(readFileSync(trail, 'utf8'));
    expect(new Set(lines.filter((line) => line.step === 'sent').map((line) => line.user)).size).toBe(2);
  }, 60_000);

  it.skipIf(!hasJq)('prints what docs/operations.md says it prints on the three lines it shows', () => {
    const shown = exampleTrail(DOC);
    const trail = join(dir, 'example.jsonl');
    writeFileSync(trail, `${shown.join('\n')}\n`);
    const command = spentTodayCommand(DOC);
    expect(command).toContain(TODAY);
    const answer = runCommand(command.replace(TODAY, parseTrail(shown.join('\n'))[0]!.time.slice(0, 10)), trail);
    const printed = testedBlocks(DOC, (block) => block.lang === 'json' && block.testedBy === 'test/observe/audit-jq.test.ts');
    expect(printed).toHaveLength(1);
    expect(answer).toEqual(JSON.parse(printed[0]!.text));
  });

  it.skipIf(!hasJq)('counts a spend whose answer never came as unknown, as the documents say', () => {
    // The documents' own lines, and a second call cut off after its `sent` line (a crash, a lost connection).
    const shown = parseTrail(exampleTrail(DOC).join('\n'));
    const cut = { call: '00000000-0000-4000-8000-000000000001', amount_micros: 7_000_000 };
    const unanswered = shown.filter((line) => line.step !== 'answered').map((line) => JSON.stringify({ ...line, ...cut }));
    const trail = join(dir, 'unanswered.jsonl');
    writeFileSync(trail, `${[...exampleTrail(DOC), ...unanswered].join('\n')}\n`);
    const answer = runCommand(spentTodayCommand(DOC).replace(TODAY, shown[0]!.time.slice(0, 10)), trail);
    expect(answer.spends.map(({ amount_micros, outcome }) => ({ amount_micros, outcome }))).toEqual([
      { amount_micros: shown[0]!.amount_micros, outcome: 'success' },
      { amount_micros: 7_000_000, outcome: 'unknown' },
    ]);
    expect(answer.daily_budget_micros).toEqual({ success: shown[0]!.amount_micros, unknown: 7_000_000 });
  });
});
