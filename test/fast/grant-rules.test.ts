// The provider's token rules on a fake grant store, in milliseconds: a bearer token is live until
// revoked or expired; revocation (RFC 7009) and introspection (RFC 7662) reach only the calling
// client's tokens; a refresh token's revocation takes its whole sign-in with it. Then the way to
// a code: who must sign in or consent, prompt and max_age, deactivated members, how long a
// browser's sign-in and a waiting request last. The SQL behind the store is exercised through the
// authorize, login, consent, token, revoke, introspect and userinfo routes in oidc.test.ts.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { AuthorizationInteraction } from '../../src/core/oidc/authorization/interaction.js';
import type { AuthorizeRequest } from '../../src/core/oidc/authorization/types.js';
import { BrowserSessions } from '../../src/core/oidc/sessions.js';
import type { AccountService } from '../../src/core/accounts/service.js';
import type { LoginThrottle } from '../../src/core/accounts/login-throttle.js';
import { TokenIntrospection } from '../../src/core/oidc/introspection.js';
import { logout } from '../../src/core/oidc/logout.js';
import type { SigningKeys } from '../../src/core/oidc/keys.js';
import {
  AccessTokenService,
  newRefreshToken,
  presentedRefreshToken,
  REFRESH_DIGESTS_KEPT,
} from '../../src/core/oidc/tokens.js';
import { digestSecret } from '../../src/core/secrets.js';
import type { RegisteredClient } from '../../src/core/tenancy/views.js';
import { FakeGrantStore } from '../fakes/grant-store.js';

/** The accounts and clients the rules' tokens are issued to (the store's foreign keys). */
const parents = { accounts: ['svc_1', 'svc_2'], clients: ['client_a', 'client_b', 'client_org'] };

const client = (clientId: string): RegisteredClient => ({
  clientId,
  projectId: 'prj_1',
  organizationId: null,
  name: clientId,
  clientSecretDigest: '',
  redirectUris: [],
  scopes: ['openid'],
  active: true,
  requirePkce: true,
});

/**
 * What a refresh does to a sign-in's row: the successor's digest in place of the token's, which joins the last few
 * previous ones. Returns the successor.
 */
function rotate(grants: FakeGrantStore, grantId: string): string {
  const row = grants.refresh.get(`rt_${grantId}`)!;
  const successor = newRefreshToken(`rt_${grantId}`);
  Object.assign(row, {
    tokenDigest: successor.digest,
    previousDigests: [row.tokenDigest, ...row.previousDigests].slice(0, REFRESH_DIGESTS_KEPT),
    rotatedAt: new Date(),
  });
  return successor.token;
}

function setUp() {
  const clock = new ManualClock(new Date('2026-11-28T12:00:00Z'));
  const grants = new FakeGrantStore(parents);
  const tokens = new AccessTokenService({ grants, clock });
  const introspection = new TokenIntrospection({ grants, clock, issuer: 'https://verity.test' });
  /** A sign-in of svc_1 with client_a: an access token and a refresh token under one grant id. */
  const signIn = (grantId: string) => {
    const now = clock.now();
    const later = new Date(now.getTime() + 900_000);
    grants.access.set(digestSecret(`vt_${grantId}`), {
      accountId: 'svc_1',
      clientId: 'client_a',
      scopes: ['openid'],
      resource: null,
      createdAt: now,
      expiresAt: later,
      revokedAt: null,
      grantId,
    });
    const refresh = newRefreshToken(`rt_${grantId}`);
    grants.refresh.set(refresh.id, {
      grantId,
      clientId: 'client_a',
      accountId: 'svc_1',
      scopes: ['openid'],
      tokenDigest: refresh.digest,
      previousDigests: [],
      createdAt: now,
      expiresAt: later,
      rotatedAt: null,
      revokedAt: null,
    });
    return { access: `vt_${grantId}`, refresh: refresh.token };
  };
  return { clock, grants, tokens, introspection, signIn };
}

