import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ANSWER_BYTES } from '../../src/api/client.js';
import { countingSend, startUpstream, type Upstream } from '../api/upstream.js';
import { connect, type Harness } from '../helpers.js';

// A misbehaving upstream seen through the whole server: the model gets a clear answer, and the
// server keeps answering others meanwhile.
describe('a misbehaving upstream, through the server', () => {
  let upstream: Upstream;
  let h: Harness;
  const counter = countingSend();
  beforeAll(async () => {
    upstream = await startUpstream();
    h = await connect({ config: { baseUrl: upstream.url, monitoringUrl: upstream.url, timeoutMs: 10_000 }, send: counter.send });
  });
  afterAll(async () => {
    await h.close();
    await upstream.close();
  });

  it('keeps answering pings and other calls while one answer streams in large and slow', async () => {
    upstream.handle((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url?.includes('/analytics/')) {
        // 6 MiB in 64 KiB pieces, one every 5 ms: over the size limit, and slow.
        res.write('{"summary":{"pad":"');
        let sent = 0;
        const piece = 'x'.repeat(64 * 1024);
        const pump = setInterval(() => {
          if (res.destroyed || sent > 6 * 1024 * 1024) return clearInterval(pump);
          res.write(piece);
          sent += piece.length;
        }, 5);
        res.on('close', () => clearInterval(pump));
        return;
      }
      res.end(JSON.stringify({ job_id: 'job_1', status: 'completed', phase: 'completed', result: { selected: 1 }, error: null }));
    });
    const large = h.call('get_workspace_analytics', { workspace_id: 'ws_1' });
    await expect(h.client.ping()).resolves.toEqual({});
    const other = await h.call('get_scheduling_job', { app_id: 'app_1', job_id: 'job_1' });
    expect(other.text).toMatch(/^Job job_1 completed/);
    const result = await large;
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^The service's answer is larger than 5 MiB; reading stopped there\./);
    upstream.reset();
  });

  it('stops a compressed bomb early with a clear error, having inflated little more than the 5 MiB limit', async () => {
    const bomb = gzipSync(Buffer.concat([Buffer.from('{"summary":{"pad":"'), Buffer.alloc(64 * 1024 * 1024, 'a')]));
    upstream.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(bomb);
    });
    counter.inflated = 0;
    const result = await h.call('get_workspace_analytics', { workspace_id: 'ws_1' });
    expect(bomb.length).toBeLessThan(1024 * 1024);
    expect(result.text).toMatch(/larger than 5 MiB/);
    // What was decoded, not only what was sent: reading stopped within a chunk of the limit, not at 64 MiB.
    expect(counter.inflated).toBeGreaterThan(MAX_ANSWER_BYTES);
    expect(counter.inflated).toBeLessThan(MAX_ANSWER_BYTES + 1024 * 1024);
    upstream.reset();
  });

  it.each([
    ['Infinity', { 'retry-after': 'Infinity' }],
    ['an HTTP date an hour away', { 'retry-after': new Date(Date.now() + 3_600_000).toUTCString() }],
    ['an X-RateLimit-Reset an hour away', { 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600) }],
  ])('returns a 429 at once when it asks to wait %s', async (_name, headers) => {
    upstream.answer({ status: 429, headers, body: { detail: 'slow down' } });
    const result = await h.call('get_scheduling_job', { app_id: 'app_1', job_id: 'job_1' });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^429: /);
    expect(upstream.requests).toHaveLength(1);
    upstream.reset();
  });
});
