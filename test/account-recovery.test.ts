import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/core/clock.js';
import { authorizePath, interactionOf, PageDriver, pkce } from './helpers/oidc.js';
import { sql, startTestService, type TestService } from './helpers/service.js';

// Sign-up's verification link, sign-up that does not tell which addresses have accounts, and
// password reset by a single-use emailed link: through the pages and the token endpoint, with
// the development outbox as the mailbox.

const clock = new ManualClock(new Date());
let service: TestService;
let client: { client_id: string; client_secret: string; redirect_uris: string[] };

beforeAll(async () => {
  service = await startTestService({}, { clock });
  client = service.demo.oidc;
});
afterAll(async () => {
  await service?.close();
});

/** A fresh browser on the sign-in page of a new authorization request. */
async function signInPage(driver = new PageDriver(service)) {
  const { verifier, challenge } = pkce();
  const res = await driver.get(
    authorizePath({
      client_id: client.client_id,
      redirect_uri: client.redirect_uris[0],
      response_type: 'code',
      scope: 'openid profile',
      state: 's',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }),
  );
  return { driver, verifier, interaction: interactionOf(res.text) };
}

/** Signs in through the pages and exchanges the code: the token response (or the failing page). */
async function login(email: string, password: string) {
  const { driver, verifier, interaction } = await signInPage();
  let res = await driver.post('/api/auth/oidc/login', { interaction, email, password });
  if (res.status === 200 && res.text.includes('value="allow"'))
    res = await driver.post('/api/auth/oidc/consent', { interaction: interactionOf(res.text), decision: 'allow' });
  if (res.status !== 303) return { status: res.status, tokens: null, driver };
  const code = new URL(res.headers.location as string).searchParams.get('code')!;
  const tokens = await service.http.post('/api/auth/oidc/token').type('form').send({
    grant_type: 'authorization_code',
    code,
    redirect_uri: client.redirect_uris[0],
    code_verifier: verifier,
    client_id: client.client_id,
    client_secret: client.client_secret,
  });
  expect(tokens.status).toBe(200);
  return {
    status: 303,
    tokens: tokens.body as { access_token: string; refresh_token: string; id_token: string },
    driver,
  };
}

const userinfo = (accessToken: string) =>
  service.http.get('/api/auth/oidc/userinfo').set('Authorization', `Bearer ${accessToken}`);
const mails = (to: string) => service.core.mail.outbox.list({ to });
const linkIn = (text: string, path: string) =>
  new RegExp(`http://verity\\.test(/api/auth/oidc/${path}\\?token=[^\\s]+)`).exec(text)?.[1];

async function signUp(email: string, password: string) {
  const { driver, interaction } = await signInPage();
  return driver.post('/api/auth/oidc/signup', { interaction, email, password, name: 'Nell' });
}

