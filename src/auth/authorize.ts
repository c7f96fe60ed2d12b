import { createHmac } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { TOOLSET_NAMES, type ToolsetName } from '../config.js';
import { sanitize } from '../text.js';
import { redirectMatches, type Client } from './clients.js';
import { isCimdClientId } from './cimd.js';
import { CONSENT_TTL_MS, consentPage, csrfCookie, csrfProblem, limitsOffered, newNonce, openRequest, sealRequest, type ConsentValues, type PendingRequest } from './consent.js';
import type { AuthContext } from './context.js';
import { PATHS } from './discovery.js';
import { OAuthFailure } from './errors.js';
import { CODE_TTL_MS, digest, mintToken, newGrantId, SCOPES, type Bound, type GrantDoc, type Scope } from './grant.js';
import { readForm, redirectBack, sendErrorPage } from './http-io.js';
import { spendLimitOf, turnsLimitOf } from './limits.js';
import { pageHeaders } from './page.js';

/**
 * The authorization endpoint. GET checks the request and shows the consent page; POST takes the
 * person's answer, checks their service credentials with the service, and only then issues a code.
 * Until the redirect URI is known to be the client's, a problem is shown to the person, never sent
 * anywhere; after that, it goes back to the client as OAuth says.
 */

/** A service credential as a person pastes it: one token, no spaces or invisible characters. */
const CREDENTIAL = /^[^\s\p{Cc}\p{Cf}]{1,1000}$/u;
/** App ids are short service ids. */
const APP_ID = /^[^\s\p{Cc}\p{Cf}/?#]{1,200}$/u;
/** PKCE S256 challenges are 43 base64url characters. */
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
/** OAuth's `state` is the client's to choose; a longer one is not a state. */
const MAX_STATE_CHARS = 1_000;

/**
 * The client a client_id names.
 * @throws OAuthFailure invalid_client.
 */
export async function resolveClient(ctx: AuthContext, clientId: string): Promise<Client> {
  const fixed = ctx.staticClients.get(clientId);
  if (fixed) return fixed;
  if (isCimdClientId(clientId)) {
    if (!ctx.registration.cimd) throw new OAuthFailure('invalid_client', 'This server does not accept client ID metadata documents; ask its operator.');
    return ctx.cimd.resolve(clientId);
  }
  const registered = ctx.registration.dcr && clientId.length <= 200 ? await ctx.store.client(clientId) : undefined;
  if (!registered) throw new OAuthFailure('invalid_client', 'This client is not registered here (or its registration expired); the app should register again.');
  return { ...registered, kind: 'dcr' };
}

/** GET /oauth/authorize */
export async function showConsent(ctx: AuthContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const params = new URL(req.url ?? '/', 'http://x').searchParams;
  const one = (name: string) => {
    const values = params.getAll(name);
    if (values.length > 1) throw new OAuthFailure('invalid_request', `The parameter ${name} is sent more than once.`);
    return values[0];
  };
  let client: Client;
  let redirectUri: string;
  try {
    const clientId = one('client_id');
    if (!clientId) return sendErrorPage(res, 400, 'This link is incomplete', 'The request names no client (client_id).');
    client = await resolveClient(ctx, clientId);
    redirectUri = one('redirect_uri') ?? '';
    if (!redirectUri || !redirectMatches(client.redirectUris, redirectUri)) {
      return sendErrorPage(res, 400, 'This link is not valid', "The address to return to (redirect_uri) is not one the client registered; nothing was sent to it.");
    }
  } catch (error) {
    if (error instanceof OAuthFailure) return sendErrorPage(res, error.status === 503 ? 503 : 400, 'This app cannot connect', error.description);
    throw error;
  }
  const state = one('state');
  const back = (code: string, description: string) => redirectBack(res, redirectUri, { error: code, error_description: description, state, iss: ctx.issuer });
  try {
    if (state !== undefined && state.length > MAX_STATE_CHARS) return back('invalid_request', 'state is too long.');
    if (one('response_type') !== 'code') return back('unsupported_response_type', 'Only response_type=code is supported.');
    const challenge = one('code_challenge');
    if (!challenge || one('code_challenge_method') !== 'S256' || !CHALLENGE.test(challenge)) return back('invalid_request', 'PKCE with code_challenge_method=S256 is required.');
    const resource = one('resource');
    if (!resource) return back('invalid_target', `The resource parameter (RFC 8707) is required: ${ctx.resource}`);
    if (resource !== ctx.resource) return back('invalid_target', `This server issues tokens only for ${ctx.resource}.`);
    const scopes = scopesOf(one('scope'));
    if (!scopes) return back('invalid_scope', `Unknown scope; this server knows ${SCOPES.join(' ')}.`);
    const request: PendingRequest = {
      clientId: client.clientId,
      clientName: client.clientName,
      clientKind: client.kind,
      redirectUri,
      ...(state !== undefined ? { state } : {}),
      challenge,
      scopes,
      resource,
      nonce: newNonce(),
      expiresAt: ctx.now() + CONSENT_TTL_MS,
    };
    const html = consentPage({ request, sealed: sealRequest(ctx.sealer, request), offer: ctx.offer, action: PATHS.authorize });
    res.writeHead(200, { ...pageHeaders([new URL(redirectUri).origin]), 'set-cookie': csrfCookie(ctx.issuer, request.nonce, CONSENT_TTL_MS) }).end(html);
  } catch (error) {
    if (error instanceof OAuthFailure) return back(error.code, error.description);
    throw error;
  }
}

/** POST /oauth/authorize: the person's answer. */
export async function answerConsent(ctx: AuthContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let form: Awaited<ReturnType<typeof readForm>>;
  try {
    form = await readForm(req, ['toolsets']);
  } catch (error) {
    if (error instanceof OAuthFailure) return sendErrorPage(res, 400, 'The form could not be read', error.description);
    throw error;
  }
  const request = openRequest(ctx.sealer, form.get('request') ?? '');
  if (!request) return sendErrorPage(res, 400, 'The form could not be used', 'The form was altered or is from before a restart of the server.');
  const csrf = csrfProblem(req, ctx.issuer, form.get('csrf'), request.nonce);
  if (csrf) return sendErrorPage(res, 403, 'The form was refused', csrf);
  if (request.expiresAt <= ctx.now()) return sendErrorPage(res, 400, 'The page expired', 'More than 10 minutes passed since the page was opened.');
  const clear = { 'set-cookie': csrfCookie(ctx.issuer, '', 0) };
  if (form.get('decision') !== 'allow') {
    return redirectBack(res, request.redirectUri, { error: 'access_denied', error_description: 'The person denied the request.', state: request.state, iss: ctx.issuer }, clear);
  }
  const values: ConsentValues = {
    appId: sanitize(form.get('app_id') ?? '', 200),
    onlyApp: form.get('only_app') === '1',
    access: form.get('access') === 'write' ? 'write' : 'read',
    toolsets: form.all('toolsets').slice(0, TOOLSET_NAMES.length + 1),
    spendLimit: form.get('spend_limit') ?? '',
    turnsLimit: form.get('turns_limit') ?? '',
  };
  const again = (status: number, error: string): void =>
    void res.writeHead(status, pageHeaders([new URL(request.redirectUri).origin])).end(consentPage({ request, sealed: form.get('request')!, offer: ctx.offer, action: PATHS.authorize, values, error }));
  const chosen = boundOf(ctx, request, values);
  if ('error' in chosen) return again(400, chosen.error);
  const accessToken = form.get('access_token')?.trim() ?? '';
  const apiKey = form.get('api_key')?.trim() || undefined;
  if (!CREDENTIAL.test(accessToken)) return again(400, 'Enter your personal access token: one piece of text without spaces.');
  if (apiKey !== undefined && !CREDENTIAL.test(apiKey)) return again(400, 'The API key must be one piece of text without spaces, or left empty.');
  const appId = ctx.offer.appId ?? form.get('app_id')?.trim() ?? '';
  if (!APP_ID.test(appId)) return again(400, 'Enter the ID of an app your token reaches (the server checks the token by reading it).');
  const credentials = { accessToken, ...(apiKey ? { apiKey } : {}) };
  const checked = await ctx.check(credentials, appId);
  if (!checked.ok) return again(checked.status, `${checked.message} Nothing was stored.`);

  const id = newGrantId();
  const grant: GrantDoc = {
    id,
    subject: subjectOf(ctx, accessToken),
    clientId: request.clientId,
    clientName: request.clientName,
    redirectUri: request.redirectUri,
    resource: request.resource,
    bound: chosen.bound.appId === undefined && values.onlyApp ? { ...chosen.bound, appId } : chosen.bound,
    createdAt: ctx.now(),
  };
  const code = mintToken('code');
  await ctx.store.putCode(digest(code), { grant, sealed: ctx.sealer.seal(JSON.stringify(credentials), id), challenge: request.challenge, expiresAt: ctx.now() + CODE_TTL_MS }, CODE_TTL_MS);
  redirectBack(res, request.redirectUri, { code, state: request.state, iss: ctx.issuer }, clear);
}

/** A person's service token, keyed: the same person on every replica, and never the token itself. */
export function subjectOf(ctx: Pick<AuthContext, 'subjectKey'>, accessToken: string): string {
  return createHmac('sha256', ctx.subjectKey).update('grant-subject\u0000').update(accessToken).digest('hex');
}

/** The scopes asked for; both when none; undefined when one is unknown. */
function scopesOf(text: string | undefined): Scope[] | undefined {
  const asked = (text ?? '').split(' ').filter(Boolean);
  if (asked.length === 0) return [...SCOPES];
  if (asked.some((scope) => !(SCOPES as readonly string[]).includes(scope))) return undefined;
  return SCOPES.filter((scope) => asked.includes(scope));
}

/** The bound the person chose, within what the server offers and the client asked for. */
function boundOf(ctx: AuthContext, request: PendingRequest, values: ConsentValues): { bound: Bound } | { error: string } {
  const offered = ctx.offer.toolsets.map((set) => set.name);
  const picked = values.toolsets ?? [];
  const outside = picked.filter((set) => !(offered as string[]).includes(set));
  if (outside.length > 0) return { error: `This server does not offer ${outside.map((set) => sanitize(set, 40)).join(', ')}; choose among the toolsets shown.` };
  if (picked.length === 0) return { error: 'Choose at least one toolset.' };
  const writeOffered = !ctx.offer.readOnly && request.scopes.includes('appmgmt:write');
  if (values.access === 'write' && !writeOffered) return { error: 'Acting is not offered to this client; choose read only.' };
  const limits = limitsOf(ctx, request, values);
  if ('error' in limits) return limits;
  const every = picked.length === offered.length;
  return {
    bound: {
      readOnly: values.access !== 'write',
      ...(every && ctx.offer.toolsets.length === TOOLSET_NAMES.length ? {} : { toolsets: picked as ToolsetName[] }),
      ...(ctx.offer.appId ? { appId: ctx.offer.appId } : {}),
      ...limits,
    },
  };
}

/** The daily limits the person chose for this connection, each within the operator's; only where the page offered them. */
function limitsOf(ctx: AuthContext, request: PendingRequest, values: ConsentValues): Pick<Bound, 'spendLimitMicros' | 'aiTurnsDaily'> | { error: string } {
  const offered = limitsOffered(ctx.offer, request);
  const spend = offered.spend ? spendLimitOf(values.spendLimit ?? '', ctx.offer.spend?.mostMicros) : values.spendLimit ? { error: 'This connection cannot have a spending limit of its own here; leave it empty.' } : {};
  if ('error' in spend) return spend;
  const turns = offered.turns ? turnsLimitOf(values.turnsLimit ?? '', ctx.offer.turns?.most) : values.turnsLimit ? { error: 'This connection cannot have a limit of AI turns of its own here; leave it empty.' } : {};
  if ('error' in turns) return turns;
  return { ...(spend.value !== undefined ? { spendLimitMicros: spend.value } : {}), ...(turns.value !== undefined ? { aiTurnsDaily: turns.value } : {}) };
}
