import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  jwtVerify,
  type JWTPayload,
} from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/core/clock.js';
import { atHash } from '../src/core/oidc/provider.js';
import { authorizePath, interactionOf, PageDriver, pkce } from './helpers/oidc.js';
import { type ListeningService, sql, startListeningService } from './helpers/service.js';

const clock = new ManualClock(new Date());
let service: ListeningService;
let client: { client_id: string; client_secret: string; redirect_uris: string[] };
let redirectUri: string;

beforeAll(async () => {
  service = await startListeningService({}, { clock });
  client = service.demo.oidc;
  redirectUri = client.redirect_uris[0]!;
});
afterAll(async () => {
  await service?.close();
});

/** Signs the demo user in and consents; returns the code and what was sent. */
async function authorize(extra: Record<string, string | undefined> = {}, driver = new PageDriver(service)) {
  const { verifier, challenge } = pkce();
  const state = `st-${Math.random()}`;
  const nonce = `n-${Math.random()}`;
  const params = {
    client_id: client.client_id,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'openid profile verifications',
    state,
    nonce,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  };
  let res = await driver.get(authorizePath(params));
  if (res.status === 200 && res.text.includes('name="password"')) {
    res = await driver.post('/api/auth/oidc/login', {
      interaction: interactionOf(res.text),
      email: service.demo.account.email,
      password: service.demo.account.password,
    });
  }
  if (res.status === 200 && res.text.includes('value="allow"')) {
    res = await driver.post('/api/auth/oidc/consent', { interaction: interactionOf(res.text), decision: 'allow' });
  }
  expect(res.status, res.text).toBe(303);
  const location = new URL(res.headers.location as string);
  return {
    location,
    raw: res.headers.location as string,
    code: location.searchParams.get('code')!,
    state,
    nonce,
    verifier,
    driver,
  };
}

const token = (body: Record<string, string>) => service.http.post('/api/auth/oidc/token').type('form').send(body);
const exchange = (code: string, verifier: string, extra: Record<string, string> = {}) =>
  token({
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
    client_id: client.client_id,
    client_secret: client.client_secret,
    ...extra,
  });

describe('discovery and keys', () => {
  it('serves discovery at both paths with the required fields', async () => {
    for (const path of ['/.well-known/openid-configuration', '/api/.well-known/openid-configuration']) {
      const doc = (await service.http.get(path)).body;
      expect(doc.issuer).toBe(service.url);
      expect(doc.authorization_endpoint).toBe(`${service.url}/api/auth/oidc/authorize`);
      expect(doc.token_endpoint).toBe(`${service.url}/api/auth/oidc/token`);
      expect(doc.userinfo_endpoint).toBe(`${service.url}/api/auth/oidc/userinfo`);
      expect(doc.jwks_uri).toBe(`${service.url}/api/auth/oidc/jwks.json`);
      expect(doc.end_session_endpoint).toBe(`${service.url}/api/auth/oidc/logout`);
      expect(doc.response_types_supported).toEqual(['code']);
      expect(doc.code_challenge_methods_supported).toEqual(['S256']);
      expect(doc.token_endpoint_auth_methods_supported).toEqual(['client_secret_post', 'client_secret_basic']);
      expect(doc.id_token_signing_alg_values_supported).toEqual(['RS256']);
      expect(doc.grant_types_supported).toEqual(['authorization_code', 'refresh_token']);
      expect(doc.scopes_supported).toEqual(
        expect.arrayContaining(['openid', 'profile', 'verifications', 'doctor_license', 'zkp', 'mcp']),
      );
      expect(doc.authorization_response_iss_parameter_supported).toBe(true);
      expect(doc).toMatchObject({
        request_parameter_supported: false,
        request_uri_parameter_supported: false,
        claims_parameter_supported: false,
      });
      expect(doc.claims_supported).toEqual(expect.arrayContaining(['sub', 'nonce', 'auth_time', 'at_hash']));
    }
  });

  it('publishes public keys only', async () => {
    const res = await service.http.get('/api/auth/oidc/jwks.json');
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.body.keys).toHaveLength(1);
    for (const key of res.body.keys) {
      expect(key).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
      for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(key).not.toHaveProperty(secret);
    }
  });

  it('publishes a rotated key for the JWKS max-age before it signs, and keeps a retired key until its id_tokens have expired', async () => {
    const kids = async () =>
      (await service.http.get('/api/auth/oidc/jwks.json')).body.keys.map((key: { kid: string }) => key.kid);
    const signIn = async () => {
      const { code, verifier } = await authorize();
      const tokens = (await exchange(code, verifier)).body;
      return { idToken: tokens.id_token as string, kid: decodeProtectedHeader(tokens.id_token).kid };
    };
    // No browser sign-in goes with these requests: a hint accepted gets the confirmation page (200), a refused one a
    // 400 page.
    const logout = (hint: string) =>
      service.http.get(
        `/api/auth/oidc/logout?${new URLSearchParams({ id_token_hint: hint, post_logout_redirect_uri: redirectUri })}`,
      );
    const [first] = await kids();
    const { kid: second, activatesAt } = await service.core.signingKeys.rotate();
    expect(activatesAt.getTime() - clock.now().getTime()).toBe(300_000);
    // A relying party that fetches the JWKS right now caches it for max-age (300 s).
    const cached = (await service.http.get('/api/auth/oidc/jwks.json')).body;
    expect(cached.keys.map((key: { kid: string }) => key.kid)).toEqual([second, first]);
    const early = await signIn();
    expect(early.kid).toBe(first); // published, not signing yet
    clock.advance(299_000);
    expect((await signIn()).kid).toBe(first);
    clock.advance(1_000);
    const late = await signIn();
    expect(late.kid).toBe(second);
    // ...and its cached copy validates the new key's tokens the moment they appear
    await expect(
      jwtVerify(late.idToken, createLocalJWKSet(cached), {
        issuer: service.url,
        audience: client.client_id,
        currentDate: clock.now(),
      }),
    ).resolves.toBeTruthy();
    await expect(
      jwtVerify(early.idToken, createLocalJWKSet((await service.http.get('/api/auth/oidc/jwks.json')).body), {
        issuer: service.url,
        currentDate: new Date((decodeJwt(early.idToken).iat as number) * 1000),
      }),
    ).resolves.toBeTruthy();

    // A second rotation: the first key, two rotations old, is still published while its tokens may live.
    const { kid: third } = await service.core.signingKeys.rotate();
    clock.advance(300_000);
    expect((await signIn()).kid).toBe(third);
    expect(await kids()).toEqual([third, second, first]);
    expect((await logout(early.idToken)).status).toBe(200); // id_token_hint signed by a retired key still published
    expect((await service.core.signingKeys.list()).map((key) => key.state)).toEqual(['current', 'retired', 'retired']);
    // The first key retired 300 s ago; it stays published 900 s (the id_token lifetime) + 120 s after that.
    clock.advance(719_000);
    expect(await kids()).toContain(first);
    clock.advance(1_000);
    expect(await kids()).toEqual([third, second]);
    expect((await logout(early.idToken)).status).toBe(400); // its key is gone: the hint can no longer be checked
    expect((await logout(late.idToken)).status).toBe(200);
  });
});

