import { z } from 'zod';

// The OIDC objects on the wire, declared once: the resource reads are typed by these schemas and
// the REST router documents the token, revocation, introspection and account routes with them.

/** RFC 6749 section 5.1 (and OIDC Core 3.1.3.3): what the token endpoint answers. */
export const tokenResponseWire = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int().describe('seconds the access token lives'),
  refresh_token: z.string().optional().describe('rotated on every use: the one sent in is spent'),
  id_token: z.string().optional().describe('RS256 JWT, keys at /api/auth/oidc/jwks.json'),
  scope: z.string().describe('the granted scopes, space-separated'),
});

/** RFC 7009 section 2.2: revocation answers an empty object, whatever the token was. */
export const revocationWire = z.object({});

/** RFC 7662 section 2.2: an active token's grant, or only `active: false` (unknown, dead or another client's). */
export const introspectionWire = z.union([
  z.object({ active: z.literal(false) }),
  z.object({
    active: z.literal(true),
    token_type: z.enum(['Bearer', 'refresh_token']),
    scope: z.string(),
    client_id: z.string(),
    sub: z.string(),
    iss: z.string(),
    exp: z.number().int(),
    iat: z.number().int(),
  }),
]);
export type IntrospectionWire = z.output<typeof introspectionWire>;

/** OIDC Core 5.3.2 claims of the signed-in user (scope profile). */
export const userinfoWire = z.object({
  sub: z.string(),
  svc_id: z.string(),
  preferred_username: z.string(),
  email: z.string(),
  email_verified: z.boolean(),
  name: z.string(),
  id_verified: z.boolean(),
});
export type UserinfoWire = z.output<typeof userinfoWire>;

export const licensesWire = z.object({
  licenses: z.array(
    z.object({
      type: z.string().describe('nurse_licenses, cpr_certification, or the credential name in snake_case'),
      number: z.string(),
      status: z.string(),
      expires_on: z.string().nullable(),
      issuer: z.string(),
    }),
  ),
});
export type LicensesWire = z.output<typeof licensesWire>;

export const verificationsWire = z.object({
  verifications: z.object({
    human_verified: z.boolean(),
    id_verified: z.boolean(),
    licenses: z.array(
      z.object({
        license_type: z.string(),
        verified: z.boolean(),
        verified_from: z.string().nullable().describe('the board that verified it, null when unverified'),
        expire_at: z.string().nullable(),
      }),
    ),
  }),
});
export type VerificationsWire = z.output<typeof verificationsWire>;

/** OpenID Provider metadata (OIDC Discovery 1.0 section 3, RFC 8414). */
export const discoveryWire = z.object({
  issuer: z.string(),
  authorization_endpoint: z.string(),
  token_endpoint: z.string(),
  userinfo_endpoint: z.string(),
  jwks_uri: z.string(),
  end_session_endpoint: z.string(),
  revocation_endpoint: z.string(),
  revocation_endpoint_auth_methods_supported: z.array(z.string()),
  introspection_endpoint: z.string(),
  introspection_endpoint_auth_methods_supported: z.array(z.string()),
  scopes_supported: z.array(z.string()),
  response_types_supported: z.array(z.string()),
  response_modes_supported: z.array(z.string()),
  grant_types_supported: z.array(z.string()),
  code_challenge_methods_supported: z.array(z.string()),
  token_endpoint_auth_methods_supported: z.array(z.string()),
  id_token_signing_alg_values_supported: z.array(z.string()),
  subject_types_supported: z.array(z.string()),
  claims_supported: z.array(z.string()),
  prompt_values_supported: z.array(z.string()),
  authorization_response_iss_parameter_supported: z.boolean(),
  request_parameter_supported: z.boolean(),
  request_uri_parameter_supported: z.boolean(),
  claims_parameter_supported: z.boolean(),
  ui_locales_supported: z.array(z.string()),
});
export type DiscoveryWire = z.output<typeof discoveryWire>;

/** RFC 7517 JWK Set of the RS256 signing keys, newest first (public parts only). */
export const jwksWire = z.object({
  keys: z.array(
    z.object({
      kty: z.literal('RSA'),
      n: z.string(),
      e: z.string(),
      kid: z.string().describe('RFC 7638 thumbprint'),
      alg: z.literal('RS256'),
      use: z.literal('sig'),
    }),
  ),
});
