import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { sanitize } from '../text.js';

/**
 * Who may ask for a grant, and where the answer may go. A client is a pre-registered one from the
 * operator's file, one that registered itself (RFC 7591), or one whose client_id is the https URL of
 * its metadata document (CIMD). Redirect URIs are https, or http to this machine for native apps;
 * they match exactly, except that a loopback redirect may use any port (RFC 8252 section 7.3).
 */

export type ClientKind = 'static' | 'dcr' | 'cimd';

export interface Client {
  clientId: string;
  /** As the client calls itself; shown quoted, never trusted. */
  clientName: string;
  redirectUris: string[];
  kind: ClientKind;
}

/** A redirect URI longer than this is not one a client needs. */
export const MAX_REDIRECT_URI_CHARS = 2_000;
/** Redirect URIs one client may register. */
export const MAX_REDIRECT_URIS = 20;
/** A client's name is shown in a heading: a line, not a paragraph. */
export const MAX_CLIENT_NAME_CHARS = 100;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Why `uri` cannot be a redirect URI, or undefined. */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri.length > MAX_REDIRECT_URI_CHARS) return `is longer than ${MAX_REDIRECT_URI_CHARS} characters`;
  if (!URL.canParse(uri)) return 'is not an absolute URL';
  const url = new URL(uri);
  if (url.username || url.password) return 'carries a user name or password';
  if (url.hash || uri.includes('#')) return 'has a fragment';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  return 'must use https, or http to this machine (127.0.0.1, [::1] or localhost)';
}

/** Whether `presented` is one of `registered`: exactly, or a loopback one with another port. */
export function redirectMatches(registered: readonly string[], presented: string): boolean {
  if (registered.includes(presented)) return true;
  if (!URL.canParse(presented)) return false;
  const url = new URL(presented);
  // Only the port may differ: a URI the parser would rewrite (dot segments, escapes) is not that one.
  if (url.protocol !== 'http:' || !LOOPBACK_HOSTS.has(url.hostname) || url.href !== presented) return false;
  const portless = (value: URL) => `http://${value.hostname}${value.pathname}${value.search}`;
  return registered.some((uri) => {
    if (!URL.canParse(uri)) return false;
    const known = new URL(uri);
    return known.protocol === 'http:' && LOOPBACK_HOSTS.has(known.hostname) && portless(known) === portless(url);
  });
}

/** Whether a redirect goes to a program on the person's own computer. */
export const isLoopbackRedirect = (uri: string) => URL.canParse(uri) && LOOPBACK_HOSTS.has(new URL(uri).hostname);

/** A client's name as it may be shown: one clean line. */
export const cleanName = (name: string) => sanitize(name, MAX_CLIENT_NAME_CHARS) || 'Unnamed client';

const StaticClientSchema = z.strictObject({
  client_id: z.string().min(1).max(200),
  client_name: z.string().min(1).max(MAX_CLIENT_NAME_CHARS),
  redirect_uris: z.array(z.string()).min(1).max(MAX_REDIRECT_URIS),
});

/**
 * Reads the operator's pre-registered clients (APPMGMT_OAUTH_CLIENTS_FILE).
 * @throws ConfigError naming the file and the first problem.
 */
export function loadStaticClients(file: string): Client[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(`APPMGMT_OAUTH_CLIENTS_FILE ${file} could not be read as JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const checked = z.array(StaticClientSchema).max(1_000).safeParse(parsed);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new ConfigError(`APPMGMT_OAUTH_CLIENTS_FILE ${file}: ${issue.path.join('.') || 'the file'}: ${issue.message} (expected [{"client_id", "client_name", "redirect_uris": [...]}])`);
  }
  return checked.data.map((entry) => {
    for (const uri of entry.redirect_uris) {
      const problem = redirectUriProblem(uri);
      if (problem) throw new ConfigError(`APPMGMT_OAUTH_CLIENTS_FILE ${file}: client ${entry.client_id}: redirect URI ${JSON.stringify(uri.slice(0, 100))} ${problem}`);
    }
    if (URL.canParse(entry.client_id) && /^https:/i.test(entry.client_id)) {
      throw new ConfigError(`APPMGMT_OAUTH_CLIENTS_FILE ${file}: client_id ${entry.client_id} is an https URL, which names a metadata document; give pre-registered clients another id`);
    }
    return { clientId: entry.client_id, clientName: cleanName(entry.client_name), redirectUris: entry.redirect_uris, kind: 'static' as const };
  });
}
