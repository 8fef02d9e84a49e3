import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser, BrowserContext, BrowserContextOptions, Locator, Page } from 'playwright-core';
import jsqr from 'jsqr';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from './helpers/axe.js';
import { chromiumAvailable, launchChromium } from './helpers/browser.js';
import { renderDocument, renderSpecs } from './helpers/documents.js';
import { type ListeningService, sql, startListeningService } from './helpers/service.js';
import { ffmpegAvailable } from './helpers/video.js';

// The hosted page in Debian's Chromium on a phone (390x844, touch) and a laptop (1280x800), with a
// fake rear camera filming a document lying on a dark table: guided capture (the photo taken by
// itself, the shutter, a hint given up on, a white page that is not glare), a refused document
// said where the eyes are and cleared, continue on your phone (copy link, the laptop following
// while the phone retries), Spanish, dark mode, test mode's outcome picker, the declined end
// screen with the support link, and the pages of links that ended. Screenshots of every screen go
// to test-artifacts/capture, and every screen is scanned with axe-core.

const run = promisify(execFile);
// jsqr is CommonJS: Node's ESM sees its exports object, Vite's interop the function itself.
const jsQR = jsqr.default ?? (jsqr as unknown as typeof jsqr.default);
const ARTIFACTS = path.resolve('test-artifacts/capture');
const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true };
const LAPTOP: BrowserContextOptions = { viewport: { width: 1280, height: 800 } };

let service: ListeningService;
let browser: Browser;
let workDir: string;
let expiredFile: string;
let validFile: string;
let valid: Awaited<ReturnType<typeof renderDocument>>;

const shot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
/** Every screen of the hosted page is scanned with axe-core: no serious or critical violation. */
const accessible = async (page: Page, name: string) =>
  expect(await seriousViolations(page, `hosted-${name}`)).toEqual([]);

/**
 * A 1280x800 camera clip of `document` (PNG, `width` px wide; none: the empty table) lying on a dark table, as
 * Chromium's fake camera plays it.
 */
async function tableClip(document: Buffer | null, file: string, width?: number): Promise<void> {
  const scene = `${file}.png`;
  const laid = document
    ? [{ input: width ? await sharp(document).resize({ width }).png().toBuffer() : document, gravity: 'center' }]
    : [];
  await sharp({ create: { width: 1280, height: 800, channels: 3, background: { r: 28, g: 30, b: 34 } } })
    .composite(laid)
    .png()
    .toFile(scene);
  await run('ffmpeg', [
    '-loglevel',
    'error',
    '-y',
    '-loop',
    '1',
    '-framerate',
    '5',
    '-i',
    scene,
    '-t',
    '2',
    '-pix_fmt',
    'yuv420p',
    file,
  ]);
}

/** A browser whose camera films `clip`. */
const cameraBrowser = (clip: string) =>
  launchChromium([
    '--use-fake-ui-for-media-stream',
    '--use-fake-device-for-media-stream',
    `--use-file-for-fake-video-capture=${clip}`,
  ]);

async function createSession(features: string[], options: { apiKey?: string; maxStepTries?: number } = {}) {
  const workflow = await service.core.tenancy.createWorkflow({
    projectId: service.demo.project_id,
    name: features.join('+'),
    features,
    ...(options.maxStepTries ? { maxStepTries: options.maxStepTries } : {}),
  });
  const response = await service.http
    .post('/api/v2/session')
    .set('X-API-Key', options.apiKey ?? service.demo.api_key)
    .send({ workflow_id: workflow.id });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data as { session_id: string; url: string };
}

async function decisionOf(sessionId: string, apiKey = service.demo.api_key) {
  return (await service.http.get(`/api/v2/session/${sessionId}/decision`).set('X-API-Key', apiKey)).body.data;
}

/** Whether the element is wholly on the screen as it is scrolled now (not below the fold). */
async function onScreen(page: Page, element: Locator): Promise<boolean> {
  const box = (await element.boundingBox())!;
  return box.y >= 0 && box.y + box.height <= page.viewportSize()!.height;
}

/**
 * Counts the page's layout shifts (the Layout Instability API), and makes the camera take a second
 * to open, as a phone's does (the fake camera opens at once).
 */
