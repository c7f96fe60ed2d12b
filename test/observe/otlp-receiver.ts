import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real OTLP/HTTP receiver on 127.0.0.1 for tests: it keeps every body as received (for the
 * no-secret check) and decodes the OTLP JSON the server's exporters send (http/json).
 */

export interface Received {
  path: string;
  contentType: string;
  body: Buffer;
}

export type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
export interface KeyValue {
  key: string;
  value: AnyValue;
}

export interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP SpanKind: 2 SERVER, 3 CLIENT. */
  kind: number;
  attributes: Record<string, string | number | boolean | undefined>;
  status?: { code?: number; message?: string };
  service?: string;
}

export interface ExportedMetric {
  name: string;
  unit?: string;
  histogram?: { dataPoints: Array<{ attributes: KeyValue[]; count: string | number; explicitBounds?: number[] }> };
  gauge?: { dataPoints: Array<{ attributes?: KeyValue[]; asInt?: string | number; asDouble?: number }> };
}

export interface Receiver {
  url: string;
  received: Received[];
  spans(): ExportedSpan[];
  metrics(): ExportedMetric[];
  close(): Promise<void>;
}

export const SERVER_KIND = 2;
export const CLIENT_KIND = 3;
/** OTLP StatusCode ERROR. */
export const STATUS_ERROR = 2;

function valueOf(value: AnyValue): string | number | boolean | undefined {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.boolValue !== undefined) return value.boolValue;
  return value.doubleValue;
}

export const attributesOf = (list: KeyValue[] = []) => Object.fromEntries(list.map(({ key, value }) => [key, valueOf(value)]));

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', contentType: req.headers['content-type'] ?? '', body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const bodies = (path: string) => received.filter((entry) => entry.path === path).map((entry) => JSON.parse(entry.body.toString('utf8')) as Record<string, unknown[]>);
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    spans: () =>
      bodies('/v1/traces').flatMap((body) =>
        (body.resourceSpans as Array<{ resource: { attributes: KeyValue[] }; scopeSpans: Array<{ spans: Array<Omit<ExportedSpan, 'attributes'> & { attributes: KeyValue[] }> }> }>).flatMap((resourceSpan) =>
          resourceSpan.scopeSpans.flatMap((scope) =>
            scope.spans.map((span) => ({ ...span, attributes: attributesOf(span.attributes), service: attributesOf(resourceSpan.resource.attributes)['service.name'] as string })),
          ),
        ),
      ),
    metrics: () =>
      bodies('/v1/metrics').flatMap((body) =>
        (body.resourceMetrics as Array<{ scopeMetrics: Array<{ metrics: ExportedMetric[] }> }>).flatMap((resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics)),
      ),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
