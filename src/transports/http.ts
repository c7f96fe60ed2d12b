import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, type AuthInfo } from '@modelcontextprotocol/server';
import type { AuthServer } from '../auth/index.js';
import type { Log } from '../log.js';
import { parsedJson, readBody, replayed, tooLargeMessage } from './body.js';
import { serveParsedPost } from './parsed-post.js';
import type { CallerOptions, Credentials, ServerFactory } from '../server.js';

/**
 * Serves MCP over Streamable HTTP, statelessly: every request builds its own server for the caller
 * its headers name, so any replica can answer any request. Beside /mcp: GET /healthz (alive) and
 * GET /readyz (the gate's state store answers). Host and Origin are checked before anything but
 * /healthz, which says only that the process is alive.
 */

/** Draining after SIGTERM: calls in flight get this long to answer. */
export const DRAIN_MS = 10_000;
/** Then requests still on their way upstream are cancelled; their answers (OUTCOME UNKNOWN) get this long to be written. */
export const FLUSH_MS = 2_000;
/** A client that has not sent its headers by then is cut off (408)... */
export const HEADERS_TIMEOUT_MS = 10_000;
/** ...and one that has not sent its whole request (headers and body). Answers may take as long as the tool needs. */
export const REQUEST_TIMEOUT_MS = 30_000;
/** /readyz waits this long for the state store. */
const READY_TIMEOUT_MS = 2_000;

/** The headers a request brings its user's credentials in (lower case, as node reads them). */
export const CREDENTIAL_HEADERS = {
  accessToken: 'authorization',
  apiKey: 'x-appmgmt-api-key',
  monitoringApiKey: 'x-appmgmt-monitoring-api-key',
} as const;
/** With OAuth on, Authorization carries only this server's tokens; the service token has a header of its own. */
export const SERVICE_TOKEN_HEADER = 'x-appmgmt-access-token';

/** What texts call each credential over HTTP, in place of the variable stdio users set. */
const HEADER_WORDING: Array<[RegExp, string]> = [
  [/APPMGMT_MONITORING_API_KEY/g, 'the X-Appmgmt-Monitoring-Api-Key header'],
  [/APPMGMT_ACCESS_TOKEN/g, 'the Authorization: Bearer header'],
  [/APPMGMT_API_KEY/g, 'the X-Appmgmt-Api-Key header'],
];

/** With OAuth on, header mode's token travels in its own header. */
const OAUTH_HEADER_WORDING: Array<[RegExp, string]> = [HEADER_WORDING[0]!, [/APPMGMT_ACCESS_TOKEN/g, 'the X-Appmgmt-Access-Token header'], HEADER_WORDING[2]!];
/** A grant's credentials were given on the consent page; a missing one is given by connecting again. */
const GRANT_WORDING: Array<[RegExp, string]> = [
  [/APPMGMT_MONITORING_API_KEY \(or APPMGMT_API_KEY\)|APPMGMT_MONITORING_API_KEY/g, 'an API key (connect again and give one on the consent page)'],
  [/APPMGMT_API_KEY or APPMGMT_ACCESS_TOKEN/g, 'the credentials given when connecting'],
  [/APPMGMT_ACCESS_TOKEN/g, 'the access token given when connecting'],
  [/APPMGMT_API_KEY/g, 'an API key (connect again and give one on the consent page)'],
];

const reword = (rules: Array<[RegExp, string]>) => (text: string) => rules.reduce((result, [pattern, header]) => result.replace(pattern, header), text);

/** Rewrites a text for an HTTP user: credentials are headers they send, not variables they set. */
export const headerWording = reword(HEADER_WORDING);
export const oauthHeaderWording = reword(OAUTH_HEADER_WORDING);
export const grantWording = reword(GRANT_WORDING);

/** A credential as sent: one token without spaces or invisible characters; anything else counts as absent. */
const TOKEN = /^[^\s\p{Cc}\p{Cf}]+$/u;

/**
 * The credentials a request brings. The monitoring key falls back to the API key, as on stdio.
 * Without any, `fallback` (the sandbox's demo credentials) or none at all: never the server's own.
 */
