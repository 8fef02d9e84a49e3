import { createHash } from 'node:crypto';
import type { Orm } from '../../db/orm.js';
import { sqlDate } from '../../db/prepared.js';
import { batchPerOwner } from '../../db/statement-batch.js';
import { DomainError } from '../../errors.js';
import { digestSecret, safeEqual } from '../../secrets.js';
import type { RegisteredClient } from '../../tenancy/views.js';
import { one, type OidcDeps } from '../context.js';
import type { AuthorizationCode } from '../entities.js';
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
import { CLAIM_CODES, NEW_ACCESS_TOKEN, NEW_REFRESH_ROW } from '../grant-store.js';

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** The S256 challenge of a well-formed PKCE verifier; null for a missing or malformed one (it fits no challenge). */
export function presentedChallenge(verifier: string | undefined): string | null {
  return verifier !== undefined && VERIFIER.test(verifier)
    ? createHash('sha256').update(verifier).digest('base64url')
    : null;
}

/** Why a claimed code cannot be exchanged: expired, another redirect URI, or a PKCE verifier that does not fit. */
export function codeProblem(
  row: Pick<AuthorizationCode, 'expiresAt' | 'redirectUri' | 'codeChallenge'>,
  redirectUri: string,
  verifier: string | undefined,
  now: Date,
): DomainError | null {
  if (row.expiresAt <= now) return new DomainError('invalid_grant', 'the code expired');
  if (row.redirectUri !== redirectUri)
    return new DomainError('invalid_grant', 'redirect_uri differs from the authorization request');
  if (row.codeChallenge) {
    const challenge = presentedChallenge(verifier);
    if (challenge === null) return new DomainError('invalid_grant', 'code_verifier is missing or malformed');
    if (!safeEqual(challenge, row.codeChallenge))
      return new DomainError('invalid_grant', 'code_verifier does not match the code_challenge');
  } else if (verifier !== undefined) {
    return new DomainError('invalid_grant', 'code_verifier sent for a code issued without PKCE');
  }
  return null;
}

interface ClaimRow extends Partial<IssuedRow> {
  ord: number | string;
  expires_at: Date | string;
  redirect_uri: string;
  code_challenge: string | null;
  /** The resource the code was asked for (RFC 8707), null for the account endpoints. */
  code_resource: string | null;
  /** Whether the tokens were stored (the code passed `codeProblem`'s rules). */
  issued: boolean;
}

/** A code exchange asked of CLAIM_AND_ISSUE: the code's digest, the redirect URI and the PKCE verifier presented. */
interface Exchange extends IssueRequest {
  codeDigest: string;
  redirectUri: string;
  verifier: string | undefined;
  /** The token request's `resource` (RFC 8707 2.2): when sent, the code's own. */
  resource: string | undefined;
}

/**
 * One statement for the exchanges arriving together: claim each code (once, by its own client)
 * and, when it passes the rules of `codeProblem` (repeated in SQL: not expired, same redirect
 * URI, the PKCE challenge fits), store the tokens. A code presented wrongly is used up all the
 * same: the claim commits, the error follows.
 */
const CLAIM_AND_ISSUE = `with ${issueInput([
  ['code_digest', 'varchar'],
  ['redirect_uri', 'text'],
  ['without_verifier', 'boolean'],
  ['challenge', 'text'],
  ['resource', 'text'],
])}, ${CLAIM_CODES}, granted as (
  select c.ord, c.account_id, c.scopes, c.id as grant_id, c.auth_time, c.nonce, c.resource from claimed c join input i using (ord)
  where c.expires_at > i.now and c.redirect_uri = i.redirect_uri
    and (case when c.code_challenge is null then i.without_verifier else c.code_challenge = i.challenge end)
    and (i.resource is null or i.resource = c.resource)
), ${NEW_REFRESH_ROW}, ${NEW_ACCESS_TOKEN}
select c.ord, c.expires_at, c.redirect_uri, c.code_challenge, c.resource as code_resource, s.account_id is not null as issued,
  s.account_id, s.scopes, s.auth_time, s.nonce, s.email, s.email_verified_at, s.display_name, s.member_id
from claimed c left join (${ISSUED_SELECT}) s using (ord)`;

const exchanges = batchPerOwner(
  (orm: Orm, requests: Exchange[]) =>
    runIssuing<ClaimRow>(orm, 'oidc_code_claim_and_issue', CLAIM_AND_ISSUE, requests, [
      requests.map((r) => r.codeDigest),
      requests.map((r) => r.redirectUri),
      requests.map((r) => r.verifier === undefined),
      requests.map((r) => presentedChallenge(r.verifier)),
      requests.map((r) => r.resource ?? null),
    ]),
  ISSUING_BATCH,
);

/** grant_type=authorization_code: a code, once, by the client it was issued to, with its PKCE verifier. */
export async function authorizationCodeGrant(
  deps: OidcDeps,
  client: RegisteredClient,
  body: Record<string, unknown>,
): Promise<Tokens> {
  const code = one(body.code);
  const redirectUri = one(body.redirect_uri);
  if (!code || !redirectUri) throw new DomainError('invalid_request', 'code and redirect_uri are required');
  const now = deps.clock.now();
  const verifier = one(body.code_verifier);
  const minted = mintTokens(now);
  const resource = one(body.resource);
  const claim = await exchanges(deps.orm).submit({
    client,
    minted,
    codeDigest: digestSecret(code),
    redirectUri,
    verifier,
    resource,
  });
  if (claim?.issued) return signTokens(deps, client, minted, claim as ClaimRow & IssuedRow);
  if (claim) {
    if (resource !== undefined && resource !== claim.code_resource)
      throw new DomainError('invalid_target', 'resource differs from the authorization request');
    throw (
      codeProblem(
        { expiresAt: sqlDate(claim.expires_at), redirectUri: claim.redirect_uri, codeChallenge: claim.code_challenge },
        redirectUri,
        verifier,
        now,
      ) ?? new DomainError('invalid_grant', 'the code cannot be exchanged')
    );
  }
  // Nothing claimed: an unknown code, another client's, or one already used.
  const used = await deps.grants.code(digestSecret(code));
  if (!used || used.clientId !== client.clientId)
    throw new DomainError('invalid_grant', 'the code is invalid or was issued to another client');
  // A replayed code: whoever holds it may be an attacker, so everything it issued is revoked.
  await deps.grants.revokeGrant(used.grantId, deps.clock.now());
  throw new DomainError('invalid_grant', 'the code was already used; the tokens issued from it are revoked');
}
