import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CancelledError } from '../../../src/errors.js';
import type { Clock } from '../../../src/tools/define.js';
import { PROGRESS_EVERY_MS } from '../../../src/tools/progress.js';
import { connect, type Harness } from '../../helpers.js';

const PATH = '/api/apps/app_demo/chat/message';
const ARGS = { app_id: 'app_demo', content: 'Make the header blue.' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A tool clock whose sleeps end when the test wakes them (time moves by the slept amount) or on abort. */
function steppingClock(start = Date.parse('2026-11-02T09:00:00.000Z')) {
  let now = start;
  const sleepers: Array<{ ms: number; resolve: () => void }> = [];
  let notify: (() => void) | undefined;
  return {
    now: () => now,
    sleep: (ms: number, signal?: AbortSignal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(new CancelledError());
        const sleeper = { ms, resolve };
        sleepers.push(sleeper);
        signal?.addEventListener('abort', () => {
          sleepers.splice(sleepers.indexOf(sleeper), 1);
          reject(new CancelledError());
        });
        notify?.();
      }),
    async asleep(): Promise<number> {
      while (sleepers.length === 0) await new Promise<void>((resolve) => (notify = resolve));
      return sleepers[0]!.ms;
    },
    wake() {
      const sleeper = sleepers.shift()!;
      now += sleeper.ms;
      sleeper.resolve();
    },
    get sleeping() {
      return sleepers.length;
    },
  } satisfies Clock & Record<string, unknown>;
}

/** The app as a settled turn answers it, with these messages. */
const app = (state: string, messages: unknown[], extra: Record<string, unknown> = {}) => ({
  method: 'POST',
  status: 200,
  body: { id: 'app_demo', name: 'Demo Planner', status: { state, error_source: null, ...extra }, conversation: { messages } },
});
const user = { id: 'm1', role: 'user', content: 'Make the header blue.' };

