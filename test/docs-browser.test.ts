import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readGuides } from '../src/rest/reference-guides.js';
import { chromiumAvailable, launchChromium } from './helpers/browser.js';
import { startListeningService, type ListeningService } from './helpers/service.js';

// The rendered API reference (/docs, issues #24 and #49): Redoc from the service itself renders the
// served document under the page's CSP, with no request leaving the service, the guides of
// docs/guides first; screenshots in test-artifacts/docs/.

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
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
        errors.push(message.text());
    });
    page.on('response', (response) => {
      if (
        response.status() >= 400 &&
        ['script', 'stylesheet', 'image', 'font', 'fetch', 'xhr'].includes(response.request().resourceType())
      )
        errors.push(`${response.status()} ${response.url()}`);
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
    const outside = requests.filter(
      (url) => !url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:'),
    );
    expect(outside).toEqual([]);
    expect(requests).toContain(`${origin}/api/v2/openapi.json`);
    expect(errors).toEqual([]);
  }, 120_000);

  it('shows the guides of docs/guides first in the sidebar, each opening its text, and descriptions, examples and webhooks in the reference', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${service.url}/docs`);
    const sidebar = page.locator('.menu-content');
    await sidebar.getByText('Quickstart', { exact: true }).waitFor({ timeout: 60_000 });
    const guides = readGuides();
    // After the introduction's own sections, the sidebar lists the guides, in their order, before
    // any section of operations.
    const labels = (await sidebar.locator('label').allInnerTexts()).map((text) => text.trim()).filter(Boolean);
    const titles = guides.map((guide) => guide.title);
    const beforeOperations = labels.slice(0, labels.indexOf('Hosted verification sessions'));
    expect(beforeOperations.slice(0, 2)).toEqual(['Conventions', 'Authentication']);
    expect(beforeOperations.filter((label) => titles.includes(label))).toEqual(titles);
    // Each guide's own headings are entries under it.
    expect(beforeOperations).toContain('Verify the signature');
    for (const guide of guides) {
      await sidebar.getByText(guide.title, { exact: true }).first().click();
      // The guide's first paragraph, as rendered from its markdown.
      const firstLine = guide.body.split('\n')[0]!.replace(/[`*]/g, '');
      await page.getByText(firstLine.slice(0, 40)).first().waitFor({ state: 'visible', timeout: 10_000 });
    }
    await page.screenshot({ path: path.join(ARTIFACTS, 'guide-errors.png') });
    // A guide's link to another guide opens it.
    await sidebar.getByText('Quickstart', { exact: true }).first().click();
    await page.locator('a[href="#tag/guide-webhooks"]').first().click();
    await page.getByText('When a session moves to').first().waitFor({ state: 'visible', timeout: 10_000 });
    // An operation's description and its example, and a webhook with its body.
    await page.goto(`${service.url}/docs#tag/sessions/operation/postSession`);
    await page.getByText('Starts a verification of one person').first().waitFor({ state: 'visible', timeout: 30_000 });
    await page.getByText('"wf_3c1d2e4f5a6b7c8d9e0f1a2b"').first().waitFor({ timeout: 10_000 });
    await page.screenshot({ path: path.join(ARTIFACTS, 'create-session.png') });
    await page.goto(`${service.url}/docs#tag/webhooks/operation/webhookVerificationApproved`);
    await page.getByText('Session approved').first().waitFor({ timeout: 30_000 });
    await page.getByText('X-Svc-Signature', { exact: true }).first().waitFor({ timeout: 10_000 });
    await page.screenshot({ path: path.join(ARTIFACTS, 'webhook.png') });
    await context.close();
  }, 180_000);
});
