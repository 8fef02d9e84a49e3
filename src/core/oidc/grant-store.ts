import type { Orm } from '../db/orm.js';
import { failedWith, preparedQuery, SQLSTATE, sqlDate, sqlDateOrNull } from '../db/prepared.js';
import { DomainError } from '../errors.js';
import type { AuthorizeRequest } from './authorization/types.js';
import { REFRESH_DIGESTS_KEPT } from './tokens.js';

/** An access token as it is stored (its digest only). */
export interface StoredAccessToken {
  accountId: string;
  clientId: string;
  scopes: string[];
  /** The resource it is for (RFC 8707), null for the account endpoints. */
  resource: string | null;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
}

/** A sign-in's refresh-token row: the digest of its current token (see newRefreshToken), rotated in place. */
export interface StoredRefreshToken {
  grantId: string;
  clientId: string;
  accountId: string;
  scopes: string[];
  tokenDigest: string;
  /** The digests of the tokens the current one replaced, newest first (at most REFRESH_DIGESTS_KEPT). */
  previousDigests: string[];
  /** When the current token was issued. */
  createdAt: Date;
  expiresAt: Date;
  /** When the row last rotated; null while its first token is current. */
  rotatedAt: Date | null;
  revokedAt: Date | null;
}

/** A new access token on its own (not from the token endpoint, whose statements issue their own). */
export interface NewAccessToken {
  id: string;
  digest: string;
  accountId: string;
  clientId: string;
  scopes: string[];
  resource: string | null;
  createdAt: Date;
  expiresAt: Date;
}

/** A new authorization code (its digest only), for one sign-in of one person to one client. */
export interface NewCode {
  grantId: string;
  digest: string;
  clientId: string;
  accountId: string;
  redirectUri: string;
  scopes: string[];
  nonce: string | null;
  codeChallenge: string | null;
  resource: string | null;
  authTime: Date;
  createdAt: Date;
  expiresAt: Date;
}

/** A browser's sign-in as it is stored (the cookie's secret is known by its digest only). */
export interface StoredBrowserSession {
  accountId: string;
  authTime: Date;
  expiresAt: Date;
}

/**
 * What the provider granted: access and refresh tokens, authorization codes and consents; and on
 * the way there, browsers' sign-ins (`login_session`) and the authorize requests waiting on a
 * sign-in or consent page (`oidc_interaction`). The only code that touches those tables outside
 * the token endpoint's issuing statements; the provider's services work through it, and the fast
 * tests through a fake.
 */
export interface GrantStore {
  addAccessToken(token: NewAccessToken): Promise<void>;
  /** The access token with this digest, revoked or not, or null. */
  accessToken(digest: string): Promise<StoredAccessToken | null>;
  /** The refresh-token row with this id (named by its tokens), revoked or not, or null. */
  refreshToken(id: string): Promise<StoredRefreshToken | null>;
  /** The authorization code with this digest (used or not): the grant id its tokens carry, and its client. */
  code(digest: string): Promise<{ grantId: string; clientId: string } | null>;
  /** Whether the account was ever given an access token by one of these clients. */
  issuedToAny(accountId: string, clientIds: readonly string[]): Promise<boolean>;
  /** Revokes every live access and refresh token issued from one code (one sign-in). */
  revokeGrant(grantId: string, now: Date): Promise<void>;
  /** Revokes one access token of one client. */
  revokeAccessToken(digest: string, clientId: string, now: Date): Promise<void>;
  /** Revokes every live access and refresh token of an account for these clients. */
  revokeForClients(accountId: string, clientIds: readonly string[], now: Date): Promise<void>;
  /** Revokes every token of an account, for every client, and ends its browser sessions. */
  endEverySignIn(accountId: string, now: Date): Promise<void>;
  /** Remembers the scopes a person allowed a client (in place of what was remembered). */
  rememberConsent(accountId: string, clientId: string, scopes: readonly string[], now: Date): Promise<void>;
  /** The scopes a person allowed a client, or null. */
  consent(accountId: string, clientId: string): Promise<string[] | null>;
  /** Forgets what a person allowed a client: its next authorization asks them again. */
  forgetConsent(accountId: string, clientId: string): Promise<void>;
  addCode(code: NewCode): Promise<void>;
  openBrowserSession(digest: string, session: StoredBrowserSession): Promise<void>;
  /** The sign-in with this digest, expired or not, or null. */
  browserSession(digest: string): Promise<StoredBrowserSession | null>;
  endBrowserSession(digest: string): Promise<void>;
  /** Keeps an authorize request until a sign-in or consent page settles it. */
  saveInteraction(digest: string, request: AuthorizeRequest, expiresAt: Date): Promise<void>;
  /** The waiting request with this digest, expired or not, or null. */
  interaction(digest: string): Promise<{ request: AuthorizeRequest; expiresAt: Date } | null>;
  dropInteraction(digest: string): Promise<void>;
}

