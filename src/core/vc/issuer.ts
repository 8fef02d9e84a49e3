import { randomBytes, randomInt } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import { Jwt } from '@sd-jwt/core';
import { digest, generateSalt } from '@sd-jwt/crypto-nodejs';
import { createHeaderAndPayload, StatusList } from '@sd-jwt/jwt-status-list';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import type { DisclosureFrame } from '@sd-jwt/types';
import { calculateJwkThumbprint, EmbeddedJWK, type JWK, jwtVerify } from 'jose';
import type { AccountService } from '../accounts/service.js';
import type { Clock } from '../clock.js';
import { DomainError } from '../errors.js';
import { digestSecret, newId, type Sealer } from '../secrets.js';
import type { SigningKeys } from '../oidc/keys.js';
import type { ResourceGrant } from '../oidc/resources.js';
import { parseInput } from '../validation.js';
import { credentialExpiry, DISCLOSABLE_CLAIMS, identityClaims, type IdentityClaims } from './claims.js';
import type { PgCredentialStore, RevocationReason } from './store.js';
import { credentialRequestWire } from './views.js';

/** The one credential this issuer offers (OpenID4VCI credential configuration id). */
export const CREDENTIAL_CONFIGURATION_ID = 'verity_identity_sd_jwt';
/** The scope that unlocks it (spec: scopes `zkp`). */
export const CREDENTIAL_SCOPE = 'zkp';
/** Key proof algorithms a wallet may sign with (the key binding JWT later uses the same key). */
export const HOLDER_KEY_ALGS = ['ES256', 'ES384'] as const;

/** How long a c_nonce may wait for its key proof, and how old a proof may be. */
export const NONCE_TTL_SECONDS = 300;
const PROOF_MAX_AGE_SECONDS = 300;
/** A proof signed by a wallet whose clock runs ahead by up to this much is still accepted. */
export const CLOCK_SKEW_SECONDS = 60;

/**
 * Status lists: entries per list, and how full a list gets before the next starts. Indexes are
 * drawn at random (draft-ietf-oauth-status-list 13.2: no order to correlate by), so a list is
 * kept half empty to find a free one in a few draws; a list of 32768 one-bit entries is 4 KiB
 * before compression, about 60 bytes compressed while few are set.
 */
export const STATUS_LIST_SIZE = 32_768;
const STATUS_LIST_FILL = 0.5;
/** How long verifiers may cache a status list (its `ttl` claim and `Cache-Control: max-age`). */
export const STATUS_LIST_TTL_SECONDS = 300;
/** A status list token stays valid a day: a verifier offline for a while can still read a fetched one. */
const STATUS_LIST_LIFETIME_SECONDS = 24 * 3600;

/** The JWT type of a key proof (OpenID4VCI 1.0 appendix F.1). */
const PROOF_TYP = 'openid4vci-proof+jwt';

export interface CredentialDeps {
  store: PgCredentialStore;
  /** ES256 keys (a SigningKeys of alg ES256): they sign credentials and status lists. */
  keys: SigningKeys;
  accounts: AccountService;
  clock: Clock;
  /** Seals the nonces handed out (their expiry): they are checked without being stored. */
  sealer: Sealer;
  issuer: string;
}

/**
 * SD-JWT VC issuance over OpenID4VCI (authorization code flow, scope `zkp`), the status lists
 * that revoke what was issued, and the metadata wallets and verifiers read.
 */
export class CredentialIssuer {
  constructor(private readonly deps: CredentialDeps) {}

  get issuer(): string {
    return this.deps.issuer;
  }

  /** The credential type: an HTTPS URL that serves its type metadata (draft-ietf-oauth-sd-jwt-vc 6). */
  get vct(): string {
    return vctOf(this.deps.issuer);
  }

  statusListUri(listId: number): string {
    return `${this.deps.issuer}/api/auth/oidc/status-lists/${listId}`;
  }

  /** The list id a status list URI of ours names, or null. */
  listIdOf(uri: string): number | null {
    const prefix = `${this.deps.issuer}/api/auth/oidc/status-lists/`;
    return uri.startsWith(prefix) ? listIdFrom(uri.slice(prefix.length)) : null;
  }

  metadata() {
    return issuerMetadata(this.deps.issuer);
  }

  /** JWT VC Issuer Metadata (draft-ietf-oauth-sd-jwt-vc 5): where a verifier finds the keys that sign credentials. */
  async jwtVcIssuerMetadata() {
    return { issuer: this.deps.issuer, jwks: await this.deps.keys.jwks() };
  }