describe('authorize', () => {
  // PKCE (S256) is required of every client unless it opted out: the base request carries a challenge.
  const base = (): Record<string, string | undefined> => ({
    client_id: client.client_id,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'openid',
    state: 'abc',
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
  });

  it('shows errors on a page, never redirecting, until the client and exact redirect URI are trusted', async () => {
    for (const params of [
      { ...base(), client_id: 'vc_unknown' },
      { ...base(), redirect_uri: `${redirectUri}/extra` },
      { ...base(), redirect_uri: redirectUri.replace('/callback', '/Callback') },
      { ...base(), redirect_uri: 'https://evil.example.com/cb' },
      { ...base(), client_id: undefined },
    ]) {
      const res = await service.http.get(authorizePath(params));
      expect(res.status).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.headers['content-type']).toContain('text/html');
    }
  });

  it.each([
    [{ response_type: 'token' }, 'unsupported_response_type'],
    [{ scope: 'profile' }, 'invalid_scope'],
    [{ scope: 'openid mcp' }, 'invalid_scope'],
    [{ state: undefined }, 'invalid_request'],
    [{ code_challenge: 'x'.repeat(43), code_challenge_method: 'plain' }, 'invalid_request'],
    [{ code_challenge: 'x'.repeat(43), code_challenge_method: undefined }, 'invalid_request'],
    [{ code_challenge: undefined, code_challenge_method: undefined }, 'invalid_request'],
    [{ prompt: 'none' }, 'login_required'],
    [{ prompt: 'none login' }, 'invalid_request'],
    [{ prompt: 'login bogus' }, 'invalid_request'],
    [{ request: 'eyJhbGciOiJub25lIn0.e30.' }, 'request_not_supported'],
    [{ request_uri: 'https://rp.example/request.jwt' }, 'request_uri_not_supported'],
  ] as [Record<string, string | undefined>, string][])('redirects back with an error for %o', async (change, error) => {
    const res = await service.http.get(authorizePath({ ...base(), ...change }));
    expect(res.status).toBe(303);
    const location = new URL(res.headers.location as string);
    expect(`${location.origin}${location.pathname}`).toBe(redirectUri);
    expect(location.searchParams.get('error')).toBe(error);
    expect(location.searchParams.get('iss')).toBe(service.url);
    if (change.state !== undefined || !('state' in change)) expect(location.searchParams.get('state')).toBe('abc');
  });

  it('requires PKCE (S256) of every client by default: none, or plain, goes back as invalid_request saying why; discovery offers S256 only', async () => {
    const { code_challenge: _challenge, code_challenge_method: _method, ...withoutPkce } = base();
    for (const [params, description] of [
      [withoutPkce, 'code_challenge is required: this application must use PKCE with code_challenge_method=S256'],
      [{ ...base(), code_challenge_method: 'plain' }, 'code_challenge_method must be S256'],
    ] as const) {
      const res = await service.http.get(authorizePath(params));
      expect(res.status).toBe(303);
      const location = new URL(res.headers.location as string);
      expect(`${location.origin}${location.pathname}`).toBe(redirectUri);
      expect(Object.fromEntries(location.searchParams)).toEqual({
        error: 'invalid_request',
        error_description: description,
        state: 'abc',
        iss: service.url,
      });
    }
    expect((await service.http.get('/.well-known/openid-configuration')).body.code_challenge_methods_supported).toEqual(
      ['S256'],
    );
  });

  it('lets a confidential legacy client registered without PKCE (admin GraphQL) sign in without it, until tRPC requires it again', async () => {
    const admin = { Authorization: `Bearer ${service.demo.admin_token}` };
    const created = await service.http
      .post('/graphql')
      .set(admin)
      .send({
        query:
          'mutation ($input: CreateOidcClientInput!) { createOidcClient(input: $input) { client { clientId requirePkce } clientSecret } }',
        variables: {
          input: {
            projectId: service.demo.project_id,
            name: 'Legacy RP',
            redirectUris: [redirectUri],
            scopes: ['openid'],
            requirePkce: false,
          },
        },
      });
    const legacy = created.body.data.createOidcClient;
    expect(legacy.client.requirePkce).toBe(false);
    const withoutPkce = {
      client_id: legacy.client.clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'openid',
      state: 'legacy',
    };
    const driver = new PageDriver(service);
    let res = await driver.get(authorizePath(withoutPkce));
    res = await driver.post('/api/auth/oidc/login', {
      interaction: interactionOf(res.text),
      email: service.demo.account.email,
      password: service.demo.account.password,
    });
    res = await driver.post('/api/auth/oidc/consent', { interaction: interactionOf(res.text), decision: 'allow' });
    expect(res.status).toBe(303);
    const code = new URL(res.headers.location as string).searchParams.get('code')!;
    const exchanged = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: legacy.client.clientId,
      client_secret: legacy.clientSecret,
    });
    expect(exchanged.status).toBe(200);

    const required = await fetch(`${service.url}/trpc/setOidcClientPkce`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/json' },
      body: JSON.stringify({ projectId: service.demo.project_id, clientId: legacy.client.clientId, requirePkce: true }),
    });
    expect(((await required.json()) as { result: { data: { requirePkce: boolean } } }).result.data.requirePkce).toBe(
      true,
    );
    const refused = await driver.get(authorizePath(withoutPkce));
    expect(new URL(refused.headers.location as string).searchParams.get('error')).toBe('invalid_request');
    expect(
      (
        await driver.get(
          authorizePath({ ...withoutPkce, code_challenge: pkce().challenge, code_challenge_method: 'S256' }),
        )
      ).headers.location,
    ).toContain('code=');
  });

  it('takes the request by POST as by GET, and prompt as a list ("login consent" shows both pages)', async () => {
    const driver = new PageDriver(service);
    const { challenge } = pkce();
    const params = {
      ...base(),
      scope: 'openid profile',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      prompt: 'login consent',
    };
    let res = await driver.post('/api/auth/oidc/authorize', params);
    expect(res.status).toBe(200);
    expect(res.text).toContain('name="password"');
    res = await driver.post('/api/auth/oidc/login', {
      interaction: interactionOf(res.text),
      email: service.demo.account.email,
      password: service.demo.account.password,
    });
    expect(res.text).toContain('value="allow"'); // consent asked again although given before
    res = await driver.post('/api/auth/oidc/consent', { interaction: interactionOf(res.text), decision: 'allow' });
    expect(res.status).toBe(303);
    expect(new URL(res.headers.location as string).searchParams.get('code')).toBeTruthy();
    // signed in and consented: "login" alone still asks for the password again
    res = await driver.post('/api/auth/oidc/authorize', { ...params, prompt: 'login' });
    expect(res.text).toContain('name="password"');
    const bad = await service.http
      .post('/api/auth/oidc/authorize')
      .type('form')
      .send({ ...base(), request_uri: 'urn:x' });
    expect(new URL(bad.headers.location as string).searchParams.get('error')).toBe('request_uri_not_supported');
  });

  it("takes sign-in, sign-up and consent posts only with the browser's own CSRF token (no login CSRF)", async () => {
    const { email, password } = service.demo.account;
    const attacker = new PageDriver(service);
    const interaction = interactionOf((await attacker.get(authorizePath({ ...base(), scope: 'openid profile' }))).text);
    expect(attacker.csrf).toMatch(/^[A-Za-z0-9_-]{32}$/);
    // The attacker's page makes the victim's browser post the attacker's form.
    const victim = new PageDriver(service);
    for (const [path, form] of [
      ['/api/auth/oidc/login', { interaction, email, password }],
      ['/api/auth/oidc/signup', { interaction, email: 'mallory@evil.example', password: 'mallory-password' }],
      ['/api/auth/oidc/consent', { interaction, decision: 'allow' }],
    ] as const) {
      const forged = await victim.post(path, { ...form, csrf: attacker.csrf }); // the victim holds no csrf cookie
      expect(forged.status, path).toBe(403);
      expect(forged.text).toContain('Form not accepted');
    }
    await victim.get('/api/auth/oidc/signup?interaction=x'); // now the victim has a cookie of its own
    expect(
      (await victim.post('/api/auth/oidc/login', { interaction, email, password, csrf: attacker.csrf })).status,
    ).toBe(403);
    expect(victim.cookie).toBe('');
    expect(await service.core.accounts.checkPassword('mallory@evil.example', 'mallory-password')).toBeNull();
    // the page's own form, from its own browser, goes through
    const own = await attacker.post('/api/auth/oidc/login', { interaction, email, password });
    expect(own.status).not.toBe(403);
    expect(attacker.cookie).toMatch(/^verity_session=/);
  });

  it('refuses short and common passwords at sign-up, saying why, and creates nothing', async () => {
    const driver = new PageDriver(service);
    const interaction = interactionOf((await driver.get(authorizePath({ ...base(), scope: 'openid' }))).text);
    for (const [password, why] of [
      ['short-pw9', 'at least 10 characters'],
      ['Password123', 'most common'],
      ['qwertyuiop', 'most common'],
    ]) {
      const res = await driver.post('/api/auth/oidc/signup', {
        interaction,
        email: 'new-person@example.com',
        password: password!,
      });
      expect(res.status, password).toBe(400);
      expect(res.text).toContain(why);
      expect(await service.core.accounts.checkPassword('new-person@example.com', password!)).toBeNull();
    }
    const ok = await driver.post('/api/auth/oidc/signup', {
      interaction,
      email: 'new-person@example.com',
      password: 'violet elephant tuesday',
    });
    expect(ok.status).not.toBe(400);
  });

  it('locks an account after 5 wrong passwords (429 with Retry-After, even for the right one); others still sign in', async () => {
    await service.core.accounts.createAccount({ email: 'guessed@example.com', password: 'the right password' });
    const driver = new PageDriver(service);
    const interaction = interactionOf((await driver.get(authorizePath({ ...base(), scope: 'openid' }))).text);
    for (let i = 1; i <= 5; i++) {
      const wrong = await driver.post('/api/auth/oidc/login', {
        interaction,
        email: 'guessed@example.com',
        password: `guess number ${i}`,
      });
      expect(wrong.status, `attempt ${i}`).toBe(401);
    }
    const locked = await driver.post('/api/auth/oidc/login', {
      interaction,
      email: 'Guessed@Example.com',
      password: 'the right password',
    });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(locked.headers['retry-after'])).toBeLessThanOrEqual(30);
    expect(locked.text).toContain('Too many failed sign-ins');
    expect(driver.cookie).toBe('');
    // another account from the same address is not locked by this one's failures
    const other = await driver.post('/api/auth/oidc/login', {
      interaction,
      email: service.demo.account.email,
      password: service.demo.account.password,
    });
    expect(other.status).not.toBe(429);
    expect(driver.cookie).toMatch(/^verity_session=/);
  });

  it('counts guesses sent at once before checking them: of 20 wrong passwords 5 are checked, 15 get 429, and then the right one waits too', async () => {
    await service.core.accounts.createAccount({ email: 'parallel@example.com', password: 'the right password' });
    const driver = new PageDriver(service);
    const interaction = interactionOf((await driver.get(authorizePath({ ...base(), scope: 'openid' }))).text);
    const signIn = (password: string) =>
      driver.post('/api/auth/oidc/login', { interaction, email: 'parallel@example.com', password });
    const guesses = await Promise.all(Array.from({ length: 20 }, (_, i) => signIn(`guess number ${i}`)));
    const statuses = guesses.map((res) => res.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(15);
    const right = await signIn('the right password');
    expect(right.status).toBe(429);
    expect(driver.cookie).toBe('');
  });

  it('lets the right password among guesses sent at once through only in a slot a wrong one could have taken', async () => {
    await service.core.accounts.createAccount({ email: 'parallel-right@example.com', password: 'the right password' });
    const driver = new PageDriver(service);
    const interaction = interactionOf((await driver.get(authorizePath({ ...base(), scope: 'openid' }))).text);
    const signIn = (password: string) =>
      driver.post('/api/auth/oidc/login', { interaction, email: 'parallel-right@example.com', password });
    for (let i = 1; i <= 4; i++) expect((await signIn(`guess number ${i}`)).status).toBe(401);
    // one failure left before the lock: of 20 attempts at once, one is checked, whichever it is
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => signIn(i === 10 ? 'the right password' : `guess number ${i + 10}`)),
    );
    expect(answers.filter((res) => res.status !== 429)).toHaveLength(1);
    const rightAnswer = answers[10]!;
    if (rightAnswer.status !== 429) return; // the right one took the last slot: a sign-in one at a time would have let it in too
    expect((await signIn('the right password')).status).toBe(429);
    expect(driver.cookie).toBe('');
  });

  it('takes ui_locales and shows the pages in the first listed language they have, else the first supported (English only today)', async () => {
    expect((await service.http.get('/.well-known/openid-configuration')).body.ui_locales_supported).toEqual(['en']);
    for (const uiLocales of ['en', 'EN-gb', 'fr-CA en-US', 'de', undefined]) {
      const driver = new PageDriver(service);
      const signIn = await driver.get(
        authorizePath({ ...base(), scope: 'openid profile', prompt: 'consent', ui_locales: uiLocales }),
      );
      expect(signIn.status, uiLocales).toBe(200);
      expect(signIn.headers['content-language']).toBe('en');
      expect(signIn.text).toContain('<html lang="en">');
      const interaction = interactionOf(signIn.text);
      const signUp = await driver.get(`/api/auth/oidc/signup?interaction=${interaction}`);
      expect(signUp.headers['content-language']).toBe('en');
      const consent = await driver.post('/api/auth/oidc/login', {
        interaction,
        email: service.demo.account.email,
        password: service.demo.account.password,
      });
      expect(consent.text).toContain('value="allow"');
      expect(consent.headers['content-language']).toBe('en');
    }
  });

  it('ignores unknown parameters, echoes state unchanged and adds iss', async () => {
    const { location, state } = await authorize({ foo: 'bar', ui_locales: 'fr' });
    expect(location.searchParams.get('state')).toBe(state);
    expect(location.searchParams.get('iss')).toBe(service.url);
    expect(location.searchParams.get('code')).toBeTruthy();
  });

  it('echoes state exactly, percent-encoded (%20 for a space, never +), on success and error redirects', async () => {
    const state = 'a b+c&d=e%f/é?';
    const stateIn = (location: string) => /[?&]state=([^&]*)/.exec(location)?.[1];
    const success = await authorize({ state });
    expect(stateIn(success.raw)).toBe(encodeURIComponent(state));
    expect(success.location.searchParams.get('state')).toBe(state);
    for (const change of [{ response_type: 'token' }, { scope: 'openid mcp' }, { prompt: 'none' }]) {
      const failure = await service.http.get(authorizePath({ ...base(), ...change, state }));
      expect(failure.status).toBe(303);
      const raw = failure.headers.location as string;
      expect(stateIn(raw)).toBe(encodeURIComponent(state));
      expect(raw.split('?')[1]).not.toContain('+');
      expect(new URL(raw).searchParams.get('state')).toBe(state);
    }
  });

  it("lets the sign-in and consent pages' forms end at the client's redirect URI only (CSP form-action)", async () => {
    // Browsers apply form-action to the redirects after a form post: with 'self' alone, Chromium
    // stopped every app on another origin from getting its code (mod_auth_openidc's test found it).
    const other = client.redirect_uris.find((uri) => new URL(uri).origin !== service.url)!;
    const formAction = (res: { headers: Record<string, unknown> }) =>
      /form-action ([^;]*)/.exec(String(res.headers['content-security-policy']))?.[1];
    const driver = new PageDriver(service);
    let res = await driver.get(
      authorizePath({ ...base(), redirect_uri: other, scope: 'openid profile', prompt: 'consent' }),
    );
    expect(res.text).toContain('name="password"');
    expect(formAction(res)).toBe(`'self' ${new URL(other).origin}`);
    res = await driver.post('/api/auth/oidc/login', {
      interaction: interactionOf(res.text),
      email: service.demo.account.email,
      password: service.demo.account.password,
    });
    expect(res.text).toContain('value="allow"');
    expect(formAction(res)).toBe(`'self' ${new URL(other).origin}`);
    // Pages of no request (and error pages) keep forms to our origin.
    expect(formAction(await driver.get('/api/auth/oidc/forgot-password'))).toBe("'self'");
    expect(formAction(await driver.get(authorizePath({ ...base(), redirect_uri: 'https://evil.example/cb' })))).toBe(
      "'self'",
    );
  });

  it('redirects with access_denied when the person denies', async () => {
    const driver = new PageDriver(service);
    let res = await driver.get(authorizePath({ ...base(), scope: 'openid profile doctor_license', prompt: 'consent' }));
    res = await driver.post('/api/auth/oidc/login', {
      interaction: interactionOf(res.text),
      email: service.demo.account.email,
      password: service.demo.account.password,
    });
    expect(res.text).toContain('value="deny"');
    res = await driver.post('/api/auth/oidc/consent', { interaction: interactionOf(res.text), decision: 'deny' });
    const location = new URL(res.headers.location as string);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('abc');
  });

  it('rejects a wrong password on the page and keeps the request', async () => {
    const driver = new PageDriver(service);
    const page = await driver.get(authorizePath(base()));
    const res = await driver.post('/api/auth/oidc/login', {
      interaction: interactionOf(page.text),
      email: service.demo.account.email,
      password: 'wrong',
    });
    expect(res.status).toBe(401);
    expect(res.text).toContain('Wrong email or password');
    expect(driver.cookie).toBe('');
  });

  it('answers prompt=none from a signed-in browser without pages, and honours max_age', async () => {
    const first = await authorize();
    const silent = await first.driver.get(
      authorizePath({ ...base(), scope: 'openid profile verifications', prompt: 'none' }),
    );
    expect(silent.status).toBe(303);
    expect(new URL(silent.headers.location as string).searchParams.get('code')).toBeTruthy();
    clock.advance(120_000);
    const stale = await first.driver.get(
      authorizePath({ ...base(), scope: 'openid profile verifications', max_age: '60' }),
    );
    expect(stale.status).toBe(200);
    expect(stale.text).toContain('name="password"');
    const staleSilent = await first.driver.get(
      authorizePath({ ...base(), scope: 'openid profile verifications', max_age: '60', prompt: 'none' }),
    );
    expect(new URL(staleSilent.headers.location as string).searchParams.get('error')).toBe('login_required');
  });
});

