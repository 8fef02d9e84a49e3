import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium } from './helpers/browser.js';
import { startListeningService, type ListeningService } from './helpers/service.js';

// The rendered API reference (/docs, issue #24): Redoc from the service itself renders the served
// document under the page's CSP, with no request leaving the service; screenshot in test-artifacts/docs/.

const ARTIFACTS = path.resolve('test-artifacts/docs');
let service: ListeningService;
let browser: Browser;

beforeAll(async () => {
  if (!chromiumAvailable) return;
  await mkdir(ARTIFACTS, { recursive: true });
  service = await startListeningService();
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

describe.skipIf(!chromiumAvailable)('GET /docs', () => {
  it('renders the OpenAPI document offline: a known operation shows, nothing is refused, no request leaves the service', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const requests: string[] = [];
    const errors: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    // Its scripts, styles, images, fonts and the document may not fail, nor may the CSP refuse
    // anything (the browser's own favicon probe is the one 404 allowed, as in web-browser.test.ts).
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) errors.push(message.text());
    });
    page.on('response', (response) => {
      if (response.status() >= 400 && ['script', 'stylesheet', 'image', 'font', 'fetch', 'xhr'].includes(response.request().resourceType())) errors.push(`${response.status()} ${response.url()}`);
    });
    page.on('pageerror', (error) => errors.push(error.message));
    const answer = await page.goto(`${service.url}/docs`);
    expect(answer?.status()).toBe(200);
    expect(answer?.headers()['content-security-policy']).toContain("script-src 'self'");
    // The summary of POST /api/v2/session, as the document gives it.
    await page.locator('h2', { hasText: 'Create a hosted verification session' }).first().waitFor({ timeout: 60_000 });
    await page.waitForLoadState('networkidle');
    await page.screenshot({ path: path.join(ARTIFACTS, 'reference.png') });
    await context.close();

    const origin = new URL(service.url).origin;
    const outside = requests.filter((url) => !url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:'));
    expect(outside).toEqual([]);
    expect(requests).toContain(`${origin}/api/v2/openapi.json`);
    expect(errors).toEqual([]);
  }, 120_000);
});
