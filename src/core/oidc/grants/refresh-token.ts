import { DomainError } from '../../errors.js';
import { digestSecret } from '../../secrets.js';
import type { OidcClient } from '../../tenancy/entities.js';
import { forkEm, one, type OidcDeps } from '../context.js';
import { RefreshToken } from '../entities.js';
import { revokeFor } from '../revocation.js';
import { signTokens, storeTokens, type Tokens } from './issue.js';

/** The scopes a refresh asks for: the granted ones, or a subset of them (`invalid_scope` for a wider set). */
export function narrowScopes(granted: string[], requested: string | undefined): string[] {
  if (requested === undefined) return granted;
  const narrowed = requested.split(' ').filter(Boolean);
  if (narrowed.some((scope) => !granted.includes(scope))) throw new DomainError('invalid_scope', 'a refresh cannot widen the granted scopes');
  return narrowed;
}

/** grant_type=refresh_token: rotates the token; a replay of a rotated-away one revokes the whole family. */
export async function refreshTokenGrant(deps: OidcDeps, client: OidcClient, body: Record<string, unknown>): Promise<Tokens> {
  const presented = one(body.refresh_token);
  if (!presented) throw new DomainError('invalid_request', 'refresh_token is required');
  const row = await forkEm(deps).findOne(RefreshToken, { tokenDigest: digestSecret(presented) });
  if (!row || row.clientId !== client.clientId) throw new DomainError('invalid_grant', 'the refresh token is invalid or was issued to another client');
  if (row.revokedAt) throw new DomainError('invalid_grant', 'the refresh token was revoked');
  const now = deps.clock.now();
  if (row.expiresAt <= now) throw new DomainError('invalid_grant', 'the refresh token expired');
  const scopes = narrowScopes(row.scopes, one(body.scope));
  // Rotation and the new tokens commit together, for the reason given in the authorization_code grant.
  const stored = await forkEm(deps).transactional(async (em) => {
    const rotated = await em.nativeUpdate(RefreshToken, { id: row.id, rotatedAt: null, revokedAt: null }, { rotatedAt: now });
    return rotated === 0 ? null : storeTokens(deps, em, client, { accountId: row.accountId, scopes, grantId: row.grantId, authTime: row.authTime });
  });
  if (!stored) {
    // Replay of a rotated-away token: revoke every refresh token of this user and client.
    await revokeFor(deps, row.accountId, row.clientId);
    throw new DomainError('invalid_grant', 'the refresh token was already used; every refresh token of this sign-in is revoked');
  }
  return signTokens(deps, stored);
}
