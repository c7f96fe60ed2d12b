import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Harness } from '../helpers.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

describe('load', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await connect();
  });
  afterAll(() => h.close());

  async function burst(count: number) {
    const jobs = Array.from({ length: count }, (_, i) => `job_load_${i}`);
    for (const id of jobs) {
      h.sandbox.script({ status: 200, path: `/api/apps/app_demo/social-calendar/posts/schedule/${id}`, body: { job_id: id, status: 'running', phase: 'prepare', result: null, error: null } });
    }
    const results = await Promise.all(jobs.map((job_id) => h.call('get_scheduling_job', { app_id: 'app_demo', job_id })));
    return { jobs, results };
  }

  it('completes 200 concurrent tool calls, each with its own correct result', async () => {
    const { jobs, results } = await burst(200);
    expect(results).toHaveLength(200);
    results.forEach((result, i) => {
      expect(result.isError, result.text).toBe(false);
      expect(result.structured?.job_id).toBe(jobs[i]);
      expect(result.text).toContain(jobs[i]);
    });
  });

  it('returns memory to its baseline after repeated bursts', async () => {
    await burst(200); // warm up JIT, pools and caches
    h.sandbox.reset();
    const baseline = heapAfterGc();
    for (let round = 0; round < 5; round++) {
      await burst(200);
      h.sandbox.reset();
    }
    const growth = heapAfterGc() - baseline;
    expect(growth).toBeLessThan(8 * 1024 * 1024);
  });
});
