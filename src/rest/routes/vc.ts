import type { NextFunction, Request, Response } from 'express';
import { DomainError } from '../../core/errors.js';
import type { Core } from '../../core/index.js';
import type { ErrorCode } from '../../core/errors.js';
import { issuerMetadata, listIdFrom, STATUS_LIST_TTL_SECONDS, typeMetadata } from '../../core/vc/issuer.js';
import {
  credentialRequestWire,
  credentialResponseWire,
  credentialRevocationWire,
  nonceResponseWire,
  presentationInput,
  presentationResultWire,
} from '../../core/vc/views.js';
import { credentialIssuerResource } from '../../core/oidc/resource-indicators.js';
import { bearer, requireAccessToken, type TokenCaller } from '../auth.js';
import { sendData } from '../../http/envelope.js';
import { toDomainError } from '../errors.js';
import { jsonBody, refuseUndeclaredFields, requireJsonBody } from '../../http/input.js';
import type { ApiDocs } from '../../http/openapi.js';
import { caseSensitiveRouter } from '../../http/router.js';

const ISSUER = 'https://verity.example';
const EXAMPLE_CREDENTIAL =
  'eyJ0eXAiOiJkYytzZC1qd3QiLCJraWQiOiJ2Yy1rZXktMSIsImFsZyI6IkVTMjU2In0.eyJpc3MiOiJodHRwczovL3Zlcml0eS5leGFtcGxlIiwidmN0IjoiaHR0cHM6Ly92ZXJpdHkuZXhhbXBsZS92Y3QvaWRlbnRpdHkifQ.c2lnbmF0dXJl~WyJzYWx0IiwiYWdlX292ZXJfMTgiLHRydWVd~';
const EXAMPLE_PRESENTATION = `${EXAMPLE_CREDENTIAL}eyJ0eXAiOiJrYitqd3QiLCJhbGciOiJFUzI1NiJ9.eyJub25jZSI6Im4tOGQ5ZjJhIn0.c2lnbmF0dXJl`;

/**
 * OpenID4VCI answers its errors as OAuth does (`{ error, error_description }`), and a bearer
 * failure says how to authenticate (RFC 6750 3): wallets read those, not the envelope.
 */
function oauthErrors(error: unknown, req: Request, res: Response, next: NextFunction): void {
  const known = toDomainError(error);
  if (!known) {
    next(error);
    return;
  }
  if (known.code === 'invalid_token' || known.code === 'insufficient_scope') {
    const scope = (known.data as { scope?: string } | undefined)?.scope;
    res.setHeader(
      'WWW-Authenticate',
      bearer(req)
        ? `Bearer realm="verity", error="${known.code}"${scope ? `, scope="${scope}"` : ''}`
        : 'Bearer realm="verity"',
    );
  }
  res.setHeader('Cache-Control', 'no-store');
  res.status(known.status).json({ error: known.code, error_description: known.message });
}

/** The credential endpoint's own errors, beyond the bearer token's. */
const CREDENTIAL_ERRORS: ErrorCode[] = [
  'insufficient_scope',
  'invalid_credential_request',
  'unknown_credential_configuration',
  'invalid_proof',
  'invalid_nonce',
  'credential_request_denied',
  'payload_too_large',
];

