import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { ToolsetName } from '../config.js';
import { money } from '../tools/format.js';
import { isLoopbackRedirect, type ClientKind } from './clients.js';
import type { Scope } from './grant.js';
import { MAX_LIMIT_CHARS } from './limits.js';
import { escapeHtml, page } from './page.js';
import type { Sealer } from './sealed.js';

/**
 * The consent page and what protects its form: the pending request travels sealed in the page (no
 * record is kept for a stranger's visit), a random nonce is both a form field and a SameSite=Strict
 * cookie (__Host- prefixed over https), and the POST must come from this origin and not from a frame.
 */

/** A person has this long between opening the page and answering it. */
export const CONSENT_TTL_MS = 10 * 60_000;

/** The authorization request as checked at GET /authorize, carried through the form. */
export interface PendingRequest {
  clientId: string;
  clientName: string;
  clientKind: ClientKind;
  redirectUri: string;
  state?: string;
  challenge: string;
  scopes: Scope[];
  resource: string;
  nonce: string;
  expiresAt: number;
}

/** What the server's own configuration allows a grant: the most a person can choose. */
export interface Offer {
  readOnly: boolean;
  toolsets: Array<{ name: ToolsetName; tools: number }>;
  /** The server is scoped to this app: the grant is too. */
  appId?: string;
  /** A daily spending limit of the grant's own may be chosen (a tool that commits money is offered), at most `mostMicros`: the operator's per person. */
  spend?: { mostMicros?: number | undefined };
  /** A daily limit of AI turns of the grant's own may be chosen (a tool that uses credits is offered), at most `most`. */
  turns?: { most?: number | undefined };
}

export interface ConsentValues {
  appId?: string;
  onlyApp?: boolean;
  access?: 'read' | 'write';
  toolsets?: string[];
  /** The limits as typed (shown again when the page comes back with an error). */
  spendLimit?: string;
  turnsLimit?: string;
}

/** Whether the page offers the connection's own daily limits: only to a client that may act. */
export function limitsOffered(offer: Offer, request: Pick<PendingRequest, 'scopes'>): { spend: boolean; turns: boolean } {
  const acting = !offer.readOnly && request.scopes.includes('appmgmt:write');
  return { spend: acting && offer.spend !== undefined, turns: acting && offer.turns !== undefined };
}

export const newNonce = () => randomBytes(32).toString('base64url');
const SEAL_CONTEXT = 'consent-request';

export function sealRequest(sealer: Sealer, request: PendingRequest): string {
  return sealer.seal(JSON.stringify(request), SEAL_CONTEXT);
}

/** The pending request of a form, or undefined when it was altered or sealed by a key no longer configured. */
export function openRequest(sealer: Sealer, sealed: string): PendingRequest | undefined {
  try {
    return JSON.parse(sealer.open(sealed, SEAL_CONTEXT)) as PendingRequest;
  } catch {
    return undefined;
  }
}

/** The CSRF cookie's name: __Host- needs https, which a loopback issuer in tests does not have. */
export const csrfCookieName = (issuer: string) => (issuer.startsWith('https:') ? '__Host-appmgmt-csrf' : 'appmgmt-csrf');

export function csrfCookie(issuer: string, nonce: string, maxAgeMs: number): string {
  const secure = issuer.startsWith('https:') ? '; Secure' : '';
  return `${csrfCookieName(issuer)}=${nonce}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${Math.floor(maxAgeMs / 1000)}${secure}`;
}

/**
 * Why a form POST is refused, or undefined: it must come from this origin, not from a frame, and
 * carry the nonce of its own page in both the form and the cookie.
 */
