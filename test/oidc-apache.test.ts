import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { decodeProtectedHeader } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { chromiumAvailable, launchChromium } from './helpers/browser.js';
import { checkedFetch, servedDocument } from './helpers/contract.js';
import { freePort, stopProcess } from './helpers/processes.js';
import { startListeningService, type ListeningService } from './helpers/service.js';

// Apache httpd with mod_auth_openidc (Debian's packages, a certified relying party that nobody
// here wrote) protects a loopback virtual host with our provider: a throwaway Apache with its own
// ServerRoot and config in a temp dir, not the system service. Chromium opens the protected
// page, signs in and consents on our pages, and comes back to a CGI script that echoes the
// claims mod_auth_openidc passes on. mod_auth_openidc itself does discovery, state, nonce, PKCE
// (S256), the iss check, the code exchange, id_token validation against our JWKS and userinfo.

const APACHE = process.env.APACHE_PATH ?? '/usr/sbin/apache2';
const MODULES = process.env.APACHE_MODULES ?? '/usr/lib/apache2/modules';
const apacheAvailable = existsSync(APACHE) && existsSync(path.join(MODULES, 'mod_auth_openidc.so'));
if (!apacheAvailable)
  console.info(
    `skipping the Apache mod_auth_openidc test: no ${APACHE} or ${MODULES}/mod_auth_openidc.so (apt-get install apache2 libapache2-mod-auth-openidc)`,
  );

interface Apache {
  url: string;
  dir: string;
  process: ChildProcess;
  client: { id: string; secret: string };
}

let service: ListeningService;
/** fetch whose JSON answers are checked against the OpenAPI document (helpers/contract.ts). */
let checked: typeof fetch;
let browser: Browser;
let apache: Apache;

/** The whoami script: what the relying party got, one `NAME=value` a line. */
const WHOAMI = `#!/bin/sh
printf 'Content-Type: text/plain\\r\\n\\r\\n'
printf 'REMOTE_USER=%s\\n' "$REMOTE_USER"
env | grep '^OIDC_CLAIM_' | sort
`;

function apacheConfig(dir: string, port: number, client: { id: string; secret: string }): string {
  const url = `http://127.0.0.1:${port}`;
  const asRoot = process.getuid?.() === 0;
  return `ServerRoot "${dir}"
ServerName 127.0.0.1
Listen 127.0.0.1:${port}
PidFile "${dir}/httpd.pid"
ErrorLog "${dir}/error.log"
LogLevel warn
${asRoot ? 'User www-data\nGroup www-data' : ''}
LoadModule mpm_prefork_module ${MODULES}/mod_mpm_prefork.so
LoadModule authn_core_module ${MODULES}/mod_authn_core.so
LoadModule authz_core_module ${MODULES}/mod_authz_core.so
LoadModule authz_user_module ${MODULES}/mod_authz_user.so
LoadModule alias_module ${MODULES}/mod_alias.so
LoadModule cgi_module ${MODULES}/mod_cgi.so
LoadModule auth_openidc_module ${MODULES}/mod_auth_openidc.so
StartServers 2
MinSpareServers 1
MaxSpareServers 4
DocumentRoot "${dir}/htdocs"
<Directory "${dir}">
  Require all granted
</Directory>

OIDCProviderMetadataURL ${service.url}/.well-known/openid-configuration
OIDCClientID ${client.id}
OIDCClientSecret ${client.secret}
OIDCProviderTokenEndpointAuth client_secret_basic
OIDCRedirectURI ${url}/protected/redirect_uri
OIDCCryptoPassphrase ${randomBytes(24).toString('hex')}
OIDCScope "openid profile"
OIDCPKCEMethod S256
OIDCRemoteUserClaim sub
OIDCPassClaimsAs environment
OIDCInfoHook access_token refresh_token id_token userinfo
OIDCDefaultLoggedOutURL ${url}/loggedout.html
ScriptAlias /protected/whoami "${dir}/whoami.cgi"
<Location /protected>
  AuthType openid-connect
  Require valid-user
</Location>
`;
}

