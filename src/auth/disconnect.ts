import type { IncomingMessage, ServerResponse } from 'node:http';
import { subjectOf } from './authorize.js';
import { CONSENT_TTL_MS, csrfCookie, csrfProblem, newNonce } from './consent.js';
import type { AuthContext } from './context.js';
import { PATHS } from './discovery.js';
import { OAuthFailure } from './errors.js';
import { readForm, sendErrorPage } from './http-io.js';
import { escapeHtml, page, pageHeaders } from './page.js';

/**
 * Where a person disconnects every app they connected with one service token: each of those grants
 * ends, with the credentials sealed in it. Knowing the token is what proves the person; a token that
 * connected nothing disconnects nothing, and the page says the same either way.
 */

const SEAL_CONTEXT = 'disconnect-form';

function form(ctx: AuthContext, nonce: string, message?: string): string {
  const sealed = ctx.sealer.seal(JSON.stringify({ nonce, expiresAt: ctx.now() + CONSENT_TTL_MS }), SEAL_CONTEXT);
  return page(
    'Disconnect app-management-mcp',
    `<h1>Disconnect apps from app-management-mcp</h1>${message ? `<p class="warn" role="status">${escapeHtml(message)}</p>` : ''}
<p>Every app you connected with this personal access token loses its access at once, and the server deletes the credentials it kept for them.</p>
<form method="post" action="${PATHS.disconnect}"><input type="hidden" name="form" value="${escapeHtml(sealed)}"><input type="hidden" name="csrf" value="${escapeHtml(nonce)}">
<label>Personal access token <input type="password" name="access_token" required maxlength="1000" autocomplete="off"></label>
<div class="buttons"><button class="primary" type="submit">Disconnect</button></div></form>`,
  );
}

/** GET /oauth/disconnect */
export function showDisconnect(ctx: AuthContext, res: ServerResponse): void {
  const nonce = newNonce();
  res.writeHead(200, { ...pageHeaders(), 'set-cookie': csrfCookie(ctx.issuer, nonce, CONSENT_TTL_MS) }).end(form(ctx, nonce));
}

/** POST /oauth/disconnect */
export async function disconnect(ctx: AuthContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let fields: Awaited<ReturnType<typeof readForm>>;
  try {
    fields = await readForm(req);
  } catch (error) {
    if (error instanceof OAuthFailure) return sendErrorPage(res, 400, 'The form could not be read', error.description);
    throw error;
  }
  let expected: { nonce: string; expiresAt: number } | undefined;
  try {
    expected = JSON.parse(ctx.sealer.open(fields.get('form') ?? '', SEAL_CONTEXT)) as { nonce: string; expiresAt: number };
  } catch {
    expected = undefined;
  }
  if (!expected || expected.expiresAt <= ctx.now()) return sendErrorPage(res, 400, 'The form could not be used', 'The form was altered or expired; open the page again.');
  const csrf = csrfProblem(req, ctx.issuer, fields.get('csrf'), expected.nonce);
  if (csrf) return sendErrorPage(res, 403, 'The form was refused', csrf);
  const token = fields.get('access_token')?.trim() ?? '';
  let ended = 0;
  if (token) {
    for (const id of await ctx.store.grantsOf(subjectOf(ctx, token))) {
      const grant = await ctx.store.revoke(id);
      if (!grant) continue;
      ended += 1;
      await ctx.audit({ event: 'revoked', grant, reason: 'disconnect' });
    }
  }
  const nonce = newNonce();
  const message = ended > 0 ? `Disconnected ${ended} app connection${ended === 1 ? '' : 's'}; the credentials they held are deleted.` : 'No app was connected with this token; nothing to disconnect.';
  res.writeHead(200, { ...pageHeaders(), 'set-cookie': csrfCookie(ctx.issuer, nonce, CONSENT_TTL_MS) }).end(form(ctx, nonce, message));
}