export function credentialsOf(headers: Headers, fallback?: Credentials, oauth = false): Credentials {
  const value = (name: string) => {
    const text = headers.get(name)?.trim();
    return text && TOKEN.test(text) ? text : undefined;
  };
  const bearer = oauth ? value(SERVICE_TOKEN_HEADER) : /^Bearer +(\S+)$/i.exec(headers.get(CREDENTIAL_HEADERS.accessToken)?.trim() ?? '')?.[1];
  const accessToken = bearer && TOKEN.test(bearer) ? bearer : undefined;
  const apiKey = value(CREDENTIAL_HEADERS.apiKey);
  const monitoringApiKey = value(CREDENTIAL_HEADERS.monitoringApiKey) ?? apiKey;
  if (!accessToken && !apiKey && !monitoringApiKey && fallback) return fallback;
  return { accessToken, apiKey, monitoringApiKey };
}

/** What /readyz says of the gate beyond "its store answers". */
export interface GateReadiness {
  /** One sentence per thing that weakens or stops the gate (an eviction policy, a store that lost its memory). */
  problems: string[];
  /** Gated calls are refused until then (ms since epoch). */
  refusingUntil?: number;
}

export interface HttpOptions {
  factory: ServerFactory;
  host: string;
  port: number;
  /** Host header values allowed besides the loopback names with the port. */
  allowedHosts: string[];
  /** Origins allowed besides the loopback ones with the port. */
  allowedOrigins: string[];
  maxBodyBytes: number;
  /** Credentials for requests that bring none: the sandbox's demo credentials, or nothing. */
  fallbackCredentials?: Credentials;
  /** OAuth (auth/): its endpoints are served here, and it says whose each /mcp request is. */
  auth?: AuthServer;
  /** Resolves when the gate's state store answers, with what weakens or stops the gate (for /readyz). */
  ready(): Promise<GateReadiness | void>;
  log: Log;
  /** Aborted when draining starts: waits and polls end and answer with what they have. */
  shutdown: AbortController;
  /**
   * Aborted when the drain time is up: requests still on their way to the service end, and the
   * gate answers each confirmed call OUTCOME UNKNOWN instead of leaving its client a dropped socket.
   */
  abortRequests?: AbortController;
  drainMs?: number;
  /** For tests: how long the answers of cancelled calls get to be written (default FLUSH_MS). */
  flushMs?: number;
  /** For tests: shorter limits for slow clients. */
  timeouts?: { headersMs: number; requestMs: number };
}

export interface HttpServer {
  /** http://host:port, as clients on this machine reach it. */
  url: string;
  port: number;
  /**
   * Answers new requests 503 while those in flight answer (at most the drain time), then cancels
   * the requests still on their way upstream, lets their answers be written, and closes.
   */
  drain(): Promise<void>;
}

