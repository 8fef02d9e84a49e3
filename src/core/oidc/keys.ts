import { createPrivateKey, sign as signBytes, type KeyObject } from 'node:crypto';
import {
  calculateJwkThumbprint,
  decodeJwt,
  decodeProtectedHeader,
  exportJWK,
  exportPKCS8,
  generateKeyPair,
  importJWK,
  jwtVerify,
  type JWTPayload,
} from 'jose';
import type { Clock } from '../clock.js';
import type { Orm } from '../db/orm.js';
import type { Sealer } from '../secrets.js';
import { preparedQuery, sqlDate } from '../db/prepared.js';
import { ID_TOKEN_TTL_SECONDS } from './tokens.js';

type PrivateKey = KeyObject;

/** A signing key as it is stored: the private half sealed. */
interface SigningKeyRecord {
  kid: string;
  publicJwk: Record<string, unknown>;
  privateKeySealed: string;
  activatesAt: Date;
}

/** How long relying parties may cache the JWKS at most (its `Cache-Control: max-age`). */
export const JWKS_MAX_AGE_SECONDS = 300;

/**
 * How long after its successor starts signing a retired key stays published: the longest-lived
 * token it signed (the id_token, 900 s; access and refresh tokens are opaque, not signed), plus
 * 120 s for another instance still signing with it from its 30 s key cache and for clock skew.
 */
export const RETIRED_KEY_GRACE_SECONDS = ID_TOKEN_TTL_SECONDS + 120;

/** How often an instance re-reads the key table (another instance may have rotated). */
const KEY_CACHE_MS = 30_000;

export type KeyState = 'next' | 'current' | 'retired';

/** What a key table signs with: RS256 for id_tokens, ES256 for verifiable credentials and status lists. */
export type SigningAlg = 'RS256' | 'ES256';

/** A key's place in the rotation, worked out from the table and the clock (nothing is stored but `activatesAt`). */
export interface KeyStatus {
  kid: string;
  state: KeyState;
  /** When it starts signing. */
  activatesAt: Date;
  /** When its successor starts signing (null while it has none). */
  retiresAt: Date | null;
  /** When it leaves the JWKS (null while it has no successor). */
  publishedUntil: Date | null;
}

/**
 * Signing keys in the database, shared by every instance; private halves sealed. One instance of
 * this class per algorithm (`alg`): RS256 signs id_tokens, ES256 verifiable credentials; each
 * rotates on its own, by the same rules.
 *
 * Rotation that relying parties survive: `rotate` adds the next key as published but not yet
 * signing; it signs from `activatesAt`, at least `activationDelaySeconds` later (default the JWKS
 * max-age, 300 s), so every relying party's cached JWKS already holds it when the first token it
 * signed arrives. The key it replaces stays published for RETIRED_KEY_GRACE_SECONDS after that,
 * so every token it signed can be validated (and used as logout's `id_token_hint`) until it has
 * expired. Which key signs is decided by each instance from the table and the clock, so
 * instances agree without coordinating.
 */
export class SigningKeys {
  /**
   * The key table as last read, with private keys imported on first use (unsealing and parsing PKCS#8 per token is
   * costly).
   */
  private cache?: { rows: SigningKeyRecord[]; loadedAt: number };
  private readonly imported = new Map<string, PrivateKey>();
  private readonly activationDelayMs: number;
  readonly alg: SigningAlg;
  /** How long a retired key stays published: as long as the longest-lived thing it signed, and a margin. */
  private readonly retiredGraceMs: number;

  constructor(
    private readonly deps: {
      orm: Orm;
      clock: Clock;
      sealer: Sealer;
      activationDelaySeconds?: number;
      alg?: SigningAlg;
      retiredGraceSeconds?: number;
    },
  ) {
    this.activationDelayMs = (deps.activationDelaySeconds ?? JWKS_MAX_AGE_SECONDS) * 1000;
    this.alg = deps.alg ?? 'RS256';
    this.retiredGraceMs = (deps.retiredGraceSeconds ?? RETIRED_KEY_GRACE_SECONDS) * 1000;
  }

  /**
   * The JWKS `Cache-Control: max-age`: never longer than the activation delay, so no cached JWKS lacks a key that
   * signs.
   */
  get jwksMaxAgeSeconds(): number {
    return Math.min(JWKS_MAX_AGE_SECONDS, Math.floor(this.activationDelayMs / 1000));
  }

