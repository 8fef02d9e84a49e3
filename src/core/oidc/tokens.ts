import type { Clock } from '../clock.js';
import { digestSecret, newId, newSecret } from '../secrets.js';
import type { GrantStore } from './grant-store.js';

/** Access tokens last about 900 seconds (spec: Tokens). */
export const ACCESS_TOKEN_TTL_SECONDS = 900;

/** id_tokens live as long as the access token they come with: the longest-lived thing a signing key signs. */
export const ID_TOKEN_TTL_SECONDS = ACCESS_TOKEN_TTL_SECONDS;

export interface AccessGrant {
  svcId: string;
  clientId: string;
  scopes: string[];
  expiresAt: Date;
}

/** Bearer access tokens: issued opaque, stored as digests, checked on every resource call. */
export class AccessTokenService {
  constructor(private readonly deps: { grants: GrantStore; clock: Clock }) {}

  /** Issues an access token on its own (operators and tests; the token endpoint issues its own). `not_found` for an unknown account or client. */
  async issue(svcId: string, clientId: string, scopes: string[], ttlSeconds = ACCESS_TOKEN_TTL_SECONDS) {
    const token = newSecret('vt');
    const now = this.deps.clock.now();
    const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
    await this.deps.grants.addAccessToken({ id: newId('at'), digest: digestSecret(token), accountId: svcId, clientId, scopes, createdAt: now, expiresAt });
    return { token, expiresAt };
  }

  /** Whether the account was ever given an access token by one of these clients (signed in to them). */
  issuedToAny(svcId: string, clientIds: readonly string[]): Promise<boolean> {
    return this.deps.grants.issuedToAny(svcId, clientIds);
  }

  /** The grant behind a bearer token, or null when it is unknown, revoked or expired. */
  async verify(token: string): Promise<AccessGrant | null> {
    if (!token || token.length > 200) return null;
    const stored = await this.deps.grants.accessToken(digestSecret(token));
    if (!stored || !isLive(stored, this.deps.clock.now())) return null;
    return { svcId: stored.accountId, clientId: stored.clientId, scopes: stored.scopes, expiresAt: stored.expiresAt };
  }
}

/** A token is live until it is revoked or its expiry passes. */
export function isLive(token: { expiresAt: Date; revokedAt: Date | null }, now: Date): boolean {
  return token.revokedAt === null && token.expiresAt.getTime() > now.getTime();
}
