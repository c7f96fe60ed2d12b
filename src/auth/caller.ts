import type { IncomingHttpHeaders } from 'node:http';
import type { AuthContext } from './context.js';
import { challenge } from './discovery.js';
import { boundOf, digest, grantIdOf, sameDigest, scopesOf, type Bound, type Grant, type SealedCredentials } from './grant.js';

/**
 * The one question the transport asks: whose request is this? With OAuth on, `Authorization`
 * carries only tokens this server issued, checked against their grant and this server's resource;
 * a service token there is refused, never passed through. The service's own credentials may still
 * come in their own headers (X-Appmgmt-Access-Token, X-Appmgmt-Api-Key) for scripts.
 */

export type Whose =
  | { kind: 'grant'; grant: Grant; bound: Bound; scopes: string[]; credentials: SealedCredentials }
  /** No bearer token: the service credentials in their own headers (or none at all, challenged by the caller). */
  | { kind: 'headers' }
  | { kind: 'refused'; status: number; headers: Record<string, string>; message: string };

/** Headers that carry the service's own credentials in header mode. */
export const SERVICE_CREDENTIAL_HEADERS = ['x-appmgmt-access-token', 'x-appmgmt-api-key', 'x-appmgmt-monitoring-api-key'] as const;

export async function whose(ctx: AuthContext, headers: IncomingHttpHeaders): Promise<Whose> {
  const authorization = headers.authorization?.trim();
  const serviceHeaders = SERVICE_CREDENTIAL_HEADERS.some((name) => headers[name] !== undefined);
  if (!authorization) {
    if (serviceHeaders) return { kind: 'headers' };
    return { kind: 'refused', status: 401, headers: { 'www-authenticate': challenge(ctx.issuer) }, message: 'Unauthorized: sign in with OAuth (this server is its own authorization server), or send the service credentials in X-Appmgmt-Access-Token and X-Appmgmt-Api-Key.' };
  }
  const invalid = (description: string) => ({
    kind: 'refused' as const,
    status: 401,
    headers: { 'www-authenticate': challenge(ctx.issuer, { code: 'invalid_token', description }) },
    message: `Unauthorized: ${description}`,
  });
  const token = /^Bearer +(\S+)$/i.exec(authorization)?.[1] ?? '';
  const id = grantIdOf('access', token);
  if (!id) return invalid('This server accepts only access tokens it issued in Authorization; send the service token in X-Appmgmt-Access-Token instead.');
  if (serviceHeaders) {
    return { kind: 'refused', status: 400, headers: {}, message: 'Bad request: send either an OAuth access token in Authorization or the service credentials in X-Appmgmt-* headers, not both.' };
  }
  const grant = await ctx.store.grant(id); // rejects while the store is away: the transport answers 503
  if (!grant || !sameDigest(grant.access.hash, digest(token))) return invalid('The access token is unknown, replaced by a refresh, or revoked.');
  if (grant.access.expiresAt <= ctx.now()) return invalid('The access token expired; refresh it.');
  if (grant.resource !== ctx.resource) return invalid(`The access token was issued for another resource; this is ${ctx.resource}.`);
  let credentials: SealedCredentials;
  try {
    credentials = JSON.parse(ctx.sealer.open(grant.sealed, grant.id)) as SealedCredentials;
  } catch {
    // The key that sealed it is gone: the grant can never act again.
    await ctx.store.revoke(grant.id);
    await ctx.audit({ event: 'revoked', grant, reason: 'unsealable' });
    return invalid("This connection's credentials can no longer be opened (the server's seal key changed); connect again.");
  }
  const bound = boundOf(grant);
  return { kind: 'grant', grant, bound, scopes: scopesOf(bound), credentials };
}