describe('sign-up and email verification', () => {
  it('mails a verification link; the account signs in unverified (email_verified false) until the link is followed', async () => {
    const email = 'nell@example.com';
    const res = await signUp(email, 'nell first password');
    expect(res.status).toBe(200);
    expect(res.text).toContain('We sent a message to nell@example.com');
    expect(res.text).toContain('name="password"'); // the sign-in form, to continue the request
    const [mail] = await mails(email);
    expect(mail!.subject).toBe('Confirm your email address for Verity');
    const link = linkIn(mail!.text, 'verify-email')!;
    expect(link).toBeTruthy();
    // stored as a digest only
    const secret = new URL(link, 'http://x').searchParams.get('token')!;
    expect(JSON.stringify(await sql(service, 'select * from account_link'))).not.toContain(secret);

    const before = await login(email, 'nell first password');
    expect(before.status).toBe(303);
    expect((await userinfo(before.tokens!.access_token)).body).toMatchObject({ email, email_verified: false });
    expect(decodeJwt(before.tokens!.id_token)).toMatchObject({ email, email_verified: false });

    const followed = await service.http.get(link);
    expect(followed.status).toBe(200);
    expect(followed.text).toContain('Email address confirmed');
    expect((await service.http.get(link)).status).toBe(200); // again: same answer (mail scanners open links first)
    expect((await userinfo(before.tokens!.access_token)).body.email_verified).toBe(true);
    const after = await login(email, 'nell first password');
    expect(decodeJwt(after.tokens!.id_token)).toMatchObject({ email, email_verified: true });
  });

  it('refuses a verification link that is unknown or older than 24 hours', async () => {
    await signUp('late@example.com', 'late person password');
    const link = linkIn((await mails('late@example.com'))[0]!.text, 'verify-email')!;
    expect((await service.http.get('/api/auth/oidc/verify-email?token=ve_not-a-real-one')).status).toBe(400);
    clock.advance(24 * 3600_000);
    const res = await service.http.get(link);
    expect(res.status).toBe(400);
    expect(res.text).toContain('invalid, used or expired');
    const [account] = await sql<{ email_verified_at: Date | null }>(
      service,
      'select email_verified_at from account where email = ?',
      ['late@example.com'],
    );
    expect(account!.email_verified_at).toBeNull();
  });

  it('answers sign-up with a taken address exactly as with a new one, and mails the owner instead', async () => {
    const { email, password } = service.demo.account;
    const fresh = await signUp('brand-new@example.com', 'another fine password');
    const taken = await signUp(email, 'attacker chosen pass');
    expect(taken.status).toBe(fresh.status);
    const normalize = (html: string, address: string) =>
      html.replaceAll(address, 'EMAIL').replace(/(value="|interaction=)[A-Za-z0-9_-]{20,}/g, '$1X');
    expect(normalize(taken.text, email)).toBe(normalize(fresh.text, 'brand-new@example.com'));
    expect(Object.keys(taken.headers).sort()).toEqual(Object.keys(fresh.headers).sort());
    // no account, no password change: the owner's password still works, the attempt's does not
    expect(await service.core.accounts.checkPassword(email, 'attacker chosen pass')).toBeNull();
    expect(await service.core.accounts.checkPassword(email, password)).not.toBeNull();
    const [notice] = await mails(email);
    expect(notice!.subject).toBe('Someone tried to create a Verity account with your address');
    expect(notice!.text).toContain('/api/auth/oidc/forgot-password');
    // a validation error reads the same for both too
    expect((await signUp(email, 'short')).status).toBe(400);
  });
});

describe('password reset', () => {
  const email = 'forgetful@example.com';
  const oldPassword = 'my old password';
  const newPassword = 'a brand new passphrase';

  async function requestReset(address: string, driver = new PageDriver(service)) {
    const form = await driver.get('/api/auth/oidc/forgot-password');
    expect(form.status).toBe(200);
    return driver.post('/api/auth/oidc/forgot-password', { email: address });
  }

  it("needs the page's CSRF token, and answers the same whether the address has an account", async () => {
    await service.core.accounts.createAccount({ email, password: oldPassword });
    const forged = await new PageDriver(service).post('/api/auth/oidc/forgot-password', {
      email,
      csrf: 'A'.repeat(32),
    });
    expect(forged.status).toBe(403);
    const known = await requestReset(email);
    const unknown = await requestReset('nobody@example.com');
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(known.text.replaceAll(email, 'EMAIL')).toBe(unknown.text.replaceAll('nobody@example.com', 'EMAIL'));
    expect(await mails('nobody@example.com')).toHaveLength(0);
    expect(await mails(email)).toHaveLength(1);
    await requestReset(email); // within a minute: no second mail
    expect(await mails(email)).toHaveLength(1);
  });

  it('sets a new password under the policy with a single-use link, revokes every sign-in and proves the address', async () => {
    const before = await login(email, oldPassword);
    expect(before.status).toBe(303);
    const link = linkIn((await mails(email))[0]!.text, 'reset-password')!;
    const secret = new URL(link, 'http://x').searchParams.get('token')!;
    expect(JSON.stringify(await sql(service, 'select * from account_link'))).not.toContain(secret);

    const driver = new PageDriver(service);
    const page = await driver.get(link);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Choose a new password');
    expect(
      (
        await new PageDriver(service).post('/api/auth/oidc/reset-password', {
          token: secret,
          password: newPassword,
          csrf: 'B'.repeat(32),
        })
      ).status,
    ).toBe(403);
    const weak = await driver.post('/api/auth/oidc/reset-password', { token: secret, password: 'password12' });
    expect(weak.status).toBe(400);
    expect(weak.text).toContain('most common');
    const done = await driver.post('/api/auth/oidc/reset-password', { token: secret, password: newPassword });
    expect(done.status).toBe(200);
    expect(done.text).toContain('Password changed');

    // the refresh token and access token from before the reset are dead
    const refreshed = await service.http.post('/api/auth/oidc/token').type('form').send({
      grant_type: 'refresh_token',
      refresh_token: before.tokens!.refresh_token,
      client_id: client.client_id,
      client_secret: client.client_secret,
    });
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe('invalid_grant');
    expect((await userinfo(before.tokens!.access_token)).status).toBe(401);
    // and so is the browser session: prompt=none from that browser now needs a sign-in
    const silent = await before.driver.get(
      authorizePath({
        client_id: client.client_id,
        redirect_uri: client.redirect_uris[0],
        response_type: 'code',
        scope: 'openid',
        state: 's',
        prompt: 'none',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      }),
    );
    expect(new URL(silent.headers.location as string).searchParams.get('error')).toBe('login_required');
    // the old password no longer works, the new one does, and the address counts as verified
    expect((await login(email, oldPassword)).status).toBe(401);
    const after = await login(email, newPassword);
    expect(decodeJwt(after.tokens!.id_token)).toMatchObject({ email, email_verified: true });
    // the link worked once
    expect((await driver.get(link)).status).toBe(400);
    expect(
      (await driver.post('/api/auth/oidc/reset-password', { token: secret, password: 'yet another passphrase' }))
        .status,
    ).toBe(400);
    expect(await service.core.accounts.checkPassword(email, 'yet another passphrase')).toBeNull();
  });

  it('refuses a reset link after 15 minutes', async () => {
    clock.advance(120_000);
    await requestReset(email);
    const [latest] = await mails(email);
    const link = linkIn(latest!.text, 'reset-password')!;
    clock.advance(14 * 60_000);
    const driver = new PageDriver(service);
    expect((await driver.get(link)).status).toBe(200);
    clock.advance(60_000);
    expect((await driver.get(link)).status).toBe(400);
    const secret = new URL(link, 'http://x').searchParams.get('token')!;
    const late = await driver.post('/api/auth/oidc/reset-password', {
      token: secret,
      password: 'too late a passphrase',
    });
    expect(late.status).toBe(400);
    expect(late.text).toContain('invalid, used or expired');
    expect(await service.core.accounts.checkPassword(email, newPassword)).not.toBeNull();
  });
});
