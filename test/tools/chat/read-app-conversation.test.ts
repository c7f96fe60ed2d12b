import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connect, type Harness } from '../../helpers.js';

const PATH = '/api/apps/app_demo/chat/full-conversation';

describe('read_app_conversation', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await connect();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  it('reaches older messages: a full page names the skip that reads the ones before it', async () => {
    // 4 messages in app_demo's conversation (one hidden): a page of 2 is full, so older ones may precede it.
    const first = await h.call('read_app_conversation', { app_id: 'app_demo', limit: 2 });
    expect(first.structured?.next_skip).toBe(2);
    expect(first.text).toContain('Older messages may precede these: read_app_conversation {"app_id":"app_demo","limit":2,"skip":2}.');
    const second = await h.call('read_app_conversation', { app_id: 'app_demo', limit: 2, skip: 2 });
    expect(h.sandbox.requests.at(-1)?.query).toBe('limit=2&skip=2');
    const contents = [first, second].flatMap((result) => (result.structured?.messages as Array<{ content: string }>).map((message) => message.content));
    expect(contents).toContain('Add a weekly view to the planner, starting on Monday.');
    expect(contents).toContain('Done: the planner has a weekly view that starts on Monday.');
    const third = await h.call('read_app_conversation', { app_id: 'app_demo', limit: 2, skip: 4 });
    expect(third.structured?.next_skip).toBeUndefined();
  });

  it('asks for the last 10 messages with the bearer token, and shows them oldest first without hidden ones', async () => {
    const result = await h.call('read_app_conversation', { app_id: 'app_demo' });
    const [request] = h.sandbox.requests;
    expect([request?.method, request?.rawPath, request?.query]).toEqual(['GET', PATH, 'limit=10']);
    expect(request?.headers.authorization).toBe(`Bearer ${h.config.accessToken}`);
    expect(result.isError).toBe(false);
    expect(result.text).toMatchInlineSnapshot(`
      "Conversation of app app_demo: 3 messages, oldest first; the service gives messages no dates (1 hidden message skipped: the service's internal notes, not part of the chat).
      1. user: "Add a weekly view to the planner, starting on Monday."
      2. assistant: (no text). Tool calls: edit_files (completed)
      3. assistant: "Done: the planner has a weekly view that starts on Monday."
      Next: Nothing more is needed."
    `);
    expect(result.structured).toEqual({
      messages: [
        { role: 'user', content: 'Add a weekly view to the planner, starting on Monday.', tool_calls: [] },
        { role: 'assistant', content: '', tool_calls: [{ name: 'edit_files', status: 'completed' }] },
        { role: 'assistant', content: 'Done: the planner has a weekly view that starts on Monday.', tool_calls: [] },
      ],
      hidden_skipped: 1,
      left_out: 0,
      waiting_for_input: false,
      next: 'Nothing more is needed.',
    });
  });

  it('points a conversation whose conflict question was answered to the free pull, not to the paid resolution', async () => {
    h.sandbox.script({
      status: 200,
      body: {
        messages: [
          { id: 'm1', role: 'assistant', content: 'Which start of the week should the merged version use?', tool_calls: [{ id: 'c1', name: 'ask_user', status: 'completed' }] },
          { id: 'm2', role: 'user', content: 'Monday.' },
          { id: 'm3', role: 'assistant', content: 'Thanks, continuing with that.' },
        ],
      },
    });
    const result = await h.call('read_app_conversation', { app_id: 'app_demo' });
    expect(result.structured?.next).toBe(
      'If the merge conflict\'s question here is answered, call pull_repo_changes {"app_id":"app_demo"} (free) to finish the merge before any resolve_repo_conflicts (credits).',
    );
  });

  it('sends the limit it is given and refuses one over 50 before sending', async () => {
    await h.call('read_app_conversation', { app_id: 'app_demo', limit: 2 });
    expect(h.sandbox.requests[0]?.query).toBe('limit=2');
    const tooMany = await h.call('read_app_conversation', { app_id: 'app_demo', limit: 51 });
    expect(tooMany.isError).toBe(true);
    expect(h.sandbox.requests).toHaveLength(1);
  });

  it('flags a tool call waiting for input prominently and says to answer it with send_app_chat_message', async () => {
    h.sandbox.script({
      status: 200,
      body: {
        messages: [
          { id: 'm1', role: 'user', content: 'Merge the repository changes.' },
          { id: 'm2', role: 'assistant', content: 'Monday or Sunday as the first day?', tool_calls: [{ id: 'c1', name: 'ask_user', status: 'waiting_for_user_input' }] },
        ],
      },
    });
    const result = await h.call('read_app_conversation', { app_id: 'app_demo' });
    expect(result.text).toMatchInlineSnapshot(`
      "Conversation of app app_demo: 2 messages, oldest first; the service gives messages no dates.
      1. user: "Merge the repository changes."
      2. assistant: "Monday or Sunday as the first day?". Tool calls: ask_user (waiting_for_user_input)
      THE AI IS WAITING FOR AN ANSWER to message 2: it cannot continue until the user answers.
      Next: Show the question to the user. Send their answer with send_app_chat_message {"app_id":"app_demo","content":"<the user's answer>"} (it consumes credits; a confirmation will be asked)."
    `);
    expect(result.structured).toMatchObject({ waiting_for_input: true });
  });

  it('reads an answer that is a bare list of messages, and quotes what the builder wrote', async () => {
    h.sandbox.script({ status: 200, body: [{ id: 'm1', role: 'assistant', content: 'Say "yes"\u202e now\nplease' }] });
    const result = await h.call('read_app_conversation', { app_id: 'app_demo' });
    expect(result.text).toContain(`1. assistant: "Say 'yes' now please"`);
  });

  it('says so when there is nothing to show', async () => {
    h.sandbox.script({ status: 200, body: { messages: [{ id: 'm1', role: 'assistant', content: 'x', hidden: true }] } });
    const result = await h.call('read_app_conversation', { app_id: 'app_demo' });
    expect(result.text).toBe(
      "The conversation of app app_demo has no visible messages (1 hidden message skipped: the service's internal notes, not part of the chat).\nNext: Nothing more is needed.",
    );
  });

  it('stays under 2,000 tokens for 50 long messages with many tool calls, keeping the newest and the waiting question', async () => {
    const long = (i: number) => `Message ${i}: ${'lorem ipsum dolor sit amet '.repeat(400)}`;
    const messages = Array.from({ length: 50 }, (_, i) => ({
      id: `m${i}`,
      role: i % 2 ? 'assistant' : 'user',
      content: long(i),
      tool_calls: Array.from({ length: 30 }, (_, j) => ({ id: `c${i}_${j}`, name: `tool_${j}`, status: i === 10 && j === 29 ? 'waiting_for_user_input' : 'completed' })),
    }));
    h.sandbox.script({ status: 200, body: { messages } });
    const result = await h.call('read_app_conversation', { app_id: 'app_demo', limit: 50 });
    expect(countTokens(result.text) + countTokens(JSON.stringify(result.structured))).toBeLessThan(2_000);
    expect(result.text).toMatch(/^Conversation of app app_demo: \d+ messages, oldest first; the service gives messages no dates \(\d+ older left out for size\)\./);
    expect(result.text).toContain('"Message 49: lorem');
    expect(result.text).toContain('Tool calls: tool_29 (waiting_for_user_input), tool_0 (completed)');
    expect(result.text).toMatch(/and 24 more/);
    expect(result.structured?.waiting_for_input).toBe(true);
  });

  it.each([
    [403, /^403: The credential may not read this app's chat/],
    [404, /^404: App not found/],
  ])('explains a %i', async (status, pattern) => {
    h.sandbox.script({ status, body: { detail: 'App not found.' }, times: 3 });
    const result = await h.call('read_app_conversation', { app_id: 'app_demo' });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(pattern);
  });
});
