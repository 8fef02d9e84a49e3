import { createHash } from 'node:crypto';
import { digest } from '@sd-jwt/crypto-nodejs';
import { unpack } from '@sd-jwt/decode';
import { Disclosure } from '@sd-jwt/utils';
import { compactVerify, decodeJwt, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import type { Clock } from '../clock.js';
import { DomainError } from '../errors.js';
import { safeEqual } from '../secrets.js';
import type { SigningKeys } from '../oidc/keys.js';
import { parseInput } from '../validation.js';
import { DISCLOSABLE_CLAIMS } from './claims.js';
import { CLOCK_SKEW_SECONDS, type CredentialIssuer, HOLDER_KEY_ALGS } from './issuer.js';
import { presentationInput, type PresentationResultWire } from './views.js';

/** How old a key binding JWT may be: the integrator's nonce was given for this exchange, not an earlier one. */
export const KEY_BINDING_MAX_AGE_SECONDS = 300;

/** The credential's JWT types we issue (`dc+sd-jwt`) and the earlier name wallets may still write. */
const CREDENTIAL_TYPES = ['dc+sd-jwt', 'vc+sd-jwt'];

/** A presentation cut into its parts (RFC 9901 4: `<issuer JWT>~<disclosure>~...~<KB-JWT>`). */
interface PresentationParts {
  jwt: string;
  disclosures: string[];
  /** The key binding JWT; '' when the presentation ends with `~` (none). */
  kbJwt: string;
  /** What the key binding's `sd_hash` covers: everything up to and including the last `~`. */
  signedOver: string;
}

function partsOf(presentation: string): PresentationParts {
  const pieces = presentation.split('~');
  if (pieces.length < 2 || pieces.some((piece, index) => piece === '' && index > 0 && index < pieces.length - 1)) {
    throw new DomainError(
      'invalid_presentation',
      'an SD-JWT presentation is <issuer JWT>~<disclosure>~...~<key binding JWT>',
    );
  }
  return {
    jwt: pieces[0]!,
    disclosures: pieces.slice(1, -1),
    kbJwt: pieces.at(-1)!,
    signedOver: presentation.slice(0, presentation.lastIndexOf('~') + 1),
  };
}

/**
 * Checks presented SD-JWT VCs for integrators (POST /api/v2/credential-presentation), one named
 * rule at a time, so each way to fail has its own code: the issuer signature, the disclosures,
 * the key binding (present, signed by the holder key, over these disclosures, with the
 * integrator's nonce and audience, recent), expiry and the status list. Answers the disclosed
 * claims only: nothing the holder did not disclose, no holder key, no status list position.
 */
export class PresentationVerifier {
  constructor(private readonly deps: { keys: SigningKeys; issuer: CredentialIssuer; clock: Clock }) {}

  async verify(input: unknown): Promise<PresentationResultWire> {
    const { presentation, nonce, audience } = parseInput(presentationInput, input);
    const parts = partsOf(presentation);
    const payload = await this.issuerSigned(parts.jwt);
    const claims = await disclosedClaims(payload, parts.disclosures);
    const kb = await keyBinding(parts, payload);
    const now = this.deps.clock.now();
    checkNonceAndAudience(kb, { nonce, audience }, now);
    const expiresAt = checkExpiry(payload, now);
    await this.checkStatus(payload);
    return {
      verified: true,
      issuer: String(payload.iss),
      vct: String(payload.vct),
      claims: pickDisclosable(claims),
      status: 'valid',
      expires_at: expiresAt.toISOString(),
      key_binding: { audience, issued_at: new Date(Number(kb.iat) * 1000).toISOString() },
    };
  }

  /** The issuer JWT: ours (`iss`), of a credential type, signed ES256 by a credential key still published. */
  private async issuerSigned(jwt: string): Promise<Record<string, unknown>> {
    let header: ReturnType<typeof decodeProtectedHeader>;
    let claims: Record<string, unknown>;
    try {
      header = decodeProtectedHeader(jwt);
      claims = decodeJwt(jwt);
    } catch {
      throw new DomainError('invalid_presentation', 'the issuer JWT of the presentation is not a JWT');
    }
    if (!CREDENTIAL_TYPES.includes(String(header.typ)))
      throw new DomainError('invalid_presentation', `the issuer JWT is of type ${String(header.typ)}, not dc+sd-jwt`);
    if (claims.iss !== this.deps.issuer.issuer)
      throw new DomainError(
        'credential_issuer_untrusted',
        `the credential was issued by ${String(claims.iss)}, not by ${this.deps.issuer.issuer}`,
      );
    const jwk =
      header.alg === 'ES256' && typeof header.kid === 'string' ? await this.deps.keys.publishedKey(header.kid) : null;
    if (!jwk)
      throw new DomainError(
        'presentation_signature_invalid',
        'the credential is not signed by a published credential key of this issuer',
      );
    try {
      await compactVerify(jwt, await importJWK(jwk as JWK, 'ES256'), { algorithms: ['ES256'] });
    } catch {
      throw new DomainError('presentation_signature_invalid');
    }
    return claims;
  }

  /** The credential's status list entry: ours, and not set. */
  private async checkStatus(payload: Record<string, unknown>): Promise<void> {
    const entry = (payload.status as { status_list?: { idx?: unknown; uri?: unknown } } | undefined)?.status_list;
    const listId = typeof entry?.uri === 'string' ? this.deps.issuer.listIdOf(entry.uri) : null;
    if (listId === null || !Number.isInteger(entry?.idx))
      throw new DomainError('invalid_presentation', 'the credential carries no status list entry of this issuer');
    if (await this.deps.issuer.isRevoked(listId, entry!.idx as number)) throw new DomainError('credential_revoked');
  }
}

/**
 * The claims with the disclosures applied (RFC 9901 7.1). Every disclosure must be referenced by
 * a digest in the signed payload, once: one that is not was altered or made up.
 */
async function disclosedClaims(payload: Record<string, unknown>, encoded: string[]): Promise<Record<string, unknown>> {
  if (payload._sd_alg !== undefined && payload._sd_alg !== 'sha-256')
    throw new DomainError('invalid_presentation', 'only sha-256 disclosure digests are accepted');
  let disclosures: Disclosure[];
  try {
    disclosures = await Promise.all(
      encoded.map((text) => Disclosure.fromEncode(text, { hasher: digest, alg: 'sha-256' })),
    );
  } catch {
    throw new DomainError('disclosure_tampered', 'a disclosure is not a base64url JSON array');
  }
  const { unpackedObj, disclosureKeymap } = await unpack(payload, disclosures, digest);
  const referenced = new Set(Object.values(disclosureKeymap));
  const digests = disclosures.map((disclosure) => disclosure._digest);
  if (new Set(digests).size !== digests.length || digests.some((value) => !value || !referenced.has(value))) {
    throw new DomainError(
      'disclosure_tampered',
      'a disclosure is not one the issuer signed (altered, added or repeated)',
    );
  }
  return unpackedObj as Record<string, unknown>;
}

/**
 * The key binding JWT (RFC 9901 4.3): present; typ `kb+jwt`; signed by the holder key the issuer
 * put in `cnf.jwk`; and its `sd_hash` over exactly the issuer JWT and disclosures presented (a
 * disclosure removed after the holder signed breaks it).
 */
async function keyBinding(
  parts: PresentationParts,
  payload: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  if (!parts.kbJwt) throw new DomainError('key_binding_missing');
  const holder = (payload.cnf as { jwk?: JWK } | undefined)?.jwk;
  if (!holder) throw new DomainError('key_binding_missing', 'the credential names no holder key (cnf.jwk)');
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(parts.kbJwt);
  } catch {
    throw new DomainError('key_binding_invalid', 'the key binding JWT is not a JWT');
  }
  const alg = HOLDER_KEY_ALGS.find((candidate) => candidate === header.alg);
  if (header.typ !== 'kb+jwt' || !alg)
    throw new DomainError('key_binding_invalid', 'the key binding JWT must be typ kb+jwt, signed ES256 or ES384');
  let claims: Record<string, unknown>;
  try {
    const verified = await compactVerify(parts.kbJwt, await importJWK(holder, alg), { algorithms: [alg] });
    claims = JSON.parse(new TextDecoder().decode(verified.payload)) as Record<string, unknown>;
  } catch {
    throw new DomainError('key_binding_invalid');
  }
  const sdHash = createHash('sha256').update(parts.signedOver, 'ascii').digest('base64url');
  if (typeof claims.sd_hash !== 'string' || !safeEqual(claims.sd_hash, sdHash))
    throw new DomainError(
      'disclosure_tampered',
      'the key binding JWT was signed over other disclosures than those presented',
    );
  return claims;
}

