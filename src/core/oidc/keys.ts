import { calculateJwkThumbprint, decodeJwt, decodeProtectedHeader, exportJWK, exportPKCS8, generateKeyPair, importJWK, importPKCS8, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { Clock } from '../clock.js';
import type { Orm } from '../db/orm.js';
import type { Sealer } from '../secrets.js';
import { SigningKey } from './entities.js';

type PrivateKey = Awaited<ReturnType<typeof importPKCS8>>;

/** The JWKS publishes the current key and the one before it, so tokens signed just before a rotation still verify. */
const PUBLISHED_KEYS = 2;

/** RS256 signing keys in the database, shared by every instance; private halves sealed. */
export class SigningKeys {
  /** The current signing key, imported once: unsealing and parsing PKCS#8 per token is costly. */
  private current?: { kid: string; key: PrivateKey; loadedAt: number };

  constructor(private readonly deps: { orm: Orm; clock: Clock; sealer: Sealer }) {}

  /**
   * Another instance may rotate: re-read which key is current at most every 30 s. Until then
   * this instance signs with the previous key, which the JWKS still publishes.
   */
  private async signingKey(): Promise<{ kid: string; key: PrivateKey }> {
    if (this.current && Date.now() - this.current.loadedAt < 30_000) return this.current;
    const [row] = await this.newest(1);
    if (!row) throw new Error('no signing key');
    const key = this.current?.kid === row.kid ? this.current.key : await importPKCS8(this.deps.sealer.open(row.privateKeySealed), 'RS256');
    this.current = { kid: row.kid, key, loadedAt: Date.now() };
    return this.current;
  }

  private async newest(limit: number): Promise<SigningKey[]> {
    return this.deps.orm.em.fork().find(SigningKey, {}, { orderBy: { createdAt: 'desc', kid: 'desc' }, limit });
  }

  /** Makes a new key the signing key; the previous one stays published. Returns its kid. */
  async rotate(): Promise<string> {
    const { publicKey, privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
    const publicJwk = await exportJWK(publicKey);
    const kid = await calculateJwkThumbprint(publicJwk);
    this.current = undefined;
    const em = this.deps.orm.em.fork();
    // Strictly newer than the current key even if the clock has not moved: order decides which key signs.
    const [current] = await this.newest(1);
    const now = this.deps.clock.now();
    const createdAt = current && current.createdAt >= now ? new Date(current.createdAt.getTime() + 1) : now;
    em.create(SigningKey, {
      kid,
      publicJwk: { ...publicJwk, kid, alg: 'RS256', use: 'sig' },
      privateKeySealed: this.deps.sealer.seal(await exportPKCS8(privateKey)),
      createdAt,
    });
    await em.flush();
    return kid;
  }

  /** Creates the first key on a fresh database (two instances starting at once may both add one: harmless). */
  async ensure(): Promise<void> {
    if ((await this.newest(1)).length === 0) await this.rotate();
  }

  /** The public JWK set: no private material. */
  async jwks(): Promise<{ keys: Record<string, unknown>[] }> {
    const keys = await this.newest(PUBLISHED_KEYS);
    return { keys: keys.map((key) => ({ ...key.publicJwk })) };
  }

  async sign(claims: JWTPayload, lifetimeSeconds: number): Promise<string> {
    const { kid, key } = await this.signingKey();
    const now = Math.floor(this.deps.clock.now().getTime() / 1000);
    return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' }).setIssuedAt(now).setExpirationTime(now + lifetimeSeconds).sign(key);
  }

  /**
   * Verifies a token we signed (signature, issuer) and returns its claims. With `ignoreExpiry`
   * an expired token is accepted (logout's id_token_hint); a tampered one never is.
   */
  async verify(token: string, issuer: string, options: { ignoreExpiry?: boolean } = {}): Promise<JWTPayload | null> {
    try {
      const { kid, alg } = decodeProtectedHeader(token);
      if (alg !== 'RS256' || typeof kid !== 'string') return null;
      const key = (await this.newest(PUBLISHED_KEYS)).find((candidate) => candidate.kid === kid);
      if (!key) return null;
      const publicKey = await importJWK(key.publicJwk as Parameters<typeof importJWK>[0], 'RS256');
      const claims = decodeJwt(token);
      const currentDate = options.ignoreExpiry && typeof claims.iat === 'number' ? new Date(claims.iat * 1000) : this.deps.clock.now();
      const { payload } = await jwtVerify(token, publicKey, { issuer, algorithms: ['RS256'], currentDate });
      return payload;
    } catch {
      return null;
    }
  }
}
