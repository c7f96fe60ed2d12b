import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryStore, type GateStore } from '../../src/gate/store.js';
import { silentLog } from '../../src/log.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import { createServerFactory } from '../../src/server.js';
import type { HttpServer } from '../../src/transports/http.js';
import { sandboxConfig } from '../helpers.js';
import { campaign, connectHttp, ERAS, serveInProcess } from './harness.js';

/**
 * Draining an HTTP server (SIGTERM) while a confirmed spend is still on its way upstream: when the
 * drain time is up, the request is cancelled and its client gets OUTCOME UNKNOWN, never a dropped
 * socket; the gate remembers the unknown outcome for the next warning. In process, with a drain
 * time of milliseconds instead of the 10 s a deployment gets.
 */

/** Short, so the test does not wait: the upstream below never answers within it. */
const DRAIN_MS = 100;
/** Replicas share it, as they share the store: it keys who a caller is. */
const STATE_SECRET = 'drain-test-Qz9pLm2Xv4Rt8Wn3Yb6Hc1Jd5F';

describe('draining the http server with a confirmed spend in flight', () => {
  let sandbox: Sandbox;
  let store: GateStore;
  const servers: HttpServer[] = [];

  beforeEach(async () => {
    sandbox = await startSandbox();
    store = createMemoryStore({ now: Date.now });
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.drain();
    await sandbox.close();
  });

  /** A replica as runHttp builds it: credentials come from each request, requests abort only at the drain deadline. */
  async function replica(drainMs = DRAIN_MS) {
    const shutdown = new AbortController();
    const abortRequests = new AbortController();
    const config = sandboxConfig(sandbox, { accessToken: undefined, apiKey: undefined, monitoringApiKey: undefined });
    const factory = createServerFactory({ config, log: silentLog, store, shutdown: shutdown.signal, abortRequests: abortRequests.signal, stateSecret: STATE_SECRET });
    const server = await serveInProcess(factory, shutdown, { abortRequests, drainMs });
    servers.push(server);
    return { server, mcp: new URL(`${server.url}/mcp`), abortRequests };
  }

  const headers = () => ({ authorization: `Bearer ${sandbox.simulation.credentials.accessToken}` });
  const posted = () => sandbox.requests.some((request) => request.method === 'POST' && request.rawPath.endsWith('/campaigns'));

  for (const era of ERAS) {
    it(`answers the confirmed call OUTCOME UNKNOWN before closing, and the gate remembers it (${era})`, async () => {
      const { server, mcp } = await replica();
      const client = await connectHttp(mcp, era, { headers: headers() });
      const args = campaign(`Drained ${era}`);
      expect((await client.callTool('create_ad_campaign', args)).text).toMatch(/^CONFIRMATION NEEDED/);
      sandbox.script({ status: 200, hang: true, method: 'POST', path: /\/campaigns$/ });
      const confirmed = client.callTool('create_ad_campaign', { ...args, confirm: true });
      while (!posted()) await new Promise((resolve) => setTimeout(resolve, 5));

      await server.drain(); // every connection is closed when it resolves: a call without its answer by then fails
      const answer = await confirmed;
      expect(answer.isError).toBe(true);
      expect(answer.text).toMatch(/^OUTCOME UNKNOWN: the call was cancelled while the request was on its way\. /);
      expect(answer.text).not.toMatch(/Nothing was sent/);
      await client.close().catch(() => undefined);

      // Another replica on the same store: the next warning names the earlier attempt's unknown outcome.
      const other = await replica();
      const next = await connectHttp(other.mcp, era, { headers: headers() });
      const warning = await next.callTool('create_ad_campaign', args);
      expect(warning.text).toMatch(/^CONFIRMATION NEEDED\. Nothing was sent\.\nEarlier attempt: a confirmed call with these arguments at \S+ ended with an unknown outcome \(the call was cancelled while the request was on its way\)\./);
      expect(warning.structured).toMatchObject({ earlier_attempt: expect.stringMatching(/the call was cancelled while the request was on its way$/) });
      await next.close();
    });
  }

  it('lets a call that answers within the drain time finish untouched', async () => {
    const { server, mcp, abortRequests } = await replica(5_000);
    const client = await connectHttp(mcp, '2026-07-28', { headers: headers() });
    const args = campaign('Answers in time');
    await client.callTool('create_ad_campaign', args);
    sandbox.script({ status: 200, hang: true, method: 'POST', path: /\/campaigns$/ });
    const confirmed = client.callTool('create_ad_campaign', { ...args, confirm: true });
    while (!posted()) await new Promise((resolve) => setTimeout(resolve, 5));
    const drained = server.drain();
    sandbox.release(); // the upstream answers (504) while draining
    const answer = await confirmed;
    await drained;
    expect(abortRequests.signal.aborted).toBe(false);
    expect(answer.text).toMatch(/^OUTCOME UNKNOWN: the service answered 504/);
    await client.close().catch(() => undefined);
  });
});
