import { createCipheriv, createDecipheriv, createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: object,
) => Promise<Buffer>;

/** A random opaque id with a type prefix, e.g. `prj_3f9a...` (24 hex characters). */
export function newId(prefix: string): string {
  return `${prefix}_${randomHex(12)}`;
}

/** Random bytes for ids, drawn from a pooled buffer (one system call per 340 ids, as `randomUUID` does). */
let idPool = Buffer.alloc(0);
let idPoolOffset = 0;
function randomHex(bytes: number): string {
  if (idPoolOffset + bytes > idPool.length) {
    idPool = randomBytes(4096);
    idPoolOffset = 0;
  }
  idPoolOffset += bytes;
  return idPool.toString('hex', idPoolOffset - bytes, idPoolOffset);
}

/** A high-entropy secret shown once (API keys, client secrets, tokens). */
export function newSecret(prefix: string, bytes = 32): string {
  return `${prefix}_${randomBytes(bytes).toString('base64url')}`;
}

/**
 * Digest of a high-entropy secret, for storage and lookup. A fast hash is enough here: the
 * secrets are 256-bit random, so there is nothing to brute-force; passwords use `hashPassword`.
 */
export function digestSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

/** OWASP's current advice for scrypt: N = 2^17, r = 8, p = 1 (128 MiB, about 0.3 s here). */
const SCRYPT = { N: 131072, r: 8, p: 1, maxmem: 256 * 1024 * 1024 };

/** Whether a stored hash was made with today's cost (older ones are re-hashed at the next sign-in). */
export function isCurrentHash(stored: string): boolean {
  const [scheme, n, r, p] = stored.split('$');
  return scheme === 'scrypt' && Number(n) === SCRYPT.N && Number(r) === SCRYPT.r && Number(p) === SCRYPT.p;
}

/** Slow salted hash for passwords: `scrypt$N$r$p$salt$hash`. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(password, salt, 32, SCRYPT);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT.maxmem,
  });
  return timingSafeEqual(actual, expected);
}

/** AES-256-GCM for raw identity data and secrets we must be able to read back (webhook keys). */
export class Sealer {
  private readonly key: Buffer;

  constructor(keyBase64: string) {
    const key = Buffer.from(keyBase64, 'base64');
    if (key.length !== 32) throw new Error('VERITY_ENCRYPTION_KEY must be base64 of exactly 32 bytes');
    this.key = key;
  }

  static generateKey(): string {
    return randomBytes(32).toString('base64');
  }

  /** `v1.<iv>.<tag>.<ciphertext>`, all base64url. */
  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), body]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  /** Binary form for images: `iv (12) | tag (16) | ciphertext`, stored as bytea. */
  sealBytes(plain: Buffer): Buffer {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]);
  }

  openBytes(sealed: Buffer): Buffer {
    const decipher = createDecipheriv('aes-256-gcm', this.key, sealed.subarray(0, 12));
    decipher.setAuthTag(sealed.subarray(12, 28));
    return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]);
  }

  open(sealed: string): string {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('not a sealed value');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }
}