/** Starts Apache in the foreground on a free loopback port; resolves once it answers. */
async function startApache(): Promise<Apache> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'verity-apache-'));
  await chmod(dir, 0o755); // the CGI runs as www-data when the test runs as root
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const { client, clientSecret } = await service.core.tenancy.createOidcClient({
    projectId: service.demo.project_id,
    name: 'Apache mod_auth_openidc',
    redirectUris: [`${url}/protected/redirect_uri`, `${url}/loggedout.html`],
    scopes: ['openid', 'profile'],
  });
  await mkdir(path.join(dir, 'htdocs'));
  await writeFile(
    path.join(dir, 'htdocs', 'loggedout.html'),
    '<!doctype html><title>Signed out</title><p>Signed out of the Apache app.</p>\n',
  );
  await writeFile(path.join(dir, 'whoami.cgi'), WHOAMI, { mode: 0o755 });
  const credentials = { id: client.clientId, secret: clientSecret };
  await writeFile(path.join(dir, 'httpd.conf'), apacheConfig(dir, port, credentials));
  // Its own process group: on shutdown the prefork parent signals its whole group, which would
  // otherwise include the test runner.
  const child = spawn(APACHE, ['-f', path.join(dir, 'httpd.conf'), '-DFOREGROUND'], {
    stdio: ['ignore', 'inherit', 'inherit'],
    detached: true,
  });
  const started = Date.now();
  while (Date.now() - started < 10_000) {
    if (child.exitCode !== null)
      throw new Error(
        `apache exited with ${child.exitCode}: ${await readFile(path.join(dir, 'error.log'), 'utf8').catch(() => '')}`,
      );
    if (
      await fetch(`${url}/loggedout.html`).then(
        (res) => res.ok,
        () => false,
      )
    )
      return { url, dir, process: child, client: credentials };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await stopProcess(child);
  throw new Error('apache did not answer within 10 s');
}

beforeAll(async () => {
  if (!apacheAvailable || !chromiumAvailable) return;
  service = await startListeningService();
  checked = checkedFetch(await servedDocument(service.url));
  apache = await startApache();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  if (apache) {
    await stopProcess(apache.process);
    await rm(apache.dir, { recursive: true, force: true });
  }
  await service?.close();
});

/** The whoami page's `NAME=value` lines as an object. */
const lines = (text: string) =>
  Object.fromEntries(
    text
      .trim()
      .split('\n')
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );

/** From the protected page to our sign-in page, through consent (`answer`), back to Apache. */
async function signIn(
  page: Page,
  answer: 'Allow' | 'Deny',
  account: { email: string; password: string } = service.demo.account,
): Promise<void> {
  page.setDefaultTimeout(10_000);
  await page.goto(`${apache.url}/protected/whoami`);
  expect(page.url().startsWith(`${service.url}/api/auth/oidc/authorize?`)).toBe(true);
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: answer }).click();
  await page.waitForURL(`${apache.url}/**`);
}