/** The integrator's nonce and audience, and a key binding made now (not replayed from an earlier exchange). */
function checkNonceAndAudience(
  kb: Record<string, unknown>,
  expected: { nonce: string; audience: string },
  now: Date,
): void {
  if (kb.nonce !== expected.nonce)
    throw new DomainError(
      'presentation_nonce_stale',
      'the key binding JWT does not carry the nonce you gave for this presentation',
    );
  const iat = kb.iat;
  const age = typeof iat === 'number' ? now.getTime() / 1000 - iat : Number.NaN;
  if (!(age <= KEY_BINDING_MAX_AGE_SECONDS && age >= -CLOCK_SKEW_SECONDS)) {
    throw new DomainError(
      'presentation_nonce_stale',
      `the key binding JWT must be signed within the last ${KEY_BINDING_MAX_AGE_SECONDS} seconds`,
    );
  }
  const audiences = Array.isArray(kb.aud) ? kb.aud : [kb.aud];
  if (audiences.length !== 1 || audiences[0] !== expected.audience)
    throw new DomainError('presentation_audience_mismatch');
}

/** The credential's expiry, which must lie ahead. */
function checkExpiry(payload: Record<string, unknown>, now: Date): Date {
  if (typeof payload.exp !== 'number') throw new DomainError('invalid_presentation', 'the credential has no exp');
  const expiresAt = new Date(payload.exp * 1000);
  if (expiresAt <= now)
    throw new DomainError('credential_expired', `the credential expired at ${expiresAt.toISOString()}`);
  return expiresAt;
}

/** Only the selectively disclosable claims: the payload's own (iss, cnf, status, ...) are not the holder's proofs. */
function pickDisclosable(claims: Record<string, unknown>): Record<string, never> {
  return Object.fromEntries(
    DISCLOSABLE_CLAIMS.filter((claim) => Object.hasOwn(claims, claim)).map((claim) => [claim, claims[claim]]),
  ) as Record<string, never>;
}
