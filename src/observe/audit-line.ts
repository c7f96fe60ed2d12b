import { nodeCrypto } from '../node-crypto.js';
import { z } from 'zod';
import { checkedCanonical } from '../gate/key.js';
import { limit, sanitize } from '../text.js';

/** The audit trail's line: its schema (what tests and docs parse lines with), and how its text is cleaned. */

/** The trail's line format; a reader that sees another version must not guess. */
export const AUDIT_VERSION = 1;
/** Ids are short; a longer value is not an id and is cut. */
export const MAX_ID_CHARS = 200;
/** A warning's cost line is one sentence of our own. */
export const MAX_COST_CHARS = 300;
/** What a refusal or an outcome says: a line, never a document. */
export const MAX_SUMMARY_CHARS = 200;
/** Upstream or error text is cut to this before anything else reads it (STYLE habit 14). */
const MAX_INPUT_CHARS = 4 * MAX_SUMMARY_CHARS;
/** `METHOD /path?query` of a sent request. */
export const MAX_HTTP_CHARS = 300;

export const AUDIT_STEPS = ['warned', 'approval_asked', 'approval_answered', 'confirmed', 'reserved', 'sent', 'answered', 'released', 'refused'] as const;
/** `pending`: the call goes on (a warning, a confirmation, a request on its way). */
export const AUDIT_OUTCOMES = ['pending', 'approved', 'declined', 'success', 'refused', 'unknown'] as const;
/** Why the gate refused a call (step `refused`); nothing was sent for any of them. */
export const REFUSAL_REASONS = [
  'approval_required', // human confirmation is required and this client cannot show forms
  'local_check', // the tool's own check (a budget cap, a rule of the service) refused before anything else
  'invalid_input',
  'warning_failed', // the warning could not be made (its read failed)
  'in_flight', // an identical call is running
  'store_full',
  'no_pending_warning', // none for these arguments: never warned, expired, used, or the latest is for other arguments
  'already_done', // the same call was carried out within the window
  'other_round', // an approval for an older warning or form
  'approval_state', // an approval for another call or user, or answered too late
  'approval_reused',
  'approval_limit', // this user answered as many approval forms as the store keeps per user within the window
  'store_unavailable',
  'store_amnesia', // the shared store lost its memory; the grace period refuses everything
  'audit_unwritable',
  'over_limit', // the call would go over a daily limit (gate/allowance.ts)
  'cancelled',
  'not_sent', // refused before sending for another reason (a setting missing)
] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/** Which daily limit a call would have gone over (gate/allowance-text.ts Over). */
export const OVER_LIMITS = ['user', 'total', 'grant', 'calls'] as const;

const hex = (length: number) => z.string().regex(new RegExp(`^[0-9a-f]{${length}}$`));

/**
 * One line of the trail. Every step of one tool call shares `call`; every call with the same user and
 * arguments shares `request_sha256`. Built on its first use (z.lazy keeps it): a start without an
 * audit trail never needs it, and building it was a tenth of what our own modules cost a start
 * before `initialize` (issue 31).
 */
