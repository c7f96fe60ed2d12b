import fc from 'fast-check';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../src/cli.js';
import { closest, editsWithin, loadConfig } from '../../src/config.js';
import { silentLog } from '../../src/log.js';
import { docFigures } from '../docs/markdown.js';
import { offlineConfig } from '../helpers.js';
import { createServer } from '../../src/server.js';

/**
 * Issue 25, item 1 (STYLE habit 14): what the server does with a caller's argument names before it
 * looks at any credential costs time in proportion to the request's size, for any argument object
 * up to the HTTP body limit. The names are cut before they are compared, only the first few get a
 * did-you-mean, and the edit distance is banded with an early exit.
 */

const MIB = 1024 * 1024;
/** docs/safety.md's figures for what a request brings, read from it so the doc and these tests cannot drift. */
const [MAX_ENTRIES, MAX_NAME_CHARS, SUGGESTED, MAX_PROBLEMS, MAX_QUOTED_CHARS] = docFigures(
  'docs/safety.md',
  /a request whose params hold more than ([\d,]+) names and list items in all is refused at once \(`Invalid params`; the largest valid call holds about 500\), an unknown argument name is cut to (\d+) characters before it is compared with the known ones or shown, only the first (\w+) get a "did you mean", past (\w+) problems the rest are counted, and an error answer quotes at most (\d+) characters of anything a client sent\./,
) as [number, number, number, number, number];
/** CPU one call may take, whatever its arguments (it took 1,200 ms for 60,000 short names, 570 ms for one of 1 MB). */
const CPU_BUDGET_MS = 150;

/** An argument object of `count` names, each `length` characters of `unit`, up to the body limit as JSON. */
const argumentObjects = fc
  .record({
    count: fc.oneof(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 70_000 })),
    length: fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: MIB })),
    unit: fc.constantFrom('x', 'app_id', 'campaign_id', 'é', '\u200b', 'A_b-C.', '\u{1f600}'),
    value: fc.constantFrom<unknown>(1, 'v', null, { nested: true }, [1, 2]),
  })
  .filter(({ count, length }) => count * (length + 12) <= MIB)
  .map(({ count, length, unit, value }) => {
    const stem = unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
    return Object.fromEntries(Array.from({ length: count }, (_, i) => [`${stem}${i}`, value]));
  });

const cpuMs = (since: NodeJS.CpuUsage) => {
  const { user, system } = process.cpuUsage(since);
  return (user + system) / 1000;
};