  /** Every key, oldest activation first. */
  private async rows(fresh = false): Promise<SigningKeyRecord[]> {
    if (!fresh && this.cache && Date.now() - this.cache.loadedAt < KEY_CACHE_MS) return this.cache.rows;
    const found = await preparedQuery<{
      kid: string;
      public_jwk: Record<string, unknown>;
      private_key_sealed: string;
      activates_at: Date | string;
    }>(
      this.deps.orm,
      'signing_keys',
      'select kid, public_jwk, private_key_sealed, activates_at from signing_key where alg = $1 order by activates_at, kid',
      [this.alg],
    );
    const rows = found.map((row) => ({
      kid: row.kid,
      publicJwk: row.public_jwk,
      privateKeySealed: row.private_key_sealed,
      activatesAt: sqlDate(row.activates_at),
    }));
    this.cache = { rows, loadedAt: Date.now() };
    return rows;
  }

  /** Each key's state at `now`, newest first; keys past their publication are left out. */
  private statuses(rows: SigningKeyRecord[], now: Date): (KeyStatus & { row: SigningKeyRecord })[] {
    const out: (KeyStatus & { row: SigningKeyRecord })[] = [];
    rows.forEach((row, index) => {
      const successor = rows[index + 1];
      const retiresAt = successor && successor.activatesAt <= now ? successor.activatesAt : null;
      const publishedUntil = successor ? new Date(successor.activatesAt.getTime() + this.retiredGraceMs) : null;
      if (publishedUntil && publishedUntil <= now) return;
      const state: KeyState = row.activatesAt > now ? 'next' : retiresAt ? 'retired' : 'current';
      out.push({
        kid: row.kid,
        state,
        activatesAt: row.activatesAt,
        retiresAt: successor?.activatesAt ?? null,
        publishedUntil,
        row,
      });
    });
    return out.reverse();
  }

  /** The keys in the JWKS now (next, current and retired ones), with their states; for operators. */
  async list(): Promise<KeyStatus[]> {
    return this.statuses(await this.rows(true), this.deps.clock.now()).map(({ row: _row, ...status }) => status);
  }

  private async signingKey(): Promise<{ kid: string; key: PrivateKey }> {
    const current = this.statuses(await this.rows(), this.deps.clock.now()).find(
      (status) => status.state === 'current',
    );
    if (!current) throw new Error('no signing key');
    let key = this.imported.get(current.kid);
    if (!key) {
      key = createPrivateKey(this.deps.sealer.open(current.row.privateKeySealed));
      this.imported.set(current.kid, key);
    }
    return { kid: current.kid, key };
  }

  /**
   * Adds the next signing key, published now and signing from the returned `activatesAt`
   * (`immediately` only for a database without keys). Keys no longer published are deleted.
   */
  async rotate(options: { immediately?: boolean } = {}): Promise<{ kid: string; activatesAt: Date }> {
    const { publicKey, privateKey } = await generateKeyPair(this.alg, { modulusLength: 2048, extractable: true });
    const publicJwk = await exportJWK(publicKey);
    const kid = await calculateJwkThumbprint(publicJwk);
    const rows = await this.rows(true);
    const now = this.deps.clock.now();
    const last = rows.at(-1);
    let activatesAt = new Date(now.getTime() + (options.immediately ? 0 : this.activationDelayMs));
    // Strictly after the newest key even if the clock has not moved: the order decides which key signs.
    if (last && last.activatesAt >= activatesAt) activatesAt = new Date(last.activatesAt.getTime() + 1);
    const published = new Set(this.statuses(rows, now).map((status) => status.kid));
    const gone = rows.filter((row) => !published.has(row.kid)).map((row) => row.kid);
    // The new key and the end of those no longer published, in one statement.
    await preparedQuery(
      this.deps.orm,
      'signing_key_rotate',
      `with gone as (delete from signing_key where kid = any($6::varchar[]))
       insert into signing_key (kid, public_jwk, private_key_sealed, created_at, activates_at, alg) values ($1, $2, $3, $4, $5, $7)`,
      [
        kid,
        JSON.stringify({ ...publicJwk, kid, alg: this.alg, use: 'sig' }),
        this.deps.sealer.seal(await exportPKCS8(privateKey)),
        now,
        activatesAt,
        gone,
        this.alg,
      ],
    );
    this.cache = undefined;
    return { kid, activatesAt };
  }

