import type { Clock } from '../clock.js';
import { digestSecret, newId, newSecret, safeEqual } from '../secrets.js';
import type { GrantStore, StoredRefreshToken } from './grant-store.js';

/** Access tokens last about 900 seconds (spec: Tokens). */
export const ACCESS_TOKEN_TTL_SECONDS = 900;

/** id_tokens live as long as the access token they come with: the longest-lived thing a signing key signs. */
export const ID_TOKEN_TTL_SECONDS = ACCESS_TOKEN_TTL_SECONDS;

export interface AccessGrant {
  svcId: string;
  clientId: string;
  scopes: string[];
  /** The resource the token is for (RFC 8707 audience), null for the account endpoints. */
  resource: string | null;
  expiresAt: Date;
}

/** Bearer access tokens: issued opaque, stored as digests, checked on every resource call. */
export class AccessTokenService {
  constructor(private readonly deps: { grants: GrantStore; clock: Clock }) {}

  /**
   * Issues an access token on its own (operators and tests; the token endpoint issues its own). `not_found` for an
   * unknown account or client.
   */
  async issue(
    svcId: string,
    clientId: string,
    scopes: string[],
    ttlSeconds = ACCESS_TOKEN_TTL_SECONDS,
    resource: string | null = null,
  ) {
    const token = newSecret('vt');
    const now = this.deps.clock.now();
    const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
    await this.deps.grants.addAccessToken({
      id: newId('at'),
      digest: digestSecret(token),
      accountId: svcId,
      clientId,
      scopes,
      resource,
      createdAt: now,
      expiresAt,
    });
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
    return {
      svcId: stored.accountId,
      clientId: stored.clientId,
      scopes: stored.scopes,
      resource: stored.resource,
      expiresAt: stored.expiresAt,
    };
  }
}

/** A token is live until it is revoked or its expiry passes. */
export function isLive(token: { expiresAt: Date; revokedAt: Date | null }, now: Date): boolean {
  return token.revokedAt === null && token.expiresAt.getTime() > now.getTime();
}

/**
 * A refresh token names the row of its sign-in: `vr_<secret>.<row id>`. The row keeps the digest
 * of the sign-in's current token, replaced at each rotation, and those of the tokens it replaced
 * (REFRESH_DIGESTS_KEPT): one row updated in place, where a row per token made PostgreSQL store
 * and index two rows a refresh. `rowId` is the row a rotation keeps; a first sign-in gets a new one.
 */
export function newRefreshToken(rowId: string = newId('rt')): { token: string; id: string; digest: string } {
  const token = `${newSecret('vr')}.${rowId}`;
  return { token, id: rowId, digest: digestSecret(token) };
}

/** The row a presented refresh token names, and the token's digest; null for one not of that form. */
export function refreshTokenKey(presented: string): { id: string; digest: string } | null {
  const dot = presented.lastIndexOf('.');
  if (dot < 0 || presented.length > 200) return null;
  return { id: presented.slice(dot + 1), digest: digestSecret(presented) };
}

/** A presented refresh token: its sign-in's row, and whether it is the row's current token or one rotated away. */
export interface PresentedRefreshToken {
  row: StoredRefreshToken;
  current: boolean;
}

/**
 * How many of a sign-in's earlier refresh tokens its row remembers (their digests): a replay of
 * one of them revokes the sign-in's tokens. The row id is in every token the sign-in was given,
 * so whoever saw one can name the row: a secret that is none of these is a guess, not a replay,
 * and must revoke nothing. Five covers a refresh race and a stolen token used within about five
 * rotations of the real client's; an older one is refused like a guess.
 */
export const REFRESH_DIGESTS_KEPT = 5;

/**
 * What a presented refresh token is: the current token of its sign-in (its digest is the row's),
 * one of the last ones rotated away (a replay: its digest is among the row's previous ones), or
 * nothing we can tell apart from a guess (null): an unknown row, or a secret the row never had.
 */
export async function presentedRefreshToken(
  grants: Pick<GrantStore, 'refreshToken'>,
  presented: string,
): Promise<PresentedRefreshToken | null> {
  const key = refreshTokenKey(presented);
  const row = key ? await grants.refreshToken(key.id) : null;
  if (!key || !row) return null;
  if (safeEqual(key.digest, row.tokenDigest)) return { row, current: true };
  return row.previousDigests.some((digest) => safeEqual(key.digest, digest)) ? { row, current: false } : null;
}
