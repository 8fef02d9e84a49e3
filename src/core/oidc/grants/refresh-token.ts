import { preparedQuery } from '../../db/prepared.js';
import { DomainError } from '../../errors.js';
import { digestSecret } from '../../secrets.js';
import type { OidcClient } from '../../tenancy/entities.js';
import { forkEm, one, type OidcDeps } from '../context.js';
import { RefreshToken } from '../entities.js';
import { revokeFor } from '../revocation.js';
import { issueStatement, signTokens, type IssuedRow, type Tokens } from './issue.js';

/** The scopes a refresh asks for (`scope`, space-separated), or null when it asks for the granted ones. */
export function requestedScopes(requested: string | undefined): string[] | null {
  return requested === undefined ? null : requested.split(' ').filter(Boolean);
}

/** The scopes a refresh asks for: the granted ones, or a subset of them (`invalid_scope` for a wider set). */
export function narrowScopes(granted: string[], requested: string | undefined): string[] {
  const narrowed = requestedScopes(requested);
  if (narrowed === null) return granted;
  if (narrowed.some((scope) => !granted.includes(scope))) throw new DomainError('invalid_scope', 'a refresh cannot widen the granted scopes');
  return narrowed;
}

/**
 * One statement: rotate the token (live, this client's, not yet rotated, the asked scopes within
 * the granted ones) and store its successor and a new access token. Null when nothing rotated.
 */
async function rotateAndIssue(deps: OidcDeps, client: OidcClient, tokenDigest: string, scopes: string[] | null, now: Date) {
  const issue = issueStatement(client, now, 6);
  const rows = await preparedQuery<IssuedRow>(
    deps.orm,
    'oidc_refresh_rotate_and_issue',
    `with rotated as (
      update refresh_token set rotated_at = $1
      where token_digest = $2 and client_id = $3 and rotated_at is null and revoked_at is null and expires_at > $1 and $4::text[] <@ scopes
      returning account_id, grant_id, auth_time, scopes
    ), granted as (
      select account_id, case when $5::boolean then $4::text[] else scopes end as scopes, grant_id, auth_time, null::text as nonce from rotated
    ), ${issue.ctes}
    ${issue.select}`,
    [now, tokenDigest, client.clientId, scopes ?? [], scopes !== null, ...issue.params],
  );
  return rows[0] ? { minted: issue.minted, row: rows[0] } : null;
}

/** grant_type=refresh_token: rotates the token; a replay of a rotated-away one revokes the whole family. */
export async function refreshTokenGrant(deps: OidcDeps, client: OidcClient, body: Record<string, unknown>): Promise<Tokens> {
  const presented = one(body.refresh_token);
  if (!presented) throw new DomainError('invalid_request', 'refresh_token is required');
  const now = deps.clock.now();
  const issued = await rotateAndIssue(deps, client, digestSecret(presented), requestedScopes(one(body.scope)), now);
  if (issued) return signTokens(deps, client, issued.minted, issued.row);
  // Nothing rotated: say why, in the order the rules are checked.
  const row = await forkEm(deps).findOne(RefreshToken, { tokenDigest: digestSecret(presented) });
  if (!row || row.clientId !== client.clientId) throw new DomainError('invalid_grant', 'the refresh token is invalid or was issued to another client');
  if (row.revokedAt) throw new DomainError('invalid_grant', 'the refresh token was revoked');
  if (row.expiresAt <= now) throw new DomainError('invalid_grant', 'the refresh token expired');
  narrowScopes(row.scopes, one(body.scope));
  if (!row.rotatedAt) throw new DomainError('invalid_grant', 'the refresh token cannot be used');
  // Replay of a rotated-away token: revoke every refresh token of this user and client.
  await revokeFor(deps, row.accountId, row.clientId);
  throw new DomainError('invalid_grant', 'the refresh token was already used; every refresh token of this sign-in is revoked');
}