describe('bearer tokens on a fake grant store', () => {
  it('is live until it expires, and dead once revoked', async () => {
    const { clock, grants, tokens } = setUp();
    const { token } = await tokens.issue('svc_1', 'client_a', ['openid', 'profile'], 60);
    expect(await tokens.verify(token)).toMatchObject({
      svcId: 'svc_1',
      clientId: 'client_a',
      scopes: ['openid', 'profile'],
    });
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
    expect(await introspection.introspect(client('client_a'), { token: access })).toMatchObject({
      active: true,
      token_type: 'Bearer',
      sub: 'svc_1',
      client_id: 'client_a',
      iss: 'https://verity.test',
    });
    expect(await introspection.introspect(client('client_a'), { token: refresh })).toMatchObject({
      active: true,
      token_type: 'refresh_token',
      sub: 'svc_1',
    });
    expect(await introspection.introspect(client('client_b'), { token: access })).toEqual({ active: false });
    expect(await introspection.introspect(client('client_a'), { token: 'vt_unknown' })).toEqual({ active: false });
    clock.advance(900_000);
    expect(await introspection.introspect(client('client_a'), { token: access })).toEqual({ active: false });
  });

  it('a rotated refresh token is not active; its successor is', async () => {
    const { grants, introspection, signIn } = setUp();
    const { refresh } = signIn('grt_1');
    const successor = rotate(grants, 'grt_1');
    expect(await introspection.introspect(client('client_a'), { token: refresh })).toEqual({ active: false });
    expect(await introspection.introspect(client('client_a'), { token: successor })).toMatchObject({
      active: true,
      token_type: 'refresh_token',
    });
  });

  it("knows a refresh token by its sign-in's row: the current one, one of the last rotated away, or none of ours", async () => {
    const { grants, signIn } = setUp();
    const { refresh } = signIn('grt_1');
    const forged = `vr_forged.rt_grt_1`;
    expect(await presentedRefreshToken(grants, refresh)).toMatchObject({ current: true, row: { grantId: 'grt_1' } });
    // a wrong secret under a row that never rotated was never issued
    expect(await presentedRefreshToken(grants, forged)).toBeNull();
    const successor = rotate(grants, 'grt_1');
    expect(await presentedRefreshToken(grants, refresh)).toMatchObject({ current: false, row: { grantId: 'grt_1' } });
    expect(await presentedRefreshToken(grants, successor)).toMatchObject({ current: true });
    // nor under a row that rotated: the row id is no secret, so a guess under it is not a replay
    expect(await presentedRefreshToken(grants, forged)).toBeNull();
    for (const unknown of ['vr_nope', `${refresh.slice(0, -1)}x`, 'vr_x.rt_missing', `${'a'.repeat(200)}.rt_grt_1`])
      expect(await presentedRefreshToken(grants, unknown)).toBeNull();
  });

  it('remembers the last REFRESH_DIGESTS_KEPT tokens of a sign-in as replays; an older one is refused like a guess', async () => {
    const { grants, signIn } = setUp();
    const issued = [signIn('grt_1').refresh];
    for (let i = 0; i < REFRESH_DIGESTS_KEPT + 1; i++) issued.push(rotate(grants, 'grt_1'));
    const [oldest, ...recent] = issued;
    expect(await presentedRefreshToken(grants, oldest!)).toBeNull();
    for (const token of recent.slice(0, -1))
      expect(await presentedRefreshToken(grants, token)).toMatchObject({ current: false });
    expect(await presentedRefreshToken(grants, recent.at(-1)!)).toMatchObject({ current: true });
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
    await expect(introspection.revoke(client('client_a'), { token: 42 })).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });
});

