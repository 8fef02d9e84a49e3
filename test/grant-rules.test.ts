// The provider's token rules on a fake grant store, in milliseconds: a bearer token is live until
// revoked or expired; revocation (RFC 7009) and introspection (RFC 7662) reach only the calling
// client's tokens; a refresh token's revocation takes its whole sign-in with it. The SQL behind
// the store is exercised through the token, revoke, introspect and userinfo routes in oidc.test.ts.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../src/core/clock.js';
import { DomainError } from '../src/core/errors.js';
import type { GrantStore, NewAccessToken, StoredAccessToken, StoredRefreshToken } from '../src/core/oidc/grant-store.js';
import { TokenIntrospection } from '../src/core/oidc/introspection.js';
import { AccessTokenService } from '../src/core/oidc/tokens.js';
import { digestSecret } from '../src/core/secrets.js';
import type { RegisteredClient } from '../src/core/tenancy/views.js';

/** Grants in memory, keyed by digest; a grant id ties a refresh token to the access tokens of its sign-in. */
class FakeGrantStore implements GrantStore {
  access = new Map<string, StoredAccessToken & { grantId: string | null }>();
  refresh = new Map<string, StoredRefreshToken>();
  async addAccessToken(token: NewAccessToken): Promise<void> {
    if (token.accountId === 'svc_missing') throw new DomainError('not_found', 'account or client not found');
    this.access.set(token.digest, { ...token, revokedAt: null, grantId: null });
  }
  async accessToken(digest: string) {
    return this.access.get(digest) ?? null;
  }
  async refreshToken(digest: string) {
    return this.refresh.get(digest) ?? null;
  }
  async code() {
    return null;
  }
  async issuedToAny(accountId: string, clientIds: readonly string[]) {
    return [...this.access.values()].some((token) => token.accountId === accountId && clientIds.includes(token.clientId));
  }
  async revokeGrant(grantId: string, now: Date) {
    for (const token of [...this.access.values(), ...this.refresh.values()]) if (token.grantId === grantId) token.revokedAt ??= now;
  }
  async revokeAccessToken(digest: string, clientId: string, now: Date) {
    const token = this.access.get(digest);
    if (token?.clientId === clientId) token.revokedAt ??= now;
  }
  async revokeForClients() {}
  async endEverySignIn() {}
  async rememberConsent() {}
  async consent() {
    return null;
  }
}

const client = (clientId: string): RegisteredClient => ({ clientId, projectId: 'prj_1', organizationId: null, name: clientId, clientSecretDigest: '', redirectUris: [], scopes: ['openid'], active: true });

function setUp() {
  const clock = new ManualClock(new Date('2026-11-28T12:00:00Z'));
  const grants = new FakeGrantStore();
  const tokens = new AccessTokenService({ grants, clock });
  const introspection = new TokenIntrospection({ grants, clock, issuer: 'https://verity.test' });
  /** A sign-in of svc_1 with client_a: an access token and a refresh token under one grant id. */
  const signIn = (grantId: string) => {
    const now = clock.now();
    const later = new Date(now.getTime() + 900_000);
    grants.access.set(digestSecret(`vt_${grantId}`), { accountId: 'svc_1', clientId: 'client_a', scopes: ['openid'], createdAt: now, expiresAt: later, revokedAt: null, grantId });
    grants.refresh.set(digestSecret(`vr_${grantId}`), { grantId, clientId: 'client_a', accountId: 'svc_1', scopes: ['openid'], createdAt: now, expiresAt: later, rotatedAt: null, revokedAt: null });
    return { access: `vt_${grantId}`, refresh: `vr_${grantId}` };
  };
  return { clock, grants, tokens, introspection, signIn };
}

describe('bearer tokens on a fake grant store', () => {
  it('is live until it expires, and dead once revoked', async () => {
    const { clock, grants, tokens } = setUp();
    const { token } = await tokens.issue('svc_1', 'client_a', ['openid', 'profile'], 60);
    expect(await tokens.verify(token)).toMatchObject({ svcId: 'svc_1', clientId: 'client_a', scopes: ['openid', 'profile'] });
    clock.advance(60_000);
    expect(await tokens.verify(token)).toBeNull();
    const { token: revoked } = await tokens.issue('svc_1', 'client_a', ['openid']);
    grants.access.get(digestSecret(revoked))!.revokedAt = clock.now();
    expect(await tokens.verify(revoked)).toBeNull();
    expect(await tokens.verify('')).toBeNull();
    expect(await tokens.verify('v'.repeat(201))).toBeNull();
  });

  it('answers not_found for an unknown account or client, and nothing is issued', async () => {
    const { grants, tokens } = setUp();
    await expect(tokens.issue('svc_missing', 'client_a', ['openid'])).rejects.toMatchObject({ code: 'not_found' });
    expect(grants.access.size).toBe(0);
  });
});

describe('revocation and introspection on a fake grant store', () => {
  it("introspects only the calling client's live tokens; another client's looks unknown", async () => {
    const { clock, introspection, signIn } = setUp();
    const { access, refresh } = signIn('grt_1');
    expect(await introspection.introspect(client('client_a'), { token: access })).toMatchObject({ active: true, token_type: 'Bearer', sub: 'svc_1', client_id: 'client_a', iss: 'https://verity.test' });
    expect(await introspection.introspect(client('client_a'), { token: refresh })).toMatchObject({ active: true, token_type: 'refresh_token', sub: 'svc_1' });
    expect(await introspection.introspect(client('client_b'), { token: access })).toEqual({ active: false });
    expect(await introspection.introspect(client('client_a'), { token: 'vt_unknown' })).toEqual({ active: false });
    clock.advance(900_000);
    expect(await introspection.introspect(client('client_a'), { token: access })).toEqual({ active: false });
  });

  it('a rotated refresh token is not active', async () => {
    const { grants, introspection, signIn } = setUp();
    const { refresh } = signIn('grt_1');
    grants.refresh.get(digestSecret(refresh))!.rotatedAt = new Date();
    expect(await introspection.introspect(client('client_a'), { token: refresh })).toEqual({ active: false });
  });

  it('revoking a refresh token ends the access tokens of its sign-in, and only that sign-in', async () => {
    const { introspection, tokens, signIn } = setUp();
    const first = signIn('grt_1');
    const second = signIn('grt_2');
    await introspection.revoke(client('client_a'), { token: first.refresh });
    expect(await tokens.verify(first.access)).toBeNull();
    expect(await introspection.introspect(client('client_a'), { token: first.refresh })).toEqual({ active: false });
    expect(await tokens.verify(second.access)).not.toBeNull();
  });

  it('another client revoking a token does nothing, and says nothing', async () => {
    const { introspection, tokens, signIn } = setUp();
    const { access, refresh } = signIn('grt_1');
    await expect(introspection.revoke(client('client_b'), { token: access })).resolves.toBeUndefined();
    await expect(introspection.revoke(client('client_b'), { token: refresh })).resolves.toBeUndefined();
    expect(await tokens.verify(access)).not.toBeNull();
  });

  it('asks for the token: invalid_request without one', async () => {
    const { introspection } = setUp();
    await expect(introspection.introspect(client('client_a'), {})).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(introspection.revoke(client('client_a'), { token: 42 })).rejects.toMatchObject({ code: 'invalid_request' });
  });
});
