import type { ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApiClient, MAX_ANSWER_BYTES } from '../../src/api/client.js';
import { nodeSend, type Send } from '../../src/api/transport.js';
import type { Config } from '../../src/config.js';
import { AnswerTooLargeError, ApiError, UnexpectedAnswerError, UnreachableError } from '../../src/errors.js';
import { silentLog } from '../../src/log.js';
import { redactor } from '../../src/text.js';
import { countingSend, failure, job, send, startUpstream, upstreamConfig, type Upstream } from './upstream.js';

const MiB = 1024 * 1024;
const SECRET = 'sekret-abc-123';

describe('api client against a misbehaving upstream', () => {
  let upstream: Upstream;
  const client = (overrides: Partial<Config> = {}, send?: Send) =>
    createApiClient({ config: upstreamConfig(upstream, overrides), log: silentLog, retryDelayMs: () => 0, redact: redactor([SECRET]), ...(send ? { send } : {}) });

  beforeAll(async () => {
    upstream = await startUpstream();
  });
  afterAll(() => upstream.close());
  beforeEach(() => upstream.reset());

  /** Sends the headers and then one byte every 200 ms, forever. */
  const trickle = (_req: unknown, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{');
    const timer = setInterval(() => res.write(' '), 200);
    res.on('close', () => clearInterval(timer));
  };

  /** Writes `chunk` every `everyMs` until the client goes away; returns the bytes written so far. */
  const stream = (res: ServerResponse, chunk: Buffer, everyMs: number, headers: Record<string, string> = {}) => {
    const written = { bytes: 0, closed: false };
    res.writeHead(200, { 'content-type': 'application/json', ...headers });
    const timer = setInterval(() => {
      res.write(chunk);
      written.bytes += chunk.length;
    }, everyMs);
    res.on('close', () => {
      clearInterval(timer);
      written.closed = true;
    });
    return written;
  };

  describe('whole-answer deadline', () => {
    it('ends a body that trickles forever, on an operation that retries, without retrying', async () => {
      upstream.handle(trickle);
      const started = performance.now();
      const error = await failure(client({ timeoutMs: 300 }).getSchedulingJob('app_1', 'job_1'));
      expect(error).toBeInstanceOf(UnreachableError);
      expect(error).toMatchObject({ kind: 'timeout', timeoutMs: 300 });
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(upstream.requests).toHaveLength(1);
    });

    it('ends a body that trickles forever on the costly operations that never retry', async () => {
      upstream.handle(trickle);
      const api = client({ timeoutMs: 300, resolveTimeoutMs: 300 });
      await expect(failure(api.createAdCampaign('app_1', { campaign_name: 'x' }))).resolves.toMatchObject({ kind: 'timeout' });
      await expect(failure(api.resolveRepoConflicts('app_1'))).resolves.toMatchObject({ kind: 'timeout', timeoutMs: 300 });
      expect(upstream.requests).toHaveLength(2);
    });
  });

  describe('size limit', () => {
    it('refuses a Content-Length over the limit without reading the body', async () => {
      upstream.handle((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(10 * MiB) });
        res.write('[');
      });
      await expect(failure(client().getSchedulingJob('app_1', 'job_1'))).resolves.toBeInstanceOf(AnswerTooLargeError);
    });

    it('stops an endless streamed body at 5 MiB and drops the connection', async () => {
      let written = { bytes: 0, closed: false };
      upstream.handle((_req, res) => void (written = stream(res, Buffer.alloc(256 * 1024, 'a'), 2)));
      const error = await failure(client().getSchedulingJob('app_1', 'job_1'));
      expect(error).toBeInstanceOf(AnswerTooLargeError);
      expect(error).toMatchObject({ limitBytes: MAX_ANSWER_BYTES });
      await expect.poll(() => written.closed).toBe(true);
      expect(written.bytes).toBeLessThan(64 * MiB);
    });

    it('stops a gzip bomb long before the server has sent it all, having inflated little more than the limit', async () => {
      // 1 GiB of zeros as 1,024 concatenated gzip members of 1 MiB each: about 1 MiB on the wire.
      const member = gzipSync(Buffer.alloc(MiB));
      const members = 1024;
      let sent = 0;
      upstream.handle((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        const timer = setInterval(() => {
          sent += 1;
          if (sent < members) res.write(member);
          else {
            clearInterval(timer);
            res.end(member);
          }
        }, 5);
        res.on('close', () => clearInterval(timer));
      });
      const counter = countingSend();
      const error = await failure(client({}, counter.send).getSchedulingJob('app_1', 'job_1'));
      expect(error).toBeInstanceOf(AnswerTooLargeError);
      expect(sent).toBeLessThan(members / 4);
      expect(counter.inflated).toBeGreaterThan(MAX_ANSWER_BYTES);
      expect(counter.inflated).toBeLessThan(MAX_ANSWER_BYTES + MiB);
    });

    it('keeps answering other calls while one answer streams in', async () => {
      upstream.handle((req, res) => {
        if (req.url?.includes('/huge/')) stream(res, Buffer.alloc(128 * 1024, ' '), 10);
        else send(res, { status: 200, body: job });
      });
      const api = client();
      let hugeSettled = false;
      const huge = failure(api.getSchedulingJob('huge', 'job_1')).finally(() => (hugeSettled = true));
      for (let i = 0; i < 5; i++) await expect(api.getSchedulingJob('app_1', 'job_1')).resolves.toMatchObject({ job_id: 'job_1' });
      expect(hugeSettled).toBe(false);
      expect(await huge).toBeInstanceOf(AnswerTooLargeError);
    });

    it('keeps the status of an error whose body is over its limit, without the body', async () => {
      upstream.answer({ status: 400, body: 'x'.repeat(2 * MiB) });
      const error = await failure(client().getSchedulingJob('app_1', 'job_1'));
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 400, body: undefined });
    });
  });

  describe('status and shape', () => {
    it.each([
      ['a 202 where 200 is expected', { status: 202, body: job }, /status 202/],
      ['an empty 200', { status: 200 }, /empty/],
      ['an HTML 200', { status: 200, headers: { 'content-type': 'text/html' }, body: '<html><body>Welcome</body></html>' }, /text\/html/],
      ['a 200 with the wrong types', { status: 200, body: { ...job, job_id: 5 } }, /job_id/],
    ])('turns %s into an unexpected answer, without retrying', async (_name, answer, detail) => {
      upstream.answer(answer);
      const error = await failure(client().getSchedulingJob('app_1', 'job_1'));
      expect(error).toBeInstanceOf(UnexpectedAnswerError);
      expect((error as UnexpectedAnswerError).detail).toMatch(detail);
      expect((error as UnexpectedAnswerError).detail).not.toMatch(/Welcome|<html/);
      expect(upstream.requests).toHaveLength(1);
    });

    it('does not follow a 301: one request, and an ApiError with that status', async () => {
      upstream.answer({ status: 301, headers: { location: `${upstream.url}/elsewhere` } });
      const error = await failure(client().createAdCampaign('app_1', { campaign_name: 'x' }));
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 301 });
      expect(upstream.requests.map((r) => r.url)).toEqual(['/api/apps/app_1/adnet-ads/campaigns']);
    });
  });

  describe('a connection dropped while the answer comes in', () => {
    const halfAnswer = (_req: unknown, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"job_id": "job_1", "sta', () => res.socket?.destroy());
    };

    it('is a network failure, plain or gzip, and a costly operation is not sent again', async () => {
      upstream.handle(halfAnswer);
      const error = await failure(client().createAdCampaign('app_1', { campaign_name: 'x' }));
      expect(error).toBeInstanceOf(UnreachableError);
      expect(error).toMatchObject({ kind: 'network' });
      expect(upstream.requests).toHaveLength(1);
      upstream.handle((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': '1000' });
        res.write(gzipSync(JSON.stringify(job)).subarray(0, 20), () => res.socket?.destroy());
      });
      expect(await failure(client().createAdCampaign('app_1', { campaign_name: 'x' }))).toMatchObject({ kind: 'network' });
      expect(upstream.requests).toHaveLength(2);
    });
  });

  describe('redaction at the boundary', () => {
    it('replaces a secret echoed in a successful answer, in values and keys', async () => {
      upstream.answer({ status: 200, body: { ...job, phase: `using ${SECRET}`, [`k-${SECRET}`]: 1 } });
      const answer = await client().getSchedulingJob('app_1', 'job_1');
      expect(JSON.stringify(answer)).not.toContain(SECRET);
      expect(answer.phase).toBe('using [redacted]');
    });

    it('replaces a secret echoed in an error body, JSON or text', async () => {
      upstream.answer({ status: 400, body: { detail: `bad key ${SECRET}` } }, { status: 500, headers: { 'content-type': 'text/plain' }, body: `oops ${SECRET}` });
      const json = await failure(client().createAdCampaign('app_1', {}));
      expect(json).toMatchObject({ status: 400, body: { detail: 'bad key [redacted]' } });
      const text = await failure(client().createAdCampaign('app_1', {}));
      expect(text).toMatchObject({ status: 500, body: 'oops [redacted]' });
    });
  });

  describe('requests made in one turn', () => {
    const read = async (answer: Awaited<ReturnType<Send>>) => {
      let text = '';
      await answer.read((chunk) => ((text += Buffer.from(chunk).toString('utf8')), true));
      return text;
    };

    it('go out together, each answered with its own answer', async () => {
      upstream.handle((req, res) => send(res, { status: 200, body: { path: req.url } }));
      const sendOnce = nodeSend();
      const paths = ['/a', '/b', '/c', '/d'];
      const answers = await Promise.all(paths.map((path) => sendOnce({ method: 'get', url: upstream.url + path, headers: {}, signal: new AbortController().signal })));
      expect(await Promise.all(answers.map(read))).toEqual(paths.map((path) => JSON.stringify({ path })));
      expect(upstream.requests.map((request) => request.url).sort()).toEqual(paths);
    });

    it('one cancelled before the turn ends is never written; the others are', async () => {
      upstream.handle((req, res) => send(res, { status: 200, body: { path: req.url } }));
      const sendOnce = nodeSend();
      const cancel = new AbortController();
      const cancelled = sendOnce({ method: 'post', url: `${upstream.url}/spend`, headers: {}, body: '{"amount":1}', signal: cancel.signal });
      const kept = sendOnce({ method: 'get', url: `${upstream.url}/read`, headers: {}, signal: new AbortController().signal });
      cancel.abort();
      await expect(cancelled).rejects.toThrow(/abort/i);
      expect(await read(await kept)).toBe(JSON.stringify({ path: '/read' }));
      expect(upstream.requests.map((request) => request.url)).toEqual(['/read']);
    });
  });
});
