import { GRANT_TTL_MS, MAX_GRANTS_PER_SUBJECT, MAX_USED_REFRESH, type Grant, type GrantDoc } from './grant.js';

/**
 * The authorization server's records behind one small interface, apart from the gate's: registered
 * clients, authorization codes and grants. In-process for one server; Redis (auth/redis-store.ts)
 * for replicas. Keys are digests and random ids, never a token; every decision that must happen once
 * (redeeming a code, rotating a refresh token) is one atomic step. Nothing grows with strangers:
 * registrations are capped in total, and codes and grants exist only for people whose service
 * token the service accepted, each person's share capped.
 */

/** A client that registered itself (RFC 7591). */
export interface StoredClient {
  clientId: string;
  clientName: string;
  redirectUris: string[];
  createdAt: number;
}

/** What an authorization code stands for until it is redeemed. */
export interface CodeRecord {
  grant: GrantDoc;
  sealed: string;
  /** PKCE S256 challenge. */
  challenge: string;
  expiresAt: number;
}

export type Redeemed = { kind: 'code'; record: CodeRecord } | { kind: 'reused'; grantId: string } | { kind: 'unknown' };

export interface NextTokens {
  access: { hash: string; expiresAt: number };
  refresh: string;
  /** The credentials sealed again with the newest key, when the old seal used an older one. */
  sealed?: string;
  /** The refresh asked for read access only: the grant stays read-only from now on. */
  narrow?: boolean;
}

export type Rotated = { ok: true; grant: Grant } | { ok: false; why: 'unknown' | 'reused' };

