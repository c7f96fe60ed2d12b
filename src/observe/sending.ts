import { AsyncLocalStorage } from 'node:async_hooks';
import { nodeCrypto } from '../node-crypto.js';
import { queryString } from '../api/paths.js';
import { canonical } from '../gate/key.js';

/**
 * The one moment the audit trail needs from the API client: a write of a gated call is about to
 * leave. The gate runs a confirmed call's `run` inside `whileSending`; the client announces every
 * request that is not a read right before it goes out, and the announcement is awaited, so a record
 * that cannot be written stops the request (nothing is sent). Outside a gated call nothing happens.
 */

/** A request as it leaves, minus its headers: the credential never reaches the trail, only the X-Request-ID. */
export interface OutgoingRequest {
  method: string;
  /** The URL without its query. */
  url: string;
  query?: URLSearchParams | Record<string, string | number | boolean | undefined> | undefined;
  json?: unknown;
  /** The X-Request-ID header, when the operation sends one. */
  requestId?: string | undefined;
}

export type Announce = (request: OutgoingRequest) => Promise<void>;

/** Per async context: each confirmed call sees only its own announcement. */
const announcing = new AsyncLocalStorage<Announce>();

/** Runs `work` (a gated call's `run`) with `announce` called before each of its writes leaves. */
export function whileSending<T>(announce: Announce, work: () => Promise<T>): Promise<T> {
  return announcing.run(announce, work);
}

/**
 * Called by the API client right before each attempt of a request goes out.
 * @throws whatever the gate's announcement throws (AuditUnwritableError): the request is then not sent.
 */
export async function announceSend(request: OutgoingRequest): Promise<void> {
  if (request.method.toLowerCase() === 'get') return; // reads spend nothing
  await announcing.getStore()?.(request);
}

/** `METHOD /path?query` exactly as the service receives it. */
export function requestLine(request: Pick<OutgoingRequest, 'method' | 'url' | 'query'>): string {
  const url = new URL(request.url);
  const query = queryString(request.query);
  return `${request.method.toUpperCase()} ${url.pathname}${query ? `?${query}` : ''}`;
}

/**
 * The digest of exactly what was sent: method, path with query, and the JSON body with its keys
 * sorted (so a receiver that parsed the body can compute the same digest from what it got).
 */
export function sentDigest(line: string, body: unknown): string {
  return nodeCrypto().createHash('sha256').update(line).update('\n').update(body === undefined ? '' : canonical(body)).digest('hex');
}