const recordLayoutShifts = (context: BrowserContext) =>
  context.addInitScript(() => {
    type Shift = { value: number; hadRecentInput: boolean };
    const scope = globalThis as unknown as {
      shifted: number;
      PerformanceObserver: new (
        callback: (list: { getEntries(): Shift[] }) => void,
      ) => { observe(options: { type: string; buffered: boolean }): void };
      navigator: { mediaDevices: { getUserMedia(constraints: unknown): Promise<unknown> } };
    };
    scope.shifted = 0;
    new scope.PerformanceObserver((list) => {
      for (const entry of list.getEntries()) if (!entry.hadRecentInput) scope.shifted += entry.value;
    }).observe({ type: 'layout-shift', buffered: true });
    const media = scope.navigator.mediaDevices;
    const open = media.getUserMedia.bind(media);
    media.getUserMedia = (constraints) =>
      new Promise((resolve) => setTimeout(resolve, 1000)).then(() => open(constraints));
  });
const layoutShift = (page: Page) => page.evaluate(() => (globalThis as unknown as { shifted: number }).shifted);
const forgetLayoutShifts = (page: Page) =>
  page.evaluate(() => ((globalThis as unknown as { shifted: number }).shifted = 0));

/** The video has a picture (the camera opened and played a frame). */
const cameraPlaying = (page: Page) =>
  page.waitForFunction(
    () =>
      ((
        globalThis as unknown as { document: { querySelector(s: string): { videoWidth: number } | null } }
      ).document.querySelector('video')?.videoWidth ?? 0) > 0,
  );

