import { createHash } from 'node:crypto';
import { preparedQuery, sqlDate } from '../../db/prepared.js';
import { DomainError } from '../../errors.js';
import { digestSecret, safeEqual } from '../../secrets.js';
import type { OidcClient } from '../../tenancy/entities.js';
import { forkEm, one, type OidcDeps } from '../context.js';
import { AuthorizationCode } from '../entities.js';
import { revokeGrant } from '../revocation.js';
import { issueStatement, signTokens, type IssuedRow, type Tokens } from './issue.js';

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** The S256 challenge of a well-formed PKCE verifier; null for a missing or malformed one (it fits no challenge). */
export function presentedChallenge(verifier: string | undefined): string | null {
  return verifier !== undefined && VERIFIER.test(verifier) ? createHash('sha256').update(verifier).digest('base64url') : null;
}

/** Why a claimed code cannot be exchanged: expired, another redirect URI, or a PKCE verifier that does not fit. */
export function codeProblem(row: Pick<AuthorizationCode, 'expiresAt' | 'redirectUri' | 'codeChallenge'>, redirectUri: string, verifier: string | undefined, now: Date): DomainError | null {
  if (row.expiresAt <= now) return new DomainError('invalid_grant', 'the code expired');
  if (row.redirectUri !== redirectUri) return new DomainError('invalid_grant', 'redirect_uri differs from the authorization request');
  if (row.codeChallenge) {
    const challenge = presentedChallenge(verifier);
    if (challenge === null) return new DomainError('invalid_grant', 'code_verifier is missing or malformed');
    if (!safeEqual(challenge, row.codeChallenge)) return new DomainError('invalid_grant', 'code_verifier does not match the code_challenge');
  } else if (verifier !== undefined) {
    return new DomainError('invalid_grant', 'code_verifier sent for a code issued without PKCE');
  }
  return null;
}

interface ClaimRow extends Partial<IssuedRow> {
  expires_at: Date | string;
  redirect_uri: string;
  code_challenge: string | null;
  /** Whether the tokens were stored (the code passed `codeProblem`'s rules). */
  issued: boolean;
}

/**
 * One statement: claim the code (once, by its own client) and, when it passes the rules of
 * `codeProblem` (repeated in SQL: not expired, same redirect URI, the PKCE challenge fits), store
 * the tokens. A code presented wrongly is used up all the same: the claim commits, the error follows.
 */
async function claimAndIssue(deps: OidcDeps, client: OidcClient, codeDigest: string, redirectUri: string, verifier: string | undefined, now: Date) {
  const issue = issueStatement(client, now, 7);
  const rows = await preparedQuery<ClaimRow>(
    deps.orm,
    'oidc_code_claim_and_issue',
    `with claimed as (
      update authorization_code set used_at = $1 where code_digest = $2 and client_id = $3 and used_at is null
      returning id, account_id, redirect_uri, scopes, nonce, code_challenge, auth_time, expires_at
    ), granted as (
      select account_id, scopes, id as grant_id, auth_time, nonce from claimed
      where expires_at > $1 and redirect_uri = $4 and (case when code_challenge is null then $5::boolean else code_challenge = $6::text end)
    ), ${issue.ctes}
    select c.expires_at, c.redirect_uri, c.code_challenge, i.account_id is not null as issued, i.*
    from claimed c left join (${issue.select}) i on true`,
    [now, codeDigest, client.clientId, redirectUri, verifier === undefined, presentedChallenge(verifier), ...issue.params],
  );
  return { minted: issue.minted, claim: rows[0] };
}

/** grant_type=authorization_code: a code, once, by the client it was issued to, with its PKCE verifier. */
export async function authorizationCodeGrant(deps: OidcDeps, client: OidcClient, body: Record<string, unknown>): Promise<Tokens> {
  const code = one(body.code);
  const redirectUri = one(body.redirect_uri);
  if (!code || !redirectUri) throw new DomainError('invalid_request', 'code and redirect_uri are required');
  const now = deps.clock.now();
  const verifier = one(body.code_verifier);
  const { minted, claim } = await claimAndIssue(deps, client, digestSecret(code), redirectUri, verifier, now);
  if (claim?.issued) return signTokens(deps, client, minted, claim as ClaimRow & IssuedRow);
  if (claim) {
    throw (
      codeProblem({ expiresAt: sqlDate(claim.expires_at), redirectUri: claim.redirect_uri, codeChallenge: claim.code_challenge }, redirectUri, verifier, now) ??
      new DomainError('invalid_grant', 'the code cannot be exchanged')
    );
  }
  // Nothing claimed: an unknown code, another client's, or one already used.
  const row = await forkEm(deps).findOne(AuthorizationCode, { codeDigest: digestSecret(code) }, { fields: ['id', 'clientId', 'usedAt'] });
  if (!row || row.clientId !== client.clientId) throw new DomainError('invalid_grant', 'the code is invalid or was issued to another client');
  // A replayed code: whoever holds it may be an attacker, so everything it issued is revoked.
  await revokeGrant(deps, row.id);
  throw new DomainError('invalid_grant', 'the code was already used; the tokens issued from it are revoked');
}
