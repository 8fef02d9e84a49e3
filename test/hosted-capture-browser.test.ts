import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import jsqr from 'jsqr';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium } from './helpers/browser.js';
import { renderDocument, renderSpecs } from './helpers/documents.js';
import { type ListeningService, startListeningService } from './helpers/service.js';
import { ffmpegAvailable } from './helpers/video.js';

// The hosted page's guided document capture in Debian's Chromium on a phone viewport: the fake
// rear camera films a passport lying on a dark table; the page takes the photo by itself, the
// person retakes it once, uploads an expired document (asked again with the reason), then uses
// the camera's photo; and the start screen in Spanish from Accept-Language. Screenshots of every
// screen go to test-artifacts/capture.

const run = promisify(execFile);
// jsqr is CommonJS: Node's ESM sees its exports object, Vite's interop the function itself.
const jsQR = jsqr.default ?? (jsqr as unknown as typeof jsqr.default);
const ARTIFACTS = path.resolve('test-artifacts/capture');
const PHONE = { width: 390, height: 844 };

let service: ListeningService;
let browser: Browser;
let workDir: string;
let expiredFile: string;
let valid: Awaited<ReturnType<typeof renderDocument>>;

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });

/** A 1280x800 camera clip of `document` (PNG) lying on a dark table, as Chromium's fake camera plays it. */
async function tableClip(document: Buffer, file: string): Promise<void> {
  const scene = path.join(workDir, 'scene.png');
  await sharp({ create: { width: 1280, height: 800, channels: 3, background: { r: 28, g: 30, b: 34 } } })
    .composite([{ input: document, gravity: 'center' }])
    .png()
    .toFile(scene);
  await run('ffmpeg', ['-loglevel', 'error', '-y', '-loop', '1', '-framerate', '5', '-i', scene, '-t', '2', '-pix_fmt', 'yuv420p', file]);
}

async function createSession(features: string[]) {
  const workflow = await service.core.tenancy.createWorkflow({ projectId: service.demo.project_id, name: features.join('+'), features });
  const response = await service.http.post('/api/v2/session').set('X-API-Key', service.demo.api_key).send({ workflow_id: workflow.id });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data as { session_id: string; url: string };
}