describe.skipIf(!apacheAvailable || !chromiumAvailable)('login with Apache mod_auth_openidc and Chromium', () => {
  it('signs in to a protected page, passes the claims on, survives a key rotation, refreshes, and logs out', async () => {
    const context = await browser.newContext();
    onTestFinished(() => context.close());
    const page = await context.newPage();
    // What mod_auth_openidc sends to the authorization endpoint: PKCE S256, state and nonce.
    const authorizeRequests: URL[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(`${service.url}/api/auth/oidc/authorize`))
        authorizeRequests.push(new URL(request.url()));
    });
    await signIn(page, 'Allow');
    const first = authorizeRequests[0]!;
    expect(Object.fromEntries(first.searchParams)).toMatchObject({
      response_type: 'code',
      code_challenge_method: 'S256',
      scope: 'openid profile',
    });
    expect(first.searchParams.get('state')).toBeTruthy();
    expect(first.searchParams.get('nonce')).toBeTruthy();

    const who = lines(await page.locator('body').innerText());
    expect(who.REMOTE_USER).toBe(service.demo.account.svc_id);
    expect(who).toMatchObject({
      OIDC_CLAIM_sub: service.demo.account.svc_id,
      OIDC_CLAIM_email: service.demo.account.email,
      OIDC_CLAIM_iss: service.url,
    });
    // id_verified is only in userinfo, so mod_auth_openidc called it with the access token.
    expect(who.OIDC_CLAIM_id_verified).toBeDefined();

    // A key rotation mid-run, the worst case (the new key signs at once, before any JWKS cache
    // could have seen it): mod_auth_openidc cached our JWKS at the first login.
    const { kid } = await service.core.signingKeys.rotate({ immediately: true });
    expect(decodeProtectedHeader(await service.core.signingKeys.sign({ probe: true }, 60)).kid).toBe(kid);

    // The session holds our tokens; a refresh (access_token_refresh_interval=0) rotates them.
    const info = async (query = '') =>
      JSON.parse(await (await page.request.get(`${apache.url}/protected/redirect_uri?info=json${query}`)).text());
    const before = await info();
    expect(before.access_token).toMatch(/^\S+$/);
    const after = await info('&access_token_refresh_interval=0');
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect(after.id_token.sub).toBe(service.demo.account.svc_id);
    expect(lines(await (await page.request.get(`${apache.url}/protected/whoami`)).text()).REMOTE_USER).toBe(
      service.demo.account.svc_id,
    );
    // The old refresh token was rotated away: our token endpoint refuses it, even to its client.
    const refresh = (refreshToken: string) =>
      checked(`${service.url}/api/auth/oidc/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: refreshToken,
          client_id: apache.client.id,
          client_secret: apache.client.secret,
        }),
      });
    expect(await (await refresh(before.refresh_token)).json()).toMatchObject({ error: 'invalid_grant' });

    // Someone else signs in after the rotation: mod_auth_openidc validates an id_token from a key
    // its cached JWKS does not hold, so it must fetch the JWKS again.
    const person = {
      email: `apache-${randomBytes(4).toString('hex')}@example.test`,
      password: 'a long enough passphrase 7',
    };
    const account = await service.core.accounts.createAccount(person);
    const second = await browser.newContext();
    onTestFinished(() => second.close());
    const secondPage = await second.newPage();
    await signIn(secondPage, 'Allow', person);
    expect(lines(await secondPage.locator('body').innerText())).toMatchObject({
      REMOTE_USER: account.svcId,
      OIDC_CLAIM_email: person.email,
    });

    // Logout: mod_auth_openidc sends the id_token_hint to our end_session_endpoint, which revokes and comes back.
    await page.goto(
      `${apache.url}/protected/redirect_uri?logout=${encodeURIComponent(`${apache.url}/loggedout.html`)}`,
    );
    await page.waitForURL(`${apache.url}/loggedout.html**`);
    await expect(page.locator('body').innerText()).resolves.toContain('Signed out');
    const userinfo = await checked(`${service.url}/api/auth/oidc/userinfo`, {
      headers: { authorization: `Bearer ${after.access_token}` },
    });
    expect(userinfo.status).toBe(401);
    expect(await (await refresh(after.refresh_token)).json()).toMatchObject({ error: 'invalid_grant' });
    // The Apache session is gone too: the protected page sends the browser to sign in again.
    await page.goto(`${apache.url}/protected/whoami`);
    expect(page.url().startsWith(`${service.url}/api/auth/oidc/authorize?`)).toBe(true);
  });

  it('brings a denial back as access_denied, and lets nobody in', async () => {
    // Someone who has not consented to this app yet (the demo account has, in the test above).
    const person = {
      email: `apache-deny-${randomBytes(4).toString('hex')}@example.test`,
      password: 'a long enough passphrase 7',
    };
    await service.core.accounts.createAccount(person);
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await signIn(page, 'Deny', person);
      const callback = new URL(page.url());
      expect(callback.pathname).toBe('/protected/redirect_uri');
      expect(Object.fromEntries(callback.searchParams)).toMatchObject({ error: 'access_denied', iss: service.url });
      expect(callback.searchParams.get('state')).toBeTruthy();
      // mod_auth_openidc 2.4.12 (Debian 12) takes a response carrying RFC 9207's `iss` and no code
      // for a third-party-initiated login and shows that error rather than access_denied; either
      // way it answers with an error page and opens no session.
      const text = await page.locator('body').innerText();
      expect(text).toMatch(/^Error:/);
      expect(text).not.toContain('REMOTE_USER=');
      await page.goto(`${apache.url}/protected/whoami`);
      expect(page.url().startsWith(`${service.url}/api/auth/oidc/authorize?`)).toBe(true);
    } finally {
      await context.close();
    }
  });
});