describe('token endpoint', () => {
  it('exchanges a code for tokens with a valid id_token (form body, client_secret_post)', async () => {
    const { code, verifier, nonce } = await authorize();
    const res = await exchange(code, verifier);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 900, scope: 'openid profile verifications' });
    const jwks = createRemoteJWKSet(new URL(`${service.url}/api/auth/oidc/jwks.json`));
    const { payload, protectedHeader } = await jwtVerify(res.body.id_token, jwks, {
      issuer: service.url,
      audience: client.client_id,
      currentDate: clock.now(),
    });
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload.sub).toBe(service.demo.account.svc_id);
    expect(payload.nonce).toBe(nonce);
    expect(payload.at_hash).toBe(atHash(res.body.access_token));
    for (const claim of ['exp', 'iat', 'auth_time']) expect(typeof (payload as JWTPayload)[claim]).toBe('number');
  });

  it('takes JSON bodies and client_secret_basic with URL-encoded credentials', async () => {
    const { code, verifier } = await authorize();
    const basic = Buffer.from(
      `${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`,
    ).toString('base64');
    const res = await service.http
      .post('/api/auth/oidc/token')
      .set('Authorization', `Basic ${basic}`)
      .send({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier });
    expect(res.status).toBe(200);
    expect(res.body.access_token).toBeTruthy();
  });

  it("answers token errors in the client's dialect: RFC 6749 5.2 to a form body, the envelope to JSON", async () => {
    const wrong = {
      grant_type: 'authorization_code',
      code: 'x',
      redirect_uri: redirectUri,
      client_id: client.client_id,
      client_secret: 'wrong',
    };
    const form = await token(wrong);
    expect(form.status).toBe(401);
    expect(form.headers['cache-control']).toBe('no-store');
    expect(form.body).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
    const json = await service.http.post('/api/auth/oidc/token').send(wrong);
    expect(json.status).toBe(401);
    expect(json.body).toMatchObject({ success: false, error: { code: 'invalid_client' } });
    const basic = await service.http
      .post('/api/auth/oidc/token')
      .set('Authorization', `Basic ${Buffer.from(`${client.client_id}:nope`).toString('base64')}`)
      .type('form')
      .send({ grant_type: 'refresh_token', refresh_token: 'x' });
    expect(basic.status).toBe(401);
    expect(basic.headers['www-authenticate']).toContain('Basic');
    expect(basic.body.error).toBe('invalid_client');
    // a JSON body that does not parse is invalid_request, not validation_error
    const broken = await service.http
      .post('/api/auth/oidc/token')
      .set('Content-Type', 'application/json')
      .send('{"grant_type": ');
    expect(broken.status).toBe(400);
    expect(broken.body).toMatchObject({ success: false, error: { code: 'invalid_request' } });
    const grant = await service.http.post('/api/auth/oidc/token').send({
      grant_type: 'refresh_token',
      refresh_token: 'nope',
      client_id: client.client_id,
      client_secret: client.client_secret,
    });
    expect(grant.body.error.code).toBe('invalid_grant');
  });

  it('answers unsupported_grant_type and invalid_request', async () => {
    const creds = { client_id: client.client_id, client_secret: client.client_secret };
    expect((await token({ ...creds, grant_type: 'password' })).body.error).toBe('unsupported_grant_type');
    expect((await token({ ...creds, grant_type: 'authorization_code' })).body.error).toBe('invalid_request');
    expect((await token({ ...creds })).body.error).toBe('invalid_request');
  });

  it('uses a code once; a replay gets invalid_grant and revokes what the code issued', async () => {
    const { code, verifier } = await authorize();
    const first = await exchange(code, verifier);
    expect(first.status).toBe(200);
    expect(
      (await service.http.get('/api/auth/oidc/userinfo').set('Authorization', `Bearer ${first.body.access_token}`))
        .status,
    ).toBe(200);
    const replay = await exchange(code, verifier);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    expect(
      (await service.http.get('/api/auth/oidc/userinfo').set('Authorization', `Bearer ${first.body.access_token}`))
        .status,
    ).toBe(401);
    expect(
      (
        await token({
          grant_type: 'refresh_token',
          refresh_token: first.body.refresh_token,
          client_id: client.client_id,
          client_secret: client.client_secret,
        })
      ).body.error,
    ).toBe('invalid_grant');
  });

  it('binds codes to the redirect URI, the PKCE verifier and about two minutes', async () => {
    const a = await authorize();
    expect((await exchange(a.code, a.verifier, { redirect_uri: client.redirect_uris[1]! })).body.error).toBe(
      'invalid_grant',
    );
    const b = await authorize();
    expect((await exchange(b.code, pkce().verifier)).body.error).toBe('invalid_grant');
    const c = await authorize();
    clock.advance(121_000);
    expect((await exchange(c.code, c.verifier)).body.error).toBe('invalid_grant');
  });

  it("refuses another client's code", async () => {
    const other = await service.core.tenancy.createOidcClient({
      projectId: service.demo.project_id,
      name: 'Other',
      redirectUris: [redirectUri],
    });
    const { code, verifier } = await authorize();
    const res = await exchange(code, verifier, { client_id: other.client.clientId, client_secret: other.clientSecret });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });
});