  typeMetadata() {
    return typeMetadata(this.deps.issuer);
  }

  /**
   * A credential offer (OpenID4VCI 1.0 section 4.1) for the authorization code flow: the wallet then asks for scope
   * `zkp`.
   */
  offer() {
    return {
      credential_issuer: this.deps.issuer,
      credential_configuration_ids: [CREDENTIAL_CONFIGURATION_ID],
      grants: { authorization_code: {} },
    };
  }

  /**
   * A fresh nonce for a key proof (OpenID4VCI 1.0 section 7): its expiry and random bytes, sealed
   * (AES-256-GCM), so that it cannot be made up and the unauthenticated nonce endpoint writes
   * nothing; it is remembered only once a proof used it (`useNonce`).
   */
  nonce(): { c_nonce: string } {
    const expiresAt = this.deps.clock.now().getTime() + NONCE_TTL_SECONDS * 1000;
    return { c_nonce: this.deps.sealer.seal(`${expiresAt}.${randomBytes(12).toString('base64url')}`) };
  }

  /** Whether a nonce is one of ours, not expired, and not used before; it is used up here. */
  private async useNonce(nonce: string, now: Date): Promise<boolean> {
    let expiresAt: number;
    try {
      expiresAt = Number(this.deps.sealer.open(nonce).split('.')[0]);
    } catch {
      return false;
    }
    if (!(expiresAt > now.getTime())) return false;
    return this.deps.store.useNonce(digestSecret(nonce), now, new Date(expiresAt));
  }

  /**
   * The credential endpoint: an access token with scope `zkp`, a request for our configuration and
   * a key proof over a live nonce; answers an SD-JWT VC bound to the proof's key, with every claim
   * selectively disclosable, and a status list entry.
   */
  async issue(
    grant: ResourceGrant & { clientId: string },
    body: unknown,
  ): Promise<{ credentials: { credential: string }[] }> {
    if (!grant.scopes.includes(CREDENTIAL_SCOPE))
      throw new DomainError('insufficient_scope', 'the token lacks the zkp scope', {
        data: { scope: CREDENTIAL_SCOPE },
      });
    const request = parseCredentialRequest(body);
    const holderJwk = await this.checkProof(request.proofs.jwt[0]!, grant.clientId);
    return { credentials: [{ credential: await this.issueTo(grant.svcId, grant.clientId, holderJwk) }] };
  }

  /**
   * The SD-JWT VC of an account's verified identity, bound to `holderJwk`, with its status list
   * entry: what the credential endpoint answers a wallet, and what an agent presents for the
   * person (mcp/agent.ts). `credential_request_denied` when the account has no usable identity.
   */
  async issueTo(svcId: string, clientId: string, holderJwk: JWK): Promise<string> {
    const now = this.deps.clock.now();
    const identity = await this.deps.accounts.reusableIdentity(svcId, now).catch((error: unknown) => {
      if (error instanceof DomainError) throw new DomainError('credential_request_denied', error.message);
      throw error;
    });
    const badges = (await this.deps.accounts.licenseBadges(svcId, now)).filter((badge) => badge.verifiedFrom != null);
    const claims = identityClaims(identity, badges, now);
    const expiresAt = credentialExpiry(identity, badges, now);
    const entry = await this.allocateStatus({
      accountId: svcId,
      clientId,
      holderJkt: await calculateJwkThumbprint(holderJwk),
      issuedAt: now,
      expiresAt,
    });
    return this.sign(claims, holderJwk, entry, now, expiresAt);
  }