  /**
   * Creates the first key on a fresh database, signing at once: no relying party has seen a JWKS yet (two instances
   * starting at once may both add one: harmless).
   */
  async ensure(): Promise<void> {
    if ((await this.rows(true)).length === 0) await this.rotate({ immediately: true });
  }

  /**
   * The public JWK set, newest first: the next key, the current one, and retired ones whose tokens may still be alive.
   * No private material.
   */
  async jwks(): Promise<{ keys: Record<string, unknown>[] }> {
    // read afresh: a relying party caches this for max-age, so it must hold a key another instance just added
    const statuses = this.statuses(await this.rows(true), this.deps.clock.now());
    return { keys: statuses.map((status) => ({ ...status.row.publicJwk })) };
  }

  /**
   * A JWT of `claims` signed RS256 (RSASSA-PKCS1-v1_5 with SHA-256) by the current key, with `iat`
   * and `exp`. Signed by node:crypto's callback form, which runs on libuv's thread pool: through
   * WebCrypto (jose's SignJWT) the token endpoint's event loop spent twice as long per token.
   * `typ` tells other tokens apart from id_tokens (an MCP proof is `verity-proof+jwt`).
   */
  async sign(claims: JWTPayload, lifetimeSeconds: number, typ = 'JWT'): Promise<string> {
    const { kid, sign } = await this.signer();
    const now = Math.floor(this.deps.clock.now().getTime() / 1000);
    const header = Buffer.from(JSON.stringify({ alg: this.alg, kid, typ })).toString('base64url');
    const payload = Buffer.from(JSON.stringify({ ...claims, iat: now, exp: now + lifetimeSeconds })).toString(
      'base64url',
    );
    const signingInput = `${header}.${payload}`;
    return `${signingInput}.${await sign(signingInput)}`;
  }

  /**
   * The current key's id and a function that signs a JWS signing input with it (the signature,
   * base64url): for libraries that build the JWS themselves (SD-JWT VC). ECDSA signatures are
   * in the JWS form (r || s, RFC 7518 3.4), not DER.
   */
  async signer(): Promise<{ kid: string; sign: (signingInput: string) => Promise<string> }> {
    const { kid, key } = await this.signingKey();
    const sign = (signingInput: string) =>
      new Promise<string>((resolve, reject) =>
        signBytes('sha256', Buffer.from(signingInput), { key, dsaEncoding: 'ieee-p1363' }, (error, bytes) =>
          error ? reject(error) : resolve(bytes.toString('base64url')),
        ),
      );
    return { kid, sign };
  }

  /** The public JWK of a key of this table still published (a token names it by `kid`), or null. */
  async publishedKey(kid: string): Promise<Record<string, unknown> | null> {
    let key = this.statuses(await this.rows(), this.deps.clock.now()).find((candidate) => candidate.kid === kid);
    // a key another instance added since this one last read the table
    if (!key)
      key = this.statuses(await this.rows(true), this.deps.clock.now()).find((candidate) => candidate.kid === kid);
    return key ? { ...key.row.publicJwk } : null;
  }

  /**
   * Verifies a token we signed with a key still published (signature, issuer) and returns its
   * claims. With `ignoreExpiry` an expired token is accepted (logout's id_token_hint); a tampered
   * one never is.
   */
  async verify(token: string, issuer: string, options: { ignoreExpiry?: boolean } = {}): Promise<JWTPayload | null> {
    try {
      const { kid, alg } = decodeProtectedHeader(token);
      if (alg !== this.alg || typeof kid !== 'string') return null;
      const jwk = await this.publishedKey(kid);
      if (!jwk) return null;
      const publicKey = await importJWK(jwk as Parameters<typeof importJWK>[0], this.alg);
      const claims = decodeJwt(token);
      const currentDate =
        options.ignoreExpiry && typeof claims.iat === 'number' ? new Date(claims.iat * 1000) : this.deps.clock.now();
      const { payload } = await jwtVerify(token, publicKey, { issuer, algorithms: [this.alg], currentDate });
      return payload;
    } catch {
      return null;
    }
  }
}
