import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import { Account } from '../../accounts/entities.js';
import { Member } from '../../roster/entities.js';
import { digestSecret, newId, newSecret } from '../../secrets.js';
import type { OidcClient } from '../../tenancy/entities.js';
import type { OidcDeps } from '../context.js';
import { RefreshToken } from '../entities.js';
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

export interface StoredTokens {
  accessToken: string;
  refreshToken: string;
  scopes: string[];
  claims: Record<string, unknown>;
}

/** What a grant hands on to be turned into tokens. */
export interface GrantOutcome {
  accountId: string;
  scopes: string[];
  grantId: string;
  authTime: Date;
  nonce?: string;
}

/** `at_hash`: the left half of the SHA-256 of the access token, base64url (OIDC Core 3.1.3.6). */
export function atHash(accessToken: string): string {
  return createHash('sha256').update(accessToken, 'ascii').digest().subarray(0, 16).toString('base64url');
}

/** Stores a new access and refresh token in `em` (flushed); `signTokens` makes the answer after the commit. */
export async function storeTokens(deps: Pick<OidcDeps, 'clock' | 'accessTokens' | 'issuer'>, em: EntityManager, client: OidcClient, grant: GrantOutcome): Promise<StoredTokens> {
  const now = deps.clock.now();
  const account = await em.findOneOrFail(Account, { id: grant.accountId });
  // An active roster member of the client's organization is told apart by their member id.
  const membership = client.organization ? await em.findOne(Member, { organization: client.organization, svcId: account.id, status: 'active' }, { fields: ['memberId'] }) : null;
  const { token: accessToken } = deps.accessTokens.add(em, { account, client, scopes: grant.scopes, grantId: grant.grantId });
  const refreshToken = newSecret('vr');
  em.create(RefreshToken, {
    id: newId('rt'),
    tokenDigest: digestSecret(refreshToken),
    clientId: client.clientId,
    accountId: account.id,
    scopes: grant.scopes,
    grantId: grant.grantId,
    authTime: grant.authTime,
    createdAt: now,
    expiresAt: new Date(now.getTime() + REFRESH_TTL_MS),
  });
  await em.flush();
  const claims = {
    iss: deps.issuer,
    sub: account.id,
    aud: client.clientId,
    auth_time: Math.floor(grant.authTime.getTime() / 1000),
    at_hash: atHash(accessToken),
    ...(grant.nonce !== undefined ? { nonce: grant.nonce } : {}),
    svc_id: account.id,
    ...(membership ? { svc_org_member_id: membership.memberId } : {}),
    ...(grant.scopes.includes('profile') ? { email: account.email, email_verified: account.emailVerifiedAt != null, name: account.displayName ?? account.email } : {}),
  };
  return { accessToken, refreshToken, scopes: grant.scopes, claims };
}

export async function signTokens(deps: Pick<OidcDeps, 'keys'>, stored: StoredTokens): Promise<Tokens> {
  const idToken = await deps.keys.sign(stored.claims, ID_TOKEN_TTL_SECONDS);
  return { access_token: stored.accessToken, refresh_token: stored.refreshToken, id_token: idToken, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_SECONDS, scope: stored.scopes.join(' ') };
}