describe('refresh tokens', () => {
  const refresh = (refreshToken: string, creds = client) =>
    token({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: creds.client_id,
      client_secret: creds.client_secret,
    });

  it('rotate on every use; a replay revokes every refresh token of that user and client', async () => {
    const { code, verifier } = await authorize();
    const first = (await exchange(code, verifier)).body;
    const second = await refresh(first.refresh_token);
    expect(second.status).toBe(200);
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    expect(decodeJwt(second.body.id_token).sub).toBe(service.demo.account.svc_id);
    // A parallel sign-in of the same user and client.
    const other = await authorize();
    const parallel = (await exchange(other.code, other.verifier)).body;

    const replay = await refresh(first.refresh_token);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    expect((await refresh(second.body.refresh_token)).body.error).toBe('invalid_grant');
    expect((await refresh(parallel.refresh_token)).body.error).toBe('invalid_grant');
  });

  it('rotates in the one row of its sign-in; an older token than the last is a replay too, a made-up secret is no token', async () => {
    const { code, verifier } = await authorize();
    const first = (await exchange(code, verifier)).body;
    // a token names its sign-in's row after the dot; a wrong secret under a row that never rotated was never issued,
    // and spends nothing
    const rowId = first.refresh_token.slice(first.refresh_token.lastIndexOf('.') + 1);
    const forged = await refresh(`vr_madeup.${rowId}`);
    expect(forged.body.error).toBe('invalid_grant');
    expect((await refresh('vr_issued_before_rows_were_named')).body.error).toBe('invalid_grant');
    const second = (await refresh(first.refresh_token)).body;
    const third = (await refresh(second.refresh_token)).body;
    expect(third.refresh_token).toMatch(new RegExp(`^vr_[A-Za-z0-9_-]+\\.${rowId}$`));
    const rows = await sql<{ id: string }>(
      service,
      'select id from refresh_token where grant_id = (select grant_id from refresh_token where id = ?)',
      [rowId],
    );
    expect(rows).toEqual([{ id: rowId }]);
    // two rotations back: still a replay, which ends the sign-in
    expect((await refresh(first.refresh_token)).body.error).toBe('invalid_grant');
    expect((await refresh(third.refresh_token)).body.error).toBe('invalid_grant');
    expect(
      (await service.http.get('/api/auth/oidc/userinfo').set('Authorization', `Bearer ${third.access_token}`)).status,
    ).toBe(401);
  });

  it('tells a guessed secret under a known row id from a replay: the guess revokes nothing, a real earlier token the sign-in', async () => {
    const { code, verifier } = await authorize();
    const first = (await exchange(code, verifier)).body;
    const second = (await refresh(first.refresh_token)).body;
    const rowId = second.refresh_token.slice(second.refresh_token.lastIndexOf('.') + 1);
    const userinfoStatus = async (accessToken: string) =>
      (await service.http.get('/api/auth/oidc/userinfo').set('Authorization', `Bearer ${accessToken}`)).status;
    // the row has rotated and its id is in every token the sign-in was given: a made-up secret under it is a guess
    const guess = await refresh(`vr_${'A'.repeat(43)}.${rowId}`);
    expect(guess.status).toBe(400);
    expect(guess.body).toEqual({
      error: 'invalid_grant',
      error_description: 'the refresh token is invalid or was issued to another client',
    });
    const revoked = await service.http
      .post('/api/auth/oidc/revoke')
      .type('form')
      .send({ token: `vr_guess.${rowId}`, client_id: client.client_id, client_secret: client.client_secret });
    expect(revoked.status).toBe(200);
    // nothing was revoked: the sign-in goes on
    expect(await userinfoStatus(second.access_token)).toBe(200);
    const third = await refresh(second.refresh_token);
    expect(third.status).toBe(200);
    // a real token rotated away two refreshes ago is a replay: every token of the sign-in ends
    const replay = await refresh(first.refresh_token);
    expect(replay.body.error_description).toContain('already used');
    expect(await userinfoStatus(third.body.access_token)).toBe(401);
    expect((await refresh(third.body.refresh_token)).body.error).toBe('invalid_grant');
  });

  it("rejects another client's refresh token", async () => {
    const other = await service.core.tenancy.createOidcClient({
      projectId: service.demo.project_id,
      name: 'Other RP',
      redirectUris: [redirectUri],
    });
    const { code, verifier } = await authorize();
    const tokens = (await exchange(code, verifier)).body;
    const res = await refresh(tokens.refresh_token, {
      client_id: other.client.clientId,
      client_secret: other.clientSecret,
      redirect_uris: [],
    });
    expect(res.body.error).toBe('invalid_grant');
    expect((await refresh(tokens.refresh_token)).status).toBe(200);
  });

  it('narrows the scopes on request, never widens them, and a refused widening leaves the token usable', async () => {
    const { code, verifier } = await authorize();
    const first = (await exchange(code, verifier)).body;
    expect(first.scope).toBe('openid profile verifications');
    const narrowed = await token({
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
      scope: 'openid',
      client_id: client.client_id,
      client_secret: client.client_secret,
    });
    expect(narrowed.status).toBe(200);
    expect(narrowed.body.scope).toBe('openid');
    expect(decodeJwt(narrowed.body.id_token).email).toBeUndefined();
    const widened = await token({
      grant_type: 'refresh_token',
      refresh_token: narrowed.body.refresh_token,
      scope: 'openid profile',
      client_id: client.client_id,
      client_secret: client.client_secret,
    });
    expect(widened.status).toBe(400);
    expect(widened.body.error).toBe('invalid_scope');
    const again = await refresh(narrowed.body.refresh_token);
    expect(again.status).toBe(200);
    expect(again.body.scope).toBe('openid');
  });

  it('refuses a NUL in a parameter with a 400, before the code or token is spent', async () => {
    const { code, verifier } = await authorize();
    const bad = await exchange(code, verifier, { redirect_uri: `${redirectUri}\u0000` });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('invalid_request');
    const good = await exchange(code, verifier);
    expect(good.status).toBe(200);
    const scoped = await token({
      grant_type: 'refresh_token',
      refresh_token: good.body.refresh_token,
      scope: 'openid\u0000',
      client_id: client.client_id,
      client_secret: client.client_secret,
    });
    expect(scoped.status).toBe(400);
    expect(scoped.body.error).toBe('invalid_request');
    expect((await refresh(good.body.refresh_token)).status).toBe(200);
  });

  it('lets exactly one of several concurrent refreshes of one token win', async () => {
    const { code, verifier } = await authorize();
    const tokens = (await exchange(code, verifier)).body;
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => refresh(tokens.refresh_token)));
    expect(results.filter((res) => res.status === 200)).toHaveLength(1);
    for (const res of results.filter((r) => r.status !== 200)) expect(res.body.error).toBe('invalid_grant');
  });
});

