import { createHash } from 'node:crypto';
import { DomainError } from '../../errors.js';
import { digestSecret, safeEqual } from '../../secrets.js';
import type { OidcClient } from '../../tenancy/entities.js';
import { forkEm, one, type OidcDeps } from '../context.js';
import { AuthorizationCode } from '../entities.js';
import { revokeGrant } from '../revocation.js';
import { signTokens, storeTokens, type Tokens } from './issue.js';

/** Why a claimed code cannot be exchanged: expired, another redirect URI, or a PKCE verifier that does not fit. */
export function codeProblem(row: Pick<AuthorizationCode, 'expiresAt' | 'redirectUri' | 'codeChallenge'>, redirectUri: string, verifier: string | undefined, now: Date): DomainError | null {
  if (row.expiresAt <= now) return new DomainError('invalid_grant', 'the code expired');
  if (row.redirectUri !== redirectUri) return new DomainError('invalid_grant', 'redirect_uri differs from the authorization request');
  if (row.codeChallenge) {
    if (!verifier || !/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) return new DomainError('invalid_grant', 'code_verifier is missing or malformed');
    if (!safeEqual(createHash('sha256').update(verifier).digest('base64url'), row.codeChallenge)) return new DomainError('invalid_grant', 'code_verifier does not match the code_challenge');
  } else if (verifier !== undefined) {
    return new DomainError('invalid_grant', 'code_verifier sent for a code issued without PKCE');
  }
  return null;
}

/** grant_type=authorization_code: a code, once, by the client it was issued to, with its PKCE verifier. */
export async function authorizationCodeGrant(deps: OidcDeps, client: OidcClient, body: Record<string, unknown>): Promise<Tokens> {
  const code = one(body.code);
  const redirectUri = one(body.redirect_uri);
  if (!code || !redirectUri) throw new DomainError('invalid_request', 'code and redirect_uri are required');
  const row = await forkEm(deps).findOne(AuthorizationCode, { codeDigest: digestSecret(code) });
  if (!row || row.clientId !== client.clientId) throw new DomainError('invalid_grant', 'the code is invalid or was issued to another client');
  const now = deps.clock.now();
  const verifier = one(body.code_verifier);
  // The claim and the tokens commit together: a concurrent replay's claim waits on the row lock
  // until the tokens exist, so the revocation below also revokes them (the winner's included).
  const outcome = await forkEm(deps).transactional(async (em) => {
    const claimed = await em.nativeUpdate(AuthorizationCode, { id: row.id, usedAt: null }, { usedAt: now });
    if (claimed === 0) return null;
    // A code presented wrongly is used up all the same: the claim commits, the error follows.
    const problem = codeProblem(row, redirectUri, verifier, now);
    return problem ?? storeTokens(deps, em, client, { accountId: row.accountId, scopes: row.scopes, grantId: row.id, authTime: row.authTime, nonce: row.nonce ?? undefined });
  });
  if (outcome === null) {
    // A replayed code: whoever holds it may be an attacker, so everything it issued is revoked.
    await revokeGrant(deps, row.id);
    throw new DomainError('invalid_grant', 'the code was already used; the tokens issued from it are revoked');
  }
  if (outcome instanceof DomainError) throw outcome;
  return signTokens(deps, outcome);
}
