import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { cleanName, MAX_REDIRECT_URIS, redirectUriProblem } from './clients.js';
import type { AuthContext } from './context.js';
import { OAuthFailure } from './errors.js';
import { readBody, sendJson, sendOAuthError } from './http-io.js';
import { CLIENT_TTL_MS } from './store.js';
import { newClientId } from './tokens.js';

/**
 * Dynamic client registration (RFC 7591), kept for clients without metadata documents. Anyone may
 * register, so registrations are capped in total and expire; no secret is ever issued (every client
 * is public and proves itself with PKCE), whatever method the client asked for.
 */

/** A registration request is a few redirect URIs and a name. */
const MAX_REGISTRATION_BYTES = 8 * 1024;

const RegistrationSchema = z.looseObject({
  redirect_uris: z.array(z.string()).min(1).max(MAX_REDIRECT_URIS),
  client_name: z.string().max(1_000).optional(),
  grant_types: z.array(z.string()).max(10).optional(),
  response_types: z.array(z.string()).max(10).optional(),
});

/** POST /oauth/register */
export async function register(ctx: AuthContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) throw new OAuthFailure('invalid_client_metadata', 'Send the client metadata as application/json.');
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req, MAX_REGISTRATION_BYTES));
    } catch (error) {
      if (error instanceof OAuthFailure) throw error;
      throw new OAuthFailure('invalid_client_metadata', 'The body is not JSON.');
    }
    const parsed = RegistrationSchema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new OAuthFailure('invalid_client_metadata', `${issue.path.join('.') || 'the body'}: ${issue.message}`);
    }
    for (const uri of parsed.data.redirect_uris) {
      const problem = redirectUriProblem(uri);
      if (problem) throw new OAuthFailure('invalid_redirect_uri', `The redirect URI ${JSON.stringify(uri.slice(0, 100))} ${problem}.`);
    }
    if (parsed.data.response_types && !parsed.data.response_types.includes('code')) throw new OAuthFailure('invalid_client_metadata', 'This server serves response_type code only.');
    const client = { clientId: newClientId(), clientName: cleanName(parsed.data.client_name ?? ''), redirectUris: parsed.data.redirect_uris, createdAt: ctx.now() };
    if (!(await ctx.store.addClient(client, CLIENT_TTL_MS))) {
      throw new OAuthFailure('temporarily_unavailable', 'This server holds as many client registrations as it accepts; try again later, or use a client ID metadata document.', 503);
    }
    sendJson(res, 201, {
      client_id: client.clientId,
      client_id_issued_at: Math.floor(client.createdAt / 1000),
      client_name: client.clientName,
      redirect_uris: client.redirectUris,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
  } catch (error) {
    if (error instanceof OAuthFailure) return sendOAuthError(res, error);
    throw error;
  }
}
