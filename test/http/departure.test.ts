import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/gate/store.js';
import { silentLog } from '../../src/log.js';
import { createServerFactory } from '../../src/server.js';
import { offlineConfig } from '../helpers.js';
import { connectHttp, ERAS, serveInProcess } from './harness.js';

/**
 * A client that goes away while its tool call waits on the API: the request on its way upstream is
 * cancelled (its connection closed), in every era, rather than left to run to its deadline for
 * nobody. The API here never answers; the call's deadline is far beyond the test's waits.
 */

interface Upstream {
  url: string;
  /** The requests the API has received, and whether each one's connection has closed. */
  requests: Array<{ path: string; closed: boolean }>;
  server: Server;
}

async function silentUpstream(): Promise<Upstream> {
  const requests: Upstream['requests'] = [];
  const server = createServer((req: IncomingMessage) => {
    const seen = { path: req.url ?? '', closed: false };
    requests.push(seen);
    req.socket.once('close', () => (seen.closed = true));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, server };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 5) {
    if (waited > 5_000) throw new Error(`waited 5 s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('a client that leaves during a tool call', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  for (const era of ERAS) {
    it(`cancels the call's request to the API (${era})`, async () => {
      const upstream = await silentUpstream();
      closers.push(() => new Promise<void>((resolve) => (upstream.server.closeAllConnections(), upstream.server.close(() => resolve()))));
      const shutdown = new AbortController();
      const config = offlineConfig({ baseUrl: upstream.url, monitoringUrl: upstream.url, timeoutMs: 60_000 });
      const factory = createServerFactory({ config, log: silentLog, store: createMemoryStore({ now: Date.now }), shutdown: shutdown.signal });
      const http = await serveInProcess(factory, shutdown, { drainMs: 100, flushMs: 100 });
      closers.push(() => http.drain());

      // The client's fetch for the tool call can be cut, as a closed laptop or a killed agent would.
      let leave: (() => void) | undefined;
      const leavingFetch: typeof fetch = (input, init) => {
        if (typeof init?.body !== 'string' || !init.body.includes('"tools/call"')) return fetch(input, init);
        const gone = new AbortController();
        leave = () => gone.abort();
        return fetch(input, { ...init, signal: gone.signal });
      };
      const client = await connectHttp(new URL(`${http.url}/mcp`), era, { headers: { authorization: 'Bearer departing-token' }, fetch: leavingFetch });
      const call = client.callTool('list_campaign_suggestions', { app_id: 'app_1', campaign_id: 'cmp_1' }).catch((error: unknown) => error);
      await until(() => upstream.requests.length === 1, 'the request to reach the API');
      expect(upstream.requests[0]).toMatchObject({ path: '/api/apps/app_1/adnet-ads/campaigns/cmp_1/optimization-suggestions', closed: false });

      leave!();
      await until(() => upstream.requests[0]!.closed, 'the request to the API to be cancelled');
      expect(await call).toBeInstanceOf(Error);
      expect(upstream.requests).toHaveLength(1); // nothing sent again
      await client.close().catch(() => undefined);
    });
  }
});
