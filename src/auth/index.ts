import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Log } from '../log.js';
import { answerConsent, showConsent } from './authorize.js';
import { whose, type Whose } from './caller.js';
import { createCimdResolver, type CimdOptions } from './cimd.js';
import type { Client } from './clients.js';
import type { Offer } from './consent.js';
import type { AuthContext, CheckResult, GrantEvent } from './context.js';
import { disconnect, showDisconnect } from './disconnect.js';
import { authorizationServerMetadata, PATHS, protectedResourceMetadata, resourceOf } from './discovery.js';
import { AuthStoreUnavailableError } from './errors.js';
import type { SealedCredentials } from './grant.js';
import { sendErrorPage, sendJson } from './http-io.js';
import { register } from './register.js';
import { createSealer } from './sealed.js';
import type { AuthStore } from './store.js';
import { revoke, token } from './tokens.js';

export type { Whose } from './caller.js';
export type { GrantEvent } from './context.js';

/**
 * OAuth for `http`: this server is both the authorization server and the resource server of the
 * MCP authorization spec, in front of the service's own personal tokens. `handle` answers the
 * discovery documents and the sign-in endpoints; `whose` tells the transport whose request it is.
 */

export interface AuthOptions {
  issuer: string;
  store: AuthStore;
  /** Newest first (APPMGMT_OAUTH_SEAL_KEYS); empty: a random key of this process. */
  sealKeys: string[];
  /** Keys each person's subject hash (APPMGMT_STATE_SECRET); a random key of this process without one. */
  subjectKey?: string;
  registration: { cimd: boolean; dcr: boolean };
  staticClients: Client[];
  cimd?: CimdOptions;
  offer: Offer;
  check(credentials: SealedCredentials, appId: string): Promise<CheckResult>;
  audit?(event: GrantEvent): Promise<void>;
  log: Log;
  now?: () => number;
}

export interface AuthServer {
  /** The issuer's /mcp: the resource every token is bound to. */
  resource: string;
  /** Whether `path` is one of the sign-in endpoints or discovery documents. */
  handles(path: string): boolean;
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  whose(headers: IncomingHttpHeaders): Promise<Whose>;
  close(): Promise<void>;
}

/** Answers that a browser-based client may read from another origin: documents and the token endpoints, none of them cookie-bound. */
const CORS = { 'access-control-allow-origin': '*' };

export function createAuthServer(options: AuthOptions): AuthServer {
  const now = options.now ?? Date.now;
  const ctx: AuthContext = {
    issuer: options.issuer,
    resource: resourceOf(options.issuer),
    store: options.store,
    sealer: createSealer(options.sealKeys.length > 0 ? options.sealKeys : [randomBytes(32).toString('hex')]),
    subjectKey: options.subjectKey ?? randomBytes(32),
    registration: options.registration,
    staticClients: new Map(options.staticClients.map((client) => [client.clientId, client])),
    cimd: createCimdResolver({ now, ...options.cimd }),
    offer: options.offer,
    check: options.check,
    audit: async (event) => {
      await options.audit?.(event).catch((error: unknown) => options.log.error(`audit: could not record a grant being ${event.event}: ${error instanceof Error ? error.message : String(error)}`));
    },
    log: options.log,
    now,
  };
  const documents = new Map<string, unknown>([
    [PATHS.resourceMetadata, protectedResourceMetadata(ctx.issuer)],
    [PATHS.resourceMetadataRoot, protectedResourceMetadata(ctx.issuer)],
    [PATHS.serverMetadata, authorizationServerMetadata(ctx.issuer, ctx.registration)],
    [PATHS.openidConfiguration, authorizationServerMetadata(ctx.issuer, ctx.registration)],
  ]);
  type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;
  const routes = new Map<string, Handler>([
    [`GET ${PATHS.authorize}`, (req, res) => showConsent(ctx, req, res)],
    [`POST ${PATHS.authorize}`, (req, res) => answerConsent(ctx, req, res)],
    [`POST ${PATHS.token}`, (req, res) => token(ctx, req, res)],
    [`POST ${PATHS.revoke}`, (req, res) => revoke(ctx, req, res)],
    [`GET ${PATHS.disconnect}`, (_req, res) => showDisconnect(ctx, res)],
    [`POST ${PATHS.disconnect}`, (req, res) => disconnect(ctx, req, res)],
    ...(ctx.registration.dcr ? ([[`POST ${PATHS.register}`, (req: IncomingMessage, res: ServerResponse) => register(ctx, req, res)]] as const) : []),
  ]);
  const paths = new Set([...documents.keys(), ...[...routes.keys()].map((key) => key.split(' ')[1]!)]);
  const api = new Set<string>([PATHS.token, PATHS.revoke, PATHS.register]);

  return {
    resource: ctx.resource,
    handles: (path) => paths.has(path),
    async handle(req, res) {
      const path = (req.url ?? '/').split('?')[0]!;
      const method = req.method ?? 'GET';
      if (method === 'OPTIONS' && (documents.has(path) || api.has(path))) {
        return void res.writeHead(204, { ...CORS, 'access-control-allow-methods': 'GET, POST, OPTIONS', 'access-control-allow-headers': 'content-type, authorization, mcp-protocol-version', 'access-control-max-age': '600' }).end();
      }
      const document = documents.get(path);
      if (document) {
        if (method !== 'GET' && method !== 'HEAD') return void res.writeHead(405, { allow: 'GET, HEAD' }).end();
        return sendJson(res, 200, document, { ...CORS, 'cache-control': 'public, max-age=300' });
      }
      const handler = routes.get(`${method} ${path}`);
      if (!handler) return void res.writeHead(405, { allow: [...routes.keys()].filter((key) => key.endsWith(` ${path}`)).map((key) => key.split(' ')[0]).join(', ') }).end();
      if (api.has(path)) for (const [name, value] of Object.entries(CORS)) res.setHeader(name, value);
      try {
        await handler(req, res);
      } catch (error) {
        if (res.headersSent) return void res.destroy();
        if (error instanceof AuthStoreUnavailableError) {
          options.log.warn(`sign-in: ${error.message}`);
          if (api.has(path)) return sendJson(res, 503, { error: 'temporarily_unavailable', error_description: error.message }, { 'retry-after': '1' });
          return sendErrorPage(res, 503, 'Try again in a moment', 'The server cannot reach its store right now, so nothing was issued or stored.');
        }
        options.log.error(`sign-in: ${method} ${path} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        if (api.has(path)) return sendJson(res, 500, { error: 'server_error', error_description: 'Internal error; details are in the server log.' });
        return sendErrorPage(res, 500, 'Something went wrong', 'Internal error; details are in the server log. Nothing was issued.');
      }
    },
    whose: (headers) => whose(ctx, headers),
    close: () => options.store.close(),
  };
}
