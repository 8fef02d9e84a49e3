import type { Clock } from '../clock.js';
import { DomainError } from '../errors.js';
import { digestSecret } from '../secrets.js';
import type { RegisteredClient } from '../tenancy/views.js';
import type { GrantStore } from './grant-store.js';
import { isLive, presentedRefreshToken } from './tokens.js';
import type { IntrospectionWire } from './views.js';

// Token revocation (RFC 7009) and introspection (RFC 7662) for authenticated clients. A client
// only ever reaches its own tokens: another client's token, an unknown one and a dead one look
// the same (revocation answers 200 and does nothing; introspection answers `active: false`), so
// neither endpoint tells a client anything about tokens it was not issued.

export type Introspection = IntrospectionWire;

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

function presentedToken(body: Record<string, unknown>): string {
  const token = body.token;
  if (typeof token !== 'string' || !token) throw new DomainError('invalid_request', 'token is required');
  return token;
}

export class TokenIntrospection {
  constructor(private readonly deps: { grants: GrantStore; clock: Clock; issuer: string }) {}

  /**
   * RFC 7009: revokes the client's access or refresh token; a refresh token takes its sign-in's access tokens with it.
   */
  async revoke(client: RegisteredClient, body: Record<string, unknown>): Promise<void> {
    const token = presentedToken(body);
    const now = this.deps.clock.now();
    const refresh = (await presentedRefreshToken(this.deps.grants, token))?.row;
    if (refresh?.clientId === client.clientId) return this.deps.grants.revokeGrant(refresh.grantId, now);
    await this.deps.grants.revokeAccessToken(digestSecret(token), client.clientId, now);
  }

  /** RFC 7662: whether the client's token is alive, and what it grants. */
  async introspect(client: RegisteredClient, body: Record<string, unknown>): Promise<Introspection> {
    const token = presentedToken(body);
    const now = this.deps.clock.now();
    const access = await this.deps.grants.accessToken(digestSecret(token));
    if (access?.clientId === client.clientId && isLive(access, now)) return this.active('Bearer', client, access);
    const refresh = await presentedRefreshToken(this.deps.grants, token);
    if (refresh?.current && refresh.row.clientId === client.clientId && isLive(refresh.row, now))
      return this.active('refresh_token', client, refresh.row);
    return { active: false };
  }

  private active(
    tokenType: 'Bearer' | 'refresh_token',
    client: RegisteredClient,
    token: { accountId: string; scopes: string[]; createdAt: Date; expiresAt: Date },
  ): Introspection {
    return {
      active: true,
      token_type: tokenType,
      scope: token.scopes.join(' '),
      client_id: client.clientId,
      sub: token.accountId,
      iss: this.deps.issuer,
      exp: seconds(token.expiresAt),
      iat: seconds(token.createdAt),
    };
  }
}
