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
