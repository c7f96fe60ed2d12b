import { execFileSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLog } from '../../src/log.js';
import { createAuditTrail } from '../../src/observe/audit.js';
import { fencedBlocks } from '../docs/markdown.js';
import { DOC_TRAIL_PATH, EXAMPLE_STATE_SECRET } from '../docs/operations-example.js';
import { memorySink } from '../observe/audit-support.js';
import { budgeted, limitedServer } from './allowance-support.js';

/**
 * The session docs/safety.md shows (a person meets the daily spend limit), made again through the
 * server with the test's clock and compared line by line; and the jq query docs/operations.md gives
 * for "what did user X commit today, against their limit", run through bash as written on that
 * session's audit trail, printing what the document says it prints.
 */

const SAFETY = 'docs/safety.md';
const OPERATIONS = 'docs/operations.md';
const THIS_TEST = 'test/gate/allowance-docs.test.ts';

const hasJq = (process.env.PATH ?? '').split(delimiter).some((dir) => {
  try {
    accessSync(join(dir, 'jq'), constants.X_OK);
    return true;
  } catch {
    return false;
  }
});
if (!hasJq && process.env.REQUIRE_JQ_TESTS) throw new Error('REQUIRE_JQ_TESTS is set, but jq is not installed (Debian: apt-get install jq).');

/** The one block of `file` of `lang` that names this test. */
function block(file: string, lang: string): string {
  const found = fencedBlocks(file).filter((each) => each.testedBy === THIS_TEST && each.lang === lang);
  expect(found, `${file}: one ${lang} block tested by ${THIS_TEST}`).toHaveLength(1);
  return found[0]!.text;
}

describe('the daily limit as the documents show it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'allowance-docs-'));
  const transcript: string[] = [];
  const trailFile = join(dir, 'audit.jsonl');
  let day = '';

  beforeAll(async () => {
    const trail = memorySink();
    const time = { t: 0 };
    const audit = createAuditTrail({ sink: trail.sink, now: () => time.t, redact: (text) => text, log: silentLog });
    // The documents' user id: the sandbox's demo credential under the example state secret.
    const server = await limitedServer({ spendLimitDailyMicros: 30_000_000, sandbox: true }, { audit, stateSecret: EXAMPLE_STATE_SECRET });
    try {
      const owner = await server.user();
      const call = async (tool: string, args: Record<string, unknown>, only?: RegExp) => {
        time.t = server.time.t;
        const { text } = await owner.call(tool, args);
        transcript.push(`→ ${tool} ${JSON.stringify(args)}`, ...(only ? ['…', ...text.split('\n').filter((line) => only.test(line))] : [text]), '');
      };
      const spring = budgeted('Spring launch', 25);
      await call('create_ad_campaign', spring);
      server.time.t += 60_000;
      await call('create_ad_campaign', { ...spring, confirm: true });
      server.time.t += 14 * 60_000;
      await call('create_ad_campaign', budgeted('Summer sale', 10));
      await call('check_connection', {}, /^Daily limits/);
      day = new Date(server.time.t).toISOString().slice(0, 10);
    } finally {
      await server.close();
    }
    // A fragment a full disk tore (docs/operations.md): the query reads past it.
    writeFileSync(trailFile, [trail.lines[0], '{"v":1,"time":"2026-11-25T20:31:00.000Z","step":"reser\n', ...trail.lines.slice(1)].join(''));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(`is the session ${SAFETY} shows, line for line`, () => {
    expect(block(SAFETY, 'text')).toBe(transcript.join('\n').trimEnd());
  });

  it.skipIf(!hasJq)(`answers with what ${OPERATIONS} says, from the audit trail alone`, () => {
    const command = block(OPERATIONS, 'sh');
    expect(command).toMatch(/^jq -nR --arg user 55183c0008cf9e31d8458f7b3fed17fb --arg day "\$\(date -u \+%F\)" '\n\[inputs \| fromjson\?\] \| /);
    expect(command).toContain(DOC_TRAIL_PATH);
    const run = command.replace('"$(date -u +%F)"', day).replace(DOC_TRAIL_PATH, trailFile);
    const answer: unknown = JSON.parse(execFileSync('bash', ['-c', run], { encoding: 'utf8' }));
    expect(answer).toEqual(JSON.parse(block(OPERATIONS, 'json')));
    expect(answer).toMatchObject({ micros: { limit: 30_000_000, committed: 25_000_000, left: 5_000_000 }, refused_over_limit: 1 });
  });
});
