import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthContext } from './context.js';
import { OAuthFailure } from './errors.js';
import {
  ACCESS_TOKEN_TTL_MS,
  boundOf,
  digest,
  grantIdOf,
  isCode,
  mintToken,
  scopesOf,
  SPENT_CODE_TTL_MS,
  type Grant,
} from './grant.js';
import { readForm, sendJson, sendOAuthError } from './http-io.js';

/**
 * The token endpoint (authorization code with PKCE S256, refresh with rotation) and revocation
 * (RFC 7009). Clients are public: they prove themselves with PKCE and their redirect URI, never a
 * secret. A code is redeemed once; a second redemption revokes the grant it made. A refresh token
 * is used once; using one again revokes its whole family.
 */

/** RFC 7636: 43 to 128 characters of the unreserved set. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** POST /oauth/token */
export async function token(ctx: AuthContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    const form = await readForm(req);
    const clientId = clientIdOf(req, form.get('client_id'));
    const kind = form.get('grant_type');
    const answer =
      kind === 'authorization_code'
        ? await redeem(ctx, clientId, form.get)
        : kind === 'refresh_token'
          ? await refresh(ctx, clientId, form.get)
          : failure('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token.');
    sendJson(res, 200, answer);
  } catch (error) {
    if (error instanceof OAuthFailure) return sendOAuthError(res, error);
    throw error;
  }
}

async function redeem(ctx: AuthContext, clientId: string, get: (name: string) => string | undefined) {
  const code = get('code') ?? '';
  if (!isCode(code)) failure('invalid_grant', 'The authorization code is not one this server issued.');
  const redeemed = await ctx.store.redeemCode(digest(code), SPENT_CODE_TTL_MS);
  if (redeemed.kind === 'reused') {
    await ctx.audit({ event: 'revoked', grant: { id: redeemed.grantId, clientId, bound: { readOnly: true } }, reason: 'code_reused' });
    failure('invalid_grant', 'The authorization code was already used; the grant made with it is revoked.');
  }
  if (redeemed.kind === 'unknown') failure('invalid_grant', 'The authorization code is unknown, expired or already used.');
  const { record } = redeemed;
  if (record.expiresAt <= ctx.now()) failure('invalid_grant', 'The authorization code expired; authorize again.');
  if (record.grant.clientId !== clientId) failure('invalid_grant', 'The authorization code was issued to another client.');
  if (get('redirect_uri') !== record.grant.redirectUri) failure('invalid_grant', 'redirect_uri differs from the one the code was issued for.');
  const resource = get('resource');
  if (resource === undefined) failure('invalid_target', `The resource parameter (RFC 8707) is required: ${ctx.resource}`);
  if (resource !== record.grant.resource || resource !== ctx.resource) failure('invalid_target', `This code is for ${record.grant.resource} only.`);
  const verifier = get('code_verifier') ?? '';
  if (!VERIFIER.test(verifier)) failure('invalid_grant', 'code_verifier is missing or malformed (PKCE).');
  if (createHash('sha256').update(verifier).digest('base64url') !== record.challenge) failure('invalid_grant', 'code_verifier does not match the code_challenge (PKCE).');

  const at = ctx.now();
  const access = mintToken('access', record.grant.id);
  const refreshToken = mintToken('refresh', record.grant.id);
  const grant: Grant = {
    ...record.grant,
    sealed: record.sealed,
    access: { hash: digest(access), expiresAt: at + ACCESS_TOKEN_TTL_MS },
    refresh: digest(refreshToken),
    narrowed: false,
    refreshedAt: at,
  };
  const evicted = await ctx.store.putGrant(grant);
  if (evicted === false) failure('invalid_grant', 'The grant was revoked while it was being made (its code was used twice).');
  await ctx.audit({ event: 'created', grant });
  for (const id of evicted) await ctx.audit({ event: 'revoked', grant: { id, clientId: '', bound: { readOnly: true } }, reason: 'replaced' });
  return tokenAnswer(access, refreshToken, grant);
}

