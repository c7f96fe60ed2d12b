import { z } from 'zod';
import type { GrantEvent } from '../auth/context.js';
import type { Log } from '../log.js';
import { AUDIT_VERSION, cleanText, MAX_ID_CHARS } from './audit-line.js';
import type { AuditSink } from './audit-sinks.js';

/**
 * Grants in the audit trail (OAuth for `http`): one line when a grant is created, refreshed or
 * revoked, in the same file as the gated calls. `user` is the grant's id, the same as on every line
 * of the calls made with it. A line names the client and the bound, never a token or credential.
 */

export const GRANT_STEPS = ['grant_created', 'grant_refreshed', 'grant_revoked'] as const;
export const GRANT_REVOKE_REASONS = ['revocation', 'disconnect', 'refresh_reused', 'code_reused', 'replaced', 'unsealable'] as const;

export const GrantLineSchema = z.strictObject({
  v: z.literal(AUDIT_VERSION),
  time: z.iso.datetime(),
  step: z.enum(GRANT_STEPS),
  /** The grant's id: the `user` of its calls' lines. */
  user: z.string().regex(/^[0-9a-f]{32}$/),
  /** The OAuth client_id (a URL for a metadata document); empty when not known (a grant replaced by a newer one). */
  client: z.string().max(MAX_ID_CHARS),
  read_only: z.boolean().optional(),
  toolsets: z.array(z.string().max(40)).max(20).optional(),
  app: z.string().max(MAX_ID_CHARS).optional(),
  /** The daily limits the person chose for the grant at consent (gate/allowance.ts): new daily budget in micros, AI turns. */
  spend_limit_micros: z.number().int().nonnegative().optional(),
  ai_turns_limit: z.number().int().nonnegative().optional(),
  reason: z.enum(GRANT_REVOKE_REASONS).optional(),
});
export type GrantLine = z.infer<typeof GrantLineSchema>;

/** Writes grant events to `sink`; resolves once the line is durable, rejects when it cannot be written. */
export function grantTrail(sink: AuditSink, now: () => number, redact: (text: string) => string, _log?: Log): (event: GrantEvent) => Promise<void> {
  return async ({ event, grant, reason }) => {
    const known = event !== 'revoked' || reason === 'revocation' || reason === 'disconnect' || reason === 'refresh_reused' || reason === 'unsealable';
    const bound = grant.narrowed ? { ...grant.bound, readOnly: true } : grant.bound;
    const line: GrantLine = GrantLineSchema.parse({
      v: AUDIT_VERSION,
      time: new Date(now()).toISOString(),
      step: `grant_${event}`,
      user: grant.id,
      client: cleanText(grant.clientId, MAX_ID_CHARS, redact, false),
      ...(known ? { read_only: bound.readOnly } : {}),
      ...(known && bound.toolsets ? { toolsets: bound.toolsets } : {}),
      ...(known && bound.appId ? { app: cleanText(bound.appId, MAX_ID_CHARS, redact, false) } : {}),
      ...(known && bound.spendLimitMicros !== undefined ? { spend_limit_micros: bound.spendLimitMicros } : {}),
      ...(known && bound.aiTurnsDaily !== undefined ? { ai_turns_limit: bound.aiTurnsDaily } : {}),
      ...(reason ? { reason } : {}),
    });
    await sink.append(`${JSON.stringify(line)}\n`);
  };
}