export function csrfProblem(req: IncomingMessage, issuer: string, formNonce: string | undefined, expected: string): string | undefined {
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== new URL(issuer).origin) return 'The form was sent from another site.';
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return 'The form was sent from another site.';
  const dest = req.headers['sec-fetch-dest'];
  if (dest !== undefined && dest !== 'document') return 'The form was sent from inside a frame; open the page on its own.';
  const cookie = cookieValue(req.headers.cookie, csrfCookieName(issuer));
  if (!formNonce || !cookie) return 'The form is missing its security token (the page may be from another browser, or cookies are blocked).';
  if (!sameText(formNonce, expected) || !sameText(cookie, expected)) return "The form's security token does not match this page.";
  return undefined;
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').slice(0, 8_192).split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The consent page for `request`, with the person's earlier non-secret answers and an error, if any. */
export function consentPage(options: { request: PendingRequest; sealed: string; offer: Offer; action: string; values?: ConsentValues; error?: string }): string {
  const { request, sealed, offer, action, values = {}, error } = options;
  const redirect = new URL(request.redirectUri);
  const name = escapeHtml(request.clientName);
  const vouched =
    request.clientKind === 'cimd'
      ? `Its description is published at <code>${escapeHtml(new URL(request.clientId).host)}</code>.`
      : request.clientKind === 'static'
        ? 'The operator of this server registered it.'
        : 'It registered itself with this server: its name is its own claim, not checked.';
  const loopback = isLoopbackRedirect(request.redirectUri)
    ? '<p class="warn">It sends you back to a program on this computer. Continue only if you just started connecting from an app on this computer.</p>'
    : '';
  const writeOffered = !offer.readOnly && request.scopes.includes('appmgmt:write');
  const access = values.access ?? (writeOffered ? 'write' : 'read');
  const chosen = new Set(values.toolsets ?? offer.toolsets.map((set) => set.name));
  const appField = offer.appId
    ? `<p>This server works on app <code>${escapeHtml(offer.appId)}</code> only; so will this connection.</p><input type="hidden" name="app_id" value="${escapeHtml(offer.appId)}">`
    : `<label>App ID <input type="text" name="app_id" required maxlength="200" autocomplete="off" value="${escapeHtml(values.appId ?? '')}"></label>
<p class="hint">An app your token reaches. The service has no call that checks a token on its own, so the server reads this app's campaign list to check it.</p>
<label><input type="checkbox" name="only_app" value="1"${values.onlyApp ? ' checked' : ''}> Limit this connection to this app</label>`;
  const limits = limitsFieldset(name, offer, limitsOffered(offer, request), values);
  const toolsets = offer.toolsets
    .map(({ name: set, tools }) => `<label><input type="checkbox" name="toolsets" value="${set}"${chosen.has(set) ? ' checked' : ''}> ${set} <span class="hint">(${tools} tool${tools === 1 ? '' : 's'})</span></label>`)
    .join('');
  const body = `<h1>Connect ${name} to app-management-mcp</h1>
<p><strong>${name}</strong> asks to use the Application Management API as you. ${vouched}</p>
<p>After you answer, you go back to <strong>${escapeHtml(redirect.host)}</strong>: <code>${escapeHtml(request.redirectUri)}</code></p>
${loopback}${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="${escapeHtml(action)}">
<input type="hidden" name="request" value="${escapeHtml(sealed)}">
<input type="hidden" name="csrf" value="${escapeHtml(request.nonce)}">
<fieldset><legend>Your credentials</legend>
<label>Personal access token <input type="password" name="access_token" required maxlength="1000" autocomplete="off"></label>
<label>Personal API key (optional) <input type="password" name="api_key" maxlength="1000" autocomplete="off"></label>
<p class="hint">The server checks them with the service, keeps them encrypted, and sends them only to the service. Disconnecting deletes them.</p>
${appField}
</fieldset>
<fieldset><legend>What ${name} may do</legend>
<label><input type="radio" name="access" value="read"${access === 'read' ? ' checked' : ''}> Read only</label>
${writeOffered ? `<label><input type="radio" name="access" value="write"${access === 'write' ? ' checked' : ''}> Read and act: every spend and permanent delete still asks you first</label>` : `<p class="hint">${offer.readOnly ? 'This server is read-only.' : `${name} asked for read access only.`}</p>`}
</fieldset>
<fieldset><legend>Toolsets</legend>${toolsets}<p class="hint">check_connection is always offered.</p></fieldset>
${limits}<p class="hint">This is the most ${name} can do with this connection: nothing it sends later can widen it${limits ? ' or raise its limits' : ''}.</p>
<div class="buttons"><button class="primary" type="submit" name="decision" value="allow">Allow</button><button type="submit" name="decision" value="deny" formnovalidate>Deny</button></div>
</form>`;
  return page(`Connect ${request.clientName}`, body);
}

/** The optional daily limits of this connection, each with the operator's limit per person where one is set; empty when none is offered. */
function limitsFieldset(name: string, offer: Offer, offered: { spend: boolean; turns: boolean }, values: ConsentValues): string {
  if (!offered.spend && !offered.turns) return '';
  const field = (field: string, value: string | undefined, mode: string, pattern: string, placeholder: string) =>
    `<input type="text" name="${field}" inputmode="${mode}" pattern="${pattern}" maxlength="${MAX_LIMIT_CHARS}" autocomplete="off" placeholder="${placeholder}" value="${escapeHtml((value ?? '').slice(0, MAX_LIMIT_CHARS))}">`;
  const perPerson = (most: string) => `This server allows each person at most ${most} a day, all their connections together.`;
  const spendMost = offer.spend?.mostMicros;
  const turnsMost = offer.turns?.most;
  const spend = offered.spend
    ? `<label>New daily budget it may commit each day, at most ${field('spend_limit', values.spendLimit, 'decimal', '\\d{1,9}(\\.\\d{1,2})?', 'e.g. 50.00')}</label>
<p class="hint">In your ad account's currency: the daily budgets of campaigns it creates or resumes, and budget increases. ${spendMost !== undefined ? perPerson(money(spendMost)) : 'This server sets no limit of its own.'}</p>`
    : '';
  const turns = offered.turns
    ? `<label>AI turns it may use each day, at most ${field('turns_limit', values.turnsLimit, 'numeric', '\\d{1,4}', 'e.g. 20')}</label>
<p class="hint">Builder chat messages and conflict resolutions, which use the service's credits. ${turnsMost !== undefined ? perPerson(`${turnsMost} AI turns`) : 'This server sets no limit of its own.'}</p>`
    : '';
  return `<fieldset><legend>Daily limits for ${name} (optional)</legend>
${spend}${turns}<p class="hint">Empty: no limit of this connection's own. Days are UTC days. To change a limit later, connect again.</p>
</fieldset>
`;
}
