import { request } from 'node:https';
import { RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { z } from 'zod';
import { OAuthFailure } from './errors.js';
import { cleanName, MAX_REDIRECT_URIS, redirectUriProblem, type Client } from './clients.js';

/**
 * Client ID metadata documents (draft-ietf-oauth-client-id-metadata-document, MCP's client
 * registration page): a client_id that is an https URL names the client's own JSON document. The
 * server fetches it once in a while, over https only, never from a private, loopback, link-local or
 * other special-use address (request-filtering-agent checks the address each connection resolves
 * to, so a name that resolves to one is refused too), follows no redirect, reads at most 5 KiB
 * within 5 s, and caches good documents within its own bounds; a failure is never cached.
 */

/** The draft's guidance: documents are small. */
export const CIMD_MAX_BYTES = 5 * 1024;
/** A metadata host that does not answer by then is treated as unreachable. */
export const CIMD_TIMEOUT_MS = 5_000;
/** Documents kept at once; the least recently used goes first. */
export const CIMD_CACHE_ENTRIES = 200;
/** Cache lifetimes: the document's own max-age, within these bounds; five minutes when it names none. */
export const CIMD_CACHE_MIN_MS = 60_000;
export const CIMD_CACHE_MAX_MS = 60 * 60_000;
export const CIMD_CACHE_DEFAULT_MS = 5 * 60_000;
/** Fetches under way at once, whoever asked: strangers may name any URL, so this bounds what they cost. */
export const CIMD_MAX_IN_FLIGHT = 20;
const MAX_URL_CHARS = 2_000;

/** Whether a client_id is meant as a metadata document's URL. */
export const isCimdClientId = (clientId: string) => /^https:\/\//i.test(clientId);

/** Why `clientId` cannot name a metadata document, or undefined. */
export function cimdUrlProblem(clientId: string): string | undefined {
  if (clientId.length > MAX_URL_CHARS) return `is longer than ${MAX_URL_CHARS} characters`;
  if (!URL.canParse(clientId)) return 'is not a URL';
  const url = new URL(clientId);
  if (url.protocol !== 'https:') return 'must be an https URL';
  if (url.username || url.password) return 'must not carry a user name or password';
  if (clientId.includes('#')) return 'must not have a fragment';
  if (url.pathname === '/' || url.pathname === '') return 'must have a path, such as https://example.com/client.json';
  // Dot segments, written or escaped: the parser would resolve them, so the URL would not be the one fetched.
  if (/\/(\.|%2e){1,2}(\/|$|\?)/i.test(clientId.replace(/^https:\/\/[^/]*/i, ''))) return 'must not have . or .. path segments';
  if (url.href !== clientId) return 'must be written in its plain form (lower-case scheme and host, no default port, nothing the URL parser rewrites)';
  return undefined;
}

const DocumentSchema = z.looseObject({
  client_id: z.string(),
  client_name: z.string().min(1),
  redirect_uris: z.array(z.string()).min(1).max(MAX_REDIRECT_URIS),
  token_endpoint_auth_method: z.string().optional(),
  client_secret: z.unknown().optional(),
  client_secret_expires_at: z.unknown().optional(),
});

/** Client authentication methods built on a shared secret: a public document cannot hold one. */
const SECRET_METHODS = new Set(['client_secret_basic', 'client_secret_post', 'client_secret_jwt']);

/**
 * The client a document describes.
 * @throws OAuthFailure invalid_client naming what is wrong.
 */
export function clientFromDocument(clientId: string, document: unknown): Client {
  const parsed = DocumentSchema.safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new OAuthFailure('invalid_client', `The client's metadata document is not valid: ${issue.path.join('.') || 'the document'}: ${issue.message}.`);
  }
  const doc = parsed.data;
  if (doc.client_id !== clientId) throw new OAuthFailure('invalid_client', "The client's metadata document names another client_id than the URL it was fetched from.");
  if (doc.client_secret !== undefined || doc.client_secret_expires_at !== undefined) throw new OAuthFailure('invalid_client', "The client's metadata document carries a client secret, which a public document must not.");
  if (doc.token_endpoint_auth_method && SECRET_METHODS.has(doc.token_endpoint_auth_method)) {
    throw new OAuthFailure('invalid_client', `The client's metadata document asks for ${doc.token_endpoint_auth_method}, a shared-secret method no public document can use.`);
  }
  for (const uri of doc.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthFailure('invalid_client', `The client's metadata document has a redirect URI that ${problem}.`);
  }
  // Every client is treated as public (PKCE, no client authentication); private_key_jwt documents
  // also work this way, and grant types this server does not serve are ignored, not refused.
  return { clientId, clientName: cleanName(doc.client_name), redirectUris: doc.redirect_uris, kind: 'cimd' };
}

