import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CancelledError } from '../../src/errors.js';
import type { Clock } from '../../src/tools/define.js';
import { PROGRESS_EVERY_MS } from '../../src/tools/progress.js';
import { connect, type Harness } from '../helpers.js';

const PATH = '/api/apps/app_demo/repohost/sync/resolve-conflicts';
const ARGS = { app_id: 'app_demo' };

/** A clock whose sleeps end only when the test wakes them; time moves by the slept amount. */
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
    /** Resolves with the length of the oldest pending sleep once something sleeps. */
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
    advance: (ms: number) => void (now += ms),
  } satisfies Clock & Record<string, unknown>;
}

interface Held {
  method: string;
  path: string;
  answer(status: number, body: unknown): void;
  /** Resolves when the client closed the connection before an answer. */
  closed: Promise<void>;
}

/** An upstream that answers only when the test says so, and reports connections the client closes. */
async function startUpstream() {
  const held: Held[] = [];
  let notify: (() => void) | undefined;
  const server = createServer((req, res: ServerResponse) => {
    req.resume();
    // The warning's read of the conversation answers at once; only the POST waits for the test.
    if (req.method === 'GET') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"messages":[]}');
    let aborted!: () => void;
    const closed = new Promise<void>((resolve) => (aborted = resolve));
    res.on('close', () => {
      if (!res.writableFinished) aborted();
    });
    held.push({
      method: req.method ?? '',
      path: req.url ?? '',
      closed,
      answer: (status, body) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body)),
    });
    notify?.();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async next(): Promise<Held> {
      while (held.length === 0) await new Promise<void>((resolve) => (notify = resolve));
      return held.shift()!;
    },
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

