import { SCOPES } from './grant.js';

/**
 * What clients read to find their way: protected resource metadata (RFC 9728) at the path-suffixed
 * and root well-known URIs, authorization server metadata (RFC 8414) and the OpenID discovery path
 * clients also try, and the WWW-Authenticate challenge of a 401 that starts it all.
 */

export const PATHS = {
  mcp: '/mcp',
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  register: '/oauth/register',
  revoke: '/oauth/revoke',
  disconnect: '/oauth/disconnect',
  resourceMetadata: '/.well-known/oauth-protected-resource/mcp',
  resourceMetadataRoot: '/.well-known/oauth-protected-resource',
  serverMetadata: '/.well-known/oauth-authorization-server',
  openidConfiguration: '/.well-known/openid-configuration',
} as const;

/** This server's resource identifier (RFC 8707): the only audience its tokens have. */
export const resourceOf = (issuer: string) => `${issuer}${PATHS.mcp}`;

export function protectedResourceMetadata(issuer: string) {
  return {
    resource: resourceOf(issuer),
    authorization_servers: [issuer],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'app-management-mcp',
    resource_documentation: `${issuer}${PATHS.disconnect}`,
  };
}

export function authorizationServerMetadata(issuer: string, registration: { dcr: boolean; cimd: boolean }) {
  return {
    issuer,
    authorization_endpoint: `${issuer}${PATHS.authorize}`,
    token_endpoint: `${issuer}${PATHS.token}`,
    revocation_endpoint: `${issuer}${PATHS.revoke}`,
    ...(registration.dcr ? { registration_endpoint: `${issuer}${PATHS.register}` } : {}),
    scopes_supported: [...SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    client_id_metadata_document_supported: registration.cimd,
    authorization_response_iss_parameter_supported: true,
  };
}

/** The WWW-Authenticate value of a 401 (`error` for a token that was sent but is not good). */
export function challenge(issuer: string, error?: { code: 'invalid_token'; description: string }): string {
  const parts = [`resource_metadata="${issuer}${PATHS.resourceMetadata}"`, `scope="${SCOPES.join(' ')}"`];
  if (error) parts.push(`error="${error.code}"`, `error_description="${error.description.replace(/["\\]/g, '')}"`);
  return `Bearer ${parts.join(', ')}`;
}
