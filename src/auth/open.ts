import type { Config, OAuthConfig } from '../config.js';
import type { Log } from '../log.js';
import { CATALOG, selectTools } from '../tools/catalog.js';
import { serviceCheck } from './check.js';
import { loadStaticClients } from './clients.js';
import type { Offer } from './consent.js';
import type { GrantEvent } from './context.js';
import { createAuthServer, type AuthServer } from './index.js';
import { createMemoryAuthStore } from './store.js';

/**
 * Builds the sign-in side of `http` from the configuration: its store beside the gate's (Redis when
 * APPMGMT_STATE_URL is set), its clients, and what a grant may be given at most.
 * @throws ConfigError for a clients file that cannot be used.
 */
export async function openAuth(config: Config, oauth: OAuthConfig, log: Log, audit: (event: GrantEvent) => Promise<void>): Promise<AuthServer> {
  const staticClients = oauth.clientsFile ? loadStaticClients(oauth.clientsFile) : [];
  const store = config.stateUrl
    ? (await import('./redis-store.js')).createRedisAuthStore({ url: config.stateUrl, log })
    : createMemoryAuthStore();
  if (oauth.sealKeys.length === 0) {
    log.warn('APPMGMT_OAUTH_SEAL_KEYS is not set: the credentials people give at consent are sealed with a key of this process only, so every connection ends when it restarts.');
  }
  if (oauth.cimdAllowLoopback) log.warn('APPMGMT_OAUTH_CIMD_ALLOW_LOOPBACK=true: client metadata documents may be fetched from this machine. This is for tests only.');
  return createAuthServer({
    issuer: oauth.issuer,
    store,
    sealKeys: oauth.sealKeys,
    ...(config.stateSecret ? { subjectKey: config.stateSecret } : {}),
    registration: oauth.registration,
    staticClients,
    cimd: { allowLoopback: oauth.cimdAllowLoopback },
    offer: offerOf(config),
    check: serviceCheck(config, log),
    audit,
    log,
  });
}

/**
 * The most a grant may be given: the toolsets this server's configuration offers, with their tool
 * counts, read-only and app scope as set, and daily limits of its own for the costs its tools have,
 * each at most the operator's limit per person.
 */
export function offerOf(config: Config): Offer {
  const tools = selectTools(config, CATALOG);
  const costs = new Set(tools.map((tool) => tool.cost));
  const toolsets = [...new Set(CATALOG.map((entry) => entry.toolset))]
    .map((name) => ({ name, tools: tools.filter((tool) => tool.toolset === name && tool.name !== 'check_connection').length }))
    .filter((set) => set.tools > 0);
  return {
    readOnly: config.readOnly,
    toolsets,
    ...(config.appId ? { appId: config.appId } : {}),
    ...(costs.has('money') ? { spend: { mostMicros: config.spendLimitDailyMicros } } : {}),
    ...(costs.has('credits') ? { turns: { most: config.creditTurnsDaily } } : {}),
  };
}