describe('resolve_repo_conflicts', () => {
  let h: Harness;
  let clock: ReturnType<typeof steppingClock>;
  beforeEach(async () => {
    clock = steppingClock();
    h = await connect({ clock });
  });
  afterEach(() => h.close());

  /** Every request but the warning's read of the conversation: what could run an AI turn. */
  const writes = () => h.sandbox.requests.filter((request) => request.method !== 'GET');

  async function confirmed(args: Record<string, unknown> = ARGS) {
    const warning = await h.call('resolve_repo_conflicts', args);
    expect(warning.text).toMatch(/^CONFIRMATION NEEDED\. Nothing was sent\./);
    return h.call('resolve_repo_conflicts', { ...args, confirm: true });
  }

  describe('confirmation', () => {
    it('warns about credits and duration and sends nothing on the first call', async () => {
      const result = await h.call('resolve_repo_conflicts', ARGS);
      expect(result.isError).toBe(false);
      expect(writes()).toHaveLength(0);
      expect(result.text).toMatchInlineSnapshot(`
        "CONFIRMATION NEEDED. Nothing was sent.
        Run an AI turn over the conflicted files of app app_demo and publish the resolution on the repository's default branch.
        It can take minutes: this server waits up to 10 s and sends progress meanwhile.
        Cost: the credits of one AI turn, two if the repository moves on while publishing (the service then retries once; this server never resends it).
        Next: Show this to the user; only if they agree, call resolve_repo_conflicts again with the same arguments plus confirm: true within 10 minutes."
      `);
      expect(result.structured).toEqual({
        confirmation_needed: true,
        action: "Run an AI turn over the conflicted files of app app_demo and publish the resolution on the repository's default branch",
        cost: 'the credits of one AI turn, two if the repository moves on while publishing (the service then retries once; this server never resends it).',
        next: 'Show this to the user; only if they agree, call resolve_repo_conflicts again with the same arguments plus confirm: true within 10 minutes.',
      });
    });

    it('posts once, with the bearer token and no body, when confirmed', async () => {
      h.sandbox.script({ method: 'POST', status: 200, body: { status: 'resolved' } });
      await confirmed();
      expect(writes()).toHaveLength(1);
      const [request] = writes();
      expect(request?.method).toBe('POST');
      expect(request?.rawPath).toBe(PATH);
      expect(request?.headers.authorization).toBe(`Bearer ${h.config.accessToken}`);
      expect(request?.body).toBeUndefined();
    });

    it('sends nothing for confirm: true without a warning, for another app, or after 10 minutes', async () => {
      const cold = await h.call('resolve_repo_conflicts', { ...ARGS, confirm: true });
      expect(cold.text).toMatch(/^NOT SENT: confirm: true needs a pending warning for exactly these arguments/);
      await h.call('resolve_repo_conflicts', ARGS);
      const changed = await h.call('resolve_repo_conflicts', { app_id: 'app_other', confirm: true });
      expect(changed.text).toMatch(/The latest warning of this tool was for other arguments/);
      clock.advance(10 * 60_000 + 1);
      const late = await h.call('resolve_repo_conflicts', { ...ARGS, confirm: true });
      expect(late.text).toMatch(/^NOT SENT: .*expires after 10 minutes/);
      expect([cold, changed, late].every((result) => result.isError)).toBe(true);
      expect(writes()).toHaveLength(0);
    });

    it('needs a new warning to run again after a result', async () => {
      h.sandbox.script({ method: 'POST', status: 200, body: { status: 'conflict' }, times: 2 });
      await confirmed();
      const again = await h.call('resolve_repo_conflicts', { ...ARGS, confirm: true });
      expect(again.text).toMatch(/^NOT SENT/);
      expect(writes()).toHaveLength(1);
    });
  });

  describe('outcomes', () => {
    const outcomes: Array<[Record<string, unknown>, boolean, string]> = [
      [
        { status: 'resolved' },
        false,
        'Conflicts of app app_demo RESOLVED: the resolution is published on the repository\'s default branch.\nNext: If a push of the app failed earlier because the repository had moved on, call push_app_to_repo {"app_id":"app_demo"} now; otherwise nothing more is needed.',
      ],
      [
        { status: 'apply_pending' },
        false,
        "The resolution for app app_demo is still being applied (apply_pending).\nNext: Check the repository's default branch again shortly; do not call resolve_repo_conflicts again.",
      ],
      [
        { status: 'needs_input' },
        false,
        'The AI run for app app_demo needs input (needs_input): it asked a question in the app\'s chat, and the conflicts stay in place until it is answered. Credits were used.\nNext: Read the question with read_app_conversation {"app_id":"app_demo"} and answer it with send_app_chat_message; then pull_repo_changes {"app_id":"app_demo"} (free) finishes the merge. Only if that pull still reports merge_conflict, resolve again (a new warning).',
      ],
      [
        { status: 'conflict' },
        true,
        'Conflicts of app app_demo NOT resolved (conflict): they are left in place, and the app\'s chat has a fresh conflict card. Credits were used.\nNext: Read the conflict card with read_app_conversation {"app_id":"app_demo"}, then resolve by hand or try again (a new warning; it consumes credits again).',
      ],
      [
        { status: 'failed' },
        true,
        'Conflict resolution for app app_demo FAILED with no outcome and no reason given; credits may have been used.\nNext: Try again later (a new warning), or resolve the conflicts by hand.',
      ],
      [
        // The service's reason is shown, and credits are not claimed: nothing ran. A reason that says to pull names the tool.
        { status: 'failed', message: 'There are no merge conflicts to resolve; pull first.', extra: { nested: true } },
        true,
        'Conflict resolution for app app_demo FAILED. The service said: "There are no merge conflicts to resolve; pull first."\nNext: Call pull_repo_changes {"app_id":"app_demo"} first; if it reports merge_conflict, start over with a new warning.',
      ],
      [
        { status: 'failed', message: 'The app is not connected to a working repository.' },
        true,
        'Conflict resolution for app app_demo FAILED. The service said: "The app is not connected to a working repository."\nNext: Act on what the service said, then start over with a new warning.',
      ],
      [
        // A message of the wrong type is ignored rather than failing the whole answer.
        { status: 'resolved', message: 42 },
        false,
        'Conflicts of app app_demo RESOLVED: the resolution is published on the repository\'s default branch.\nNext: If a push of the app failed earlier because the repository had moved on, call push_app_to_repo {"app_id":"app_demo"} now; otherwise nothing more is needed.',
      ],
      [
        { status: 'exploded\n"x"' },
        true,
        'Conflict resolution for app app_demo ended with an unrecognised status "exploded \'x\'".\nNext: Check the repository\'s default branch and the app\'s chat (read_app_conversation {"app_id":"app_demo"}) before trying again.',
      ],
    ];
    for (const [body, isError, text] of outcomes) {
      it(`reports ${JSON.stringify(body)} with the next step`, async () => {
        h.sandbox.script({ method: 'POST', status: 200, body });
        const result = await confirmed();
        expect(result.text).toBe(text);
        expect(result.isError).toBe(isError);
        if (!isError) expect(result.structured).toMatchObject({ confirmation_needed: false, status: body.status, next: text.split('\nNext: ')[1] });
        expect(clock.sleeping).toBe(0); // the progress ticker stopped with the request
      });
    }
  });

  describe('API errors (never retried: exactly one request)', () => {
    const cases: Array<[string, { status: number; body?: unknown; headers?: Record<string, string> }, RegExp[]]> = [
      ['400 out of credits', { status: 400, body: { detail: 'Insufficient credits' } }, [/^400: Refused; no AI turn ran and no credits were used\. Usually the workspace is out of credits/, /Reason given: "Insufficient credits"/]],
      ['401', { status: 401, body: { detail: 'Unauthorized' } }, [/^401: .*APPMGMT_ACCESS_TOKEN/]],
      ['403', { status: 403, body: { detail: 'Workspace API keys are not allowed' } }, [/^403: .*workspace API keys are refused by repository endpoints/]],
      ['403 read-only token', { status: 403, body: { detail: 'read_only_credential_route_not_allowed' } }, [/^403 read_only_credential_route_not_allowed/]],
      ['404', { status: 404, body: { detail: 'App not found.' } }, [/^404: App not found/]],
      ['404 from a router, not the API', { status: 404, body: { detail: 'Not Found' } }, [/^404 from something that is not the API/, /APPMGMT_BASE_URL/]],
      ['429 with Retry-After', { status: 429, body: { detail: 'slow down' }, headers: { 'retry-after': '0' } }, [/^429: Rate limit: pull and conflict resolution share 20 requests per minute/, /Retry after 0 s\./]],
    ];
    for (const [name, response, patterns] of cases) {
      it(`explains ${name}`, async () => {
        h.sandbox.script({ method: 'POST', ...response, times: 3 });
        const result = await confirmed();
        expect(result.isError).toBe(true);
        for (const pattern of patterns) expect(result.text).toMatch(pattern);
        expect(writes()).toHaveLength(1);
      });
    }
  });

  describe('unknown outcomes', () => {
    for (const [name, response] of [
      ['a 409', { status: 409, body: { detail: 'busy' } }],
      ['a 502', { status: 502, body: { detail: 'bad gateway' } }],
      ['a dropped connection', { status: 200, drop: true }],
    ] as const) {
      it(`says OUTCOME UNKNOWN after ${name}; the next warning names the attempt`, async () => {
        h.sandbox.script({ method: 'POST', ...response, times: 3 });
        const result = await confirmed();
        expect(result.isError).toBe(true);
        expect(result.text).toMatch(/^OUTCOME UNKNOWN: .*The AI run may still finish and publish to the default branch, and credits may have been used\./);
        expect(writes()).toHaveLength(1);
        const again = await h.call('resolve_repo_conflicts', ARGS);
        expect(again.text).toContain('Earlier attempt: a confirmed call with these arguments at 2026-11-02T09:00:00.000Z ended with an unknown outcome');
        expect(writes()).toHaveLength(1);
      });
    }

    it('says OUTCOME UNKNOWN when the run outlasts APPMGMT_RESOLVE_TIMEOUT_MS', async () => {
      await h.close();
      h = await connect({ clock, config: { resolveTimeoutMs: 150 } });
      h.sandbox.script({ method: 'POST', status: 200, hang: true });
      const result = await confirmed();
      h.sandbox.release();
      expect(result.text).toMatch(/^OUTCOME UNKNOWN: no whole answer within 150 ms\. The AI run may still finish/);
      expect(writes()).toHaveLength(1);
    });
  });

  describe('while waiting', () => {
    let upstream: Awaited<ReturnType<typeof startUpstream>>;
    beforeEach(async () => {
      upstream = await startUpstream();
      await h.close();
      // A timeout far beyond the test's own, so only an abort can close the connection in time.
      h = await connect({ clock, config: { baseUrl: upstream.url, resolveTimeoutMs: 600_000 } });
    });
    afterEach(() => upstream.close());

    it(`sends a progress notification at once and every ${PROGRESS_EVERY_MS / 1000} s until the answer`, async () => {
      expect(PROGRESS_EVERY_MS).toBeLessThanOrEqual(15_000);
      await h.call('resolve_repo_conflicts', ARGS);
      const messages: string[] = [];
      const pending = h.client.callTool({ name: 'resolve_repo_conflicts', arguments: { ...ARGS, confirm: true } }, undefined, {
        onprogress: (progress) => messages.push(progress.message ?? ''),
      });
      const request = await upstream.next();
      expect([request.method, request.path]).toEqual(['POST', PATH]);
      expect(await clock.asleep()).toBe(PROGRESS_EVERY_MS);
      clock.wake();
      expect(await clock.asleep()).toBe(PROGRESS_EVERY_MS);
      clock.wake();
      await clock.asleep();
      request.answer(200, { status: 'resolved' });
      const result = await pending;
      expect(result.isError).toBeUndefined();
      expect(messages).toEqual([
        'AI conflict resolution started; waiting for the service.',
        'AI conflict resolution still running (10 s so far).',
        'AI conflict resolution still running (20 s so far).',
      ]);
      expect(clock.sleeping).toBe(0);
    });

    it('aborts the HTTP request when the client cancels', async () => {
      await h.call('resolve_repo_conflicts', ARGS);
      const controller = new AbortController();
      const pending = h.client.callTool({ name: 'resolve_repo_conflicts', arguments: { ...ARGS, confirm: true } }, undefined, {
        signal: controller.signal,
      });
      const request = await upstream.next();
      await clock.asleep();
      controller.abort('user pressed stop');
      await expect(pending).rejects.toThrow();
      await request.closed; // the service saw the connection close
      await expect.poll(() => clock.sleeping).toBe(0);
    });
  });
});
