import type { Log } from '../log.js';
import type { Client } from './clients.js';
import type { CimdResolver } from './cimd.js';
import type { Offer } from './consent.js';
import type { Grant, SealedCredentials } from './grant.js';
import type { Sealer } from './sealed.js';
import type { AuthStore } from './store.js';

/** What the sign-in endpoints share: settings, the store, the sealer, and the few outside calls they make. */

/** The service's verdict on credentials given at consent. */
export type CheckResult = { ok: true } | { ok: false; status: number; message: string };

/** A grant's lifecycle, for the audit trail. */
export interface GrantEvent {
  event: 'created' | 'refreshed' | 'revoked';
  grant: Pick<Grant, 'id' | 'clientId' | 'bound'> & { narrowed?: boolean };
  /** For `revoked`: why. */
  reason?: 'revocation' | 'disconnect' | 'refresh_reused' | 'code_reused' | 'replaced' | 'unsealable';
}

export interface AuthContext {
  /** The public origin, e.g. https://mcp.example.com. */
  issuer: string;
  /** issuer + /mcp: the one audience of every token. */
  resource: string;
  store: AuthStore;
  sealer: Sealer;
  /** Keys the subject hash of a service token (APPMGMT_STATE_SECRET: the same on every replica). */
  subjectKey: string | Buffer;
  registration: { cimd: boolean; dcr: boolean };
  staticClients: Map<string, Client>;
  cimd: CimdResolver;
  /** What the server's configuration allows; a grant may only narrow it. */
  offer: Offer;
  /** Asks the service whether `credentials` work, reading app `appId`. */
  check(credentials: SealedCredentials, appId: string): Promise<CheckResult>;
  /** Records a grant's lifecycle (best effort: a failure is logged). */
  audit(event: GrantEvent): Promise<void>;
  log: Log;
  now: () => number;
}