describe('grants arriving together', () => {
  // Exchanges and refreshes that arrive at once are answered by one statement each (a group
  // commit): every answer must still carry its own request's tokens, nonce and scopes.
  it('answers each of many concurrent code exchanges and refreshes with its own tokens', async () => {
    // One browser signed in (six sign-ins at once would be more than the throttle checks at once): six codes at once.
    const { driver } = await authorize();
    const signIns = await Promise.all([0, 1, 2, 3, 4, 5].map(() => authorize({}, driver)));
    const exchanged = await Promise.all(signIns.map(({ code, verifier }) => exchange(code, verifier)));
    for (const [i, res] of exchanged.entries()) {
      expect(res.status, res.text).toBe(200);
      const claims = decodeJwt(res.body.id_token);
      expect(claims.nonce).toBe(signIns[i]!.nonce);
      expect(claims.at_hash).toBe(atHash(res.body.access_token));
    }
    expect(new Set(exchanged.map((res) => res.body.refresh_token)).size).toBe(6);

    const asked = [
      'openid',
      'openid profile',
      undefined,
      'openid verifications',
      'openid profile verifications',
      'openid',
    ];
    const refreshed = await Promise.all(
      exchanged.map((res, i) =>
        token({
          grant_type: 'refresh_token',
          refresh_token: res.body.refresh_token,
          client_id: client.client_id,
          client_secret: client.client_secret,
          ...(asked[i] ? { scope: asked[i] } : {}),
        }),
      ),
    );
    for (const [i, res] of refreshed.entries()) {
      expect(res.status, res.text).toBe(200);
      expect(res.body.scope).toBe(asked[i] ?? 'openid profile verifications');
      const claims = decodeJwt(res.body.id_token);
      expect(claims.at_hash).toBe(atHash(res.body.access_token));
      expect(claims.email !== undefined).toBe(res.body.scope.includes('profile'));
      const introspected = await service.http
        .post('/api/auth/oidc/introspect')
        .type('form')
        .send({ client_id: client.client_id, client_secret: client.client_secret, token: res.body.access_token });
      expect(introspected.body).toMatchObject({ active: true, scope: res.body.scope });
    }
    // Each old token was rotated once, by its own request: presented again, it is a replay.
    expect(
      (
        await token({
          grant_type: 'refresh_token',
          refresh_token: exchanged[0]!.body.refresh_token,
          client_id: client.client_id,
          client_secret: client.client_secret,
        })
      ).body.error,
    ).toBe('invalid_grant');
  });
});

