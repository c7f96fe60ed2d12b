import { describe, expect, it } from 'vitest';
import { call, OWNER, paths, useSandbox, type Answer } from './helpers.js';

describe('sandbox builder chat', () => {
  const s = useSandbox();
  const credits = () => s.sandbox.simulation.inspect().workspaces.find((w) => w.id === 'ws_demo')!.credits;

  /** POST a chat message, with an X-Request-ID when given. */
  async function send(app: string, content: unknown, requestId?: string, token = OWNER): Promise<Answer> {
    const response = await fetch(s.sandbox.url + paths.chat(app), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(requestId ? { 'x-request-id': requestId } : {}) },
      body: JSON.stringify({ content }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
  }
  const read = (app: string, query = '', token = OWNER) => call(s.sandbox, 'GET', `${paths.conversation(app)}${query}`, { token });
  const messagesOf = async (app: string) => (await read(app, '?limit=1000')).body.messages as Array<Record<string, any>>;

  describe('send chat message', () => {
    it('runs one builder turn: records the message and a reply, uses credits and takes the turn\'s time', async () => {
      const before = s.sandbox.clock.now();
      const answer = await send('app_shop', 'Add a contact page.');
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ id: 'app_shop', name: 'Shop Front', status: { state: 'completed', error_source: null } });
      const messages = answer.body.conversation.messages;
      expect(messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
      expect(messages[0].content).toBe('Add a contact page.');
      expect(credits()).toBe(495);
      expect(s.sandbox.clock.now() - before).toBe(45_000);
    });

    it('answers paywall and does no work when the workspace is out of credits', async () => {
      s.sandbox.simulation.scenario('out_of_credits');
      const before = s.sandbox.clock.now();
      const answer = await send('app_shop', 'Add a contact page.');
      expect(answer.body.status.state).toBe('paywall');
      expect(answer.body.conversation.messages).toEqual([]);
      expect(s.sandbox.clock.now()).toBe(before);
    });

    it('answers 200 with status error and its error_source when the turn fails', async () => {
      s.sandbox.simulation.scenario('chat_turn_error');
      const answer = await send('app_shop', 'Add a contact page.');
      expect(answer.status).toBe(200);
      expect(answer.body.status).toEqual({ state: 'error', error_source: 'agent' });
    });

    it('queues messages while the builder is busy, up to 7, and runs them once it is free', async () => {
      s.sandbox.simulation.scenario('builder_busy');
      for (let i = 1; i <= 7; i++) {
        const answer = await send('app_shop', `Change ${i}`);
        expect(answer.body).toEqual({ queued: true, queue_position: i });
      }
      expect((await send('app_shop', 'Change 8')).status).toBe(429);
      expect(await messagesOf('app_shop')).toEqual([]);
      s.sandbox.clock.advance(5 * 60_000);
      const ran = (await messagesOf('app_shop')).filter((m) => m.role === 'user').map((m) => m.content);
      expect(ran).toEqual(['Change 1', 'Change 2', 'Change 3', 'Change 4', 'Change 5', 'Change 6', 'Change 7']);
      expect(credits()).toBe(500 - 7 * 5);
    });

    it('acts once per X-Request-ID: a repeat within 10 minutes answers the current state without running or charging', async () => {
      const first = await send('app_shop', 'Add a contact page.', 'req-1');
      const repeat = await send('app_shop', 'Add a contact page.', 'req-1');
      expect(repeat.status).toBe(200);
      expect(repeat.body.status.state).toBe('completed');
      expect(repeat.body.conversation.messages).toEqual(first.body.conversation.messages);
      expect(credits()).toBe(495);
      s.sandbox.clock.advance(10 * 60_000);
      const later = await send('app_shop', 'Add a contact page.', 'req-1');
      expect(later.body.conversation.messages).toHaveLength(4);
      expect(credits()).toBe(490);
    });

    it('refuses an X-Request-ID that is not up to 64 letters, digits and hyphens', async () => {
      for (const bad of ['x'.repeat(65), 'has space', 'under_score']) {
        const answer = await send('app_shop', 'Hi', bad);
        expect(answer.status).toBe(422);
        expect(answer.body.detail[0].loc).toEqual(['header', 'X-Request-ID']);
      }
      expect(credits()).toBe(500);
    });

    it('rejects a missing, empty or non-text content with a 2.9 body', async () => {
      for (const content of [undefined, '', '   ', 42]) {
        const answer = await send('app_shop', content);
        expect(answer.status).toBe(422);
        expect(answer.body.detail[0].loc).toEqual(['body', 'content']);
      }
    });

    it('refuses a read-only token and a workspace API key', async () => {
      expect((await send('app_shop', 'Hi', undefined, 'pat_demo_owner_ro')).status).toBe(403);
      const workspaceKey = await send('app_shop', 'Hi', undefined, 'wsk_demo');
      expect(workspaceKey.status).toBe(403);
      expect(workspaceKey.body.detail).toMatch(/Workspace API keys are not accepted/);
    });
  });

  describe('read conversation', () => {
    it('answers oldest first; limit counts back from the newest and skip leaves out the newest', async () => {
      const ids = async (query: string) => ((await read('app_demo', query)).body.messages as Array<{ id: string }>).map((m) => m.id);
      expect(await ids('')).toEqual(['msg_seed_1', 'msg_seed_2', 'msg_seed_3', 'msg_seed_4']);
      expect(await ids('?limit=2')).toEqual(['msg_seed_3', 'msg_seed_4']);
      expect(await ids('?limit=2&skip=1')).toEqual(['msg_seed_2', 'msg_seed_3']);
      expect(await ids('?limit=2&skip=9')).toEqual([]);
    });

    it('keeps hidden messages and empty contents in the answer, with tool calls and their status', async () => {
      const [, toolsOnly, hidden] = await messagesOf('app_demo');
      expect(toolsOnly).toMatchObject({ role: 'assistant', content: '', hidden: false, tool_calls: [{ name: 'edit_files', status: 'completed' }] });
      expect(hidden).toMatchObject({ hidden: true });
    });

    it('rejects a limit that is not an integer from 1 to 1000', async () => {
      for (const query of ['?limit=0', '?limit=1001', '?limit=ten', '?skip=-1']) {
        expect((await read('app_demo', query)).status).toBe(422);
      }
    });

    it('lets a read-only token read', async () => {
      expect((await read('app_demo', '', 'pat_demo_owner_ro')).status).toBe(200);
    });
  });

  describe('conflict resolution in the chat', () => {
    const resolve = (app: string) => call(s.sandbox, 'POST', paths.resolve(app), { token: OWNER });

    it('puts the question of a needs_input resolution in the chat as a tool call that waits, once', async () => {
      await call(s.sandbox, 'POST', paths.pull('app_demo'), { token: OWNER });
      await resolve('app_demo');
      await resolve('app_demo');
      const waiting = (await messagesOf('app_demo')).filter((m) => m.tool_calls.some((c: { status: string }) => c.status === 'waiting_for_user_input'));
      expect(waiting).toHaveLength(1);
      expect(waiting[0]).toMatchObject({ role: 'assistant', content: expect.stringMatching(/Which start of the week/) });
    });

    it('answers the waiting question with the next chat message, and the next resolution resolves', async () => {
      await resolve('app_forum');
      const answer = await send('app_forum', 'Keep the app version.');
      const all = answer.body.conversation.messages as Array<{ tool_calls: Array<{ status: string }> }>;
      expect(all.flatMap((m) => m.tool_calls).some((c) => c.status === 'waiting_for_user_input')).toBe(false);
      expect((await resolve('app_forum')).body.status).toBe('resolved');
    });

    it('posts a fresh conflict card when a resolution leaves the conflicts in place', async () => {
      s.sandbox.simulation.scenario('resolution_conflict');
      expect((await resolve('app_forum')).body.status).toBe('conflict');
      const last = (await messagesOf('app_forum')).at(-1);
      expect(last).toMatchObject({ role: 'assistant', content: expect.stringMatching(/^Merge conflicts remain in 2 files: src\/pages\/Home\.tsx/) });
    });
  });
});
