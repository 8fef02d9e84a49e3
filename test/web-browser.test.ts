import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium } from './helpers/browser.js';
import { authorizePath, pkce } from './helpers/oidc.js';
import { startListeningService, type ListeningService } from './helpers/service.js';

// Every page in Chromium (issue 22): no script or style refused by the CSP, nothing wider than a
// 320 px phone, screenshots at 390 px and 1280 px (light and dark) in test-artifacts/web/; the
// bundled GraphiQL runs a query with the admin token; the hosted page's first step is small and
// its cold-load time is measured (written to test-artifacts/web/first-step.json, not asserted).

const ARTIFACTS = path.resolve('test-artifacts/web');
let service: ListeningService;
let browser: Browser;
let pages: [string, string][];

/**
 * Opens `url` in a fresh context of `width`; returns the page and the console errors it logged (CSP refusals among
 * them).
 */
async function open(
  url: string,
  width: number,
  colorScheme: 'light' | 'dark' = 'light',
  locale = 'en-US',
): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width, height: 800 }, colorScheme, locale });
  const page = await context.newPage();
  const errors: string[] = [];
  // A page may answer 4xx on purpose (an invalid link), and so may the API it calls; its own
  // scripts, styles, images and fonts may not fail, nor may the CSP refuse anything.
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
      errors.push(message.text());
  });
  page.on('response', (response) => {
    if (
      response.status() >= 400 &&
      ['script', 'stylesheet', 'image', 'font'].includes(response.request().resourceType())
    )
      errors.push(`${response.status()} ${response.url()}`);
  });
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(service.url + url);
  await page.waitForLoadState('networkidle');
  return { page, errors };
}

