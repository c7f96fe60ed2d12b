import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gateScope } from '../../src/gate/key.js';
import { silentLog } from '../../src/log.js';
import { auditUser, createAuditTrail } from '../../src/observe/audit.js';
import { testedBlocks } from '../docs/markdown.js';
import { DOC_TRAIL_PATH, EXAMPLE_STATE_SECRET } from '../docs/operations-example.js';
import { memorySink } from '../observe/audit-support.js';
import { ADMIN, budgeted, limitedServer, warnAndConfirm } from './allowance-support.js';
import { hasJq } from '../jq.js';

/**
 * The session docs/safety.md shows (a person meets the daily spend limit), made again through the
 * server with the test's clock and compared line by line; and the jq query docs/operations.md gives
 * for "what did user X commit today, against their limit", run through bash as written on that
 * session's audit trail, printing what the document says it prints.
 */

const SAFETY = 'docs/safety.md';
const OPERATIONS = 'docs/operations.md';
const THIS_TEST = 'test/gate/allowance-docs.test.ts';


/** The one block of `file` of `lang` that names this test. */
function block(file: string, lang: string): string {
  const found = testedBlocks(file, (each) => each.testedBy === THIS_TEST && each.lang === lang);
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

describe.skipIf(!hasJq)(`the query of ${OPERATIONS} with OAuth`, () => {
  it("counts every connection of a person together: each grant's calls and their header-mode calls, never another person's", async () => {
    const trail = memorySink();
    const clock = { t: 0 };
    const audit = createAuditTrail({ sink: trail.sink, now: () => clock.t, redact: (text) => text, log: silentLog });
    const server = await limitedServer({ spendLimitDailyMicros: 100_000_000 }, { audit, stateSecret: EXAMPLE_STATE_SECRET });
    const dir = mkdtempSync(join(tmpdir(), 'allowance-docs-oauth-'));
    try {
      const grant = (id: string, spendLimitMicros?: number) => ({ grant: { id: id.repeat(32), bound: { readOnly: false, ...(spendLimitMicros ? { spendLimitMicros } : {}) } } });
      const spend = async (client: Awaited<ReturnType<typeof server.user>>, name: string, units: number) => {
        clock.t = server.time.t;
        return (await warnAndConfirm(client, 'create_ad_campaign', budgeted(name, units))).outcome;
      };
      const first = await server.user(undefined, grant('a', 12_000_000));
      await spend(first, 'First connection', 10);
      expect((await spend(first, 'Over its own limit', 5)).text).toMatch(/^REFUSED: over the daily spending limit chosen for this connection/);
      await spend(await server.user(undefined, grant('b')), 'Second connection', 5);
      await spend(await server.user(), 'By header', 3);
      await spend(await server.user(ADMIN, grant('c')), 'Another person', 7);
      const file = join(dir, 'audit.jsonl');
      writeFileSync(file, trail.lines.join(''));
      const person = auditUser(gateScope(EXAMPLE_STATE_SECRET, server.sandbox.simulation.credentials.accessToken));
      const day = new Date(server.time.t).toISOString().slice(0, 10);
      const run = block(OPERATIONS, 'sh').replace('55183c0008cf9e31d8458f7b3fed17fb', person).replace('"$(date -u +%F)"', day).replace(DOC_TRAIL_PATH, file);
      const answer = JSON.parse(execFileSync('bash', ['-c', run], { encoding: 'utf8' })) as { micros: { limit: number; committed: number; left: number; calls: Array<{ counted: number }> }; refused_over_limit: number };
      expect(answer.micros).toMatchObject({ limit: 100_000_000, committed: 18_000_000, left: 82_000_000 });
      expect(answer.micros.calls.map((call) => call.counted)).toEqual([10_000_000, 5_000_000, 3_000_000]);
      expect(answer.refused_over_limit).toBe(1);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
