import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CancelledError } from '../../src/errors.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import type { Clock } from '../../src/tools/define.js';
import { connect, type CallOutcome, type Harness } from '../helpers.js';

/** The app the user names; everything after it is read from results. */
const APP = 'app_demo';

/**
 * A tool clock on the sandbox's (manual) clock whose sleeps end only when aborted: resolution and
 * chat turns answer at once in the sandbox, so their progress ticker never fires and nothing waits.
 */
function sandboxTime(sandbox: Sandbox): Clock {
  return {
    now: () => sandbox.clock.now(),
    sleep: (_ms, signal) =>
      new Promise<void>((_resolve, reject) => {
        if (signal?.aborted) return reject(new CancelledError());
        signal?.addEventListener('abort', () => reject(new CancelledError()), { once: true });
      }),
  };
}

/** The first `tool {json}` call the result's next step names. */
function nextCallOf(result: CallOutcome): { tool: string; args: Record<string, unknown> } {
  const next = result.text.slice(result.text.lastIndexOf('\nNext: ') + 7);
  const match = /\b([a-z]+(?:_[a-z]+)+) (\{[^}]*\})/.exec(next);
  if (!match) throw new Error(`no call in the next step: ${next}`);
  return { tool: match[1]!, args: JSON.parse(match[2]!) as Record<string, unknown> };
}

describe('workflow (e): pull -> merge_conflict -> resolve -> needs_input -> chat answer -> pull (free) -> push', () => {
  let sandbox: Sandbox;
  let h: Harness;
  beforeEach(async () => {
    sandbox = await startSandbox({ control: true });
    h = await connect({ sandbox, clock: sandboxTime(sandbox) });
  });
  afterEach(async () => {
    await h.close();
    await sandbox.close();
  });

  /** A gated call: the warning (nothing sent), then the confirmation. */
  async function confirmed(tool: string, args: Record<string, unknown>): Promise<CallOutcome> {
    const posts = sandbox.requests.filter((request) => request.method === 'POST').length;
    const warning = await h.call(tool, args);
    expect(warning.text).toMatch(/^CONFIRMATION NEEDED\. Nothing was sent\./);
    expect(warning.text).toMatch(/Cost: the credits of one (AI|builder) turn/);
    expect(sandbox.requests.filter((request) => request.method === 'POST')).toHaveLength(posts);
    return h.call(tool, { ...args, confirm: true });
  }

  it('settles the conflict by answering the AI in the chat, finishes the merge with a free pull, then pushes the saved work', async () => {
    const pulled = await h.call('pull_repo_changes', { app_id: APP });
    expect(pulled.isError).toBe(true);
    expect(pulled.text).toMatch(/^Pull STOPPED for app app_demo \(merge_conflict\).*nothing was applied/);
    expect(pulled.text).toMatch(/a confirmation will be asked first/);
    const resolveCall = nextCallOf(pulled);
    expect(resolveCall.tool).toBe('resolve_repo_conflicts');

    const asked = await confirmed(resolveCall.tool, resolveCall.args);
    expect(asked.isError).toBe(false);
    expect(asked.structured).toMatchObject({ confirmation_needed: false, status: 'needs_input' });
    expect(asked.text).toMatch(/asked a question in the app's chat/);
    expect(asked.text).toMatch(/Next: Read the question with read_app_conversation .* and answer it with send_app_chat_message; then pull_repo_changes .* \(free\) finishes the merge/);
    const readCall = nextCallOf(asked);
    expect(readCall.tool).toBe('read_app_conversation');

    const conversation = await h.call(readCall.tool, readCall.args);
    expect(conversation.isError).toBe(false);
    expect(conversation.structured?.waiting_for_input).toBe(true);
    expect(conversation.text).toMatch(/THE AI IS WAITING FOR AN ANSWER to message (\d+)/);
    const waitingLine = Number(/WAITING FOR AN ANSWER to message (\d+)/.exec(conversation.text)![1]);
    const question = (conversation.structured?.messages as Array<{ content: string }>)[waitingLine - 1]!.content;
    expect(question).toMatch(/Which start of the week should the merged version use\?/);
    const sendCall = nextCallOf(conversation);
    expect(sendCall.tool).toBe('send_app_chat_message');
    expect(sendCall.args.content).toBe("<the user's answer>");

    // The user answers the question the AI asked.
    const answered = await confirmed(sendCall.tool, { ...sendCall.args, content: 'Start weeks on Monday and use the new name startOfWeek.' });
    expect(answered.isError).toBe(false);
    expect(answered.structured).toMatchObject({ confirmation_needed: false, queued: false, state: 'completed', waiting_for_input: false });
    expect(answered.text).toMatch(/^Builder turn on app app_demo \("Demo Planner"\) completed\.\nReply: "Thanks, I'll merge it that way\./);
    // Free first: the answer settles the merge, so the next step is a pull, not a second paid resolution.
    expect(answered.text).toMatch(/Next: If this answered the merge conflict's question, call pull_repo_changes \{"app_id":"app_demo"\} \(free\)/);
    const pullAgain = nextCallOf(answered);
    expect(pullAgain.tool).toBe('pull_repo_changes');

    const merged = await h.call(pullAgain.tool, pullAgain.args);
    expect(merged.isError).toBe(false);
    expect(merged.structured).toMatchObject({ synced: true, commit_count: 2 });
    expect(merged.text).toMatch(/^Pulled 2 commits from the repository into app app_demo/);
    const pushCall = nextCallOf(merged);
    expect(pushCall.tool).toBe('push_app_to_repo');

    const pushed = await h.call(pushCall.tool, pushCall.args);
    expect(pushed.isError).toBe(false);
    expect(pushed.structured).toMatchObject({ pushed: true, commit_hash: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect(pushed.text).toContain(`Pushed app app_demo to its repository: commit ${pushed.structured?.commit_hash as string}`);

    // Nothing is left: the question is answered and the repository is in step.
    const after = await h.call(readCall.tool, readCall.args);
    expect(after.structured?.waiting_for_input).toBe(false);
    const again = await h.call('pull_repo_changes', { app_id: APP });
    expect(again.structured).toMatchObject({ already_up_to_date: true, commit_count: 0 });
    // Two turns ran: the resolution that asked and the chat answer; the merge itself cost nothing.
    expect(sandbox.simulation.inspect().workspaces.find((workspace) => workspace.id === 'ws_demo')?.credits).toBe(500 - 2 * 5);
  });
});
