import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUpstream, type Upstream } from '../api/upstream.js';
import { docFigures } from '../docs/markdown.js';
import { rssMiB, startRaw } from '../process.js';

// The built server as a client runs it, for what only a real process shows: exit, memory, stdout.

const call = (name: string, args: Record<string, unknown>) => ({ name, arguments: args });
const textOf = (answer: { result?: Record<string, unknown> }) =>
  ((answer.result?.content as Array<{ text: string }> | undefined) ?? []).map((part) => part.text).join('\n');

/** docs/safety.md's figures for the load below, read from it so the test and the doc say the same. */
const [WARNINGS, ARGUMENT_KIB, MAX_RSS_MIB] = docFigures('docs/safety.md', /([\d,]+) warnings with (\d+) KiB of arguments each leave the server under (\d+) MiB and answering \(`test\/safety\/process\.test\.ts`\)/) as [number, number, number];
const BATCH = 50;

describe('the server process', () => {
  let upstream: Upstream;
  let env: Record<string, string>;
  beforeAll(async () => {
    upstream = await startUpstream();
    env = { APPMGMT_BASE_URL: upstream.url, APPMGMT_ACCESS_TOKEN: 'token-abcdef', APPMGMT_API_KEY: 'key-abcdef', APPMGMT_LOG_LEVEL: 'error' };
  });
  afterAll(() => upstream.close());

  /**
   * Closes stdin while `answer` waits, and returns its text once the process has exited. Promptly
   * means the wait was cut short, not outlived: the grace stdin's end gives calls in flight
   * (SHUTDOWN_GRACE_MS) never ran out, which the server logs when it does. That holds however slow
   * a loaded machine is, where a bound on wall-clock time would not.
   */
  async function closeMidWait(server: Awaited<ReturnType<typeof startRaw>>, answer: Promise<{ result?: Record<string, unknown> }>): Promise<string> {
    while (upstream.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    server.child.stdin?.end();
    const settled = await Promise.race([answer, server.exited.then(() => undefined)]);
    expect(settled, 'the call answered before the process exited').toBeDefined();
    expect(await server.exited).toBe(0);
    expect(server.stderr()).not.toContain('still waiting for the service at shutdown');
    // Neither another poll nor the retry was sent: the wait ended when stdin did.
    expect(upstream.requests).toHaveLength(1);
    upstream.reset();
    return textOf(settled!);
  }

  it('answers a poll with what it has and exits promptly when stdin closes mid-wait', async () => {
    upstream.answer({ status: 200, body: { job_id: 'job_1', status: 'running', phase: 'prepare', result: null, error: null } });
    const server = await startRaw([], { ...env, APPMGMT_LOG_LEVEL: 'warn' });
    const answer = server.request('tools/call', call('get_scheduling_job', { app_id: 'app_1', job_id: 'job_1', wait_seconds: 300 }));
    expect(await closeMidWait(server, answer)).toMatch(/Job job_1: running \(phase prepare\), still not finished after waiting \d+ s\./);
  });

  it('exits promptly when stdin closes while a call waits to retry', async () => {
    upstream.answer({ status: 503, headers: { 'retry-after': '15' }, body: { detail: 'down' } });
    const server = await startRaw([], { ...env, APPMGMT_LOG_LEVEL: 'warn' });
    const answer = server.request('tools/call', call('get_scheduling_job', { app_id: 'app_1', job_id: 'job_1' }));
    expect(await closeMidWait(server, answer)).toMatch(/^503: /);
  });

  it(`stays under ${MAX_RSS_MIB} MiB and keeps answering after ${WARNINGS} distinct warnings of ${ARGUMENT_KIB} KiB each`, async () => {
    const server = await startRaw(['--sandbox'], { APPMGMT_LOG_LEVEL: 'error' });
    // Bulk in the typed lists at their input limits (campaign_settings is bounded to be shown whole: issue 16).
    const many = (length: number, count = 50) => Array.from({ length: count }, (_, i) => `${i} `.padEnd(length, 'x'));
    const args = (i: number) => ({
      app_id: 'app_demo',
      campaign_name: `Load ${i}`,
      campaign_type: 'SMART',
      daily_budget_micros: 5_000_000,
      landing_page: 'https://demo-planner.sandbox.test/',
      keyword_themes: many(100),
      headlines: many(200),
      descriptions: many(500),
    });
    expect(Math.round(Buffer.byteLength(JSON.stringify(args(WARNINGS))) / 1024)).toBe(ARGUMENT_KIB);
    const warn = (i: number) => server.request('tools/call', call('create_ad_campaign', args(i)));
    let peak = 0;
    for (let start = 0; start < WARNINGS; start += BATCH) {
      const answers = await Promise.all(Array.from({ length: BATCH }, (_, i) => warn(start + i)));
      expect(answers.every((answer) => textOf(answer).includes('CONFIRMATION NEEDED'))).toBe(true);
      peak = Math.max(peak, rssMiB(server.child.pid!));
    }
    expect(peak).toBeLessThan(MAX_RSS_MIB);
    expect(await server.request('ping')).toMatchObject({ result: {} });
    const last = await warn(WARNINGS);
    expect(textOf(last)).toContain('- descriptions: 50 items: "0 xxxxx');
    server.child.stdin?.end();
    expect(await server.exited).toBe(0);
  }, 120_000);
});