describe('send_app_chat_message', () => {
  let h: Harness;
  let clock: ReturnType<typeof steppingClock>;
  beforeEach(async () => {
    clock = steppingClock();
    h = await connect({ clock });
  });
  afterEach(() => h.close());

  async function confirmed(args: Record<string, unknown> = ARGS) {
    const warning = await h.call('send_app_chat_message', args);
    expect(warning.text).toMatch(/^CONFIRMATION NEEDED\. Nothing was sent\./);
    return h.call('send_app_chat_message', { ...args, confirm: true });
  }
  const writes = () => h.sandbox.requests.filter((request) => request.method === 'POST');

  describe('confirmation', () => {
    it('warns that a builder turn uses credits and can take minutes, quotes the message, and sends nothing', async () => {
      const result = await h.call('send_app_chat_message', ARGS);
      expect(result.isError).toBe(false);
      expect(writes()).toHaveLength(0);
      expect(result.text).toMatchInlineSnapshot(`
        "CONFIRMATION NEEDED. Nothing was sent.
        Send a message to the AI builder of app app_demo (one builder turn).
        Message (21 characters, exactly as sent): "Make the header blue."
        No tool rolls a builder turn back: undoing its changes takes another turn (more credits) or the service itself.
        If the confirmed call is repeated within 10 minutes, the service runs the message at most once.
        It can take minutes: this server waits up to 10 s and sends progress meanwhile.
        If the builder is busy, the message is queued (up to 7) and runs later, using credits then.
        Cost: the credits of one builder turn, used later if a busy builder queues it; the turn can change the app.
        Next: Show this to the user; only if they agree, call send_app_chat_message again with the same arguments plus confirm: true within 10 minutes."
      `);
      expect(result.structured).toMatchObject({ confirmation_needed: true, cost: 'the credits of one builder turn, used later if a busy builder queues it; the turn can change the app.' });
    });

    it('trims a long message in the warning and gives its length', async () => {
      const content = `Rewrite the pricing page.${' Details.'.repeat(800)}`;
      const result = await h.call('send_app_chat_message', { app_id: 'app_demo', content });
      expect(content.length).toBe(7225);
      expect(result.text).toMatch(/^Message \(7225 characters; the first 600 shown, all sent\): "Rewrite the pricing page\. Details\. .{500,600}"…$/m);
    });

    it('posts the content once with the bearer token and a fresh X-Request-ID when confirmed', async () => {
      h.sandbox.script(app('completed', [user, { id: 'm2', role: 'assistant', content: 'Done: the header is blue.' }]));
      await confirmed();
      h.sandbox.script(app('completed', [user]));
      await confirmed();
      const [first, second] = writes();
      expect(writes()).toHaveLength(2);
      expect([first?.method, first?.rawPath]).toEqual(['POST', PATH]);
      expect(first?.headers.authorization).toBe(`Bearer ${h.config.accessToken}`);
      expect(first?.body).toEqual({ content: 'Make the header blue.' });
      expect(first?.headers['x-request-id']).toMatch(UUID);
      expect(second?.headers['x-request-id']).toMatch(UUID);
      expect(second?.headers['x-request-id']).not.toBe(first?.headers['x-request-id']);
    });

    it('sends nothing for confirm: true without a warning', async () => {
      const cold = await h.call('send_app_chat_message', { ...ARGS, confirm: true });
      expect(cold.isError).toBe(true);
      expect(cold.text).toMatch(/^NOT SENT: confirm: true needs a pending warning/);
      expect(writes()).toHaveLength(0);
    });

    it('rejects an empty or oversized message before anything is sent', async () => {
      for (const content of ['   ', 'x'.repeat(8_001)]) {
        const result = await h.call('send_app_chat_message', { app_id: 'app_demo', content });
        expect(result.isError).toBe(true);
      }
      expect(writes()).toHaveLength(0);
    });
  });

  describe('answers', () => {
    it('shows the newest assistant reply and that nothing waits', async () => {
      h.sandbox.script(app('completed', [user, { id: 'm2', role: 'assistant', content: 'Done: the header is blue.', tool_calls: [{ id: 'c1', name: 'edit_files', status: 'completed' }] }]));
      const result = await confirmed();
      expect(result.isError).toBe(false);
      expect(result.text).toMatchInlineSnapshot(`
        "Builder turn on app app_demo ("Demo Planner") completed.
        Reply: "Done: the header is blue."
        Tool calls: edit_files (completed)
        Next: Nothing more is needed."
      `);
      expect(result.structured).toMatchObject({ confirmation_needed: false, queued: false, state: 'completed', reply: 'Done: the header is blue.', waiting_for_input: false });
    });

    it('leaves conflicts out of an ordinary turn, even when an older turn was about a merge', async () => {
      h.sandbox.script(
        app('completed', [
          { id: 'm0', role: 'assistant', content: 'Merge conflicts remain in 1 file.', tool_calls: [{ id: 'c0', name: 'merge_conflict_card', status: 'completed' }] },
          { id: 'm01', role: 'user', content: 'Keep the app version.' },
          { id: 'm02', role: 'assistant', content: 'Done.' },
          user,
          { id: 'm2', role: 'assistant', content: 'Done: the header is blue.' },
        ]),
      );
      const result = await confirmed();
      expect(result.text).not.toMatch(/conflict|resolve_repo_conflicts|pull_repo_changes/);
      expect(result.structured?.next).toBe('Nothing more is needed.');
    });

    it('sends an answered conflict question to the free pull, not to the paid resolution', async () => {
      const answer = { id: 'm1', role: 'user', content: 'Start weeks on Monday.' };
      h.sandbox.script(
        app('completed', [
          { id: 'm0', role: 'assistant', content: 'Which start of the week should the merged version use?', tool_calls: [{ id: 'c0', name: 'ask_user', status: 'completed' }] },
          answer,
          { id: 'm2', role: 'assistant', content: 'Thanks, continuing with that.' },
        ]),
      );
      const result = await confirmed({ app_id: 'app_demo', content: answer.content });
      expect(result.structured?.next).toBe(
        'If this answered the merge conflict\'s question, call pull_repo_changes {"app_id":"app_demo"} (free) to finish the merge; only if it still reports merge_conflict, call resolve_repo_conflicts (credits).',
      );
      expect(result.text.indexOf('pull_repo_changes')).toBeLessThan(result.text.indexOf('resolve_repo_conflicts'));
    });

    it('points a turn about an email to reading the change back', async () => {
      const ask = { id: 'm1', role: 'user', content: 'Change the sign-up email heading to "Welcome aboard".' };
      h.sandbox.script(app('completed', [ask, { id: 'm2', role: 'assistant', content: 'Changed the heading.', tool_calls: [{ id: 'c1', name: 'edit_files', status: 'completed' }] }]));
      const result = await confirmed({ app_id: 'app_demo', content: ask.content });
      expect(result.structured?.next).toBe(
        'Check the change before telling the user: preview_app_email {"app_id":"app_demo","email_type":"email_verification"} shows what recipients get; get_email_template (ids from list_email_templates {"app_id":"app_demo"}) shows the template.',
      );
    });

    it('points a turn about a template it cannot type to the template list', async () => {
      const ask = { id: 'm1', role: 'user', content: 'Reword the WeeklyDigest template.' };
      h.sandbox.script(app('completed', [ask, { id: 'm2', role: 'assistant', content: 'Reworded.' }]));
      const result = await confirmed({ app_id: 'app_demo', content: ask.content });
      expect(result.structured?.next).toMatch(/^Check the change before telling the user: get_email_template \(ids from list_email_templates \{"app_id":"app_demo"\}\)/);
    });

    it('reads a reply without text as work done through tool calls, skipping hidden messages', async () => {
      h.sandbox.script(
        app('completed', [
          user,
          { id: 'm2', role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'edit_files', status: 'completed' }] },
          { id: 'm3', role: 'assistant', content: 'internal note', hidden: true },
        ]),
      );
      const result = await confirmed();
      expect(result.isError).toBe(false);
      expect(result.text).toContain('Reply: no text; the turn was carried by tool calls (work done, not an error).\nTool calls: edit_files (completed)');
      expect(result.text).not.toContain('internal note');
    });

    it('flags a tool call waiting for the user\'s input and says to answer it', async () => {
      h.sandbox.script(
        app('completed', [user, { id: 'm2', role: 'assistant', content: 'Monday or Sunday?', tool_calls: [{ id: 'c1', name: 'ask_user', status: 'waiting_for_user_input' }] }]),
      );
      const result = await confirmed();
      expect(result.text).toMatchInlineSnapshot(`
        "Builder turn on app app_demo ("Demo Planner") completed.
        Reply: "Monday or Sunday?"
        Tool calls: ask_user (waiting_for_user_input)
        WAITING FOR AN ANSWER: the AI asked a question and cannot continue until the user answers it.
        Next: Show the question to the user and send their answer with send_app_chat_message {"app_id":"app_demo","content":"<the user's answer>"}."
      `);
      expect(result.structured).toMatchObject({ waiting_for_input: true, tool_calls: [{ name: 'ask_user', status: 'waiting_for_user_input' }] });
    });

    it('reports a queued message as queued, not as a reply', async () => {
      h.sandbox.script({ method: 'POST', status: 200, body: { queued: true, queue_position: 3 } });
      const result = await confirmed();
      expect(result.isError).toBe(false);
      expect(result.text).toMatchInlineSnapshot(`
        "QUEUED, no reply yet: the builder of app app_demo was busy, so the message waits in its queue (up to 7 messages) and runs when the builder is free, using credits then.
        Next: Do not send the message again. Call read_app_conversation {"app_id":"app_demo"} in a few minutes to read the reply."
      `);
      expect(result.structured).toEqual({
        confirmation_needed: false,
        queued: true,
        waiting_for_input: false,
        next: 'Do not send the message again. Call read_app_conversation {"app_id":"app_demo"} in a few minutes to read the reply.',
      });
    });

    it('reports status error as a failure with its error_source', async () => {
      h.sandbox.script(app('error', [user], { error_source: 'agent' }));
      const result = await confirmed();
      expect(result.isError).toBe(true);
      expect(result.structured).toEqual({ error: expect.stringMatching(/FAILED: status error/), next: expect.stringMatching(/^Read what happened with read_app_conversation/) });
      expect(result.text).toMatchInlineSnapshot(`
        "The builder turn on app app_demo ("Demo Planner") FAILED: status error (error_source "agent"). Credits may have been used.
        Next: Read what happened with read_app_conversation {"app_id":"app_demo"} before sending again. A new message needs a new warning and consumes credits."
      `);
    });

    it('reports paywall as out of credits with no work done', async () => {
      h.sandbox.script(app('paywall', []));
      const result = await confirmed();
      expect(result.isError).toBe(true);
      expect(result.text).toMatchInlineSnapshot(`
        "NOT RUN: the workspace of app app_demo ("Demo Planner") is out of credits (paywall); no work was done.
        Next: Add credits in the service, then send the message again (a new warning)."
      `);
    });

    it.each([
      [403, /^403: The credential may not chat with this app's builder/],
      [429, /^429: Rate limit, or the builder's queue is full \(7 waiting messages\): nothing was queued/],
    ])('explains a %i and sends exactly one request', async (status, pattern) => {
      h.sandbox.script({ method: 'POST', status, body: { detail: 'no' }, times: 3 });
      const result = await confirmed();
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(pattern);
      expect(writes()).toHaveLength(1);
    });
  });

  describe('unknown outcomes', () => {
    it('says the turn may still run, and the next warning reuses the same X-Request-ID', async () => {
      h.sandbox.script({ method: 'POST', status: 502, body: { detail: 'bad gateway' } });
      const lost = await confirmed();
      expect(lost.isError).toBe(true);
      expect(lost.text).toMatch(/^OUTCOME UNKNOWN: the service answered 502\. The builder turn may still run, change the app and use credits\..*A repeat is safe only through a fresh warning: it reuses the same request id/);
      const again = await h.call('send_app_chat_message', ARGS);
      expect(again.text).toContain('This attempt reuses its request id, so the service will not run it twice');
      expect(again.structured?.earlier_attempt).toMatch(/the service answered 502/);
      h.sandbox.script(app('completed', [user]));
      await h.call('send_app_chat_message', { ...ARGS, confirm: true });
      const [first, repeat] = writes();
      expect(writes()).toHaveLength(2);
      expect(repeat?.headers['x-request-id']).toBe(first?.headers['x-request-id']);
    });

    it('is not run twice by the sandbox when the lost request had arrived after all', async () => {
      h.sandbox.script({ method: 'POST', status: 200, drop: true });
      await confirmed();
      const lostId = writes()[0]!.headers['x-request-id']!;
      // As if the dropped request had reached the service: the turn runs under that id.
      await fetch(h.sandbox.url + PATH, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.config.accessToken}`, 'content-type': 'application/json', 'x-request-id': lostId },
        body: JSON.stringify({ content: ARGS.content }),
      });
      const repeat = await confirmed();
      expect(writes()[2]?.headers['x-request-id']).toBe(lostId);
      expect(repeat.isError).toBe(false);
      expect(repeat.text).toMatch(/^Builder turn on app app_demo \("Demo Planner"\) completed\.\nReply: "Saved a new version of the app/);
      const messages = (await h.call('read_app_conversation', { app_id: 'app_demo' })).structured?.messages as Array<{ role: string; content: string }>;
      expect(messages.filter((message) => message.role === 'user' && message.content === ARGS.content)).toHaveLength(1);
    });
  });

  describe('while waiting', () => {
    it(`sends a progress notification at once and every ${PROGRESS_EVERY_MS / 1000} s until the answer`, async () => {
      await h.close();
      h = await connect({ clock, config: { resolveTimeoutMs: 600_000 } });
      h.sandbox.script({ method: 'POST', status: 200, hang: true });
      await h.call('send_app_chat_message', ARGS);
      const messages: string[] = [];
      const pending = h.client.callTool({ name: 'send_app_chat_message', arguments: { ...ARGS, confirm: true } }, undefined, {
        onprogress: (progress) => messages.push(progress.message ?? ''),
      });
      expect(await clock.asleep()).toBe(PROGRESS_EVERY_MS);
      clock.wake();
      await clock.asleep();
      h.sandbox.release(); // the held request ends (504: an unknown outcome)
      await pending;
      expect(messages).toEqual(['Builder turn started; waiting for the service.', 'Builder turn still running (10 s so far).']);
      expect(clock.sleeping).toBe(0);
    });
  });
});