// The token endpoint's writes, as CTEs its grants' one statement takes in (src/core/oidc/grants/):
// a grant claims its code or rotates its refresh row and stores new tokens in one round trip, and
// these are the only statements outside PgGrantStore's methods that write the login tables. Each
// reads the grant's `input` (issueInput: one row per request, `ord`, the minted ids, digests and
// expiries), and the token CTEs its `granted` rows.

/** Claims each request's code (once, by its own client): `claimed`, one row per code claimed. */
export const CLAIM_CODES = `claimed as (
  update authorization_code c set used_at = i.now from input i
  where c.code_digest = i.code_digest and c.client_id = i.client_id and c.used_at is null
  returning i.ord, c.id, c.account_id, c.redirect_uri, c.scopes, c.nonce, c.code_challenge, c.auth_time, c.expires_at, c.resource
)`;

/**
 * Rotates each request's refresh row in place when the presented token is its current one (see
 * ROTATE_AND_ISSUE in grants/refresh-token.ts): `rotated`, one row per row rotated.
 */
export const ROTATE_REFRESH_ROWS = `rotated as (
  update refresh_token t set token_digest = i.refresh_digest, created_at = i.now, expires_at = i.refresh_expires_at, rotated_at = i.now,
    previous_digests = (array_prepend(t.token_digest::text, t.previous_digests))[1:${REFRESH_DIGESTS_KEPT}],
    scopes = case when i.narrowed then string_to_array(i.scopes, ' ') else t.scopes end
  from input i
  where t.id = i.refresh_id and t.token_digest = i.token_digest and t.client_id = i.client_id and t.revoked_at is null
    and t.expires_at > i.now and string_to_array(i.scopes, ' ') <@ t.scopes
  returning i.ord, t.account_id, t.grant_id, t.auth_time, t.scopes, t.resource
)`;

/** A first sign-in's refresh row for each `granted` row: `new_refresh`. */
export const NEW_REFRESH_ROW = `new_refresh as (
  insert into refresh_token (id, token_digest, client_id, account_id, scopes, grant_id, auth_time, created_at, expires_at, resource)
  select i.refresh_id, i.refresh_digest, i.client_id, g.account_id, g.scopes, g.grant_id, g.auth_time, i.now, i.refresh_expires_at, g.resource
  from granted g join input i using (ord) returning id
)`;

/** A new access token for each `granted` row: `new_access`. */
export const NEW_ACCESS_TOKEN = `new_access as (
  insert into access_token (id, token_digest, account_id, client_id, scopes, grant_id, created_at, expires_at, resource)
  select i.access_id, i.access_digest, g.account_id, i.client_id, g.scopes, g.grant_id, i.now, i.access_expires_at, g.resource
  from granted g join input i using (ord) returning id
)`;

/** The grant store on PostgreSQL: one named statement per operation. */
export class PgGrantStore implements GrantStore {
  constructor(private readonly orm: Orm) {}

  async addAccessToken(token: NewAccessToken): Promise<void> {
    try {
      await preparedQuery(
        this.orm,
        'access_token_add',
        'insert into access_token (id, token_digest, account_id, client_id, scopes, grant_id, created_at, expires_at, resource) values ($1, $2, $3, $4, $5, null, $6, $7, $8)',
        [
          token.id,
          token.digest,
          token.accountId,
          token.clientId,
          token.scopes,
          token.createdAt,
          token.expiresAt,
          token.resource,
        ],
      );
    } catch (error) {
      if (failedWith(error, SQLSTATE.foreignKeyViolation))
        throw new DomainError('not_found', 'account or client not found');
      throw error;
    }
  }

