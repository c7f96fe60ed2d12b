import { getEventListeners } from 'node:events';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClientOptions } from '../../src/api/client.js';
import type { Config } from '../../src/config.js';
import { ApiError, CancelledError } from '../../src/errors.js';
import { silentLog } from '../../src/log.js';
import { failure, job, send, startUpstream, upstreamConfig, type Answer, type Upstream } from './upstream.js';

/** The injected clock: whole seconds, so HTTP dates (second precision) are exact. */
const NOW = Date.UTC(2030, 0, 1, 12, 0, 0);
const httpDate = (offsetMs: number) => new Date(NOW + offsetMs).toUTCString();

describe('api client retries', () => {
  let upstream: Upstream;
  let sleeps: number[];
  const client = (options: Partial<ApiClientOptions> = {}, config: Partial<Config> = {}) =>
    createApiClient({
      config: upstreamConfig(upstream, config),
      log: silentLog,
      retryDelayMs: (attempt) => 7 * attempt,
      now: () => NOW,
      sleep: async (ms) => void sleeps.push(ms),
      ...options,
    });

  beforeAll(async () => {
    upstream = await startUpstream();
  });
  afterAll(() => upstream.close());
  beforeEach(() => {
    upstream.reset();
    sleeps = [];
  });

  describe('waits the upstream asks for, whatever header carries it', () => {
    it.each([
      ['Retry-After in seconds', { 'retry-after': '3' }, 3000],
      ['Retry-After in fractional seconds', { 'retry-after': '2.5' }, 2500],
      ['Retry-After as a past HTTP date', { 'retry-after': httpDate(-60_000) }, 0],
      ['a negative Retry-After', { 'retry-after': '-5' }, 0],
      ['a garbage Retry-After (backoff instead)', { 'retry-after': 'soon' }, 7],
      ['RateLimit-Reset in seconds', { 'ratelimit-reset': '1' }, 1000],
      ['no header (backoff)', {}, 7],
    ])('retries a 429 with %s, after the right wait', async (_name, headers, waitMs) => {
      upstream.answer({ status: 429, headers }, { status: 200, body: job });
      await expect(client().getSchedulingJob('app_1', 'job_1')).resolves.toMatchObject({ job_id: 'job_1' });
      expect(upstream.requests).toHaveLength(2);
      expect(sleeps).toEqual([waitMs]);
    });

    it.each([
      ['Retry-After as an HTTP date an hour ahead', { 'retry-after': httpDate(3_600_000) }, 3600],
      ['X-RateLimit-Reset as epoch seconds 60 s ahead', { 'x-ratelimit-reset': String(NOW / 1000 + 60) }, 60],
      ['Retry-After: Infinity (never a retry)', { 'retry-after': 'Infinity' }, undefined],
    ])('returns a 429 with %s at once, with when to retry', async (_name, headers, retryAfterSeconds) => {
      upstream.answer({ status: 429, headers }, { status: 200, body: job });
      const error = await failure(client().getSchedulingJob('app_1', 'job_1'));
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 429, retryAfterSeconds });
      expect(upstream.requests).toHaveLength(1);
      expect(sleeps).toEqual([]);
    });

    it('honours Retry-After on a 503: waits 1 s and retries', async () => {
      upstream.answer({ status: 503, headers: { 'retry-after': '1' } }, { status: 200, body: job });
      await expect(client().getSchedulingJob('app_1', 'job_1')).resolves.toMatchObject({ job_id: 'job_1' });
      expect(sleeps).toEqual([1000]);
      expect(upstream.requests).toHaveLength(2);
    });

    it('returns a 502 whose Retry-After is over the cap at once', async () => {
      upstream.answer({ status: 502, headers: { 'retry-after': '120' } });
      await expect(failure(client().pushAppToRepo('app_1'))).resolves.toMatchObject({ status: 502, retryAfterSeconds: 120 });
      expect(upstream.requests).toHaveLength(1);
    });

    it('does not start a wait that would end after the deadline', async () => {
      upstream.answer({ status: 503, headers: { 'retry-after': '10' } });
      await expect(failure(client({}, { timeoutMs: 5_000 }).getSchedulingJob('app_1', 'job_1'))).resolves.toMatchObject({
        status: 503,
        retryAfterSeconds: 10,
      });
      expect(sleeps).toEqual([]);
    });

    it('never retries a costly operation, even when told to wait 3 s', async () => {
      upstream.answer({ status: 429, headers: { 'retry-after': '3' } }, { status: 200, body: {} });
      await expect(failure(client().createAdCampaign('app_1', {}))).resolves.toMatchObject({ status: 429, retryAfterSeconds: 3 });
      expect(upstream.requests).toHaveLength(1);
    });

    it('does not retry a 500 or a 400', async () => {
      upstream.answer({ status: 500 }, { status: 400 }, { status: 200, body: job });
      await expect(failure(client().getSchedulingJob('app_1', 'job_1'))).resolves.toMatchObject({ status: 500 });
      await expect(failure(client().getSchedulingJob('app_1', 'job_1'))).resolves.toMatchObject({ status: 400 });
      expect(upstream.requests).toHaveLength(2);
    });
  });

  describe('signals', () => {
    it('leaves no abort listener on the caller or shutdown signal after 20 calls', async () => {
      const caller = new AbortController();
      const shutdown = new AbortController().signal;
      const count = () => [getEventListeners(caller.signal, 'abort').length, getEventListeners(shutdown, 'abort').length];
      const before = count();
      const answers: Answer[] = [{ status: 200, body: job }, { status: 503 }, { status: 200, body: job }, { status: 400 }, { status: 202 }];
      upstream.handle((_req, res) => send(res, answers[(upstream.requests.length - 1) % answers.length]!));
      const api = client({ shutdown });
      for (let i = 0; i < 20; i++) await api.getSchedulingJob('app_1', 'job_1', { signal: caller.signal }).catch(() => undefined);
      const sent = upstream.requests.length;
      expect(sent).toBeGreaterThan(20);
      expect(count()).toEqual(before);

      // While a call is in flight, each signal holds exactly one listener: ours, gone when the call ends.
      upstream.handle(() => undefined);
      const pending = failure(api.resolveRepoConflicts('app_1', { signal: caller.signal }));
      await expect.poll(() => upstream.requests.length).toBe(sent + 1);
      expect(count()).toEqual(before.map((n) => n + 1));
      caller.abort();
      expect(await pending).toBeInstanceOf(CancelledError);
      expect(getEventListeners(shutdown, 'abort')).toHaveLength(before[1]!);
    });

    it('gives up a retry wait at once on shutdown, with the last error', async () => {
      const shutdown = new AbortController();
      upstream.answer({ status: 503, headers: { 'retry-after': '10' }, body: { detail: 'maintenance' } });
      // The real sleep: the 10 s wait must end when shutdown aborts, not when it runs out.
      const pending = failure(client({ shutdown: shutdown.signal, sleep: undefined }, { timeoutMs: 30_000 }).getSchedulingJob('app_1', 'job_1'));
      await expect.poll(() => upstream.requests.length).toBe(1);
      const started = performance.now();
      shutdown.abort();
      const error = await pending;
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 503, retryAfterSeconds: 10, body: { detail: 'maintenance' } });
      expect(upstream.requests).toHaveLength(1);
    });

    it('ends a request in flight on shutdown', async () => {
      const shutdown = new AbortController();
      upstream.handle(() => undefined);
      const pending = failure(client({ shutdown: shutdown.signal }).resolveRepoConflicts('app_1'));
      await expect.poll(() => upstream.requests.length).toBe(1);
      shutdown.abort();
      expect(await pending).toBeInstanceOf(CancelledError);
    });

    it('sends nothing once shutdown has begun', async () => {
      const shutdown = new AbortController();
      shutdown.abort();
      await expect(failure(client({ shutdown: shutdown.signal }).getSchedulingJob('app_1', 'job_1'))).resolves.toBeInstanceOf(CancelledError);
      expect(upstream.requests).toHaveLength(0);
    });

    it('ends a retry wait as cancelled when the caller cancels', async () => {
      const caller = new AbortController();
      upstream.answer({ status: 503, headers: { 'retry-after': '10' } });
      const pending = failure(client({ sleep: undefined }, { timeoutMs: 30_000 }).getSchedulingJob('app_1', 'job_1', { signal: caller.signal }));
      await expect.poll(() => upstream.requests.length).toBe(1);
      caller.abort();
      expect(await pending).toBeInstanceOf(CancelledError);
    });
  });
});