describe('argument names before credentials', () => {
  let client: Client;
  let close: () => Promise<void>;

  beforeAll(async () => {
    // No credentials at all, as an HTTP request without them; nothing may be sent anywhere.
    const config = offlineConfig({ http: { allowedHosts: [], allowedOrigins: [], maxBodyBytes: MIB } });
    const server = createServer({ config, log: silentLog });
    client = new Client({ name: 'argument-cost-test', version: '1.0.0' });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
    close = async () => {
      await client.close();
      await server.close();
    };
  });
  afterAll(() => close());

  it(`answers any argument object up to ${MIB} bytes within ${CPU_BUDGET_MS} ms of CPU, without echoing a long name`, async () => {
    await client.callTool({ name: 'create_ad_campaign', arguments: { warm: 1 } });
    await fc.assert(
      fc.asyncProperty(argumentObjects, fc.constantFrom('list_ad_campaigns', 'create_ad_campaign', 'delete_email_template'), async (args, tool) => {
        const started = process.cpuUsage();
        const outcome = await client.callTool({ name: tool, arguments: args }).then(
          (result) => ((result.content ?? []) as Array<{ text?: string }>).map((part) => part.text ?? '').join('\n'),
          (error: unknown) => String(error),
        );
        expect(cpuMs(started)).toBeLessThan(CPU_BUDGET_MS);
        expect(outcome).toMatch(/Invalid arguments for \w+; nothing was sent\.|holds more than \d+ names and list items/);
        expect(outcome.length).toBeLessThan(4_000);
      }),
      {
        numRuns: 40,
        // The three shapes, always among the runs.
        examples: [
          [{ ['k'.repeat(1_000_000)]: 1 }, 'list_ad_campaigns'],
          [Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`${i}`.padEnd(100_000, 'x'), 1])), 'create_ad_campaign'],
          [Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`k${i}`, 1])), 'delete_email_template'],
          [Object.fromEntries(Array.from({ length: 1_900 }, (_, i) => [`app_id${i}`, 1])), 'create_ad_campaign'],
        ],
      },
    );
  });

  it(`suggests an argument for the first ${SUGGESTED} unknown names only, and counts the rest past ${MAX_PROBLEMS} problems`, async () => {
    const args = { app_id: 'app_demo', campaignid: 1, app_idd: 2, appid: 3, campaign_idx: 4, ...Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`extra_${i}`, i])) };
    const result = await client.callTool({ name: 'get_ad_campaign', arguments: args });
    const text = ((result.content ?? []) as Array<{ text?: string }>)[0]?.text ?? '';
    expect(text.match(/did you mean/g)).toHaveLength(SUGGESTED);
    expect(text).toContain('- campaignid: not an argument of this tool (did you mean campaign_id?)');
    expect(text).toContain('- campaign_idx: not an argument of this tool; its arguments are');
    // 14 unknown names and the missing campaign_id: the first MAX_PROBLEMS shown, the rest counted.
    expect(text.match(/^- (?!and )/gm)).toHaveLength(MAX_PROBLEMS);
    expect(text).toContain(`- and ${15 - MAX_PROBLEMS} more`);
  });

  it(`cuts an unknown name to ${MAX_NAME_CHARS} characters before comparing or showing it`, async () => {
    const result = await client.callTool({ name: 'get_ad_campaign', arguments: { app_id: 'app_demo', campaign_id: 'cmp_1', [`campaign_id${'x'.repeat(MIB / 2)}`]: 1 } });
    const text = ((result.content ?? []) as Array<{ text?: string }>)[0]?.text ?? '';
    const shown = /^- (campaign_idx+\u2026): not an argument of this tool \(did you mean campaign_id\?\)/m.exec(text)?.[1];
    // Cut to MAX_NAME_CHARS for the comparison, and shown in a few characters less.
    expect(shown!.length).toBeGreaterThan(40);
    expect(shown!.length).toBeLessThanOrEqual(MAX_NAME_CHARS);
    expect(text.length).toBeLessThan(1_000);
  });

  it(`refuses a request of more than ${MAX_ENTRIES} names and list items before reading it further`, async () => {
    // params holds `name` and `arguments`, and the argument names.
    const withNames = (count: number) => client.callTool({ name: 'get_ad_campaign', arguments: Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 1])) });
    const atTheLimit = (await withNames(MAX_ENTRIES - 2)) as { content: Array<{ text: string }> };
    expect(atTheLimit.content[0]!.text).toContain('Invalid arguments for get_ad_campaign');
    await expect(withNames(MAX_ENTRIES - 1)).rejects.toThrow(`Invalid params: this request holds more than ${MAX_ENTRIES} names and list items`);
  });

  it(`quotes at most ${MAX_QUOTED_CHARS} characters of what a client sent in an error answer`, async () => {
    const error = await client.getPrompt({ name: `no_such_prompt_${'p'.repeat(10_000)}` }).catch((caught: unknown) => caught as Error);
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toMatch(/no_such_prompt_p+\u2026/);
    // The server's message, without the prefix the client puts before it, is the cut: that many characters in all.
    expect(message.replace(/^MCP error -?\d+: /, '')).toHaveLength(MAX_QUOTED_CHARS);
  });
});

describe('the banded edit distance', () => {
  /** The full Levenshtein distance, as a reference. */
  function reference(a: string, b: string): number {
    let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const current = [i];
      for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
    return previous[b.length]!;
  }

  it('agrees with the full distance wherever that is within the bound, and says undefined beyond it', () => {
    const word = fc.string({ maxLength: 12, unit: fc.constantFrom('a', 'b', 'c', '_') });
    fc.assert(
      fc.property(word, word, fc.integer({ min: 0, max: 4 }), (a, b, max) => {
        const full = reference(a, b);
        expect(editsWithin(a, b, max)).toBe(full <= max ? full : undefined);
      }),
      { numRuns: 2_000 },
    );
  });

  it('costs time in the bound times the length, never the length squared: words of 100,000 characters', () => {
    const a = 'a'.repeat(100_000);
    const started = process.cpuUsage();
    expect(editsWithin(a, `${a.slice(1)}b`, 2)).toBe(1);
    expect(editsWithin(a, `b${a.slice(2)}b`, 2)).toBe(2);
    expect(editsWithin(a, 'b'.repeat(100_000), 2)).toBeUndefined();
    expect(closest(a, ['app_id', 'campaign_id'], 2)).toBeUndefined();
    expect(cpuMs(started)).toBeLessThan(CPU_BUDGET_MS);
  });

  it('bounds the command line and the environment too: a megabyte flag, and a megabyte variable name', () => {
    const huge = `--${'x'.repeat(MIB)}`;
    let started = process.cpuUsage();
    expect(() => parseCommandLine([huge])).toThrow(/^Unknown flag "--x{100,200}\u2026"; the flags are/);
    expect(cpuMs(started)).toBeLessThan(CPU_BUDGET_MS);
    started = process.cpuUsage();
    expect(() => loadConfig({ [`APPMGMT_${'X'.repeat(MIB)}`]: '1' })).toThrow(/^Unknown variable APPMGMT_X{50,60}\u2026; did you mean APPMGMT_\w+\?$/);
    expect(cpuMs(started)).toBeLessThan(CPU_BUDGET_MS);
  });
});
