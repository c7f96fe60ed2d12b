import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthClientProvider, OAuthDiscoveryState, OAuthTokens } from '@modelcontextprotocol/client';

/**
 * Helpers for the sign-in tests: a throwaway TLS certificate for 127.0.0.1 (made with openssl), an
 * https server on 127.0.0.1 that serves client metadata documents (or misbehaves on purpose), and an
 * OAuthClientProvider for the SDK v2 client that keeps everything in memory.
 */

export interface Tls {
  cert: string;
  key: string;
  /** The certificate's file, for NODE_EXTRA_CA_CERTS of a child process. */
  certFile: string;
  remove(): void;
}

/** A self-signed certificate for 127.0.0.1, valid for a day. @throws when openssl is missing. */
export function makeTls(): Tls {
  const dir = mkdtempSync(join(tmpdir(), 'appmgmt-tls-'));
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-addext', 'basicConstraints=critical,CA:TRUE'], { stdio: 'ignore' });
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), certFile, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface DocumentServer {
  /** https://127.0.0.1:PORT */
  url: string;
  /** What each path answers: a status, headers and a body, or a function to answer yourself. */
  routes: Map<string, { status?: number; headers?: Record<string, string>; body?: string; hang?: boolean }>;
  /** Paths requested, in order. */
  hits: string[];
  close(): Promise<void>;
}

export async function startDocumentServer(tls: Tls): Promise<DocumentServer> {
  const routes: DocumentServer['routes'] = new Map();
  const hits: string[] = [];
  const server: Server = createHttpsServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    const path = req.url ?? '/';
    hits.push(path);
    const route = routes.get(path);
    if (!route) return void res.writeHead(404).end();
    if (route.hang) return; // never answers: the fetcher's deadline must end it
    res.writeHead(route.status ?? 200, { 'content-type': 'application/json', ...route.headers }).end(route.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    routes,
    hits,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An OAuth client of the SDK v2 client, kept in memory; the authorization URL it is sent to is kept for the browser. */
export class MemoryProvider implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier?: string;
  discovery?: OAuthDiscoveryState;
  authorizationUrl?: URL;
  lastState?: string;

  constructor(
    readonly redirectUrl: string,
    readonly clientMetadataUrl?: string,
    readonly scope?: string,
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.clientMetadataUrl ? 'CIMD test client' : 'DCR test client',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
      ...(this.scope ? { scope: this.scope } : {}),
    };
  }
  state() {
    this.lastState = `state-${Math.random().toString(36).slice(2)}`;
    return this.lastState;
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    if (!this.verifier) throw new Error('no code verifier saved');
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
}

/** The metadata document of a client whose id is `url`. */
export function clientDocument(url: string, redirectUri: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ client_id: url, client_name: 'CIMD test client', redirect_uris: [redirectUri], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', ...extra });
}
