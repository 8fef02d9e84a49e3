import type { EntityManager } from '@mikro-orm/core';
import type { Clock } from '../clock.js';
import type { Orm } from '../db/orm.js';
import { preparedQuery, sqlDate } from '../db/prepared.js';
import { Account } from '../accounts/entities.js';
import { DomainError } from '../errors.js';
import { OidcClient } from '../tenancy/entities.js';
import { digestSecret, newId, newSecret } from '../secrets.js';
import { AccessToken } from './entities.js';

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
  constructor(private readonly deps: { orm: Orm; clock: Clock }) {}

  /** Issues an access token on its own (operators and tests; the token endpoint uses `add`). */
  async issue(svcId: string, clientId: string, scopes: string[], ttlSeconds = ACCESS_TOKEN_TTL_SECONDS) {
    const em = this.deps.orm.em.fork();
    const account = await em.findOne(Account, { id: svcId });
    const client = await em.findOne(OidcClient, { clientId });
    if (!account || !client) throw new DomainError('not_found', 'account or client not found');
    const issued = this.add(em, { account, client, scopes, grantId: null }, ttlSeconds);
    await em.flush();
    return issued;
  }

  /** Adds a new access token to a unit of work (flushed by the caller); returns the secret once. */
  add(em: EntityManager, grant: { account: Account; client: OidcClient; scopes: string[]; grantId: string | null }, ttlSeconds = ACCESS_TOKEN_TTL_SECONDS) {
    const token = newSecret('vt');
    const now = this.deps.clock.now();
    const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
    em.create(AccessToken, { id: newId('at'), tokenDigest: digestSecret(token), ...grant, createdAt: now, expiresAt });
    return { token, expiresAt };
  }

  /** Whether the account was ever given an access token by one of these clients (signed in to them). */
  async issuedToAny(svcId: string, clientIds: readonly string[]): Promise<boolean> {
    if (clientIds.length === 0) return false;
    const rows = await preparedQuery(this.deps.orm, 'access_token_issued_to_any', 'select 1 from access_token where account_id = $1 and client_id = any($2::varchar[]) limit 1', [svcId, clientIds]);
    return rows.length > 0;
  }

  /** The grant behind a bearer token, or null when it is unknown, revoked or expired. */
  async verify(token: string): Promise<AccessGrant | null> {
    if (!token || token.length > 200) return null;
    // Every resource call comes here: one prepared statement, not the ORM's entity building.
    const [row] = await preparedQuery<{ account_id: string; client_id: string; scopes: string[]; expires_at: Date | string }>(
      this.deps.orm,
      'access_token_by_digest',
      'select account_id, client_id, scopes, expires_at from access_token where token_digest = $1 and revoked_at is null',
      [digestSecret(token)],
    );
    const expiresAt = row ? sqlDate(row.expires_at) : null;
    if (!row || !expiresAt || expiresAt.getTime() <= this.deps.clock.now().getTime()) return null;
    return { svcId: row.account_id, clientId: row.client_id, scopes: row.scopes, expiresAt };
  }
}
