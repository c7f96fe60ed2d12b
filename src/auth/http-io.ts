import type { IncomingMessage, ServerResponse } from 'node:http';
import { OAuthFailure } from './errors.js';
import { escapeHtml, page, pageHeaders } from './page.js';

/** Reading and answering the sign-in endpoints' requests: bounded bodies, OAuth's error shapes. */

/** A form or registration body larger than this is not one a client or a person sends. */
export const MAX_FORM_BYTES = 16 * 1024;

/**
 * The request's body, at most `max` bytes.
 * @throws OAuthFailure invalid_request when it is larger.
 */
export async function readBody(req: IncomingMessage, max = MAX_FORM_BYTES): Promise<string> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) throw new OAuthFailure('invalid_request', `The request body is larger than ${max / 1024} KiB.`, 413);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) throw new OAuthFailure('invalid_request', `The request body is larger than ${max / 1024} KiB.`, 413);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A form body's fields; a field sent twice is refused (RFC 6749 section 3.1), except `multi` ones.
 * @throws OAuthFailure invalid_request.
 */
export async function readForm(req: IncomingMessage, multi: string[] = []): Promise<{ get(name: string): string | undefined; all(name: string): string[] }> {
  if (!/^application\/x-www-form-urlencoded\b/i.test(req.headers['content-type'] ?? '')) {
    throw new OAuthFailure('invalid_request', 'Send the parameters as application/x-www-form-urlencoded.');
  }
  const params = new URLSearchParams(await readBody(req));
  for (const name of new Set(params.keys())) {
    if (!multi.includes(name) && params.getAll(name).length > 1) throw new OAuthFailure('invalid_request', `The parameter ${name.slice(0, 40)} is sent more than once.`);
  }
  return { get: (name) => params.get(name) ?? undefined, all: (name) => params.getAll(name) };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', pragma: 'no-cache', ...headers }).end(JSON.stringify(body));
}

/** An OAuth error as JSON (token, registration and revocation endpoints). */
export function sendOAuthError(res: ServerResponse, failure: OAuthFailure): void {
  sendJson(res, failure.status, { error: failure.code, error_description: failure.description }, failure.status === 401 ? { 'www-authenticate': 'Basic realm="app-management-mcp"' } : {});
}

/** A page for the person: what went wrong and what to do; never a redirect to an address not yet checked. */
export function sendErrorPage(res: ServerResponse, status: number, title: string, message: string): void {
  res.writeHead(status, pageHeaders()).end(page(title, `<h1>${escapeHtml(title)}</h1><p class="error">${escapeHtml(message)}</p><p>Close this window and start connecting again from your app.</p>`));
}

/** Sends the browser back to the client with `params` (and `iss`, RFC 9207). */
export function redirectBack(res: ServerResponse, redirectUri: string, params: Record<string, string | undefined>, headers: Record<string, string> = {}): void {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  res.writeHead(303, { location: url.href, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', ...headers }).end();
}
