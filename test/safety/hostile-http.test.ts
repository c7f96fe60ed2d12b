import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import { connectHttp, startHttp, type HttpProcess } from '../http/harness.js';

// Issue 16: over HTTP, one user's call whose answer held a 512 KiB id blocked another user's
// tools/list for 41 s. Needs `npm run build`.
const HOSTILE_ID_CHARS = 512 * 1024;
/**
 * How much slower another user's tools/list may be (the median) while the hostile calls run than
 * while the same calls with an ordinary answer run, measured side by side in one test so that a
 * loaded machine slows both. Parsing 512 KiB answers costs something: up to 3.5 times the control
 * was seen at load 10 on 2 cores. The event loop the issue saw blocked held each list for seconds.
 */
const LIST_SLOWDOWN = 10;
/** Calls in a row, per phase, at least: they go on until as many lists as LISTS overlapped them. */
const CALLS = 4;
const LISTS = 8;
const WARM_LISTS = 20;

describe('one hostile answer over HTTP', () => {
  let sandbox: Sandbox;
  let server: HttpProcess;
  let headers: Record<string, string>;

  beforeAll(async () => {
    sandbox = await startSandbox({ control: true });
    const { accessToken, apiKey } = sandbox.simulation.credentials;
    headers = { authorization: `Bearer ${accessToken}`, 'x-appmgmt-api-key': apiKey };
    server = await startHttp([], { APPMGMT_BASE_URL: sandbox.url });
  });
  afterAll(async () => {
    expect(await server.stop()).toBe(0);
    await sandbox.close();
  });

  it("never holds up another user's tools/list, and names the id's length instead of echoing it", async () => {
    const alice = await connectHttp(server.mcp, '2025-11-25', { headers });
    const bob = await connectHttp(server.mcp, '2026-07-28', { headers });
    try {
      // Warm up both ends: the first lists compile the schemas on each side and take longer.
      for (let i = 0; i < WARM_LISTS; i++) await bob.listTools();
      /** Bob's tools/list times while Alice makes calls of get_ad_campaign answered with `id`. */
      const listsDuring = async (id: string) => {
        sandbox.script({ method: 'GET', path: /\/adnet-ads\/campaigns\/cmp_demo$/, status: 200, body: { id, status: 'ENABLED' }, times: 1_000 });
        const ms: number[] = [];
        let running = true;
        const calls = (async () => {
          const results = [];
          while (results.length < CALLS || ms.length < LISTS) results.push(await alice.callTool('get_ad_campaign', { app_id: 'app_demo', campaign_id: 'cmp_demo' }));
          running = false;
          return results;
        })();
        while (running) {
          const start = performance.now();
          expect(await bob.listTools()).toHaveLength(28);
          if (running) ms.push(performance.now() - start);
        }
        sandbox.release();
        return { ms, results: await calls };
      };
      const median = (ms: number[]) => [...ms].sort((a, b) => a - b)[Math.floor(ms.length / 2)]!;
      // The control: the same calls with an ordinary id, before and after, so a change in load falls on both.
      const before = await listsDuring('cmp_demo');
      const hostile = await listsDuring('x'.repeat(HOSTILE_ID_CHARS));
      const after = await listsDuring('cmp_demo');
      const control = [...before.ms, ...after.ms];
      const seen = `control ${control.map(Math.round).join(', ')}; hostile ${hostile.ms.map(Math.round).join(', ')}`;
      expect(median(hostile.ms), seen).toBeLessThan(LIST_SLOWDOWN * median(control));
      for (const result of before.results) expect(result.isError, result.text).toBe(false);
      for (const result of hostile.results) {
        expect(result.isError).toBe(true);
        expect(result.text).toContain(`an id of ${HOSTILE_ID_CHARS} characters`);
        expect(result.text.length).toBeLessThan(1_000);
      }
    } finally {
      await alice.close();
      await bob.close();
    }
  });
});
