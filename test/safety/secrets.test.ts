import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createLog } from '../../src/log.js';
import { redactor } from '../../src/text.js';
import { connect, type Harness } from '../helpers.js';

// Every path to the model or a log: result text, structured content, error text, progress
// notifications, approval forms and log lines. The upstream echoes the secret in the forms an echo takes.
const SECRET = 'key-Sekret-9f8e7d6c5b4a';
const b64 = (text: string) => Buffer.from(text).toString('base64');
const ECHOES = [
  SECRET,
  encodeURIComponent(`${SECRET}/x`),
  b64(SECRET),
  b64(`Bearer ${SECRET}`),
  SECRET.split('').join('\u200b'),
  `${SECRET.slice(0, 10)} ${SECRET.slice(10)}`,
];
const leaks = (text: string) => ECHOES.some((form) => text.includes(form)) || text.includes(SECRET.slice(0, 12));

describe('secrets never reach the model or a log', () => {
  let h: Harness | undefined;
  const logged: string[] = [];
  afterEach(async () => {
    await h?.close();
    h = undefined;
    logged.length = 0;
  });

  // Polls without waiting: the clock moves by what the tool sleeps.
  let now = Date.parse('2026-11-02T09:00:00.000Z');
  const clock = { now: () => now, sleep: async (ms: number) => void (now += ms) };
  const setup = (capabilities = {}) =>
    connect({
      clock,
      config: { apiKey: SECRET, accessToken: SECRET, logLevel: 'debug' },
      capabilities,
      log: createLog({ level: 'debug', write: (line) => logged.push(line), redact: redactor([SECRET]) }),
    });

  it.each(ECHOES.map((echo, index) => ({ echo, index })))('redacts echo $index from results, structured content and progress', async ({ echo }) => {
    h = await setup();
    h.sandbox.script({ status: 200, body: { job_id: `job ${echo}`, status: 'running', phase: `phase ${echo}`, result: null, error: null }, times: 3 });
    h.sandbox.script({ status: 200, body: { job_id: 'job_1', status: 'completed', phase: 'completed', result: { selected: 1, [echo]: 2 }, error: null } });
    const progress: string[] = [];
    const result = await h.client.callTool({ name: 'get_scheduling_job', arguments: { app_id: 'app_demo', job_id: 'job_1', wait_seconds: 1 } }, undefined, {
      onprogress: (note) => progress.push(note.message ?? ''),
    });
    const everything = JSON.stringify(result) + progress.join('\n') + logged.join('');
    expect(progress.length).toBeGreaterThan(0);
    expect(leaks(everything), everything).toBe(false);
  });

  it('redacts a secret an error body echoes, before its text is trimmed', async () => {
    h = await setup();
    h.sandbox.script({ status: 400, body: { detail: `${'x'.repeat(285)} bad key ${SECRET}` } });
    const result = await h.call('customize_app_email', { app_id: 'app_demo', email_type: 'password_reset' });
    expect(result.isError).toBe(true);
    expect(leaks(result.text), result.text).toBe(false);
  });

  it('shows 422 validation errors as the first few and a count, within the result budget', async () => {
    h = await setup();
    const detail = Array.from({ length: 5_000 }, (_, i) => ({ loc: ['body', `field_${i}`], msg: `bad ${SECRET}`, type: 'value_error' }));
    h.sandbox.script({ status: 422, body: { detail } });
    const result = await h.call('customize_app_email', { app_id: 'app_demo', email_type: 'password_reset' });
    expect(result.text.split('\n').filter((line) => line.startsWith('- body.field_'))).toHaveLength(10);
    expect(result.text).toContain('- …and 4990 more');
    expect(result.text.length).toBeLessThan(4_000);
    expect(leaks(result.text)).toBe(false);
  });

  it('redacts the approval form, built from the call the model asked for', async () => {
    h = await setup({ elicitation: { form: {} } });
    const asked: string[] = [];
    h.client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: 'decline' };
    });
    const args = { app_id: 'app_demo', campaign_name: `Campaign ${SECRET}`, campaign_type: 'SMART', daily_budget_micros: 1_000_000, landing_page: 'https://x.example.com' };
    // The token here is no sandbox token: the warning's read (issue 16, on the warning and before the form) is answered as if valid.
    h.sandbox.script({ method: 'GET', status: 200, body: [], times: 2 });
    const warning = await h.call('create_ad_campaign', args);
    await h.call('create_ad_campaign', { ...args, confirm: true });
    expect(asked).toHaveLength(1);
    expect(leaks(asked[0]! + warning.text + JSON.stringify(warning.structured))).toBe(false);
  });

  it('strips hidden characters from structured content as from the text', async () => {
    h = await setup();
    h.sandbox.script({ status: 200, body: { success: true, commits_pushed: true, commit_hash: 'abc\u202e123\u{e0041}', error: null, duration_ms: 1 } });
    const result = await h.call('push_app_to_repo', { app_id: 'app_demo' });
    expect(result.structured?.commit_hash).toBe('abc123');
    expect(result.text).toContain('commit abc123');
  });
});