describe.skipIf(!chromiumAvailable || !ffmpegAvailable)('guided document capture on the hosted page (Chromium, phone viewport)', () => {
  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    workDir = await mkdtemp(path.join(os.tmpdir(), 'verity-capture-'));
    const spec = { ...renderSpecs(1)[0]!, layout: 'TD3' as const, rotation: 0 as const, skew: 0, blur: 0, jpegQuality: null };
    valid = await renderDocument(spec);
    const expired = await renderDocument({ ...spec, seed: 77, expired: true });
    expect(expired.truth.expired).toBe(true);
    expiredFile = path.join(workDir, 'expired.png');
    await writeFile(expiredFile, expired.bytes);
    const clip = path.join(workDir, 'table.y4m');
    await tableClip(valid.bytes, clip);
    browser = await launchChromium(['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-video-capture=${clip}`]);
    service = await startListeningService({});
    // The project's branding, as an admin sets it: a logo and a privacy policy link.
    const logo = await sharp({ create: { width: 240, height: 80, channels: 3, background: { r: 30, g: 90, b: 200 } } })
      .composite([{ input: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="240" height="80"><text x="20" y="54" font-size="40" font-family="sans-serif" fill="#fff">DEMO</text></svg>') }])
      .png()
      .toBuffer();
    await service.core.tenancy.setBranding({ projectId: service.demo.project_id, logo: logo.toString('base64'), privacyPolicyUrl: 'https://demo.example/privacy' });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await service?.close();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it('start, the photo taken by itself, a retake, an expired document asked again, then the camera photo used: approved', async () => {
    const session = await createSession(['id_verification']);
    const context = await browser.newContext({ viewport: PHONE, permissions: ['camera'] });
    const page = await context.newPage();
    await page.goto(session.url);
    await page.getByRole('heading', { name: 'Verify your identity for Demo' }).waitFor();
    await page.waitForFunction(() => ((globalThis as unknown as { document: { querySelector(s: string): { naturalWidth: number } | null } }).document.querySelector('img.project-logo')?.naturalWidth ?? 0) > 0);
    expect(await page.getByRole('link', { name: 'Privacy policy of Demo' }).getAttribute('href')).toBe('https://demo.example/privacy');
    await shot(page, '1-start');
    await page.getByRole('button', { name: 'I agree, start' }).click();

    await page.getByRole('heading', { name: 'Photo of your ID document' }).waitFor();
    // The page looks at the camera and, once the passport has been sharp and inside the frame for
    // a few frames, shows the photo it took for the person to check.
    const retake = page.getByRole('button', { name: 'Retake' });
    await retake.waitFor({ timeout: 30_000 });
    await shot(page, '2-document-preview');
    await retake.click();
    await page.waitForFunction(() => ((globalThis as unknown as { document: { querySelector(s: string): { videoWidth: number } | null } }).document.querySelector('video')?.videoWidth ?? 0) > 0);
    await shot(page, '3-document-camera-after-retake');

    // An expired document uploaded instead: the page says why and how many tries are left.
    await page.getByLabel('Front of the document').setInputFiles(expiredFile);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('alert').filter({ hasText: 'This document has expired. Take a photo of another, valid document. Tries left:' }).waitFor({ timeout: 120_000 });
    await retake.waitFor({ timeout: 30_000 });
    await shot(page, '4-document-expired-asked-again');

    await page.getByRole('button', { name: 'Use this photo' }).click();
    await page.getByRole('heading', { name: 'Verification complete' }).waitFor({ timeout: 120_000 });
    await shot(page, '5-done');
    await context.close();

    const decision = (await service.http.get(`/api/v2/session/${session.session_id}/decision`).set('X-API-Key', service.demo.api_key)).body.data;
    expect(decision.checks[0], JSON.stringify(decision.checks)).toMatchObject({ type: 'id_verification', status: 'passed' });
    expect(decision.checks[0].data.fields.document_number).toBe(valid.truth.documentNumber);
  }, 300_000);

  it('continue on your phone: the laptop without a camera shows a QR code, the phone claims it and finishes, the laptop follows to the end; the link works once', async () => {
    const session = await createSession(['id_verification', 'location']);
    // The laptop has no camera: its browser offers no media devices at all.
    const laptop = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await laptop.addInitScript(() => Object.defineProperty((globalThis as unknown as { Navigator: { prototype: object } }).Navigator.prototype, 'mediaDevices', { get: () => undefined }));
    const desk = await laptop.newPage();
    await desk.goto(session.url);
    await desk.getByRole('button', { name: 'I agree, start' }).click();
    const qr = desk.getByRole('img', { name: 'QR code of the link to continue on your phone' });
    await qr.waitFor({ timeout: 15_000 });
    await shot(desk, '8-laptop-qr');
    // The phone scans the code: decoded from the pixels on the laptop's screen.
    const png = await qr.screenshot();
    const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const link = jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), info.width, info.height)?.data;
    expect(link).toBe(await qr.getAttribute('data-handoff-url'));
    expect(link).toMatch(new RegExp(`^${service.url}/verify/${session.session_id}#shl_`));

    const phone = await browser.newContext({ viewport: PHONE, permissions: ['camera', 'geolocation'], geolocation: { latitude: 40.7128, longitude: -74.006, accuracy: 15 } });
    const mobile = await phone.newPage();
    await mobile.goto(link!);
    await mobile.getByRole('heading', { name: 'Photo of your ID document' }).waitFor({ timeout: 15_000 });
    await mobile.getByRole('button', { name: 'Use this photo' }).waitFor({ timeout: 30_000 });
    await shot(mobile, '9-phone-document-preview');
    await mobile.getByRole('button', { name: 'Use this photo' }).click();
    await mobile.getByRole('heading', { name: 'Share your location' }).waitFor({ timeout: 120_000 });
    // The laptop saw the document step done on the phone and follows.
    await desk.getByRole('heading', { name: 'Continuing on your phone' }).waitFor({ timeout: 15_000 });
    await shot(desk, '10-laptop-following');
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
    await laptop.close();
    await phone.close();
  }, 300_000);

  it('the start screen speaks Spanish when the browser asks for it (Accept-Language)', async () => {
    const session = await createSession(['id_verification']);
    const context = await browser.newContext({ viewport: PHONE, locale: 'es-ES', permissions: ['camera'] });
    const page = await context.newPage();
    await page.goto(session.url);
    await page.getByRole('heading', { name: 'Verifica tu identidad para Demo' }).waitFor();
    expect(await page.getAttribute('html', 'lang')).toBe('es');
    await page.getByRole('link', { name: 'Política de privacidad de Demo' }).waitFor();
    await shot(page, '6-start-es');
    await page.getByRole('button', { name: 'Acepto, empezar' }).click();
    await page.getByRole('heading', { name: 'Foto de tu documento de identidad' }).waitFor();
    await page.getByRole('button', { name: 'Repetir' }).waitFor({ timeout: 30_000 });
    await shot(page, '7-document-preview-es');
    await context.close();
  }, 120_000);
});