beforeAll(async () => {
  if (!chromiumAvailable) return;
  await mkdir(ARTIFACTS, { recursive: true });
  service = await startListeningService();
  const workflow = await service.core.tenancy.createWorkflow({
    projectId: service.demo.project_id,
    name: 'document',
    features: ['id_verification'],
  });
  const session = await service.http
    .post('/api/v2/session')
    .set('X-API-Key', service.demo.api_key)
    .send({ workflow_id: workflow.id });
  pages = [
    ['home', '/'],
    // The browser follows the authorization request to the sign-in page, with its interaction cookie.
    [
      'sign-in',
      authorizePath({
        client_id: service.demo.oidc.client_id,
        redirect_uri: service.demo.oidc.redirect_uris[0]!,
        response_type: 'code',
        scope: 'openid',
        state: 's',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      }),
    ],
    ['sign-up', '/api/auth/oidc/signup'],
    ['forgot-password', '/api/auth/oidc/forgot-password'],
    ['reset-link-invalid', '/api/auth/oidc/reset-password?token=x'],
    ['activation-link-invalid', '/activate/not-a-real-invitation'],
    ['hosted-start-screen', new URL(session.body.data.url).pathname + new URL(session.body.data.url).hash],
    ['hosted-link-invalid', '/verify/ses_nope#not-a-token'],
    ['console-sign-in', '/admin'],
    ['graphiql', '/graphql'],
  ];
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

describe.skipIf(!chromiumAvailable)('the pages in Chromium', () => {
  it('load without a console error (no CSP refusal), fit a 320 px screen, and are shot at 390 and 1280 px, light and dark', async () => {
    for (const [name, url] of pages) {
      for (const [width, scheme] of [
        [320, 'light'],
        [390, 'light'],
        [1280, 'light'],
        [390, 'dark'],
      ] as const) {
        const { page, errors } = await open(url, width, scheme);
        if (name.startsWith('hosted')) await page.locator('#step h1').filter({ hasNotText: 'Loading' }).waitFor();
        expect(errors, `${name} at ${width}`).toEqual([]);
        if (width === 320 && name !== 'graphiql') {
          expect(
            await page.evaluate('document.documentElement.scrollWidth'),
            `${name} overflows 320 px`,
          ).toBeLessThanOrEqual(320);
        } else if (width !== 320) {
          await page.screenshot({
            path: path.join(ARTIFACTS, `${name}-${width}${scheme === 'dark' ? '-dark' : ''}.png`),
            fullPage: true,
          });
        }
        await page.context().close();
      }
    }
  }, 300_000);

  it('the consent page, after signing in: no console error, fits 320 px, shot at 390 and 1280 px', async () => {
    const authorize = authorizePath({
      client_id: service.demo.oidc.client_id,
      redirect_uri: service.demo.oidc.redirect_uris[0]!,
      response_type: 'code',
      scope: 'openid profile',
      state: 's',
      prompt: 'consent',
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });
    for (const width of [320, 390, 1280]) {
      const { page, errors } = await open(authorize, width);
      await page.getByLabel('Email').fill(service.demo.account.email);
      await page.getByLabel('Password').fill(service.demo.account.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Allow' }).waitFor();
      expect(errors, `consent at ${width}`).toEqual([]);
      if (width === 320) expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(320);
      else await page.screenshot({ path: path.join(ARTIFACTS, `consent-${width}.png`), fullPage: true });
      await page.context().close();
    }
  });

  it('a Spanish phone gets the hosted page in Spanish, and the person can switch language', async () => {
    const workflow = await service.core.tenancy.createWorkflow({
      projectId: service.demo.project_id,
      name: 'spanish',
      features: ['id_verification'],
    });
    const session = await service.http
      .post('/api/v2/session')
      .set('X-API-Key', service.demo.api_key)
      .send({ workflow_id: workflow.id });
    const url = new URL(session.body.data.url);
    const { page, errors } = await open(url.pathname + url.hash, 390, 'light', 'es-ES');
    await page.getByRole('heading', { name: 'Verifica tu identidad para Demo' }).waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, 'hosted-start-screen-390-es.png'), fullPage: true });
    await page.getByRole('button', { name: 'Acepto, empezar' }).click();
    await page.getByRole('heading', { name: 'Foto de tu documento de identidad' }).waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, 'hosted-document-step-390-es.png'), fullPage: true });
    await page.getByLabel('Idioma').selectOption('fr');
    await page.getByRole('heading', { name: "Photo de votre pièce d'identité" }).waitFor();
    expect(await page.evaluate('document.documentElement.lang')).toBe('fr');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('GraphiQL at /graphql is bundled and runs a query with the admin token', async () => {
    const { page, errors } = await open('/graphql', 1280);
    await page.getByLabel('Admin token').fill(service.demo.admin_token);
    await page.getByLabel('Admin token').press('Enter');
    // Entering the token mounts GraphiQL again: run only once the new editor shows the default query.
    await expect
      .poll(() => page.locator('.graphiql-query-editor .CodeMirror-code').first().textContent(), { timeout: 20_000 })
      .toContain('projects');
    await page.getByRole('button', { name: /Execute query/ }).click();
    await expect
      .poll(() => page.locator('.result-window').textContent(), { timeout: 20_000 })
      .toContain(service.demo.project_id);
    await page.screenshot({ path: path.join(ARTIFACTS, 'graphiql-result-1280.png') });
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("the hosted page's first step needs at most 60 KB of gzipped script and style; its cold load is measured", async () => {
    const { page } = await open(pages.find(([name]) => name === 'hosted-start-screen')![1], 390);
    const urls = await page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .map((entry) => entry.name)
        .filter((name) => /\/assets\/.*\.(js|css)$/.test(name)),
    );
    let gzipped = 0;
    for (const url of urls) gzipped += gzipSync(Buffer.from(await (await fetch(url)).arrayBuffer())).length;
    expect(urls.length).toBeGreaterThan(0);
    expect(gzipped).toBeLessThanOrEqual(60 * 1024);
    await page.context().close();

    // Cold loads: a new context each time (empty cache), a new session each time (the page starts it).
    const workflow = await service.core.tenancy.createWorkflow({
      projectId: service.demo.project_id,
      name: 'timed',
      features: ['id_verification'],
    });
    const times: number[] = [];
    for (let run = 0; run < 5; run++) {
      const session = await service.http
        .post('/api/v2/session')
        .set('X-API-Key', service.demo.api_key)
        .send({ workflow_id: workflow.id });
      const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
      const cold = await context.newPage();
      const started = Date.now();
      await cold.goto(session.body.data.url);
      await cold.getByRole('heading', { name: 'Verify your identity for Demo' }).waitFor();
      times.push(Date.now() - started);
      await context.close();
    }
    const sorted = [...times].sort((a, b) => a - b);
    await writeFile(
      path.join(ARTIFACTS, 'first-step.json'),
      JSON.stringify({ gzippedBytes: gzipped, files: urls.length, coldLoadMs: times, p50Ms: sorted[2] }, null, 2),
    );
  }, 120_000);
});