export interface AuthStore {
  /** Registers a client for `ttlMs`; false when the registrations in force reach the cap. */
  addClient(client: StoredClient, ttlMs: number): Promise<boolean>;
  client(clientId: string): Promise<StoredClient | undefined>;
  /** Keeps a code (by its digest) for `ttlMs`; each subject holds at most MAX_CODES_PER_SUBJECT. */
  putCode(hash: string, record: CodeRecord, ttlMs: number): Promise<void>;
  /**
   * Takes a code once: the first call gets its record and marks it spent for `spentTtlMs`; a later
   * call finds it spent, revokes the grant it made, and answers `reused`.
   */
  redeemCode(hash: string, spentTtlMs: number): Promise<Redeemed>;
  /**
   * Stores a new grant (refused when it was already revoked by a reused code). Beyond the subject's
   * cap, that subject's oldest grants are revoked. @returns the ids revoked to make room, or false.
   */
  putGrant(grant: Grant): Promise<string[] | false>;
  grant(id: string): Promise<Grant | undefined>;
  /**
   * Atomically: when `presented` is the grant's live refresh digest, installs `next` and keeps the
   * grant another GRANT_TTL_MS; when it is one already rotated away, revokes the grant (the whole
   * family: every token of it). Otherwise `unknown`.
   */
  rotate(id: string, presented: string, next: NextTokens, now: number): Promise<Rotated>;
  /** Ends a grant and every token of it; the revoked grant, or undefined when there was none. */
  revoke(id: string): Promise<Grant | undefined>;
  /** The live grants of a subject (a person's service token, keyed). */
  grantsOf(subject: string): Promise<string[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Self-registered clients in force at once: registration is open to anyone, so it is capped in total. */
export const MAX_CLIENTS = 10_000;
/** A registration lasts this long; clients register again when told the client is unknown. */
export const CLIENT_TTL_MS = 30 * 24 * 60 * 60_000;
/** Codes a person may hold unredeemed at once (each needs their service token accepted first). */
export const MAX_CODES_PER_SUBJECT = 10;
/** A revoked grant's id is remembered this long, so a code redeemed twice in a race cannot bring it back. */
export const REVOKED_TTL_MS = 10 * 60_000;

/** One process's store: maps with expiry times, every operation synchronous and so atomic. */
export function createMemoryAuthStore({ now = Date.now, maxClients = MAX_CLIENTS }: { now?: () => number; maxClients?: number } = {}): AuthStore {
  const clients = new Map<string, { client: StoredClient; until: number }>();
  const codes = new Map<string, { record: CodeRecord; until: number }>();
  const spent = new Map<string, { grantId: string; until: number }>();
  const grants = new Map<string, { grant: Grant; used: string[]; until: number }>();
  const revoked = new Map<string, number>();
  const live = <T extends { until: number }>(map: Map<string, T>, key: string): T | undefined => {
    const entry = map.get(key);
    if (entry && entry.until <= now()) map.delete(key);
    return entry && entry.until > now() ? entry : undefined;
  };
  const sweep = (map: Map<string, { until: number }>) => {
    for (const [key, entry] of map) if (entry.until <= now()) map.delete(key);
  };
  const drop = (id: string) => {
    const entry = live(grants, id);
    grants.delete(id);
    revoked.set(id, now() + REVOKED_TTL_MS);
    return entry?.grant;
  };
  return {
    async addClient(client, ttlMs) {
      sweep(clients);
      if (clients.size >= maxClients) return false;
      clients.set(client.clientId, { client, until: now() + ttlMs });
      return true;
    },
    client: async (clientId) => live(clients, clientId)?.client,
    async putCode(hash, record, ttlMs) {
      sweep(codes);
      const mine = [...codes].filter(([, entry]) => entry.record.grant.subject === record.grant.subject);
      for (const [key] of mine.slice(0, Math.max(0, mine.length - MAX_CODES_PER_SUBJECT + 1))) codes.delete(key);
      codes.set(hash, { record, until: now() + ttlMs });
    },
    async redeemCode(hash, spentTtlMs) {
      const entry = live(codes, hash);
      if (entry) {
        codes.delete(hash);
        spent.set(hash, { grantId: entry.record.grant.id, until: now() + spentTtlMs });
        return { kind: 'code', record: entry.record };
      }
      const used = live(spent, hash);
      if (!used) return { kind: 'unknown' };
      drop(used.grantId);
      return { kind: 'reused', grantId: used.grantId };
    },
    async putGrant(grant) {
      const until = revoked.get(grant.id);
      if (until !== undefined && until > now()) return false;
      sweep(grants);
      grants.set(grant.id, { grant, used: [], until: now() + GRANT_TTL_MS });
      const mine = [...grants.values()].filter((entry) => entry.grant.subject === grant.subject).sort((a, b) => a.grant.createdAt - b.grant.createdAt);
      const evicted = mine.slice(0, Math.max(0, mine.length - MAX_GRANTS_PER_SUBJECT)).map((entry) => entry.grant.id);
      for (const id of evicted) drop(id);
      return evicted;
    },
    grant: async (id) => live(grants, id)?.grant,
    async rotate(id, presented, next, at) {
      const entry = live(grants, id);
      if (!entry) return { ok: false, why: 'unknown' };
      if (entry.grant.refresh === presented) {
        const grant: Grant = {
          ...entry.grant,
          access: next.access,
          refresh: next.refresh,
          refreshedAt: at,
          narrowed: entry.grant.narrowed || next.narrow === true,
          ...(next.sealed ? { sealed: next.sealed } : {}),
        };
        grants.set(id, { grant, used: [...entry.used, presented].slice(-MAX_USED_REFRESH), until: now() + GRANT_TTL_MS });
        return { ok: true, grant };
      }
      if (entry.used.includes(presented)) {
        drop(id);
        return { ok: false, why: 'reused' };
      }
      return { ok: false, why: 'unknown' };
    },
    revoke: async (id) => drop(id),
    async grantsOf(subject) {
      sweep(grants);
      return [...grants.values()].filter((entry) => entry.grant.subject === subject).map((entry) => entry.grant.id);
    },
    ping: async () => undefined,
    close: async () => undefined,
  };
}