describe('revocation (RFC 7009) and introspection (RFC 7662)', () => {
  const creds = () => ({ client_id: client.client_id, client_secret: client.client_secret });
  const introspect = (token: string, as: Record<string, string> = creds()) =>
    service.http
      .post('/api/auth/oidc/introspect')
      .type('form')
      .send({ ...as, token });
  const revoke = (token: string, as: Record<string, string> = creds()) =>
    service.http
      .post('/api/auth/oidc/revoke')
      .type('form')
      .send({ ...as, token });

  it('are in discovery', async () => {
    const doc = (await service.http.get('/.well-known/openid-configuration')).body;
    expect(doc).toMatchObject({
      revocation_endpoint: `${service.url}/api/auth/oidc/revoke`,
      introspection_endpoint: `${service.url}/api/auth/oidc/introspect`,
    });
  });

  it("introspect only the client's own live tokens; another client learns nothing and revokes nothing", async () => {
    const { code, verifier } = await authorize();
    const tokens = (await exchange(code, verifier)).body;
    const access = await introspect(tokens.access_token);
    expect(access.status).toBe(200);
    expect(access.headers['cache-control']).toBe('no-store');
    expect(access.body).toMatchObject({
      active: true,
      token_type: 'Bearer',
      client_id: client.client_id,
      sub: service.demo.account.svc_id,
      scope: 'openid profile verifications',
      iss: service.url,
    });
    expect(access.body.exp - access.body.iat).toBe(900);
    expect((await introspect(tokens.refresh_token)).body).toMatchObject({
      active: true,
      token_type: 'refresh_token',
      sub: service.demo.account.svc_id,
    });
    expect((await introspect('vt_unknown')).body).toEqual({ active: false });

    const other = await service.core.tenancy.createOidcClient({
      projectId: service.demo.project_id,
      name: 'Nosy app',
      redirectUris: [redirectUri],
    });
    const nosy = { client_id: other.client.clientId, client_secret: other.clientSecret };
    expect((await introspect(tokens.access_token, nosy)).body).toEqual({ active: false });
    expect((await revoke(tokens.refresh_token, nosy)).status).toBe(200);
    expect((await introspect(tokens.refresh_token)).body.active).toBe(true); // untouched

    const wrong = await introspect(tokens.access_token, { client_id: client.client_id, client_secret: 'wrong' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
    const missing = await service.http.post('/api/auth/oidc/introspect').send(creds()); // JSON: the envelope
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe('invalid_request');
  });

  it("revoking a refresh token ends its sign-in's access tokens too; revoking an access token leaves the refresh token", async () => {
    const first = await authorize();
    const a = (await exchange(first.code, first.verifier)).body;
    expect((await revoke(a.access_token)).status).toBe(200);
    expect((await introspect(a.access_token)).body).toEqual({ active: false });
    expect(
      (await service.http.get('/api/auth/oidc/userinfo').set('Authorization', `Bearer ${a.access_token}`)).status,
    ).toBe(401);
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: a.refresh_token, ...creds() });
    expect(refreshed.status).toBe(200);

    expect((await revoke(refreshed.body.refresh_token)).status).toBe(200);
    expect((await introspect(refreshed.body.refresh_token)).body).toEqual({ active: false });
    expect((await introspect(refreshed.body.access_token)).body).toEqual({ active: false });
    expect(
      (await token({ grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token, ...creds() })).body
        .error,
    ).toBe('invalid_grant');
    expect((await revoke(refreshed.body.refresh_token)).status).toBe(200); // again: still 200
  });
});

