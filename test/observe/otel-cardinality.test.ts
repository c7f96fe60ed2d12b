import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docFigures } from '../docs/markdown.js';
import { rssMiB, startRaw } from '../process.js';
import { attributesOf, startReceiver, type Receiver } from './otlp-receiver.js';

/**
 * Issue 25, item 3: with OpenTelemetry metrics on, every method string a client sent became a span
 * name and a series of mcp.server.operation.duration for good. 20,000 made-up names made 2,000
 * series (the SDK's default cap) and metrics exports of 1.26 MB here over stdio; over HTTP the
 * exports were 13.9 MB and the memory grew from 173 to 326 MiB. The built server gets 20,000
 * requests over stdio (HTTP is ten times slower to drive, and the spans sit on the transport either
 * way), each with another made-up method; what it holds and exports must not grow with them.
 */

/** docs/operations.md's figures, read from it so the doc and the test cannot drift. A metrics export of a few series: 2.4 KB seen (it was 1.26 MB). */
const [REQUESTS, SERIES, MAX_EXPORT_KB] = docFigures(
  'docs/operations.md',
  /([\d,]+) requests with made-up methods leave (\w+) series and every export under (\d+) KB \(`test\/observe\/otel-cardinality\.test\.ts`/,
) as [number, number, number];
const MAX_EXPORT_BYTES = MAX_EXPORT_KB * 1_000;
/** The memory after this many requests, the heap grown to its working size, is the baseline the rest are held to. */
const WARM_UP = REQUESTS / 2;
/** Requests written before their answers are awaited: enough to keep the server busy, few enough to keep the pipe small. */
const BATCH = 500;
/**
 * What the other half of the names may add to the memory: 0 to 27 MiB seen, as V8 still grows its heap
 * under load. A leak of a few KiB per name would pass it; before the fix the exports alone added
 * 39 MiB here, and 150 MiB over HTTP.
 */
const RSS_SLACK_MIB = 40;
/** Metrics go out every second while the requests arrive, as they would in a long-running server. */
const EXPORT_INTERVAL_MS = 1_000;
const MADE_UP = 'no/such_method_';

describe.skipIf(process.platform !== 'linux')(`OpenTelemetry after ${REQUESTS} made-up method names`, () => {
  let receiver: Receiver;
  let rssAfterWarmUp: number;
  let rssAfterAll: number;

  beforeAll(async () => {
    receiver = await startReceiver();
    const server = await startRaw([], { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_METRIC_EXPORT_INTERVAL: String(EXPORT_INTERVAL_MS) });
    for (let first = 0; first < REQUESTS; first += BATCH) {
      const answers = await Promise.all(Array.from({ length: BATCH }, (_, i) => server.request(`${MADE_UP}${first + i}`)));
      expect(answers.every((answer) => (answer.error as { code?: number } | undefined)?.code === -32601)).toBe(true);
      if (first + BATCH === WARM_UP) rssAfterWarmUp = rssMiB(server.child.pid!);
    }
    rssAfterAll = rssMiB(server.child.pid!);
    server.child.stdin!.end(); // the exit exports what is left
    expect(await server.exited).toBe(0);
    console.log(`RSS ${rssAfterWarmUp.toFixed(1)} MiB after ${WARM_UP} names, ${rssAfterAll.toFixed(1)} MiB after ${REQUESTS}`);
  }, 120_000);
  afterAll(async () => {
    await receiver?.close();
  });

  it('records every made-up method as _OTHER, in a handful of series', () => {
    const last = receiver.metrics().filter((metric) => metric.name === 'mcp.server.operation.duration').at(-1);
    const series = (last?.histogram?.dataPoints ?? []).map((point) => attributesOf(point.attributes));
    expect(new Set(series.map((point) => point['mcp.method.name']))).toEqual(new Set(['initialize', 'notifications/initialized', '_OTHER']));
    expect(series).toHaveLength(SERIES);
    const other = last?.histogram?.dataPoints.find((point) => attributesOf(point.attributes)['mcp.method.name'] === '_OTHER');
    expect(Number(other?.count)).toBe(REQUESTS);
  });

  it(`keeps every metrics export under ${MAX_EXPORT_BYTES} bytes`, () => {
    const exports = receiver.received.filter((entry) => entry.path === '/v1/metrics');
    expect(exports.length).toBeGreaterThan(1);
    for (const { body } of exports) expect(body.length).toBeLessThan(MAX_EXPORT_BYTES);
  });

  it('names no span after a made-up method, and exports none of them in any byte', () => {
    const names = new Set(receiver.spans().map((span) => span.name));
    expect(names.has('_OTHER')).toBe(true);
    for (const { body } of receiver.received) expect(body.toString('latin1').includes(MADE_UP)).toBe(false);
  });

  it(`holds the memory it held after ${WARM_UP} names, give or take ${RSS_SLACK_MIB} MiB`, () => {
    expect(rssAfterAll).toBeLessThan(rssAfterWarmUp + RSS_SLACK_MIB);
  });
});
