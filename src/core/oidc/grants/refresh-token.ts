import type { Orm } from '../../db/orm.js';
import { batchPerOwner } from '../../db/statement-batch.js';
import { DomainError } from '../../errors.js';
import type { RegisteredClient } from '../../tenancy/views.js';
import { one, type OidcDeps } from '../context.js';
import { presentedRefreshToken, refreshTokenKey } from '../tokens.js';
import { NEW_ACCESS_TOKEN, ROTATE_REFRESH_ROWS } from '../grant-store.js';
import {
  ISSUED_SELECT,
  ISSUING_BATCH,
  issueInput,
  mintTokens,
  runIssuing,
  signTokens,
  type IssueRequest,
  type IssuedRow,
  type Tokens,
} from './issue.js';

/** The scopes a refresh asks for (`scope`, space-separated), or null when it asks for the granted ones. */
export function requestedScopes(requested: string | undefined): string[] | null {
  return requested === undefined ? null : requested.split(' ').filter(Boolean);
}

/** The scopes a refresh asks for: the granted ones, or a subset of them (`invalid_scope` for a wider set). */
export function narrowScopes(granted: string[], requested: string | undefined): string[] {
  const narrowed = requestedScopes(requested);
  if (narrowed === null) return granted;
  if (narrowed.some((scope) => !granted.includes(scope)))
    throw new DomainError('invalid_scope', 'a refresh cannot widen the granted scopes');
  return narrowed;
}

/**
 * A refresh asked of ROTATE_AND_ISSUE: the presented token's digest (its row is the minted token's) and the scopes
 * asked (null: the granted ones).
 */
interface Rotation extends IssueRequest {
  tokenDigest: string;
  scopes: string[] | null;
}

/**
 * One statement for the refreshes arriving together: rotate each sign-in's row in place when the
 * token presented is its current one (live, this client's, the asked scopes within the granted
 * ones): the successor's digest, issue and expiry replace the token's, the token's digest joins
 * the previous ones (the last REFRESH_DIGESTS_KEPT), the scopes narrow when asked, and a new
 * access token is stored. A token presented twice in one statement rotates once
 * (an UPDATE changes a row once): the other request finds it rotated away, a replay. The row
 * changes no indexed column, so PostgreSQL updates it without touching an index (a HOT update).
 */
const ROTATE_AND_ISSUE = `with ${issueInput([
  ['token_digest', 'varchar'],
  // space-separated (unnest cannot give one array per row): what the refresh asks, '' for the granted ones
  ['scopes', 'text'],
  ['narrowed', 'boolean'],
])}, ${ROTATE_REFRESH_ROWS}, granted as (select ord, account_id, scopes, grant_id, auth_time, null::text as nonce, resource from rotated),
${NEW_ACCESS_TOKEN}
${ISSUED_SELECT}`;

const rotations = batchPerOwner(
  (orm: Orm, requests: Rotation[]) =>
    runIssuing<IssuedRow>(orm, 'oidc_refresh_rotate_and_issue', ROTATE_AND_ISSUE, requests, [
      requests.map((r) => r.tokenDigest),
      requests.map((r) => (r.scopes ?? []).join(' ')),
      requests.map((r) => r.scopes !== null),
    ]),
  ISSUING_BATCH,
);

/**
 * grant_type=refresh_token: rotates the token; a replay of a rotated-away one revokes the whole family, a guessed one
 * nothing.
 */
export async function refreshTokenGrant(
  deps: OidcDeps,
  client: RegisteredClient,
  body: Record<string, unknown>,
): Promise<Tokens> {
  const presented = one(body.refresh_token);
  if (!presented) throw new DomainError('invalid_request', 'refresh_token is required');
  const now = deps.clock.now();
  const key = refreshTokenKey(presented);
  if (key) {
    const minted = mintTokens(now, key.id);
    const issued = await rotations(deps.orm).submit({
      client,
      minted,
      tokenDigest: key.digest,
      scopes: requestedScopes(one(body.scope)),
    });
    if (issued) return signTokens(deps, client, minted, issued);
  }
  // Nothing rotated: say why, in the order the rules are checked.
  const found = await presentedRefreshToken(deps.grants, presented);
  const row = found?.row;
  if (!row || row.clientId !== client.clientId)
    throw new DomainError('invalid_grant', 'the refresh token is invalid or was issued to another client');
  if (row.revokedAt) throw new DomainError('invalid_grant', 'the refresh token was revoked');
  if (row.expiresAt <= now) throw new DomainError('invalid_grant', 'the refresh token expired');
  narrowScopes(row.scopes, one(body.scope));
  if (found.current) throw new DomainError('invalid_grant', 'the refresh token cannot be used');
  // Replay of a rotated-away token: revoke every refresh token of this user and client.
  await deps.grants.revokeForClients(row.accountId, [row.clientId], now);
  throw new DomainError(
    'invalid_grant',
    'the refresh token was already used; every refresh token of this sign-in is revoked',
  );
}