describe('logout', () => {
  it('revokes the tokens and redirects only to a registered URI, echoing state', async () => {
    const { code, verifier, driver } = await authorize();
    const tokens = (await exchange(code, verifier)).body;
    const open = await service.http.get(
      `/api/auth/oidc/logout?${new URLSearchParams({ id_token_hint: tokens.id_token, post_logout_redirect_uri: 'https://evil.example.com/' })}`,
    );
    expect(open.status).toBe(400);
    expect(open.headers.location).toBeUndefined();
    const tampered = tokens.id_token.slice(0, -4) + (tokens.id_token.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    expect(
      (
        await service.http.get(
          `/api/auth/oidc/logout?${new URLSearchParams({ id_token_hint: tampered, post_logout_redirect_uri: redirectUri })}`,
        )
      ).status,
    ).toBe(400);

    clock.advance(3600_000); // the hint is expired by now, which logout accepts
    const res = await driver.get(
      `/api/auth/oidc/logout?${new URLSearchParams({ id_token_hint: tokens.id_token, post_logout_redirect_uri: redirectUri, state: 'bye now' })}`,
    );
    expect(res.status).toBe(303);
    const location = new URL(res.headers.location as string);
    expect(`${location.origin}${location.pathname}`).toBe(redirectUri);
    expect(location.searchParams.get('state')).toBe('bye now');
    expect(res.headers.location).toContain('state=bye%20now');
    expect(driver.cookie).toBe('');
    expect(
      (
        await token({
          grant_type: 'refresh_token',
          refresh_token: tokens.refresh_token,
          client_id: client.client_id,
          client_secret: client.client_secret,
        })
      ).body.error,
    ).toBe('invalid_grant');
  });

  it('with only an id_token_hint and no sign-in of its person in the browser, asks first and revokes nothing until the person confirms', async () => {
    const { code, verifier } = await authorize();
    const tokens = (await exchange(code, verifier)).body;
    const userinfoStatus = async () =>
      (await service.http.get('/api/auth/oidc/userinfo').set('Authorization', `Bearer ${tokens.access_token}`)).status;
    const query = new URLSearchParams({
      id_token_hint: tokens.id_token,
      post_logout_redirect_uri: redirectUri,
      state: 'bye',
    });
    // Another site sends a browser that is not signed in here (or an img tag fetches the URL): a page, no redirect,
    // nothing revoked.
    const stranger = new PageDriver(service);
    const asked = await stranger.get(`/api/auth/oidc/logout?${query}`);
    expect(asked.status).toBe(200);
    expect(asked.headers.location).toBeUndefined();
    expect(asked.text).toContain('Sign out?');
    expect(asked.text).toContain('action="/api/auth/oidc/logout"');
    expect(asked.text).toContain(`name="id_token_hint" value="${tokens.id_token}"`);
    expect(asked.headers['content-security-policy']).toContain(`form-action 'self' ${new URL(redirectUri).origin}`);
    expect(await userinfoStatus()).toBe(200);
    // Someone else signed in to the browser: asked too.
    await service.core.accounts.createAccount({
      email: 'other-signed-in@example.com',
      password: 'another good password',
    });
    const otherDriver = new PageDriver(service);
    const page = await otherDriver.get(
      authorizePath({
        client_id: client.client_id,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: 'openid',
        state: 's',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      }),
    );
    await otherDriver.post('/api/auth/oidc/login', {
      interaction: interactionOf(page.text),
      email: 'other-signed-in@example.com',
      password: 'another good password',
    });
    expect(otherDriver.cookie).toMatch(/^verity_session=/);
    expect((await otherDriver.get(`/api/auth/oidc/logout?${query}`)).text).toContain('Sign out?');
    // A cross-site form post cannot confirm: it lacks the browser's CSRF token.
    const forged = await service.http.post('/api/auth/oidc/logout').type('form').send(Object.fromEntries(query));
    expect(forged.status).toBe(403);
    expect(await userinfoStatus()).toBe(200);
    // The person says yes: revoked, then sent back with the state.
    const confirmed = await stranger.post('/api/auth/oidc/logout', Object.fromEntries(query));
    expect(confirmed.status).toBe(303);
    const location = new URL(confirmed.headers.location as string);
    expect(`${location.origin}${location.pathname}`).toBe(redirectUri);
    expect(location.searchParams.get('state')).toBe('bye');
    expect(await userinfoStatus()).toBe(401);
    expect(
      (
        await token({
          grant_type: 'refresh_token',
          refresh_token: tokens.refresh_token,
          client_id: client.client_id,
          client_secret: client.client_secret,
        })
      ).body.error,
    ).toBe('invalid_grant');
  });

  it('without an id_token_hint: a signed-in browser is asked before its sign-in ends, one signed out is told so', async () => {
    const { driver } = await authorize();
    const asked = await driver.get('/api/auth/oidc/logout');
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('Sign out?');
    expect(driver.cookie).toMatch(/^verity_session=/);
    const confirmed = await driver.post('/api/auth/oidc/logout', {});
    expect(confirmed.status).toBe(200);
    expect(confirmed.text).toContain('You are signed out of Verity.');
    expect(driver.cookie).toBe('');
    expect((await driver.get('/api/auth/oidc/logout')).text).toContain('You are signed out of Verity.');
  });
});

describe('account reads', () => {
  it('serves userinfo (GET and POST) with profile, never identity data; 403 without the scope', async () => {
    await service.core.accounts.recordVerifiedIdentity({
      svcId: service.demo.account.svc_id,
      fullName: 'Dana Demo',
      dateOfBirth: '1988-04-05',
      documentNumber: 'X1234567',
      address: '1 Main St',
    });
    const { code, verifier } = await authorize();
    const tokens = (await exchange(code, verifier)).body;
    for (const method of ['get', 'post'] as const) {
      const res = await service.http[method]('/api/auth/oidc/userinfo')
        .set('Authorization', `Bearer ${tokens.access_token}`)
        .set('Accept', 'application/json');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        sub: service.demo.account.svc_id,
        svc_id: service.demo.account.svc_id,
        preferred_username: service.demo.account.email,
        email: service.demo.account.email,
        email_verified: false,
        name: 'Dana Demo',
        id_verified: true,
      });
    }
    const narrow = await authorize({ scope: 'openid' });
    const narrowTokens = (await exchange(narrow.code, narrow.verifier)).body;
    const forbidden = await service.http
      .get('/api/auth/oidc/userinfo')
      .set('Authorization', `Bearer ${narrowTokens.access_token}`);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('insufficient_scope');
    expect(
      (
        await service.http
          .get('/api/auth/oidc/verifications')
          .set('Authorization', `Bearer ${narrowTokens.access_token}`)
      ).status,
    ).toBe(403);
    expect(
      (await service.http.get('/api/auth/oidc/licenses').set('Authorization', `Bearer ${narrowTokens.access_token}`))
        .status,
    ).toBe(200);

    const verifications = await service.http
      .get('/api/auth/oidc/verifications')
      .set('Authorization', `Bearer ${tokens.access_token}`);
    expect(verifications.body).toEqual({
      success: true,
      data: { verifications: { human_verified: true, id_verified: true, licenses: [] } },
      error: null,
    });
    const licenses = await service.http
      .get('/api/auth/oidc/licenses')
      .set('Authorization', `Bearer ${tokens.access_token}`);
    expect(licenses.body.data).toEqual({ licenses: [] });
    // email_verified goes with email, in the id_token as in userinfo (the demo account never followed a verification
    // link: false)
    expect(decodeJwt(tokens.id_token)).toMatchObject({ email: service.demo.account.email, email_verified: false });
    const everything = JSON.stringify([verifications.body, licenses.body]) + JSON.stringify(decodeJwt(tokens.id_token));
    // The birth date in each form it could take, not its year alone: random ids and the test's
    // nonce ('n-0.0739198877...') hold '1988' by chance.
    for (const raw of ['1988-04-05', '05/04/1988', '04/05/1988', '19880405', '880405', 'X1234567', 'Main St'])
      expect(everything).not.toContain(raw);
    expect((await service.http.get('/api/auth/oidc/userinfo')).status).toBe(401);
  });

  it('says how to authenticate on every 401 and 403 of the bearer routes (RFC 6750 section 3)', async () => {
    const none = await service.http.get('/api/auth/oidc/userinfo');
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="verity"');
    const bad = await service.http.get('/api/auth/oidc/licenses').set('Authorization', 'Bearer not-a-token');
    expect(bad.status).toBe(401);
    expect(bad.headers['www-authenticate']).toMatch(
      /^Bearer realm="verity", error="invalid_token", error_description="[^"]+"$/,
    );
    const narrow = await authorize({ scope: 'openid' });
    const narrowTokens = (await exchange(narrow.code, narrow.verifier)).body;
    for (const [path, scope] of [
      ['/api/auth/oidc/userinfo', 'profile'],
      ['/api/auth/oidc/verifications', 'verifications'],
    ] as const) {
      const res = await service.http.get(path).set('Authorization', `Bearer ${narrowTokens.access_token}`);
      expect(res.status).toBe(403);
      expect(res.headers['www-authenticate']).toMatch(
        new RegExp(`^Bearer realm="verity", error="insufficient_scope", error_description="[^"]+", scope="${scope}"$`),
      );
    }
  });
});