  async accessToken(digest: string): Promise<StoredAccessToken | null> {
    const [row] = await preparedQuery<{
      account_id: string;
      client_id: string;
      scopes: string[];
      resource: string | null;
      created_at: Date | string;
      expires_at: Date | string;
      revoked_at: Date | string | null;
    }>(
      this.orm,
      'access_token_by_digest',
      'select account_id, client_id, scopes, resource, created_at, expires_at, revoked_at from access_token where token_digest = $1',
      [digest],
    );
    if (!row) return null;
    return {
      accountId: row.account_id,
      clientId: row.client_id,
      scopes: row.scopes,
      resource: row.resource,
      createdAt: sqlDate(row.created_at),
      expiresAt: sqlDate(row.expires_at),
      revokedAt: sqlDateOrNull(row.revoked_at),
    };
  }

  async refreshToken(id: string): Promise<StoredRefreshToken | null> {
    const [row] = await preparedQuery<{
      grant_id: string;
      client_id: string;
      account_id: string;
      scopes: string[];
      token_digest: string;
      previous_digests: string[];
      created_at: Date | string;
      expires_at: Date | string;
      rotated_at: Date | string | null;
      revoked_at: Date | string | null;
    }>(
      this.orm,
      'refresh_token_by_id',
      'select grant_id, client_id, account_id, scopes, token_digest, previous_digests, created_at, expires_at, rotated_at, revoked_at from refresh_token where id = $1',
      [id],
    );
    if (!row) return null;
    return {
      grantId: row.grant_id,
      clientId: row.client_id,
      accountId: row.account_id,
      scopes: row.scopes,
      tokenDigest: row.token_digest,
      previousDigests: row.previous_digests,
      createdAt: sqlDate(row.created_at),
      expiresAt: sqlDate(row.expires_at),
      rotatedAt: sqlDateOrNull(row.rotated_at),
      revokedAt: sqlDateOrNull(row.revoked_at),
    };
  }

  async code(digest: string): Promise<{ grantId: string; clientId: string } | null> {
    const [row] = await preparedQuery<{ id: string; client_id: string }>(
      this.orm,
      'authorization_code_by_digest',
      'select id, client_id from authorization_code where code_digest = $1',
      [digest],
    );
    return row ? { grantId: row.id, clientId: row.client_id } : null;
  }

  async issuedToAny(accountId: string, clientIds: readonly string[]): Promise<boolean> {
    if (clientIds.length === 0) return false;
    const rows = await preparedQuery(
      this.orm,
      'access_token_issued_to_any',
      'select 1 from access_token where account_id = $1 and client_id = any($2::varchar[]) limit 1',
      [accountId, clientIds],
    );
    return rows.length > 0;
  }

  async revokeGrant(grantId: string, now: Date): Promise<void> {
    await preparedQuery(
      this.orm,
      'oidc_revoke_grant',
      `with access as (update access_token set revoked_at = $2 where grant_id = $1 and revoked_at is null)
       update refresh_token set revoked_at = $2 where grant_id = $1 and revoked_at is null`,
      [grantId, now],
    );
  }

  async revokeAccessToken(digest: string, clientId: string, now: Date): Promise<void> {
    await preparedQuery(
      this.orm,
      'oidc_revoke_access_token',
      'update access_token set revoked_at = $3 where token_digest = $1 and client_id = $2 and revoked_at is null',
      [digest, clientId, now],
    );
  }

  async revokeForClients(accountId: string, clientIds: readonly string[], now: Date): Promise<void> {
    if (clientIds.length === 0) return;
    await preparedQuery(
      this.orm,
      'oidc_revoke_for_clients',
      `with access as (update access_token set revoked_at = $3 where account_id = $1 and client_id = any($2::varchar[]) and revoked_at is null)
       update refresh_token set revoked_at = $3 where account_id = $1 and client_id = any($2::varchar[]) and revoked_at is null`,
      [accountId, clientIds, now],
    );
  }

