import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ToolsetName } from '../config.js';

/**
 * What a grant is: one person's consent for one client, bound to this server's /mcp, with the
 * service credentials they gave sealed inside, and the bound they chose. Tokens this server issues
 * are opaque random strings that name their grant; only their SHA-256 digests are kept.
 */

/** Short-lived: a leaked access token is good for this long at most. */
export const ACCESS_TOKEN_TTL_MS = 60 * 60_000;
/** A grant lives this long after its last refresh; each refresh starts it again. */
export const GRANT_TTL_MS = 30 * 24 * 60 * 60_000;
/** An authorization code is redeemed within seconds by a working client. */
export const CODE_TTL_MS = 60_000;
/** A redeemed code is remembered this long, so a second redemption revokes what the first made. */
export const SPENT_CODE_TTL_MS = 10 * 60_000;
/** Each person (service token) keeps at most this many grants; a new one beyond it ends their oldest. */
export const MAX_GRANTS_PER_SUBJECT = 20;
/** Refresh tokens already rotated away that are still recognised (a replay of one revokes the family). */
export const MAX_USED_REFRESH = 20;

/** The scopes a client may ask for; the person's choice at consent decides which it gets. */
export const SCOPES = ['appmgmt:read', 'appmgmt:write'] as const;
export type Scope = (typeof SCOPES)[number];

/**
 * The upper bound a person chose at consent. It narrows the server's own configuration for every
 * request of the grant, never widens it; nothing a client sends later changes it.
 */
export interface Bound {
  readOnly: boolean;
  /** Undefined: every toolset the server offers. */
  toolsets?: ToolsetName[];
  /** One app; undefined: every app the token reaches. */
  appId?: string;
  /** The most new daily budget this grant may commit per UTC day (micros), within the operator's limit per person (gate/allowance.ts). */
  spendLimitMicros?: number;
  /** The most AI turns this grant may use per UTC day, within the operator's limit per person. */
  aiTurnsDaily?: number;
}

/** The parts of a grant that never change after consent. */
export interface GrantDoc {
  /** 32 hex characters: the stable id the gate and the audit trail know the grant's user by. */
  id: string;
  /** A keyed hash of the service token: caps and disconnection per person, never the token. */
  subject: string;
  clientId: string;
  clientName: string;
  redirectUri: string;
  /** The resource (RFC 8707) the grant and all its tokens are bound to: this server's /mcp. */
  resource: string;
  bound: Bound;
  createdAt: number;
}

export interface Grant extends GrantDoc {
  /** The service credentials, sealed (auth/sealed.ts) with the grant id as associated data. */
  sealed: string;
  /** Digest of the one live access token, and its end. */
  access: { hash: string; expiresAt: number };
  /** Digest of the one live refresh token. */
  refresh: string;
  /** Narrowed to read-only by a refresh that asked for less. */
  narrowed: boolean;
  refreshedAt: number;
}

/** The service credentials a grant holds once opened. */
export interface SealedCredentials {
  accessToken: string;
  apiKey?: string;
}

/** The grant's bound with a refresh's narrowing applied. */
export function boundOf(grant: Grant): Bound {
  return grant.narrowed ? { ...grant.bound, readOnly: true } : grant.bound;
}

/** The scopes a bound amounts to. */
export function scopesOf(bound: Bound): Scope[] {
  return bound.readOnly ? ['appmgmt:read'] : ['appmgmt:read', 'appmgmt:write'];
}

const PREFIX = { access: 'amm_at', refresh: 'amm_rt', code: 'amm_code' } as const;
const GRANT_ID = /^[0-9a-f]{32}$/;

export const newGrantId = () => randomBytes(16).toString('hex');

/** A token of `kind` for grant `grantId` (codes name none): prefix, grant, 256 random bits. */
export function mintToken(kind: keyof typeof PREFIX, grantId = ''): string {
  return [PREFIX[kind], grantId, randomBytes(32).toString('base64url')].filter(Boolean).join('.');
}

/** The grant a token names, or undefined for anything that is not a token of `kind` (checked before any lookup). */
export function grantIdOf(kind: 'access' | 'refresh', token: string): string | undefined {
  const [prefix, id, secret, extra] = token.split('.');
  return prefix === PREFIX[kind] && id && GRANT_ID.test(id) && secret?.length === 43 && extra === undefined ? id : undefined;
}

export const isCode = (value: string) => /^amm_code\.[A-Za-z0-9_-]{43}$/.test(value);

/** What is stored of an issued token: its SHA-256, never the token. */
export const digest = (token: string) => createHash('sha256').update(token).digest('hex');

/** Constant-time comparison of two hex digests of equal length. */
export function sameDigest(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}
