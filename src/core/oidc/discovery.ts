import { OIDC_SCOPES } from '../tenancy/entities.js';
import { UI_LOCALES_SUPPORTED } from './ui-locales.js';
import type { DiscoveryWire } from './views.js';

/** The OpenID Provider metadata (OIDC Discovery 1.0) for `issuer`. */
export function discoveryDocument(issuer: string): DiscoveryWire {
  const base = `${issuer}/api/auth/oidc`;
  return {
    issuer,
    authorization_endpoint: `${base}/authorize`,
    token_endpoint: `${base}/token`,
    userinfo_endpoint: `${base}/userinfo`,
    jwks_uri: `${base}/jwks.json`,
    end_session_endpoint: `${base}/logout`,
    revocation_endpoint: `${base}/revoke`,
    revocation_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
    introspection_endpoint: `${base}/introspect`,
    introspection_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
    scopes_supported: [...OIDC_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
    id_token_signing_alg_values_supported: ['RS256'],
    subject_types_supported: ['public'],
    claims_supported: [
      'iss',
      'sub',
      'aud',
      'exp',
      'iat',
      'auth_time',
      'nonce',
      'at_hash',
      'svc_id',
      'svc_org_member_id',
      'email',
      'email_verified',
      'name',
      'preferred_username',
      'id_verified',
    ],
    prompt_values_supported: ['none', 'login', 'consent'],
    authorization_response_iss_parameter_supported: true,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    claims_parameter_supported: false,
    ui_locales_supported: [...UI_LOCALES_SUPPORTED],
  };
}