describe('sign-in, consent and the code on a fake grant store', () => {
  const ISSUER = 'https://verity.test';
  const request = (extra: Partial<AuthorizeRequest> = {}): AuthorizeRequest => ({
    clientId: 'client_a',
    clientName: 'App A',
    redirectUri: 'https://a.example/cb',
    scopes: ['openid', 'profile'],
    state: 'st',
    nonce: 'n-1',
    codeChallenge: 'c'.repeat(43),
    ...extra,
  });

  function authorize(options: { deactivated?: boolean } = {}) {
    const { clock, grants } = setUp();
    const clients = async (clientId: string) => ({
      ...client(clientId),
      organizationId: clientId === 'client_org' ? 7 : null,
    });
    const interaction = new AuthorizationInteraction({
      grants,
      clock,
      issuer: ISSUER,
      clients,
      memberDeactivated: async () => options.deactivated ?? false,
    });
    const sessions = new BrowserSessions({
      grants,
      clock,
      accounts: {} as AccountService,
      throttle: {} as LoginThrottle,
    });
    return { clock, grants, interaction, sessions };
  }

  /** The query of a redirect step's URL. */
  const redirectQuery = (step: { kind: string; url?: string }) => {
    expect(step.kind).toBe('redirect');
    return Object.fromEntries(new URL(step.url!).searchParams);
  };

  it('sends a browser without a sign-in to log in, or back with login_required under prompt=none', async () => {
    const { interaction } = authorize();
    expect(await interaction.nextStep(request(), null)).toMatchObject({ kind: 'login', clientName: 'App A' });
    expect(redirectQuery(await interaction.nextStep(request({ prompt: 'none' }), null))).toMatchObject({
      error: 'login_required',
      state: 'st',
    });
  });

  it('asks for consent once; allowed, the code carries the sign-in time, nonce and PKCE challenge, and the request is used up', async () => {
    const { grants, interaction, sessions, clock } = authorize();
    const { session } = await sessions.open('svc_1');
    clock.advance(5000);
    const consent = await interaction.nextStep(request(), session);
    expect(consent).toMatchObject({ kind: 'consent', scopes: ['openid', 'profile'] });
    const waiting = (consent as { interaction: string }).interaction;
    const query = redirectQuery(await interaction.decide(waiting, session, true));
    expect(query.state).toBe('st');
    expect(grants.codes).toHaveLength(1);
    expect(grants.codes[0]).toMatchObject({
      digest: digestSecret(query.code!),
      accountId: 'svc_1',
      clientId: 'client_a',
      nonce: 'n-1',
      codeChallenge: 'c'.repeat(43),
      authTime: session.authTime,
    });
    expect(grants.codes[0]!.expiresAt.getTime() - clock.now().getTime()).toBe(120_000);
    expect(await interaction.decide(waiting, session, true)).toMatchObject({ kind: 'error_page' });
    // Consent remembered: the next request goes straight to a code, unless it asks for consent again.
    expect((await interaction.nextStep(request(), session)).kind).toBe('redirect');
    expect((await interaction.nextStep(request({ prompt: 'consent' }), session)).kind).toBe('consent');
    expect(
      (await interaction.nextStep(request({ scopes: ['openid', 'profile', 'verifications'] }), session)).kind,
    ).toBe('consent');
  });

  it('denied, the client hears access_denied and gets no code', async () => {
    const { grants, interaction, sessions } = authorize();
    const { session } = await sessions.open('svc_1');
    const consent = (await interaction.nextStep(request(), session)) as { interaction: string };
    expect(redirectQuery(await interaction.decide(consent.interaction, session, false))).toMatchObject({
      error: 'access_denied',
    });
    expect(grants.codes).toEqual([]);
  });

  it('a sign-in older than max_age, or prompt=login, means signing in again', async () => {
    const { grants, interaction, sessions, clock } = authorize();
    const { session } = await sessions.open('svc_1');
    await grants.rememberConsent('svc_1', 'client_a', ['openid', 'profile']);
    clock.advance(61_000);
    expect((await interaction.nextStep(request({ maxAge: 60 }), session)).kind).toBe('login');
    expect((await interaction.nextStep(request({ maxAge: 120 }), session)).kind).toBe('redirect');
    expect((await interaction.nextStep(request({ prompt: 'login' }), session)).kind).toBe('login');
    expect((await interaction.nextStep(request({ prompt: 'login' }), session, { freshLogin: true })).kind).toBe(
      'redirect',
    );
  });

  it("a deactivated member of the client's organization is refused with access_denied and gets no code", async () => {
    const { grants, interaction, sessions } = authorize({ deactivated: true });
    const { session } = await sessions.open('svc_1');
    await grants.rememberConsent('svc_1', 'client_org', ['openid', 'profile']);
    expect(redirectQuery(await interaction.nextStep(request({ clientId: 'client_org' }), session))).toMatchObject({
      error: 'access_denied',
    });
    expect((await interaction.nextStep(request(), session)).kind).toBe('consent');
    expect(grants.codes).toEqual([]);
  });

  it('a waiting request lasts 10 minutes', async () => {
    const { interaction, clock } = authorize();
    const login = (await interaction.nextStep(request(), null)) as { interaction: string };
    clock.advance(599_000);
    expect(await interaction.load(login.interaction)).toMatchObject({ clientId: 'client_a' });
    clock.advance(2000);
    expect(await interaction.load(login.interaction)).toBeNull();
    expect(await interaction.load('x'.repeat(101))).toBeNull();
  });

  it("a browser's sign-in lasts 12 hours from its second, and ends at sign-out; an oversized cookie is not looked up", async () => {
    const { grants, sessions, clock } = authorize();
    clock.advance(456);
    const { cookie, session } = await sessions.open('svc_1');
    expect(session.authTime.getMilliseconds()).toBe(0);
    expect(await sessions.find(cookie)).toEqual(session);
    clock.set(new Date(session.authTime.getTime() + 12 * 3600_000));
    expect(await sessions.find(cookie)).toBeNull();
    const other = await sessions.open('svc_2');
    await sessions.end(other.cookie);
    expect(await sessions.find(other.cookie)).toBeNull();
    const reads = grants.sessionReads;
    expect(await sessions.find('s'.repeat(101))).toBeNull();
    expect(await sessions.find(undefined)).toBeNull();
    expect(grants.sessionReads).toBe(reads);
  });
});

