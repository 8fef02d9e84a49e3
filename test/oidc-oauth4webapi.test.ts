import * as oauth from 'oauth4webapi';
import { decodeProtectedHeader } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { interactionOf, PageDriver } from './helpers/oidc.js';
import { startListeningService, type ListeningService } from './helpers/service.js';

// A full login as an app built on oauth4webapi (a certified relying party library, the one that
// refused id_tokens signed right after a rotation) runs it: discovery, PKCE, state, nonce, the
// id_token's claims and its signature against the JWKS (oauth4webapi caches the JWKS and fetches
// it again only after 300 s, or after 60 s for an unknown kid), userinfo, refresh, a key rotation
// mid-run, logout, and an error path. The person's side drives our pages over HTTP. Time moves by
// faking Date for both sides at once (the service runs on the system clock).

let service: ListeningService;
const http = { [oauth.allowInsecureRequests]: true } as const;

beforeAll(async () => {
  service = await startListeningService();
});
afterAll(async () => {
  await service?.close();
});
afterEach(() => {
  vi.useRealTimers();
});

/** The person's browser: signed in on our pages, it goes to logout with its sign-in too. */
let browser: PageDriver;

/** Follows an authorization URL through our sign-in and consent pages; the callback URL the app receives. */
async function personAnswers(url: URL, answer: 'allow' | 'deny'): Promise<URL> {
  browser = new PageDriver(service);
  let res = await browser.get(`${url.pathname}${url.search}`);
  res = await browser.post('/api/auth/oidc/login', {
    interaction: interactionOf(res.text),
    email: service.demo.account.email,
    password: service.demo.account.password,
  });
  if (res.text.includes('value="allow"'))
    res = await browser.post('/api/auth/oidc/consent', { interaction: interactionOf(res.text), decision: answer });
  expect(res.status, res.text).toBe(303);
  return new URL(res.headers.location as string);
}

describe('login with oauth4webapi', () => {
  it('runs PKCE, state, nonce, id_token validation, userinfo, refresh, a key rotation mid-run and logout', async () => {
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    const issuer = new URL(service.url);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...http }),
    );
    const client: oauth.Client = { client_id: service.demo.oidc.client_id };
    const clientAuth = oauth.ClientSecretPost(service.demo.oidc.client_secret);
    const redirectUri = service.demo.oidc.redirect_uris[0]!;

    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const nonce = oauth.generateRandomNonce();
    const url = new URL(as.authorization_endpoint!);
    for (const [key, value] of Object.entries({
      client_id: client.client_id,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'openid profile',
      state,
      nonce,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    })) {
      url.searchParams.set(key, value);
    }
    const callback = await personAnswers(url, 'allow');
    // a callback carrying another state is refused by the app
    expect(() => oauth.validateAuthResponse(as, client, callback, oauth.generateRandomState())).toThrow();
    const params = oauth.validateAuthResponse(as, client, callback, state); // checks iss too
    const codeResponse = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      clientAuth,
      params,
      redirectUri,
      verifier,
      http,
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, codeResponse, {
      expectedNonce: nonce,
      requireIdToken: true,
    });
    await oauth.validateApplicationLevelSignature(as, codeResponse, http); // the id_token's signature, against the JWKS (now cached)
    const claims = oauth.getValidatedIdTokenClaims(tokens)!;
    expect(claims).toMatchObject({ sub: service.demo.account.svc_id, aud: client.client_id, nonce });
    const firstKid = decodeProtectedHeader(tokens.id_token!).kid;

    const info = await oauth.processUserInfoResponse(
      as,
      client,
      claims.sub,
      await oauth.userInfoRequest(as, client, tokens.access_token, http),
    );
    expect(info).toMatchObject({ sub: claims.sub, email: service.demo.account.email, email_verified: false });

    // Rotation mid-run, seconds after the app cached the JWKS: the next refresh must still validate
    // (the new key is published but does not sign yet; the app's cache would not know it).
    const { kid: nextKid } = await service.core.signingKeys.rotate();
    const refreshResponse = await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, http);
    const refreshed = await oauth.processRefreshTokenResponse(as, client, refreshResponse);
    await oauth.validateApplicationLevelSignature(as, refreshResponse, http);
    expect(decodeProtectedHeader(refreshed.id_token!).kid).toBe(firstKid);

    // Five minutes on, for the service and the app alike: the new key signs, and the app, whose
    // cached JWKS is now as old as its limit, fetches it again and validates the new key's token.
    vi.setSystemTime(Date.now() + 300_000);
    const laterResponse = await oauth.refreshTokenGrantRequest(as, client, clientAuth, refreshed.refresh_token!, http);
    const later = await oauth.processRefreshTokenResponse(as, client, laterResponse);
    await oauth.validateApplicationLevelSignature(as, laterResponse, http);
    expect(decodeProtectedHeader(later.id_token!).kid).toBe(nextKid);
    expect(oauth.getValidatedIdTokenClaims(later)!.sub).toBe(claims.sub);

    // Logout with the first id_token, signed by the key that just retired: still accepted. The app
    // sends the person's browser, signed in as the hint's person, so it is signed out at once.
    const logout = new URL(as.end_session_endpoint!);
    logout.searchParams.set('id_token_hint', tokens.id_token!);
    logout.searchParams.set('post_logout_redirect_uri', redirectUri);
    logout.searchParams.set('state', 'bye');
    const res = await browser.get(`${logout.pathname}${logout.search}`);
    expect(res.status).toBe(303);
    expect(new URL(res.headers.location as string).searchParams.get('state')).toBe('bye');
    // logout revoked the sign-in: the app's next refresh is an invalid_grant it reads as such
    await expect(
      oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, clientAuth, later.refresh_token!, http),
      ),
    ).rejects.toThrow(oauth.ResponseBodyError);
  });

  it('sees a denial as an authorization error', async () => {
    const issuer = new URL(service.url);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...http }),
    );
    const client: oauth.Client = { client_id: service.demo.oidc.client_id };
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    for (const [key, value] of Object.entries({
      client_id: client.client_id,
      redirect_uri: service.demo.oidc.redirect_uris[0]!,
      response_type: 'code',
      scope: 'openid profile doctor_license',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
      code_challenge_method: 'S256',
      prompt: 'consent',
    })) {
      url.searchParams.set(key, value);
    }
    const callback = await personAnswers(url, 'deny');
    let error: unknown;
    try {
      oauth.validateAuthResponse(as, client, callback, state);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(oauth.AuthorizationResponseError);
    expect((error as oauth.AuthorizationResponseError).error).toBe('access_denied');
  });
});