/** The issuer side (OpenID4VCI, metadata, status lists) under the OIDC provider's paths. */
export function credentialIssuerRouter(core: Core, docs: ApiDocs) {
  const router = caseSensitiveRouter();
  const vc = core.vc;
  // A wallet's token may be bound to the credential issuer (OpenID4VCI sends `resource`) or to nothing.
  const tokenAuth = requireAccessToken(core, credentialIssuerResource);

  router.get('/.well-known/openid-credential-issuer', (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.json(vc.metadata());
  });
  router.get('/.well-known/jwt-vc-issuer', async (_req, res) => {
    res.setHeader('Cache-Control', `public, max-age=${core.credentialKeys.jwksMaxAgeSeconds}`);
    res.json(await vc.jwtVcIssuerMetadata());
  });
  router.get('/vct/identity', (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.json(vc.typeMetadata());
  });
  router.get('/api/auth/oidc/credential-offer', (_req, res) => {
    res.json(vc.offer());
  });
  router.post('/api/auth/oidc/nonce', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json(vc.nonce());
  });
  router.post('/api/auth/oidc/credential', tokenAuth, requireJsonBody, ...jsonBody('64kb'), async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json(await vc.issue(res.locals.token as TokenCaller, req.body));
  });
  router.use(['/api/auth/oidc/credential', '/api/auth/oidc/nonce'], oauthErrors);

  router.get('/api/auth/oidc/status-lists/:list', async (req, res) => {
    const id = listIdFrom(String(req.params.list));
    const token = id === null ? null : await vc.statusList(id);
    if (!token) throw new DomainError('not_found', 'no such status list');
    // Verifiers cache it for its ttl: a revocation reaches them within that time.
    res.setHeader('Cache-Control', `public, max-age=${STATUS_LIST_TTL_SECONDS}`);
    res.type('application/statuslist+jwt').send(token);
  });
  router.post('/api/auth/oidc/credentials/revoke', tokenAuth, async (_req, res) => {
    sendData(res, await vc.revokeMine(res.locals.token as TokenCaller));
  });

  docs.add(
    {
      method: 'get',
      path: '/.well-known/openid-credential-issuer',
      summary: 'Credential issuer metadata (OpenID4VCI)',
      description:
        'What a wallet reads first (OpenID4VCI 1.0 section 12.2): this service is its own authorization server; the credential and nonce endpoints; and the one credential offered, `verity_identity_sd_jwt` (format `dc+sd-jwt`, scope `zkp`, holder binding by `jwk` with an ES256 or ES384 key proof), with its claims.',
      tag: 'wallet',
      security: 'none',
      bare: true,
      examples: { response: issuerMetadata(ISSUER) },
    },
    {
      method: 'get',
      path: '/.well-known/jwt-vc-issuer',
      summary: 'Credential signing keys (JWT VC issuer metadata)',
      description:
        'The ES256 public keys that sign credentials and status lists (draft-ietf-oauth-sd-jwt-vc section 5), beside the RS256 id token keys of the JWKS. Keys rotate like the JWKS: published before they sign, and a retired key stays listed while credentials it signed may live (30 days).',
      tag: 'wallet',
      security: 'none',
      bare: true,
      examples: {
        response: {
          issuer: ISSUER,
          jwks: {
            keys: [
              {
                kty: 'EC',
                crv: 'P-256',
                x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
                y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
                kid: 'Wt9x0cq0gmXlIW4TVLbOW2kDmP5PXWXbQsXDkrpH2Ak',
                alg: 'ES256',
                use: 'sig',
              },
            ],
          },
        },
      },
    },
    {
      method: 'get',
      path: '/vct/identity',
      summary: 'Credential type metadata',
      description:
        "The SD-JWT VC type metadata of the credential's `vct` (draft-ietf-oauth-sd-jwt-vc section 6): its name and every claim, each always selectively disclosable.",
      tag: 'wallet',
      security: 'none',
      bare: true,
      examples: { response: typeMetadata(ISSUER) },
    },
    {
      method: 'get',
      path: '/api/auth/oidc/credential-offer',
      summary: 'Credential offer',
      description:
        'A credential offer by value (OpenID4VCI 1.0 section 4.1) for the authorization code flow. Show it to a wallet as `openid-credential-offer://?credential_offer_uri=<this URL, encoded>` (a link or QR code); the wallet reads the metadata and starts an authorization request with scope `openid zkp` at this provider.',
      tag: 'wallet',
      security: 'none',
      bare: true,
      examples: {
        response: {
          credential_issuer: ISSUER,
          credential_configuration_ids: ['verity_identity_sd_jwt'],
          grants: { authorization_code: {} },
        },
      },
    },
    {
      method: 'post',
      path: '/api/auth/oidc/nonce',
      summary: 'A nonce for a key proof (OpenID4VCI)',
      description:
        'A fresh `c_nonce` (OpenID4VCI 1.0 section 7): single use, valid 5 minutes. The wallet signs it into the key proof it sends to the credential endpoint.',
      tag: 'wallet',
      security: 'none',
      bare: true,
      response: nonceResponseWire,
      examples: {
        response: { c_nonce: 'v1.3q2L0f1mXk9a8b7c.Zq8vV2hY0u3bR1mW6cTnPw.Vm9yZXhhbXBsZU5vbmNlMTIzNDU2Nzg5MDEy' },
      },
    },
    {
      method: 'post',
      path: '/api/auth/oidc/credential',
      summary: 'Issue a credential (OpenID4VCI)',
      description:
        "The credential endpoint (OpenID4VCI 1.0 section 8). Needs an access token with the `zkp` scope and an account with a reusable verified identity. The body names `verity_identity_sd_jwt` and carries one key proof: a JWT with typ `openid4vci-proof+jwt`, the holder's public key in its `jwk` header, `aud` this issuer, `iat` now and `nonce` a `c_nonce` from the nonce endpoint (used up here).\n\nThe answer is an SD-JWT VC (`dc+sd-jwt`, ES256, keys at `/.well-known/jwt-vc-issuer`) bound to that key (`cnf.jwk`), with every claim selectively disclosable: `age_over_18`, `age_over_21`, `age_over_65` (never the date of birth), `given_name`, `family_name`, `nationality`, `document_valid`, and each verified licence on its own (`type`, `state`, `status`, `expire_at`). It expires after 30 days or sooner, when a claim would stop holding (the document or a licence expires, a birthday turns an age claim true), and carries a status list entry that is set when the identity or a licence is withdrawn or changes, or the person revokes. Errors are OAuth's shape: `{ error, error_description }`.",
      tag: 'wallet',
      security: 'accessToken',
      bare: true,
      oauthErrors: true,
      body: credentialRequestWire,
      response: credentialResponseWire,
      errors: CREDENTIAL_ERRORS,
      examples: {
        request: {
          credential_configuration_id: 'verity_identity_sd_jwt',
          proofs: {
            jwt: [
              'eyJ0eXAiOiJvcGVuaWQ0dmNpLXByb29mK2p3dCIsImFsZyI6IkVTMjU2IiwiandrIjp7fX0.eyJhdWQiOiJodHRwczovL3Zlcml0eS5leGFtcGxlIn0.c2ln',
            ],
          },
        },
        response: { credentials: [{ credential: EXAMPLE_CREDENTIAL }] },
      },
    },
    {
      method: 'get',
      path: '/api/auth/oidc/status-lists/{list}',
      summary: 'A credential status list',
      description:
        'The status list token a credential names in `status.status_list.uri` (draft-ietf-oauth-status-list): a JWT (typ `statuslist+jwt`, ES256) whose `status_list.lst` holds one bit per credential, 1 when it is revoked. Cache it for `ttl` seconds (300, also the `Cache-Control: max-age`): a revocation reaches cached verifiers within that time, and `POST /api/v2/credential-presentation` sees it at once.',
      tag: 'wallet',
      security: 'none',
      rawSuccess: { type: 'application/statuslist+jwt', description: 'the status list token (a compact JWT)' },
      errors: ['not_found'],
      examples: {
        raw: 'eyJhbGciOiJFUzI1NiIsInR5cCI6InN0YXR1c2xpc3Qrand0In0.eyJzdGF0dXNfbGlzdCI6eyJiaXRzIjoxLCJsc3QiOiJlTnJ0d0RFQkFBQUF3cUQ2cDJ0eFAifX0.c2lnbmF0dXJl',
      },
    },
    {
      method: 'post',
      path: '/api/auth/oidc/credentials/revoke',
      summary: 'Revoke my credentials',
      description:
        "The person's own revocation (an access token with the `zkp` scope): every credential issued to their account that is still live gets its status bit set. A wallet lost or a device sold: revoke, then ask for a new credential from the new wallet.",
      tag: 'wallet',
      security: 'accessToken',
      response: credentialRevocationWire,
      errors: ['insufficient_scope'],
      examples: { response: { revoked: 2 } },
    },
  );
  router.use(['/api/auth/oidc/credentials/revoke'], oauthChallengeOnly);
  return router;
}