  async endEverySignIn(accountId: string, now: Date): Promise<void> {
    await preparedQuery(
      this.orm,
      'oidc_end_every_sign_in',
      `with access as (update access_token set revoked_at = $2 where account_id = $1 and revoked_at is null),
            refresh as (update refresh_token set revoked_at = $2 where account_id = $1 and revoked_at is null)
       delete from login_session where account_id = $1`,
      [accountId, now],
    );
  }

  async rememberConsent(accountId: string, clientId: string, scopes: readonly string[], now: Date): Promise<void> {
    await preparedQuery(
      this.orm,
      'oidc_consent_remember',
      `insert into oidc_consent (account_id, client_id, scopes, created_at) values ($1, $2, $3, $4)
       on conflict (account_id, client_id) do update set scopes = excluded.scopes, created_at = excluded.created_at`,
      [accountId, clientId, scopes, now],
    );
  }

  async consent(accountId: string, clientId: string): Promise<string[] | null> {
    const [row] = await preparedQuery<{ scopes: string[] }>(
      this.orm,
      'oidc_consent_of',
      'select scopes from oidc_consent where account_id = $1 and client_id = $2',
      [accountId, clientId],
    );
    return row?.scopes ?? null;
  }

  async forgetConsent(accountId: string, clientId: string): Promise<void> {
    await preparedQuery(
      this.orm,
      'oidc_consent_forget',
      'delete from oidc_consent where account_id = $1 and client_id = $2',
      [accountId, clientId],
    );
  }

  async addCode(code: NewCode): Promise<void> {
    await preparedQuery(
      this.orm,
      'authorization_code_issue',
      `insert into authorization_code (id, code_digest, client_id, account_id, redirect_uri, scopes, nonce, code_challenge, auth_time, created_at, expires_at, resource)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [
        code.grantId,
        code.digest,
        code.clientId,
        code.accountId,
        code.redirectUri,
        code.scopes,
        code.nonce,
        code.codeChallenge,
        code.authTime,
        code.createdAt,
        code.expiresAt,
        code.resource,
      ],
    );
  }

  async openBrowserSession(digest: string, session: StoredBrowserSession): Promise<void> {
    await preparedQuery(
      this.orm,
      'login_session_open',
      'insert into login_session (digest, account_id, auth_time, expires_at) values ($1, $2, $3, $4)',
      [digest, session.accountId, session.authTime, session.expiresAt],
    );
  }

  async browserSession(digest: string): Promise<StoredBrowserSession | null> {
    const [row] = await preparedQuery<{ account_id: string; auth_time: Date | string; expires_at: Date | string }>(
      this.orm,
      'login_session_find',
      'select account_id, auth_time, expires_at from login_session where digest = $1',
      [digest],
    );
    return row
      ? { accountId: row.account_id, authTime: sqlDate(row.auth_time), expiresAt: sqlDate(row.expires_at) }
      : null;
  }

  async endBrowserSession(digest: string): Promise<void> {
    await preparedQuery(this.orm, 'login_session_end', 'delete from login_session where digest = $1', [digest]);
  }

  async saveInteraction(digest: string, request: AuthorizeRequest, expiresAt: Date): Promise<void> {
    await preparedQuery(
      this.orm,
      'oidc_interaction_save',
      'insert into oidc_interaction (digest, request, expires_at) values ($1, $2, $3)',
      [digest, JSON.stringify(request), expiresAt],
    );
  }

  async interaction(digest: string): Promise<{ request: AuthorizeRequest; expiresAt: Date } | null> {
    const [row] = await preparedQuery<{ request: AuthorizeRequest; expires_at: Date | string }>(
      this.orm,
      'oidc_interaction_load',
      'select request, expires_at from oidc_interaction where digest = $1',
      [digest],
    );
    return row ? { request: row.request, expiresAt: sqlDate(row.expires_at) } : null;
  }

  async dropInteraction(digest: string): Promise<void> {
    await preparedQuery(this.orm, 'oidc_interaction_drop', 'delete from oidc_interaction where digest = $1', [digest]);
  }
}
