import type { Clock } from '../clock.js';
import type { Orm } from '../db/orm.js';
import { DomainError } from '../errors.js';
import { digestSecret } from '../secrets.js';
import type { RegisteredClient } from '../tenancy/views.js';
import { AccessToken, RefreshToken } from './entities.js';
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
  constructor(private readonly deps: { orm: Orm; clock: Clock; issuer: string }) {}

  /** RFC 7009: revokes the client's access or refresh token; a refresh token takes its sign-in's access tokens with it. */
  async revoke(client: RegisteredClient, body: Record<string, unknown>): Promise<void> {
    const digest = digestSecret(presentedToken(body));
    const em = this.deps.orm.em.fork();
    const now = this.deps.clock.now();
    const refresh = await em.findOne(RefreshToken, { tokenDigest: digest, clientId: client.clientId });
    if (refresh) {
      await em.nativeUpdate(RefreshToken, { grantId: refresh.grantId, clientId: client.clientId, revokedAt: null }, { revokedAt: now });
      await em.nativeUpdate(AccessToken, { grantId: refresh.grantId, client: { clientId: client.clientId }, revokedAt: null }, { revokedAt: now });
      return;
    }
    await em.nativeUpdate(AccessToken, { tokenDigest: digest, client: { clientId: client.clientId }, revokedAt: null }, { revokedAt: now });
  }

  /** RFC 7662: whether the client's token is alive, and what it grants. */
  async introspect(client: RegisteredClient, body: Record<string, unknown>): Promise<Introspection> {
    const digest = digestSecret(presentedToken(body));
    const em = this.deps.orm.em.fork();
    const now = this.deps.clock.now().getTime();
    const access = await em.findOne(AccessToken, { tokenDigest: digest, client: { clientId: client.clientId }, revokedAt: null }, { populate: ['account'] });
    if (access && access.expiresAt.getTime() > now) {
      return {
        active: true,
        token_type: 'Bearer',
        scope: access.scopes.join(' '),
        client_id: client.clientId,
        sub: access.account.id,
        iss: this.deps.issuer,
        exp: seconds(access.expiresAt),
        iat: seconds(access.createdAt),
      };
    }
    const refresh = await em.findOne(RefreshToken, { tokenDigest: digest, clientId: client.clientId, revokedAt: null, rotatedAt: null });
    if (refresh && refresh.expiresAt.getTime() > now) {
      return {
        active: true,
        token_type: 'refresh_token',
        scope: refresh.scopes.join(' '),
        client_id: client.clientId,
        sub: refresh.accountId,
        iss: this.deps.issuer,
        exp: seconds(refresh.expiresAt),
        iat: seconds(refresh.createdAt),
      };
    }
    return { active: false };
  }
}