export const AuditLineSchema = z.lazy(() =>
  z.strictObject({
    v: z.literal(AUDIT_VERSION),
    time: z.iso.datetime(),
    step: z.enum(AUDIT_STEPS),
    outcome: z.enum(AUDIT_OUTCOMES),
    /** A keyed hash of the caller's gate scope (itself a keyed hash of the credential): stable while APPMGMT_STATE_SECRET is. */
    user: hex(32),
    /**
     * For an OAuth grant's calls (whose `user` is the grant): the person, as the same keyed hash of
     * their service token that `user` is in header mode. The operator's per-user limits count per person.
     */
    person: hex(32).optional(),
    /** This tool call (random). */
    call: z.uuid(),
    tool: z.string().max(64),
    app: z.string().max(MAX_ID_CHARS).optional(),
    campaign: z.string().max(MAX_ID_CHARS).optional(),
    template: z.string().max(MAX_ID_CHARS).optional(),
    recommendation: z.string().max(MAX_ID_CHARS).optional(),
    /** SHA-256 of the tool and its canonical arguments (confirm left out): the call a warning describes and a confirmation sends. */
    request_sha256: hex(64),
    /** Step `sent`: SHA-256 of exactly what goes out (sentDigest: method, path and query, JSON body with sorted keys). */
    sent_sha256: hex(64).optional(),
    /** Step `sent`: `METHOD /path?query`, ids only. */
    http: z.string().max(MAX_HTTP_CHARS).optional(),
    /** The X-Request-ID the service deduplicates by, for tools that send one. */
    request_id: z.string().max(MAX_ID_CHARS).optional(),
    /** The warning's cost line, as the user was shown it (steps `warned` and `approval_asked`). */
    cost: z.string().max(MAX_COST_CHARS).optional(),
    /** The daily budget the arguments name, in micros of the account currency (the service never names the currency). */
    amount_micros: z.number().int().nonnegative().optional(),
    /** The HTTP status of an answer that was not a success, or of the read that stopped a warning. */
    status: z.number().int().min(100).max(599).optional(),
    reason: z.enum(REFUSAL_REASONS).optional(),
    /** With reason `over_limit`: which limit. `user`: the operator's per user (per person); `total`: for all users; `grant`: the one the person chose for this connection; `calls`: the most calls a day holds. */
    over: z.enum(OVER_LIMITS).optional(),
    /** Steps `reserved` and `released`: the UTC day (YYYY-MM-DD) whose daily limit the amount counts against. */
    day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).optional(),
    /** What the daily limit counts: `micros` of new daily budget, or AI `turns`. */
    unit: z.enum(['micros', 'turns']).optional(),
    /** What this step counted (`reserved`) or gave back (`released`), in `unit`. */
    counted: z.number().int().nonnegative().optional(),
    /** The user's (for a grant: the person's) sum for the day after this step, in `unit`. */
    used: z.number().int().min(0).optional(),
    /** The operator's daily limit per user in force, in `unit`; absent when none is set. */
    limit: z.number().int().positive().optional(),
    /** For a grant with a daily limit of its own: the grant's sum for the day after this step, in `unit`. */
    grant_used: z.number().int().min(0).optional(),
    /** The daily limit the person chose for this grant at consent, in `unit`. */
    grant_limit: z.number().int().nonnegative().optional(),
    /** A trimmed, cleaned line: what a success did (ids), what a refusal or an unknown outcome was. */
    summary: z.string().max(MAX_SUMMARY_CHARS).optional(),
  }),
);
export type AuditLine = z.infer<typeof AuditLineSchema>;

/** A gate scope of an OAuth grant: `grant:` and the grant's id. */
const GRANT_SCOPE = /^grant:([0-9a-f]{32})$/;

/**
 * The user id of a gate scope: for an OAuth grant, the grant's own id (so its calls line up with its
 * grant_* lines); otherwise a hash of the scope (already keyed), shortened to 128 bits.
 */
export function auditUser(scope: string): string {
  const grant = GRANT_SCOPE.exec(scope)?.[1];
  if (grant) return grant;
  return nodeCrypto().createHash('sha256').update('audit-user\u0000').update(scope).digest('hex').slice(0, 32);
}

/** SHA-256 of a tool and its canonical arguments: what a warning describes and its confirmation sends. */
export function requestDigest(tool: string, request: Record<string, unknown>): string {
  return nodeCrypto().createHash('sha256').update(tool).update('\u0000').update(checkedCanonical(request)).digest('hex');
}

/**
 * Text for a line: cut first, stripped to one clean line, every configured secret redacted, and in
 * free text (`mask`) whatever looks like a secret anyway (someone else's key echoed upstream) masked.
 */
export function cleanText(text: string, max: number, redact: (text: string) => string, mask: boolean): string {
  const redacted = redact(sanitize(limit(text, MAX_INPUT_CHARS), MAX_INPUT_CHARS));
  // sanitize counts characters, the schema UTF-16 units: an emoji must not make a line invalid.
  return limit(sanitize(mask ? maskSecretShapes(redacted) : redacted, max), max);
}

const MASK = '[masked]';
/** A credential named as one: `Bearer x`, `api_key=x`, `token: x`, `password x`. Bounded separators keep it linear. */
const NAMED_SECRET = /\b(bearer|basic|token|access[_-]?token|api[_-]?key|apikey|secret|password|passwd|pwd)\b[\s:='"]{0,4}[^\s'",;)]+/gi;
/** A long run of token characters with letters and digits: a key, a JWT, a hash. Ids are shorter. */
const LONG_TOKEN = /[A-Za-z0-9+/_=.-]{32,}/g;

/** Masks text that has the shape of a secret, whoever's it is. Linear: no nested or adjacent unbounded quantifiers. */
export function maskSecretShapes(text: string): string {
  return text
    .replace(NAMED_SECRET, (_match, name: string) => `${name} ${MASK}`)
    .replace(LONG_TOKEN, (run) => (/[0-9]/.test(run) && /[A-Za-z]/.test(run) ? MASK : run));
}