describe('RP-initiated logout on a fake grant store', () => {
  const setUpLogout = () => {
    const clock = new ManualClock(new Date('2026-12-02T12:00:00Z'));
    const grants = new FakeGrantStore(parents);
    // Two well-signed hints of svc_1 for client_a; anything else fails its signature.
    const keys = {
      verify: async (token: string) => (token === 'hint_svc_1' ? { sub: 'svc_1', aud: 'client_a' } : null),
    } as unknown as SigningKeys;
    const registered = { ...client('client_a'), name: 'App A', redirectUris: ['https://a.example/cb'] };
    const deps = {
      grants,
      clock,
      keys,
      issuer: 'https://verity.test',
      clients: async (id: string) => (id === 'client_a' ? registered : null),
    };
    const hinted = { id_token_hint: 'hint_svc_1', post_logout_redirect_uri: 'https://a.example/cb', state: 'bye' };
    return { grants, deps, hinted };
  };
  const signedIn = (accountId: string) => ({ accountId, authTime: new Date('2026-12-02T11:00:00Z') });

  it("signs the hint's person out at once when it is the browser's sign-in", async () => {
    const { grants, deps, hinted } = setUpLogout();
    expect(await logout(deps, hinted, signedIn('svc_1'), false)).toEqual({
      kind: 'redirect',
      url: 'https://a.example/cb?state=bye',
    });
    expect(grants.revokedFor).toEqual([{ accountId: 'svc_1', clientIds: ['client_a'] }]);
  });

  it("asks first, revoking nothing, when no browser sign-in or another person's goes with the hint; revokes once confirmed", async () => {
    const { grants, deps, hinted } = setUpLogout();
    const ask = { kind: 'confirm', clientName: 'App A', postLogoutRedirectUri: 'https://a.example/cb' };
    expect(await logout(deps, hinted, null, false)).toEqual(ask);
    expect(await logout(deps, hinted, signedIn('svc_2'), false)).toEqual(ask);
    expect(grants.revokedFor).toEqual([]);
    expect(await logout(deps, hinted, null, true)).toEqual({ kind: 'redirect', url: 'https://a.example/cb?state=bye' });
    expect(grants.revokedFor).toEqual([{ accountId: 'svc_1', clientIds: ['client_a'] }]);
  });

  it('refuses a bad hint or an unregistered return address before asking anything; without a hint, asks a signed-in browser only', async () => {
    const { grants, deps, hinted } = setUpLogout();
    expect(await logout(deps, { ...hinted, id_token_hint: 'tampered' }, null, true)).toMatchObject({
      kind: 'error_page',
    });
    expect(
      await logout(deps, { ...hinted, post_logout_redirect_uri: 'https://evil.example/' }, null, false),
    ).toMatchObject({ kind: 'error_page' });
    expect(await logout(deps, {}, signedIn('svc_1'), false)).toEqual({
      kind: 'confirm',
      clientName: null,
      postLogoutRedirectUri: null,
    });
    expect(await logout(deps, {}, signedIn('svc_1'), true)).toEqual({ kind: 'signed_out' });
    expect(await logout(deps, {}, null, false)).toEqual({ kind: 'signed_out' });
    expect(grants.revokedFor).toEqual([]);
  });
});
