import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import { connectHttp, startHttp, type HttpProcess } from '../http/harness.js';

// Issue 16: over HTTP, one user's call whose answer held a 512 KiB id blocked another user's
// tools/list for 41 s. Needs `npm run build`.
const HOSTILE_ID_CHARS = 512 * 1024;
/** How long another user's tools/list takes (the median) while the hostile calls run. */
const LIST_BUDGET_MS = 100;
/**
 * The slowest list allowed: a loaded CI machine delays a single list by a few hundred ms even with
 * no hostile call (seen: 300 ms at load 6 on 2 cores); a blocked event loop took 4 s at 64 KiB.
 */
const LIST_CEILING_MS = 1_000;
/** Hostile calls in a row: long enough for several lists to overlap them. */
const HOSTILE_CALLS = 4;
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
      sandbox.script({ method: 'GET', path: /\/adnet-ads\/campaigns\/cmp_demo$/, status: 200, body: { id: 'x'.repeat(HOSTILE_ID_CHARS), status: 'ENABLED' }, times: HOSTILE_CALLS * 3 });
      let running = true;
      const hostile = (async () => {
        const results = [];
        for (let i = 0; i < HOSTILE_CALLS; i++) results.push(await alice.callTool('get_ad_campaign', { app_id: 'app_demo', campaign_id: 'cmp_demo' }));
        running = false;
        return results;
      })();
      const listMs: number[] = [];
      while (running) {
        const start = performance.now();
        expect(await bob.listTools()).toHaveLength(28);
        if (running) listMs.push(performance.now() - start);
      }
      const results = await hostile;
      expect(listMs.length).toBeGreaterThan(0);
      const sorted = [...listMs].sort((a, b) => a - b);
      const seen = listMs.map(Math.round).join(', ');
      expect(sorted[Math.floor(sorted.length / 2)], seen).toBeLessThan(LIST_BUDGET_MS);
      expect(sorted.at(-1), seen).toBeLessThan(LIST_CEILING_MS);
      for (const result of results) {
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
