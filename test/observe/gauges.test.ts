import { MeterProvider, MetricReader, type GaugeMetricData } from '@opentelemetry/sdk-metrics';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStore, type RedisGateStore } from '../../src/gate/redis-store.js';
import { registerGauges, STORE_CHECK_TIMEOUT_MS } from '../../src/observe/gauges.js';
import { docFigures } from '../docs/markdown.js';
import { redisSkipReason, startRedis, type RedisServer } from '../redis.js';

/**
 * docs/operations.md: `app_management_mcp.gate.store.reachable` is 1 when the gate's store answered
 * its health check at this export, else 0. Read through the SDK's own collection, against a real
 * Redis that is stopped and started again.
 */

const REACHABLE = 'app_management_mcp.gate.store.reachable';
/** docs/operations.md: the health check must answer within this many seconds for the gauge to read 1. */
const [CHECK_WITHIN_S] = docFigures('docs/operations.md', /\| 1 when the gate's store answered its health check \(within (\d+) s\) at this export, else 0;/) as [number];

/** A reader the test collects from when it wants, as an export would. */
class OnDemandReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

describe.skipIf(redisSkipReason !== undefined)('the gate store reachability gauge', () => {
  let redis: RedisServer;
  let store: RedisGateStore;
  const reader = new OnDemandReader();
  const provider = new MeterProvider({ readers: [reader] });

  /** Collects until the gauge reads `wanted`, for at most 10 s (the store reconnects with backoff), and answers the last value. */
  async function eventually(wanted: number): Promise<number | undefined> {
    const giveUp = performance.now() + 10_000;
    let value = await reachable();
    while (value !== wanted && performance.now() < giveUp) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      value = await reachable();
    }
    return value;
  }

  /** The gauge's value at one collection. */
  async function reachable(): Promise<number | undefined> {
    const { resourceMetrics } = await reader.collect();
    const metric = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).find((each) => each.descriptor.name === REACHABLE) as GaugeMetricData | undefined;
    return metric?.dataPoints[0]?.value;
  }

  beforeAll(async () => {
    redis = await startRedis();
    store = createRedisStore({ url: redis.url });
    registerGauges(provider.getMeter('test'), { calls: 0 }, store);
  });
  afterAll(async () => {
    await provider.shutdown();
    await store?.close();
    await redis?.stop();
  });

  it('reads 1 while Redis answers, 0 once it is stopped, and 1 again when it is back', async () => {
    // The store connects in the background: the first collections may find it still connecting.
    expect(await eventually(1)).toBe(1);

    await redis.stop();
    expect(await reachable()).toBe(0);

    await redis.start();
    expect(await eventually(1)).toBe(1);
  });

  it(`reads 0 while Redis is connected but does not answer, within the documented ${CHECK_WITHIN_S} s`, async () => {
    expect(STORE_CHECK_TIMEOUT_MS).toBe(CHECK_WITHIN_S * 1_000);
    expect(await eventually(1)).toBe(1);
    redis.pause();
    try {
      expect(await reachable()).toBe(0);
    } finally {
      redis.resume();
    }
    expect(await eventually(1)).toBe(1);
  });
});