export interface CimdOptions {
  /** Tests only: documents on this machine (127.0.0.0/8, ::1) may be fetched. */
  allowLoopback?: boolean;
  timeoutMs?: number;
  now?: () => number;
  /** Tests: a CA to trust beside the system's. */
  ca?: string;
}

export interface CimdResolver {
  /** @throws OAuthFailure invalid_client (the document is bad or unreachable) or temporarily_unavailable. */
  resolve(clientId: string): Promise<Client>;
}

export function createCimdResolver({ allowLoopback = false, timeoutMs = CIMD_TIMEOUT_MS, now = Date.now, ca }: CimdOptions = {}): CimdResolver {
  const agent = new RequestFilteringHttpsAgent({
    keepAlive: false,
    ...(allowLoopback ? { allowIPAddressList: ['127.0.0.0/8', '::1'] } : {}),
    ...(ca ? { ca } : {}),
  });
  const cache = new Map<string, { client: Client; until: number }>();
  const inFlight = new Map<string, Promise<Client>>();

  async function fetchClient(clientId: string): Promise<Client> {
    const { body, maxAgeMs } = await fetchDocument(clientId, agent, timeoutMs);
    let document: unknown;
    try {
      document = JSON.parse(body);
    } catch {
      throw new OAuthFailure('invalid_client', "The client's metadata document is not JSON.");
    }
    const client = clientFromDocument(clientId, document);
    if (maxAgeMs > 0) {
      cache.set(clientId, { client, until: now() + Math.min(CIMD_CACHE_MAX_MS, Math.max(CIMD_CACHE_MIN_MS, maxAgeMs)) });
      while (cache.size > CIMD_CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
    }
    return client;
  }

  return {
    async resolve(clientId) {
      const problem = cimdUrlProblem(clientId);
      if (problem) throw new OAuthFailure('invalid_client', `The client_id ${problem}.`);
      const hit = cache.get(clientId);
      if (hit && hit.until > now()) {
        cache.delete(clientId); // re-inserted last: insertion order is use order
        cache.set(clientId, hit);
        return hit.client;
      }
      cache.delete(clientId);
      const running = inFlight.get(clientId);
      if (running) return running;
      if (inFlight.size >= CIMD_MAX_IN_FLIGHT) throw new OAuthFailure('temporarily_unavailable', 'Too many client metadata documents are being fetched right now; try again in a moment.', 503);
      const fetching = fetchClient(clientId).finally(() => inFlight.delete(clientId));
      inFlight.set(clientId, fetching);
      return fetching;
    },
  };
}

/** GET the document: 200 only, no redirect followed, at most CIMD_MAX_BYTES, all within `timeoutMs`. */
function fetchDocument(url: string, agent: RequestFilteringHttpsAgent, timeoutMs: number): Promise<{ body: string; maxAgeMs: number }> {
  return new Promise((resolve, reject) => {
    const fail = (why: string) => reject(new OAuthFailure('invalid_client', `The client's metadata document could not be used: ${why}.`));
    const req = request(url, { agent, method: 'GET', headers: { accept: 'application/json' }, timeout: timeoutMs }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        req.destroy();
        return fail(res.statusCode && res.statusCode >= 300 && res.statusCode < 400 ? `it answered with a redirect (${res.statusCode}), which is not followed` : `it answered HTTP ${res.statusCode}`);
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > CIMD_MAX_BYTES) {
        req.destroy();
        return fail(`it is larger than ${CIMD_MAX_BYTES / 1024} KiB`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > CIMD_MAX_BYTES) {
          req.destroy();
          fail(`it is larger than ${CIMD_MAX_BYTES / 1024} KiB`);
        } else chunks.push(chunk);
      });
      res.on('end', () => {
        if (size <= CIMD_MAX_BYTES) resolve({ body: Buffer.concat(chunks).toString('utf8'), maxAgeMs: maxAgeOf(res.headers['cache-control']) });
      });
      res.on('error', () => fail('the connection broke'));
    });
    const timer = setTimeout(() => {
      req.destroy();
      fail(`no whole answer within ${timeoutMs / 1000} s`);
    }, timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('timeout', () => {
      req.destroy();
      fail(`no whole answer within ${timeoutMs / 1000} s`);
    });
    req.on('error', (error) => fail(/not allowed/.test(error.message) ? 'its address is private, loopback or otherwise not public' : 'it could not be reached'));
    req.end();
  });
}

/** The cache lifetime an answer allows: 0 for no-store or no-cache, the default when it names none. */
function maxAgeOf(header: string | undefined): number {
  if (!header) return CIMD_CACHE_DEFAULT_MS;
  if (/\b(no-store|no-cache|private)\b/i.test(header)) return 0;
  const age = /\bmax-age=(\d{1,9})\b/i.exec(header)?.[1];
  return age === undefined ? CIMD_CACHE_DEFAULT_MS : Number(age) * 1000;
}