  /**
   * The key proof (OpenID4VCI 1.0 appendix F.1): typ `openid4vci-proof+jwt`, signed by the public
   * key in its `jwk` header, `aud` this issuer, recent, `iss` the client when present, and a
   * nonce from the nonce endpoint, used up here. Answers the holder's public key.
   */
  private async checkProof(proof: string, clientId: string): Promise<JWK> {
    const now = this.deps.clock.now();
    let payload: { nonce?: unknown; iss?: unknown; iat?: unknown };
    let jwk: JWK;
    try {
      const verified = await jwtVerify(proof, EmbeddedJWK, {
        typ: PROOF_TYP,
        audience: this.deps.issuer,
        algorithms: [...HOLDER_KEY_ALGS],
        currentDate: now,
        maxTokenAge: PROOF_MAX_AGE_SECONDS,
        clockTolerance: CLOCK_SKEW_SECONDS,
        requiredClaims: ['iat'],
      });
      payload = verified.payload;
      jwk = verified.protectedHeader.jwk as JWK;
    } catch (error) {
      throw new DomainError('invalid_proof', `the key proof does not verify: ${(error as Error).message}`);
    }
    if ('d' in jwk)
      throw new DomainError('invalid_proof', 'the key proof carries a private key: send the public key only');
    if (payload.iss !== undefined && payload.iss !== clientId)
      throw new DomainError('invalid_proof', 'the key proof iss is not the client the token was issued to');
    if (typeof payload.nonce !== 'string' || payload.nonce.length > 256 || !(await this.useNonce(payload.nonce, now))) {
      throw new DomainError(
        'invalid_nonce',
        'the key proof carries no live c_nonce: ask the nonce endpoint for a new one',
      );
    }
    const { kty, crv, x, y } = jwk;
    return { kty, crv, x, y };
  }

  /** A free random index in the open status list, stored with the credential's row. */
  private async allocateStatus(credential: {
    accountId: string;
    clientId: string;
    holderJkt: string;
    issuedAt: Date;
    expiresAt: Date;
  }): Promise<{ listId: number; idx: number }> {
    const listId = await this.deps.store.openList(STATUS_LIST_SIZE, STATUS_LIST_FILL, credential.issuedAt);
    // Half the list is free, so the chance of 32 taken draws in a row is 2^-32.
    for (let draw = 0; draw < 32; draw++) {
      const idx = randomInt(STATUS_LIST_SIZE);
      if (await this.deps.store.add({ id: newId('vc'), listId, idx, ...credential })) return { listId, idx };
    }
    throw new Error('no free status list index found');
  }

  /** The SD-JWT VC: every claim selectively disclosable, each licence on its own. */
  private async sign(
    claims: IdentityClaims,
    holderJwk: JWK,
    entry: { listId: number; idx: number },
    now: Date,
    expiresAt: Date,
  ): Promise<string> {
    const { kid, sign } = await this.deps.keys.signer();
    const sdjwt = new SDJwtVcInstance({
      signer: sign,
      signAlg: 'ES256',
      hasher: digest,
      hashAlg: 'sha-256',
      saltGenerator: generateSalt,
    });
    const payload = {
      iss: this.deps.issuer,
      iat: seconds(now),
      exp: seconds(expiresAt),
      vct: this.vct,
      cnf: { jwk: holderJwk },
      status: { status_list: { idx: entry.idx, uri: this.statusListUri(entry.listId) } },
      ...claims,
    };
    const frame = {
      _sd: Object.keys(claims),
      licenses: { _sd: claims.licenses.map((_, index) => index) },
    } as unknown as DisclosureFrame<typeof payload>;
    return sdjwt.issue(payload, frame, { header: { kid } });
  }

  /**
   * The status list token of a list (draft-ietf-oauth-status-list 5): one bit per credential,
   * set when it is revoked, built from the table now and signed ES256. Null for an unknown list.
   */
  async statusList(listId: number): Promise<string | null> {
    const size = await this.deps.store.listSize(listId);
    if (size === null) return null;
    const statuses = new Array<number>(size).fill(0);
    for (const idx of await this.deps.store.revokedIndexes(listId)) statuses[idx] = 1;
    const now = seconds(this.deps.clock.now());
    const { kid, sign } = await this.deps.keys.signer();
    const { header, payload } = createHeaderAndPayload(
      new StatusList(statuses, 1),
      {
        iss: this.deps.issuer,
        sub: this.statusListUri(listId),
        iat: now,
        exp: now + STATUS_LIST_LIFETIME_SECONDS,
        ttl: STATUS_LIST_TTL_SECONDS,
      },
      { alg: 'ES256', typ: 'statuslist+jwt', kid },
    );
    return new Jwt({ header, payload }).sign(sign);
  }

  /** Whether the credential at `idx` of a list is revoked (what its status list says, read at the source). */
  isRevoked(listId: number, idx: number): Promise<boolean> {
    return this.deps.store.isRevoked(listId, idx);
  }

  /** Sets the status bit of every live credential of the account; how many. */
  revokeAll(svcId: string, reason: RevocationReason, tx?: EntityManager): Promise<number> {
    return this.deps.store.revokeForAccount(svcId, reason, this.deps.clock.now(), tx);
  }