async function refresh(ctx: AuthContext, clientId: string, get: (name: string) => string | undefined) {
  const presented = get('refresh_token') ?? '';
  const id = grantIdOf('refresh', presented);
  if (!id) failure('invalid_grant', 'The refresh token is not one this server issued.');
  const grant = await ctx.store.grant(id);
  if (!grant) failure('invalid_grant', 'The refresh token is unknown, expired or revoked; connect again.');
  if (grant.clientId !== clientId) failure('invalid_grant', 'The refresh token was issued to another client.');
  const resource = get('resource');
  if (resource !== undefined && resource !== grant.resource) failure('invalid_target', `This grant is for ${grant.resource} only.`);
  const held = scopesOf(boundOf(grant));
  const asked = get('scope')?.split(' ').filter(Boolean);
  if (asked?.some((scope) => !(held as string[]).includes(scope))) failure('invalid_scope', `A refresh may only keep or narrow the grant (${held.join(' ')}).`);
  const narrow = asked !== undefined && !asked.includes('appmgmt:write') && held.includes('appmgmt:write');
  const sealed = ctx.sealer.stale(grant.sealed) ? ctx.sealer.seal(ctx.sealer.open(grant.sealed, grant.id), grant.id) : undefined;
  const at = ctx.now();
  const access = mintToken('access', id);
  const next = mintToken('refresh', id);
  const rotated = await ctx.store.rotate(id, digest(presented), { access: { hash: digest(access), expiresAt: at + ACCESS_TOKEN_TTL_MS }, refresh: digest(next), ...(sealed ? { sealed } : {}), narrow }, at);
  if (!rotated.ok && rotated.why === 'reused') {
    await ctx.audit({ event: 'revoked', grant, reason: 'refresh_reused' });
    failure('invalid_grant', 'This refresh token was already used; the grant and all its tokens are revoked. Connect again.');
  }
  if (!rotated.ok) failure('invalid_grant', 'The refresh token is unknown, expired or revoked; connect again.');
  await ctx.audit({ event: 'refreshed', grant: rotated.grant });
  return tokenAnswer(access, next, rotated.grant);
}

function tokenAnswer(access: string, refreshToken: string, grant: Grant) {
  return { access_token: access, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_MS / 1000, refresh_token: refreshToken, scope: scopesOf(boundOf(grant)).join(' ') };
}

/** POST /oauth/revoke: either token of a grant ends the whole grant; unknown tokens answer 200 too (RFC 7009 section 2.2). */
export async function revoke(ctx: AuthContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    const form = await readForm(req);
    const presented = form.get('token') ?? '';
    const id = grantIdOf('access', presented) ?? grantIdOf('refresh', presented);
    const grant = id ? await ctx.store.grant(id) : undefined;
    const clientId = form.get('client_id') ?? clientIdOf(req, undefined, false);
    const owns = grant && (grant.access.hash === digest(presented) || grant.refresh === digest(presented));
    if (grant && owns && (!clientId || clientId === grant.clientId)) {
      await ctx.store.revoke(grant.id);
      await ctx.audit({ event: 'revoked', grant, reason: 'revocation' });
    }
    res.writeHead(200, { 'cache-control': 'no-store' }).end();
  } catch (error) {
    if (error instanceof OAuthFailure) return sendOAuthError(res, error);
    throw error;
  }
}

/** The client_id of a public client: the body's, or a Basic header's user name (its password is ignored: none is ever issued). */
function clientIdOf(req: IncomingMessage, fromBody: string | undefined, required = true): string {
  const basic = /^Basic ([A-Za-z0-9+/=]{1,4000})$/.exec(req.headers.authorization ?? '')?.[1];
  const fromHeader = basic ? decodeURIComponent(Buffer.from(basic, 'base64').toString('utf8').split(':')[0] ?? '') : undefined;
  const clientId = fromBody ?? fromHeader;
  if (!clientId && required) throw new OAuthFailure('invalid_client', 'client_id is required.', 401);
  return clientId ?? '';
}

function failure(code: string, description: string): never {
  throw new OAuthFailure(code, description);
}

/** A fresh id for a self-registered client: no meaning, nothing to guess. */
export const newClientId = () => `amm_client_${randomUUID()}`;
