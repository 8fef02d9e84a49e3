import * as oidc from 'openid-client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium } from './helpers/browser.js';
import { startListeningService, type ListeningService } from './helpers/service.js';

// The whole login flow as an integrator's app runs it: openid-client 6 (a certified relying
// party) on one side, a person in Chromium on our sign-in and consent pages on the other.

let service: ListeningService;
let browser: Browser;

beforeAll(async () => {
  if (!chromiumAvailable) return;
  service = await startListeningService();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await service?.close();
});

/** Opens the authorization URL, signs in, answers consent; returns the URL the browser was sent back to. */
async function signInWithBrowser(
  authorizationUrl: URL,
  redirectUri: string,
  answer: 'Allow' | 'Deny',
  account = service.demo.account,
): Promise<URL> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(authorizationUrl.href);
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: answer }).click();
  // The redirect URI is the demo app's callback; where the browser lands is what the app would read.
  await page.waitForURL(`${redirectUri}**`);
  const callback = new URL(page.url());
  await context.close();
  return callback;
}

describe.skipIf(!chromiumAvailable)('login with openid-client and Chromium', () => {
  it('runs discovery, PKCE login, code exchange, id_token validation, userinfo, a key rotation, refresh and logout', async () => {
    const redirectUri = service.demo.oidc.redirect_uris[0]!;
    const config = await oidc.discovery(
      new URL(service.url),
      service.demo.oidc.client_id,
      service.demo.oidc.client_secret,
      undefined,
      {
        execute: [oidc.allowInsecureRequests],
      },
    );
    const verifier = oidc.randomPKCECodeVerifier();
    const nonce = oidc.randomNonce();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid profile verifications',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      nonce,
      state,
    });

    const callback = await signInWithBrowser(url, redirectUri, 'Allow');
    expect(callback.searchParams.get('iss')).toBe(service.url);
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedNonce: nonce,
      expectedState: state,
      idTokenExpected: true,
    });
    const claims = tokens.claims()!;
    expect(claims.sub).toBe(service.demo.account.svc_id);
    expect(claims.aud).toBe(service.demo.oidc.client_id);
    expect(tokens.expires_in).toBe(900);

    const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
    expect(info).toMatchObject({ sub: claims.sub, email: service.demo.account.email, id_verified: false });

    // a key rotation mid-run: the refreshed id_token is signed by the new key, and logout takes it
    const { kid } = await service.core.signingKeys.rotate({ immediately: true });
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(JSON.parse(Buffer.from(refreshed.id_token!.split('.')[0]!, 'base64url').toString('utf8')).kid).toBe(kid);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(refreshed.claims()!.sub).toBe(claims.sub);

    // Logout in a browser without the person's sign-in (as a link on another site would open it):
    // our page asks, nothing is revoked until the person confirms, then the app gets them back.
    const logout = oidc.buildEndSessionUrl(config, {
      id_token_hint: refreshed.id_token!,
      post_logout_redirect_uri: redirectUri,
      state: 'after-logout',
    });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(logout.href);
      await expect(page.getByRole('heading', { name: 'Sign out?' }).isVisible()).resolves.toBe(true);
      await expect(oidc.fetchUserInfo(config, refreshed.access_token, claims.sub)).resolves.toMatchObject({
        sub: claims.sub,
      });
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(`${redirectUri}**`);
      expect(new URL(page.url()).searchParams.get('state')).toBe('after-logout');
    } finally {
      await context.close();
    }
    await expect(oidc.refreshTokenGrant(config, refreshed.refresh_token!)).rejects.toThrow();
    // the token the refresh replaced is spent too
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toThrow();
  });

  it('works with client_secret_basic, and a Deny comes back as access_denied', async () => {
    const redirectUri = service.demo.oidc.redirect_uris[0]!;
    const config = await oidc.discovery(
      new URL(service.url),
      service.demo.oidc.client_id,
      undefined,
      oidc.ClientSecretBasic(service.demo.oidc.client_secret),
      {
        execute: [oidc.allowInsecureRequests],
      },
    );
    const state = oidc.randomState();
    const denied = await signInWithBrowser(
      oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: 'openid profile doctor_license',
        state,
        code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
        code_challenge_method: 'S256',
        prompt: 'consent',
      }),
      redirectUri,
      'Deny',
    );
    expect(denied.searchParams.get('error')).toBe('access_denied');
    expect(denied.searchParams.get('state')).toBe(state);

    const verifier = oidc.randomPKCECodeVerifier();
    const allowState = oidc.randomState();
    const allowed = await signInWithBrowser(
      oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: 'openid profile',
        state: allowState,
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        prompt: 'consent',
      }),
      redirectUri,
      'Allow',
    );
    const tokens = await oidc.authorizationCodeGrant(config, allowed, {
      pkceCodeVerifier: verifier,
      expectedState: allowState,
      idTokenExpected: true,
    });
    expect(tokens.claims()!.sub).toBe(service.demo.account.svc_id);
  });
});