/** @throws the listen error (port in use, address not available). */
export async function serveHttp(options: HttpOptions): Promise<HttpServer> {
  const { log, shutdown } = options;
  const drainMs = options.drainMs ?? DRAIN_MS;
  const flushMs = options.flushMs ?? FLUSH_MS;
  const { auth } = options;
  const onerror = (error: Error) => log.debug(`http: ${error.message}`);
  const handler = createMcpHandler(
    ({ era, requestInfo, authInfo }) =>
      options.factory(
        (authInfo?.extra?.caller as CallerOptions | undefined) ??
          (auth
            ? { credentials: credentialsOf(requestInfo?.headers ?? new Headers(), undefined, true), wording: oauthHeaderWording }
            : { credentials: credentialsOf(requestInfo?.headers ?? new Headers(), options.fallbackCredentials), wording: headerWording }),
        // A 2026-07-28 request names its method in a header the SDK has checked against the body.
        era === 'modern' ? requestInfo?.headers.get('mcp-method')?.trim() : undefined,
      ),
    { legacy: 'stateless', maxRequestBodySize: options.maxBodyBytes, onerror },
  );
  const mcp = toNodeHandler(handler, { maxRequestBodySize: options.maxBodyBytes, onerror });
  let guard: ReturnType<typeof requestGuard> | undefined;
  let draining = false;
  let active = 0;
  let idle: (() => void) | undefined;

  function route(req: IncomingMessage, res: ServerResponse): void {
    // Node keeps the first of two Host headers; a proxy in front may have checked the other one.
    const repeated = repeatedHeader(req.rawHeaders, ['Host', 'Origin']);
    if (repeated) return rpcError(res, 400, `Bad request: more than one ${repeated} header.`, { connection: 'close' });
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method === 'GET' && path === '/healthz') return json(res, 200, { status: 'ok' });
    if (auth?.handles(path)) {
      // Browser-based clients call the token endpoints from their own origin; the consent form checks its own.
      const forbidden = guard?.(req, { origin: false });
      if (forbidden) return json(res, 403, { error: 'forbidden', error_description: forbidden });
      if (draining) return json(res, 503, { error: 'temporarily_unavailable', error_description: 'The server is shutting down; retry on another replica.' }, { connection: 'close', 'retry-after': '1' });
      return void auth.handle(req, res).catch((error: unknown) => {
        log.warn(`http: ${path} failed: ${error instanceof Error ? error.message : String(error)}`);
        if (!res.headersSent) json(res, 500, { error: 'server_error' });
        else res.destroy();
      });
    }
    // /readyz tells the gate's state and the Redis policy: only to a Host and Origin this server answers to (issue 25).
    const forbidden = guard?.(req);
    if (forbidden) return rpcError(res, 403, forbidden);
    if (req.method === 'GET' && path === '/readyz') return void readiness(res);
    if (path !== '/mcp') return json(res, 404, { error: 'Not found: MCP is served on /mcp' });
    if (draining) return rpcError(res, 503, 'The server is shutting down; retry on another replica.', { connection: 'close', 'retry-after': '1' });
    active += 1;
    const started = performance.now();
    res.once('close', () => {
      active -= 1;
      log.debug(`${req.method} ${path} ${res.statusCode} in ${Math.round(performance.now() - started)} ms`);
      if (active === 0) idle?.();
    });
    (auth ? signedIn(auth, req, res) : Promise.resolve(true))
      .then((go) => (go ? serveMcp(req, res) : undefined))
      .catch((error: unknown) => {
        log.warn(`http: request failed: ${error instanceof Error ? error.message : String(error)}`);
        if (!res.headersSent) rpcError(res, 500, 'Internal error; details are in the server log.');
        else res.destroy();
      });
  }

  /** Hands a POST to the SDK with its body already parsed (body.ts, parsed-post.ts); anything else through the SDK's adapter, as it came. */
  async function serveMcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') return mcp(req, res);
    const bytes = await readBody(req, options.maxBodyBytes);
    if (bytes === undefined) return rpcError(res, 413, tooLargeMessage(options.maxBodyBytes), { connection: 'close' });
    const json = parsedJson(bytes);
    return json ? serveParsedPost(handler, req, res, json.value, onerror) : mcp(replayed(req, bytes), res);
  }

  /**
   * Asks the sign-in side whose request this is: a grant rides on the request as its AuthInfo for
   * the factory; header mode goes on as is; anything else is answered here (false).
   */
  async function signedIn(signIn: AuthServer, req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    let who: Awaited<ReturnType<AuthServer['whose']>>;
    try {
      who = await signIn.whose(req.headers);
    } catch (error) {
      // The store is away: nothing can be checked, so nothing is accepted (and no client is told its token is bad).
      log.warn(`http: could not check an access token: ${error instanceof Error ? error.message : String(error)}`);
      rpcError(res, 503, 'The sign-in store does not answer, so no access token can be checked; retry in a moment.', { 'retry-after': '1' });
      return false;
    }
    if (who.kind === 'refused') {
      rpcError(res, who.status, who.message, who.headers);
      return false;
    }
    if (who.kind === 'grant') {
      const { grant, bound, scopes, credentials } = who;
      const caller: CallerOptions = {
        credentials: { accessToken: credentials.accessToken, apiKey: credentials.apiKey, monitoringApiKey: credentials.apiKey },
        grant: { id: grant.id, bound },
        wording: grantWording,
      };
      (req as IncomingMessage & { auth?: AuthInfo }).auth = {
        token: `grant ${grant.id}`, // the bearer token itself is not handed on
        clientId: grant.clientId,
        scopes,
        expiresAt: Math.floor(grant.access.expiresAt / 1000),
        resource: new URL(signIn.resource),
        extra: { caller },
      };
    }
    return true;
  }

  const timeouts = options.timeouts ?? { headersMs: HEADERS_TIMEOUT_MS, requestMs: REQUEST_TIMEOUT_MS };
  const server = createServer(
    {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      // How often node enforces those limits: 30 s by default, which would let a slow client stay that long.
      connectionsCheckingInterval: Math.min(1_000, timeouts.headersMs),
    },
    route,
  );

  /**
   * 503 only when this replica cannot serve (draining, the store does not answer). A store that lost
   * its memory is reported with 200 and `gate: "refusing"`: every replica shares that store, so a 503
   * would take them all out of the load balancer and stop the read tools too, for nothing.
   */
  async function readiness(res: ServerResponse): Promise<void> {
    if (draining) return json(res, 503, { status: 'draining' });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('no answer in time')), READY_TIMEOUT_MS)));
    try {
      const gate = (await Promise.race([options.ready(), late])) ?? { problems: [] };
      const state = gate.refusingUntil !== undefined ? 'refusing' : gate.problems.length > 0 ? 'degraded' : 'ok';
      json(res, 200, {
        status: 'ready',
        gate: state,
        ...(gate.refusingUntil !== undefined ? { refusing_until: new Date(gate.refusingUntil).toISOString() } : {}),
        ...(gate.problems.length > 0 ? { problems: gate.problems } : {}),
      });
    } catch (error) {
      json(res, 503, { status: 'not ready', reason: `the gate's state store does not answer: ${error instanceof Error ? error.message : String(error)}` });
    } finally {
      clearTimeout(timer);
    }
  }

  /** Resolves true once no request is in flight, or false when `ms` pass first. */
  async function idleWithin(ms: number): Promise<boolean> {
    if (active === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([new Promise<void>((resolve) => (idle = resolve)), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
    return active === 0;
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  guard = requestGuard(port, options.allowedHosts, options.allowedOrigins);
  const shown = options.host.includes(':') ? `[${options.host}]` : options.host;
  const url = `http://${shown === '0.0.0.0' || shown === '[::]' ? '127.0.0.1' : shown}:${port}`;

  return {
    url,
    port,
    async drain() {
      if (draining) return;
      draining = true;
      shutdown.abort();
      if (!(await idleWithin(drainMs))) {
        log.warn(`cancelling ${active} request(s) still in flight after ${drainMs / 1000} s of draining; a confirmed call among them answers OUTCOME UNKNOWN`);
        options.abortRequests?.abort();
        if (!(await idleWithin(flushMs))) log.warn(`exiting with ${active} request(s) still unanswered`);
      }
      await handler.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/**
 * DNS rebinding protection: the Host header must be one of this machine's names with the port (or
 * an allowed host), and an Origin, when present, this machine's (or an allowed origin). Exact
 * matches, port included: another local web app on another port is another origin.
 * @returns why the request is refused, or undefined.
 */
export function requestGuard(port: number, allowedHosts: string[], allowedOrigins: string[]): (req: IncomingMessage, check?: { origin: boolean }) => string | undefined {
  const loopback = ['localhost', '127.0.0.1', '[::1]'].map((name) => `${name}:${port}`);
  const hosts = new Set([...loopback, ...allowedHosts.map((host) => host.toLowerCase())]);
  const origins = new Set([...loopback.map((host) => `http://${host}`), ...allowedOrigins]);
  return (req, check = { origin: true }) => {
    const host = req.headers.host?.toLowerCase();
    if (!host || !hosts.has(host)) return 'Forbidden: the Host header is not one this server answers to (APPMGMT_HTTP_ALLOWED_HOSTS).';
    if (!check.origin) return undefined;
    const origin = req.headers.origin;
    if (origin !== undefined && !origins.has(origin.toLowerCase())) return 'Forbidden: requests from this Origin are not allowed (APPMGMT_HTTP_ALLOWED_ORIGINS).';
    return undefined;
  };
}

/** The first of `names` that the request sends more than once (in any letter case), or undefined. */
function repeatedHeader(rawHeaders: string[], names: string[]): string | undefined {
  const seen = new Set<string>();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = names.find((candidate) => candidate.toLowerCase() === rawHeaders[i]!.toLowerCase());
    if (name === undefined) continue;
    if (seen.has(name)) return name;
    seen.add(name);
  }
  return undefined;
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers }).end(JSON.stringify(body));
}

/** An error in JSON-RPC form, as MCP clients read HTTP errors. */
function rpcError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  json(res, status, { jsonrpc: '2.0', error: { code: -32000, message }, id: null }, headers);
}