  /** The person asks: every credential of theirs revoked (a token with scope `zkp`). */
  async revokeMine(grant: ResourceGrant): Promise<{ revoked: number }> {
    if (!grant.scopes.includes(CREDENTIAL_SCOPE))
      throw new DomainError('insufficient_scope', 'the token lacks the zkp scope', {
        data: { scope: CREDENTIAL_SCOPE },
      });
    return { revoked: await this.revokeAll(grant.svcId, 'holder_request') };
  }

  /** Nonces past their expiry, deleted (housekeeping). */
  purgeNonces(): Promise<number> {
    return this.deps.store.purgeNonces(this.deps.clock.now());
  }
}

/** What a wallet shows for each claim. */
const CLAIM_LABELS: Record<(typeof DISCLOSABLE_CLAIMS)[number], string> = {
  age_over_18: 'Age 18 or over',
  age_over_21: 'Age 21 or over',
  age_over_65: 'Age 65 or over',
  given_name: 'Given name',
  family_name: 'Family name',
  nationality: 'Nationality',
  document_valid: 'Identity document valid',
  licenses: 'Verified professional licences',
};

/** A list id as a path writes it (a positive int4: a larger number names no list and must not reach SQL), or null. */
export function listIdFrom(text: string): number | null {
  const id = /^[1-9]\d{0,9}$/.test(text) ? Number(text) : 0;
  return id > 0 && id <= 2_147_483_647 ? id : null;
}

/** The credential type of an issuer: an HTTPS URL that serves its type metadata (draft-ietf-oauth-sd-jwt-vc 6). */
export const vctOf = (issuer: string) => `${issuer}/vct/identity`;

/** Credential Issuer Metadata (OpenID4VCI 1.0 section 12.2). */
export function issuerMetadata(issuer: string) {
  const base = `${issuer}/api/auth/oidc`;
  return {
    credential_issuer: issuer,
    authorization_servers: [issuer],
    credential_endpoint: `${base}/credential`,
    nonce_endpoint: `${base}/nonce`,
    display: [{ name: 'Verity', locale: 'en' }],
    credential_configurations_supported: {
      [CREDENTIAL_CONFIGURATION_ID]: {
        format: 'dc+sd-jwt',
        scope: CREDENTIAL_SCOPE,
        vct: vctOf(issuer),
        cryptographic_binding_methods_supported: ['jwk'],
        credential_signing_alg_values_supported: ['ES256'],
        proof_types_supported: { jwt: { proof_signing_alg_values_supported: [...HOLDER_KEY_ALGS] } },
        credential_metadata: {
          display: [
            {
              name: 'Verified identity',
              locale: 'en',
              description:
                'Proofs about a person Verity verified: age thresholds, name, nationality, document validity, licences',
            },
          ],
          claims: DISCLOSABLE_CLAIMS.map((claim) => ({
            path: [claim],
            display: [{ name: CLAIM_LABELS[claim], locale: 'en' }],
          })),
        },
      },
    },
  };
}

/** SD-JWT VC Type Metadata of the credential type (draft-ietf-oauth-sd-jwt-vc 6). */
export function typeMetadata(issuer: string) {
  return {
    vct: vctOf(issuer),
    name: 'Verity verified identity',
    description:
      'Selectively disclosable proofs about a person whose identity document Verity verified. The date of birth is never a claim: only age thresholds are.',
    display: [{ locale: 'en', name: 'Verified identity' }],
    claims: DISCLOSABLE_CLAIMS.map((claim) => ({
      path: [claim],
      display: [{ locale: 'en', label: CLAIM_LABELS[claim] }],
      sd: 'always',
    })),
  };
}

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** The request as OpenID4VCI errors name its faults: our configuration id, exactly one JWT proof. */
function parseCredentialRequest(body: unknown) {
  const configuration = (body as { credential_configuration_id?: unknown } | null)?.credential_configuration_id;
  if (typeof configuration === 'string' && configuration !== CREDENTIAL_CONFIGURATION_ID) {
    throw new DomainError('unknown_credential_configuration', `this issuer offers only ${CREDENTIAL_CONFIGURATION_ID}`);
  }
  try {
    return parseInput(credentialRequestWire.strict(), body);
  } catch (error) {
    throw new DomainError('invalid_credential_request', (error as Error).message);
  }
}