describe.skipIf(!chromiumAvailable || !ffmpegAvailable)(
  'the hosted page in Chromium: capture, errors, handoff, test mode, the end',
  () => {
    beforeAll(async () => {
      await mkdir(ARTIFACTS, { recursive: true });
      workDir = await mkdtemp(path.join(os.tmpdir(), 'verity-capture-'));
      // A passport valid today, rendered by the suite, and an expired one.
      const spec = {
        ...renderSpecs(1)[0]!,
        layout: 'TD3' as const,
        rotation: 0 as const,
        skew: 0,
        blur: 0,
        jpegQuality: null,
      };
      valid = await renderDocument(spec);
      expect(valid.truth.expired).toBe(false);
      const expired = await renderDocument({ ...spec, seed: 77, expired: true });
      expect(expired.truth.expired).toBe(true);
      expiredFile = path.join(workDir, 'expired.png');
      validFile = path.join(workDir, 'valid.png');
      await writeFile(expiredFile, expired.bytes);
      await writeFile(validFile, valid.bytes);
      const clip = path.join(workDir, 'table.y4m');
      await tableClip(valid.bytes, clip);
      browser = await cameraBrowser(clip);
      service = await startListeningService({});
      // The project's branding, as an admin sets it: a logo, a privacy policy link and a support link.
      const logo = await sharp({
        create: { width: 240, height: 80, channels: 3, background: { r: 30, g: 90, b: 200 } },
      })
        .composite([
          {
            input: Buffer.from(
              '<svg xmlns="http://www.w3.org/2000/svg" width="240" height="80"><text x="20" y="54" font-size="40" font-family="sans-serif" fill="#fff">DEMO</text></svg>',
            ),
          },
        ])
        .png()
        .toBuffer();
      await service.core.tenancy.setBranding({
        projectId: service.demo.project_id,
        logo: logo.toString('base64'),
        privacyPolicyUrl: 'https://demo.example/privacy',
        supportUrl: 'mailto:help@demo.example',
      });
    }, 180_000);

    afterAll(async () => {
      await browser?.close();
      await service?.close();
      if (workDir) await rm(workDir, { recursive: true, force: true });
    });

    it('phone: consent says what is kept; the photo is taken by itself or with the shutter; a refused document is said in view, cleared and asked again; approved', async () => {
      const session = await createSession(['id_verification']);
      const context = await browser.newContext({ ...PHONE, permissions: ['camera'] });
      await recordLayoutShifts(context);
      const page = await context.newPage();
      await page.goto(session.url);
      await page.getByRole('heading', { name: 'Verify your identity for Demo' }).waitFor();
      await page.waitForFunction(
        () =>
          ((
            globalThis as unknown as { document: { querySelector(s: string): { naturalWidth: number } | null } }
          ).document.querySelector('.project-logo img')?.naturalWidth ?? 0) > 0,
      );
      expect(await page.getByRole('link', { name: 'Privacy policy of Demo' }).getAttribute('href')).toBe(
        'https://demo.example/privacy',
      );
      // What is kept, for how long (the project's retention, 30 days by default) and who sees it.
      expect(await page.locator('#kept').textContent()).toBe(
        'We keep the photos of your document and of your selfie while your verification is checked and for 30 days after the decision, so that the people at Demo who review verifications can look at them. Then they are deleted.',
      );
      expect(await page.locator('main').textContent()).not.toContain('not stored');
      await shot(page, '1-start');
      await accessible(page, 'start');
      await page.getByRole('button', { name: 'I agree, start' }).click();

      await page.getByRole('heading', { name: 'Photo of your ID document' }).waitFor();
      await forgetLayoutShifts(page);
      await page.getByText('Opening the camera…').waitFor();
      await cameraPlaying(page);
      // The camera's box was there before its picture: nothing below it jumped when it arrived.
      expect(await layoutShift(page)).toBeLessThan(0.05);
      // The progress tells assistive technology where the person is.
      expect(await page.locator('#progress li[aria-current=step]').textContent()).toBe(
        'Step 1 of 1: Photo of your ID document (current step)',
      );
      // The page looks at the camera and, once the passport has been sharp and inside the frame for
      // a few frames, shows the photo it took for the person to check.
      const retake = page.getByRole('button', { name: 'Retake' });
      await retake.waitFor({ timeout: 30_000 });
      await shot(page, '2-document-preview');
      await accessible(page, 'document-preview');
      // Retake: the person rejected what the camera sees, so the page takes no photo by itself until
      // the document moves (this camera's picture never does); the shutter is always there: pressed,
      // it takes the photo at once.
      await retake.click();
      await cameraPlaying(page);
      const shutter = page.getByRole('button', { name: 'Take photo' });
      expect(await shutter.isVisible()).toBe(true);
      await shot(page, '3-document-camera');
      await accessible(page, 'document-camera');
      // The picture is steady and ready for longer than an automatic photo needs, and none was taken.
      await page.locator('.instruction[data-hint=ready]').waitFor();
      await page.waitForTimeout(1_500);
      expect(await retake.count()).toBe(0);
      await shutter.click();
      await retake.waitFor({ timeout: 5_000 });
      await retake.click();
      await cameraPlaying(page);

      // An expired document uploaded instead: the page says why and how many tries are left, at the
      // top where the eyes are, clears the refused file and asks for a new photo (no "Try again"
      // that would send the same document and spend a try).
      await page.getByLabel('Front of the document').setInputFiles(expiredFile);
      await page.getByRole('button', { name: 'Continue' }).click();
      const refused = page
        .getByRole('alert')
        .filter({ hasText: 'This document has expired. Take a photo of another, valid document. Tries left: 2.' });
      await refused.waitFor({ timeout: 120_000 });
      expect(await onScreen(page, refused)).toBe(true);
      expect(
        await page
          .getByLabel('Front of the document')
          .evaluate((input) => (input as unknown as { files: { length: number } }).files.length),
      ).toBe(0);
      expect(await page.getByRole('button', { name: 'Try again' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Continue' }).isVisible()).toBe(true);
      await page.screenshot({ path: path.join(ARTIFACTS, '4-document-expired-in-view.png') });
      await retake.waitFor({ timeout: 30_000 });
      await shot(page, '4b-document-expired-asked-again');
      await accessible(page, 'document-refused');

      await page.getByRole('button', { name: 'Use this photo' }).click();
      await page.getByRole('heading', { name: 'Verification complete' }).waitFor({ timeout: 120_000 });
      expect(await page.locator('ul.step-results').textContent()).toBe('Photo of your ID document: done');
      await shot(page, '5-done');
      await accessible(page, 'done-approved');
      await context.close();

      const decision = await decisionOf(session.session_id);
      expect(decision.checks[0], JSON.stringify(decision.checks)).toMatchObject({
        type: 'id_verification',
        status: 'passed',
      });
      expect(decision.checks[0].data.fields.document_number).toBe(valid.truth.documentNumber);
      // Both tries' photos are kept for the review, numbered by try.
      const images = await service.core.sessions.evidenceOf(service.demo.project_id, session.session_id);
      expect(images.filter((image) => image.kind === 'document_front').map((image) => image.attempt)).toEqual([1, 2]);
    }, 300_000);

    it('a clean white passport filling the frame on a dark table is taken by itself: no glare', async () => {
      // The passport page burnt out to white paper, about as wide as the frame.
      const white = await sharp(valid.bytes).linear(1.6, 0).png().toBuffer();
      const clip = path.join(workDir, 'white.y4m');
      await tableClip(white, clip, 820);
      const own = await cameraBrowser(clip);
      try {
        const session = await createSession(['id_verification']);
        const page = await (await own.newContext({ ...PHONE, permissions: ['camera'] })).newPage();
        await page.goto(session.url);
        await page.getByRole('button', { name: 'I agree, start' }).click();
        await cameraPlaying(page);
        const hints = new Set<string>();
        const retake = page.getByRole('button', { name: 'Retake' });
        for (let i = 0; i < 60 && !(await retake.isVisible()); i++) {
          hints.add(
            (await page
              .locator('[data-hint]')
              .getAttribute('data-hint')
              .catch(() => null)) ?? '',
          );
          await page.waitForTimeout(250);
        }
        expect(await retake.isVisible(), [...hints].join(',')).toBe(true);
        expect(hints.has('glare')).toBe(false);
        await shot(page, '14-white-passport-taken');
      } finally {
        await own.close();
      }
    }, 120_000);

    it('a hint that stays gives way: after a few seconds the page says the person may take the photo, and the shutter takes it', async () => {
      // The camera films the empty, dark table: the hint (too dark) never clears.
      const clip = path.join(workDir, 'empty.y4m');
      await tableClip(null, clip);
      const own = await cameraBrowser(clip);
      try {
        const session = await createSession(['id_verification']);
        const page = await (await own.newContext({ ...PHONE, permissions: ['camera'] })).newPage();
        await page.goto(session.url);
        await page.getByRole('button', { name: 'I agree, start' }).click();
        await cameraPlaying(page);
        const instruction = page.locator('[data-hint]');
        await page.locator('[data-stuck=true]').waitFor({ timeout: 15_000 });
        expect(await instruction.textContent()).toBe('Too dark: move to a brighter place');
        expect(await page.locator('[data-stuck=true]').textContent()).toBe(
          'If it stays like this, take the photo with the button.',
        );
        await shot(page, '15-hint-given-up');
        await page.getByRole('button', { name: 'Take photo' }).click();
        await page.getByRole('button', { name: 'Use this photo' }).waitFor({ timeout: 5_000 });
      } finally {
        await own.close();
      }
    }, 120_000);

    it('continue on your phone: QR code with copy-link, the laptop follows as soon as the phone claims it (even while it retries), the link works once', async () => {
      const session = await createSession(['id_verification', 'location']);
      // The laptop has no camera: its browser offers no media devices at all.
      const laptop = await browser.newContext({ ...LAPTOP, permissions: ['clipboard-read', 'clipboard-write'] });
      await laptop.addInitScript(() =>
        Object.defineProperty(
          (globalThis as unknown as { Navigator: { prototype: object } }).Navigator.prototype,
          'mediaDevices',
          { get: () => undefined },
        ),
      );
      const desk = await laptop.newPage();
      await desk.goto(session.url);
      await desk.getByRole('button', { name: 'I agree, start' }).click();
      const qr = desk.getByRole('img', { name: 'QR code of the link to continue on your phone' });
      await qr.waitFor({ timeout: 15_000 });
      // Beside the code, the link to copy.
      await desk.getByRole('button', { name: 'Copy link' }).click();
      await desk.getByText('Link copied. Open it on your phone.').waitFor();
      const copied = await desk.evaluate(() =>
        (
          globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
        ).navigator.clipboard.readText(),
      );
      expect(copied).toBe(await qr.getAttribute('data-handoff-url'));
      expect(await desk.getByLabel('Link to continue on your phone', { exact: true }).inputValue()).toBe(copied);
      await shot(desk, '8-laptop-qr');
      await accessible(desk, 'laptop-qr');
      // The phone scans the code: decoded from the pixels on the laptop's screen.
      const png = await qr.screenshot();
      const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      const link = jsQR(
        new Uint8ClampedArray(data.buffer, data.byteOffset, data.length),
        info.width,
        info.height,
      )?.data;
      expect(link).toBe(copied);
      expect(link).toMatch(new RegExp(`^${service.url}/verify/${session.session_id}#shl_`));

      const phone = await browser.newContext({
        ...PHONE,
        permissions: ['camera', 'geolocation'],
        geolocation: { latitude: 40.7128, longitude: -74.006, accuracy: 15 },
      });
      const mobile = await phone.newPage();
      await mobile.goto(link!);
      await mobile.getByRole('heading', { name: 'Photo of your ID document' }).waitFor({ timeout: 15_000 });
      // The phone's first document is refused: no step has moved, but the laptop no longer shows the used code.
      await mobile.getByLabel('Front of the document').setInputFiles(expiredFile);
      await mobile.getByRole('button', { name: 'Continue' }).click();
      await mobile.getByRole('alert').filter({ hasText: 'This document has expired.' }).waitFor({ timeout: 120_000 });
      await desk.getByRole('heading', { name: 'Continuing on your phone' }).waitFor({ timeout: 15_000 });
      expect(await qr.count()).toBe(0);
      await shot(desk, '10-laptop-following');
      await accessible(desk, 'laptop-following');
      await mobile.getByRole('button', { name: 'Use this photo' }).waitFor({ timeout: 30_000 });
      await shot(mobile, '9-phone-document-preview');
      await mobile.getByRole('button', { name: 'Use this photo' }).click();
      await mobile.getByRole('heading', { name: 'Share your location' }).waitFor({ timeout: 120_000 });
      await accessible(mobile, 'location');
      await mobile.getByRole('button', { name: 'Share my location' }).click();
      await mobile.getByRole('heading', { name: 'Verification complete' }).waitFor({ timeout: 60_000 });
      await shot(mobile, '11-phone-done');
      await desk.getByRole('heading', { name: 'Verification complete' }).waitFor({ timeout: 15_000 });
      await desk.getByText('You are verified.').waitFor();
      await shot(desk, '12-laptop-done');

      // The same link a second time: spent, and the page says so.
      const again = await phone.newPage();
      await again.goto(link!);
      await again.getByRole('heading', { name: 'This link was already used' }).waitFor({ timeout: 15_000 });
      await shot(again, '13-phone-link-used');
      await accessible(again, 'link-used');
      await laptop.close();
      await phone.close();
    }, 300_000);

    it('Spanish (from Accept-Language), in dark mode: the start screen and a refusal worded in Spanish', async () => {
      const session = await createSession(['id_verification']);
      const context = await browser.newContext({
        ...PHONE,
        locale: 'es-ES',
        colorScheme: 'dark',
        permissions: ['camera'],
      });
      const page = await context.newPage();
      await page.goto(session.url);
      await page.getByRole('heading', { name: 'Verifica tu identidad para Demo' }).waitFor();
      expect(await page.getAttribute('html', 'lang')).toBe('es');
      await page.getByRole('link', { name: 'Política de privacidad de Demo' }).waitFor();
      expect(await page.locator('#kept').textContent()).toContain('durante 30 días después de la decisión');
      await shot(page, '6-start-es-dark');
      await accessible(page, 'start-es-dark');
      await page.getByRole('button', { name: 'Acepto, empezar' }).click();
      await page.getByRole('heading', { name: 'Foto de tu documento de identidad' }).waitFor();
      await page.getByRole('button', { name: 'Repetir' }).waitFor({ timeout: 30_000 });
      await shot(page, '7-document-preview-es-dark');
      await page.getByLabel('Parte delantera del documento').setInputFiles(expiredFile);
      await page.getByRole('button', { name: 'Continuar' }).click();
      const refused = page.getByRole('alert');
      await refused
        .filter({
          hasText: 'Este documento ha caducado. Haz una foto de otro documento válido. Intentos restantes: 2.',
        })
        .waitFor({ timeout: 120_000 });
      expect(await refused.textContent()).not.toMatch(/expired|Try again/);
      await shot(page, '7b-document-refused-es-dark');
      await accessible(page, 'document-refused-es-dark');
      await context.close();
    }, 180_000);

    it('test mode: a test session says so and picks its outcome without models (free); a picked error shows as the page shows it; the real checks still run on demand', async () => {
      const { key: testKey } = await service.core.tenancy.createApiKey({
        projectId: service.demo.project_id,
        name: 'page tests',
        mode: 'test',
      });
      const used = async () =>
        (
          await sql<{ used: number }>(service, 'select used from sandbox_usage where project_id = ?', [
            service.demo.project_id,
          ])
        )[0]?.used ?? 0;
      const open = async (size: BrowserContextOptions, url: string) => {
        const context = await browser.newContext({ ...size, permissions: ['camera'] });
        const page = await context.newPage();
        await page.goto(url);
        return { context, page };
      };

      const picked = await createSession(['id_verification', 'liveness', 'face_match'], { apiKey: testKey });
      const { context, page } = await open(PHONE, picked.url);
      await page.getByText('Test mode', { exact: true }).waitFor();
      await page.getByRole('group', { name: 'Test outcome' }).waitFor();
      await shot(page, '16-test-mode-start');
      await accessible(page, 'test-mode-start');
      await page.getByRole('button', { name: 'I agree, start' }).click();
      await page.getByRole('heading', { name: 'Photo of your ID document' }).waitFor();
      await page.getByRole('button', { name: 'Send to review' }).click();
      await page.getByRole('heading', { name: 'Verification complete' }).waitFor({ timeout: 15_000 });
      await page.getByText('Thanks: a person will review your verification.').waitFor();
      expect(await page.getByText('Test mode', { exact: true }).isVisible()).toBe(true);
      await shot(page, '17-test-mode-review');
      await context.close();
      expect((await decisionOf(picked.session_id, testKey)).status).toBe('IN_REVIEW');
      expect(await used()).toBe(0);

      const errored = await createSession(['id_verification'], { apiKey: testKey });
      const second = await open(LAPTOP, errored.url);
      await second.page.getByLabel('Error to answer with').selectOption('session_expired');
      await second.page.getByRole('button', { name: 'Answer with this error' }).click();
      await second.page.getByRole('heading', { name: 'This link has expired' }).waitFor();
      await shot(second.page, '18-test-mode-picked-error-laptop');
      await second.context.close();

      const real = await createSession(['id_verification'], { apiKey: testKey });
      const third = await open(PHONE, real.url);
      await third.page.getByRole('button', { name: 'I agree, start' }).click();
      await third.page.getByRole('button', { name: 'Use this photo' }).click({ timeout: 30_000 });
      await third.page.getByRole('heading', { name: 'Verification complete' }).waitFor({ timeout: 120_000 });
      await third.context.close();
      expect((await decisionOf(real.session_id, testKey)).status).toBe('APPROVED');
      expect(await used()).toBe(1);
    }, 240_000);

    it('declined: the end screen shows each step as it ended and what happens next, with the support link (phone and laptop)', async () => {
      const session = await createSession(['id_verification', 'location'], { maxStepTries: 1 });
      const context = await browser.newContext({ ...PHONE, permissions: ['camera'] });
      const page = await context.newPage();
      await page.goto(session.url);
      await page.getByRole('button', { name: 'I agree, start' }).click();
      await page.getByLabel('Front of the document').setInputFiles(expiredFile);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByText('We could not verify you.').waitFor({ timeout: 120_000 });
      expect(await page.locator('ul.step-results li').allTextContents()).toEqual([
        'Photo of your ID document: not confirmed',
        'Share your location: not done',
      ]);
      // The progress shows the steps as they ended: the location step never ran, so it is not shown done.
      expect(await page.locator('#progress li').evaluateAll((items) => items.map((item) => item.className))).toEqual([
        'done failed',
        'done not_run',
      ]);
      await page
        .getByText(
          'What now: Demo has been told the result. If you think this is a mistake, or you want to try again, contact Demo.',
        )
        .waitFor();
      expect(await page.getByRole('link', { name: 'Contact Demo' }).getAttribute('href')).toBe(
        'mailto:help@demo.example',
      );
      await shot(page, '19-declined-phone');
      await accessible(page, 'declined');
      await page.setViewportSize({ width: 1280, height: 800 });
      await shot(page, '19b-declined-laptop');
      await context.close();
    }, 180_000);

    it('links that ended have their own pages: expired, finished, not valid', async () => {
      const context = await browser.newContext(PHONE);
      const page = await context.newPage();
      // A link never opened, past its deadline, once the minute sweep has expired it.
      const expired = await createSession(['location']);
      await sql(service, "update verification_session set expires_at = now() - interval '1 minute' where id = ?", [
        expired.session_id,
      ]);
      await service.core.sessions.expireDue();
      await page.goto(expired.url);
      await page.getByRole('heading', { name: 'This link has expired' }).waitFor({ timeout: 30_000 });
      expect(await page.locator('#progress').count()).toBe(0);
      await shot(page, '20-link-expired');
      await accessible(page, 'link-expired');
      const invalid = await createSession(['location']);
      await page.goto(invalid.url.replace(/#.*/, '#sst_not-the-token'));
      await page.getByText('This verification link is not valid.').waitFor({ timeout: 30_000 });
      await shot(page, '21-link-invalid');
      await accessible(page, 'link-invalid');
      await context.close();
    }, 60_000);
  },
);
