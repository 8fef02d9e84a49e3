import { createHash } from 'node:crypto';
import { sqlDate } from '../../db/prepared.js';
import { digestSecret, newId, newSecret } from '../../secrets.js';
import type { OidcClient } from '../../tenancy/entities.js';
import type { OidcDeps } from '../context.js';
import { ACCESS_TOKEN_TTL_SECONDS, ID_TOKEN_TTL_SECONDS } from '../tokens.js';

const REFRESH_TTL_MS = 30 * 24 * 3600_000;

export interface Tokens {
  access_token: string;
  refresh_token: string;
  id_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

/** `at_hash`: the left half of the SHA-256 of the access token, base64url (OIDC Core 3.1.3.6). */
export function atHash(accessToken: string): string {
  return createHash('sha256').update(accessToken, 'ascii').digest().subarray(0, 16).toString('base64url');
}

/** A new access and refresh token: the secrets (answered once) and the rows that store their digests. */
interface MintedTokens {
  accessToken: string;
  refreshToken: string;
  access: { id: string; digest: string; expiresAt: Date };
  refresh: { id: string; digest: string; expiresAt: Date };
  now: Date;
}

function mintTokens(now: Date): MintedTokens {
  const accessToken = newSecret('vt');
  const refreshToken = newSecret('vr');
  return {
    accessToken,
    refreshToken,
    access: { id: newId('at'), digest: digestSecret(accessToken), expiresAt: new Date(now.getTime() + ACCESS_TOKEN_TTL_SECONDS * 1000) },
    refresh: { id: newId('rt'), digest: digestSecret(refreshToken), expiresAt: new Date(now.getTime() + REFRESH_TTL_MS) },
    now,
  };
}

/** What the issuing statement reads back for the id_token (one row when a grant was made). */
export interface IssuedRow {
  account_id: string;
  scopes: string[];
  auth_time: Date | string;
  nonce: string | null;
  email: string;
  email_verified_at: Date | string | null;
  display_name: string | null;
  member_id: string | null;
}

/**
 * The tail of a grant's one statement. The grant's own CTEs end in `granted (account_id, scopes,
 * grant_id, auth_time, nonce)`, zero or one row; these CTEs store a new access and refresh token
 * for that row, and `select` reads what the id_token says about the account. Everything commits
 * as one statement: a concurrent replay's claim waits on the row lock until the tokens exist, so
 * its revocation also revokes them (the winner's included). The text is the same on every call
 * (a prepared statement): `params` bind `$<first>` onwards, the grant's own values come before.
 */
export function issueStatement(client: OidcClient, now: Date, first: number): { minted: MintedTokens; ctes: string; select: string; params: unknown[] } {
  const minted = mintTokens(now);
  const $ = (n: number) => `$${first + n}`;
  return {
    minted,
    ctes: `new_refresh as (
      insert into refresh_token (id, token_digest, client_id, account_id, scopes, grant_id, auth_time, created_at, expires_at)
      select ${$(0)}, ${$(1)}, ${$(2)}, account_id, scopes, grant_id, auth_time, ${$(3)}, ${$(4)} from granted returning id
    ), new_access as (
      insert into access_token (id, token_digest, account_id, client_id, scopes, grant_id, created_at, expires_at)
      select ${$(5)}, ${$(6)}, account_id, ${$(2)}, scopes, grant_id, ${$(3)}, ${$(7)} from granted returning id
    )`,
    // An active roster member of the client's organization is told apart by their member id.
    select: `select g.account_id, g.scopes, g.auth_time, g.nonce, a.email, a.email_verified_at, a.display_name, m.member_id
      from granted g join account a on a.id = g.account_id
      left join member m on m.organization_id = ${$(8)}::int and m.svc_id = g.account_id and m.status = 'active'`,
    params: [minted.refresh.id, minted.refresh.digest, client.clientId, now, minted.refresh.expiresAt, minted.access.id, minted.access.digest, minted.access.expiresAt, client.organization?.id ?? null],
  };
}

/** The tokens answered for an issued row: the minted secrets and an id_token signed now. */
export async function signTokens(deps: Pick<OidcDeps, 'keys' | 'issuer'>, client: OidcClient, minted: MintedTokens, row: IssuedRow): Promise<Tokens> {
  const claims = {
    iss: deps.issuer,
    sub: row.account_id,
    aud: client.clientId,
    auth_time: Math.floor(sqlDate(row.auth_time).getTime() / 1000),
    at_hash: atHash(minted.accessToken),
    ...(row.nonce != null ? { nonce: row.nonce } : {}),
    svc_id: row.account_id,
    ...(row.member_id ? { svc_org_member_id: row.member_id } : {}),
    ...(row.scopes.includes('profile') ? { email: row.email, email_verified: row.email_verified_at != null, name: row.display_name ?? row.email } : {}),
  };
  const idToken = await deps.keys.sign(claims, ID_TOKEN_TTL_SECONDS);
  return { access_token: minted.accessToken, refresh_token: minted.refreshToken, id_token: idToken, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_SECONDS, scope: row.scopes.join(' ') };
}
