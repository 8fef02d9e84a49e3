import { z } from 'zod';

// Verifiable credentials on the wire, declared once: the OpenID4VCI requests and answers the
// wallet sees, and the presentation check integrators call.

/** OpenID4VCI 1.0 section 8.2: a credential request with one proof of possession (a JWT). */
export const credentialRequestWire = z.object({
  credential_configuration_id: z.string().max(100).describe('the one this issuer offers: `verity_identity_sd_jwt`'),
  proofs: z
    .object({
      jwt: z
        .array(z.string().max(8000))
        .min(1)
        .max(1)
        .describe(
          'one key proof: a JWT with typ `openid4vci-proof+jwt`, the holder public key in its `jwk` header, `aud` the issuer and `nonce` a fresh `c_nonce`',
        ),
    })
    .strict(),
});
export type CredentialRequestWire = z.output<typeof credentialRequestWire>;

/** OpenID4VCI 1.0 section 8.3: the issued credential (an SD-JWT VC, compact, with every disclosure). */
export const credentialResponseWire = z.object({
  credentials: z.array(z.object({ credential: z.string().describe('the SD-JWT VC: issuer JWT ~ disclosure ~ ... ~') })),
  notification_id: z.string().optional(),
});

/** OpenID4VCI 1.0 section 7.2: a fresh nonce for the next key proof. */
export const nonceResponseWire = z.object({
  c_nonce: z.string().describe('single use; put it in the key proof within 5 minutes'),
});

/** What the person's own revocation answers. */
export const credentialRevocationWire = z.object({
  revoked: z.number().int().describe('how many live credentials were revoked'),
});

/** POST /api/v2/credential-presentation: what the holder gave the integrator, and what the integrator asked for. */
export const presentationInput = z.object({
  presentation: z
    .string()
    .min(1)
    .max(32_768)
    .describe(
      'the SD-JWT VC presentation as the wallet sent it: issuer JWT, the disclosures it chose, and a key binding JWT (`...~<disclosure>~<kb-jwt>`)',
    ),
  nonce: z
    .string()
    .min(8)
    .max(256)
    .describe(
      'the nonce you gave the wallet for this presentation (fresh per request): the key binding JWT must carry it',
    ),
  audience: z
    .string()
    .min(1)
    .max(512)
    .describe(
      'who the presentation is for, as you told the wallet (your client id or URL): the key binding JWT `aud` must equal it',
    ),
});
export type PresentationInput = z.output<typeof presentationInput>;

/** A verified licence as a credential discloses it. */
const licenseClaimWire = z.object({
  type: z.string().describe('the licence type key, as /api/auth/oidc/licenses names it'),
  state: z.string().nullable().describe('the state whose board verified it'),
  status: z.string(),
  expire_at: z.string().nullable().describe('ISO 8601: the verification is not served past it'),
});

/** The claims a presentation disclosed, and only those. */
export const disclosedClaimsWire = z
  .object({
    age_over_18: z.boolean(),
    age_over_21: z.boolean(),
    age_over_65: z.boolean(),
    given_name: z.string(),
    family_name: z.string(),
    nationality: z.string().describe('ISO 3166-1 alpha-3'),
    document_valid: z.boolean(),
    licenses: z.array(licenseClaimWire).describe('only the licences the holder disclosed'),
  })
  .partial();

/** The answer of a presentation that holds: proofs only. */
export const presentationResultWire = z.object({
  verified: z.literal(true),
  issuer: z.string().describe('the credential issuer (this service)'),
  vct: z.string().describe('the credential type'),
  claims: disclosedClaimsWire.describe('each disclosed claim with its value: nothing the holder did not disclose'),
  status: z.literal('valid').describe('the status list entry says valid at the time of the check'),
  expires_at: z.string().describe('ISO 8601: when the credential expires'),
  key_binding: z.object({
    audience: z.string(),
    issued_at: z.string().describe('ISO 8601: when the holder signed the presentation'),
  }),
});
export type PresentationResultWire = z.output<typeof presentationResultWire>;