/** The revocation route answers in the envelope, with the bearer challenge header (RFC 6750 3). */
function oauthChallengeOnly(error: unknown, req: Request, res: Response, next: NextFunction): void {
  const known = toDomainError(error);
  if (known?.code === 'invalid_token' || known?.code === 'insufficient_scope')
    res.setHeader(
      'WWW-Authenticate',
      bearer(req) ? `Bearer realm="verity", error="${known.code}"` : 'Bearer realm="verity"',
    );
  next(error);
}

/** POST /api/v2/credential-presentation, behind the API key (mounted in the /api/v2 router). */
export function presentationRouter(core: Core, docs: ApiDocs) {
  const router = caseSensitiveRouter();
  router.post(
    '/credential-presentation',
    requireJsonBody,
    refuseUndeclaredFields(presentationInput),
    async (req, res) => {
      sendData(res, await core.presentations.verify(req.body));
    },
  );
  docs.add({
    method: 'post',
    path: '/api/v2/credential-presentation',
    summary: 'Check a presented credential',
    description:
      "Checks an SD-JWT VC presentation a person's wallet gave you, and answers proofs only: the claims the person disclosed (and nothing else), the issuer, the credential type, its status and expiry.\n\nBefore asking the wallet, make a fresh random `nonce` and decide your `audience` (your client id or URL); the wallet signs both into the key binding JWT. Send the presentation as the wallet gave it, with the same nonce and audience. The checks, in order, each with its own code (422 unless said):\n\n- `invalid_presentation` (400): not an SD-JWT VC of ours in form (parts, types, status entry).\n- `credential_issuer_untrusted`: issued by someone else.\n- `presentation_signature_invalid`: the issuer signature does not verify with a published credential key.\n- `disclosure_tampered`: a disclosure altered, added, repeated, or removed after the holder signed (the key binding `sd_hash`).\n- `key_binding_missing`: no key binding JWT (a copied credential is not a presentation).\n- `key_binding_invalid`: the key binding JWT is not signed by the holder key in the credential.\n- `presentation_nonce_stale`: not your nonce, or signed more than 5 minutes ago.\n- `presentation_audience_mismatch`: made for another audience.\n- `credential_expired`, `credential_revoked`: its expiry passed, or its status list entry is set (read at the source, not from a cache).\n\nNot billed: no model runs and nothing is kept.",
    tag: 'wallet',
    security: 'apiKey',
    body: presentationInput,
    response: presentationResultWire,
    errors: [
      'validation_error',
      'invalid_presentation',
      'credential_issuer_untrusted',
      'presentation_signature_invalid',
      'disclosure_tampered',
      'key_binding_missing',
      'key_binding_invalid',
      'presentation_nonce_stale',
      'presentation_audience_mismatch',
      'credential_expired',
      'credential_revoked',
    ],
    examples: {
      request: { presentation: EXAMPLE_PRESENTATION, nonce: 'n-8d9f2a61c4e0b7', audience: 'https://shop.example' },
      response: {
        verified: true,
        issuer: ISSUER,
        vct: `${ISSUER}/vct/identity`,
        claims: { age_over_18: true },
        status: 'valid',
        expires_at: '2027-01-01T00:00:00.000Z',
        key_binding: { audience: 'https://shop.example', issued_at: '2026-12-02T10:15:00.000Z' },
      },
    },
  });
  return router;
}
