import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium } from './helpers/browser.js';
import { writeFakeCameraVideo } from './helpers/camera.js';
import { SHARED_DATA } from './helpers/faces.js';
import { startListeningService, type ListeningService } from './helpers/service.js';

// Activation by face, end to end: Chromium opens the invitation link, the person signs up or
// signs in, Chromium's fake camera plays a video made from still photos, the real liveness and
// face models judge the selfie, and the member becomes active with the account connected.

const FACES = path.join(SHARED_DATA, 'face_recognition-obama-biden');
const hasFaces = existsSync(path.join(FACES, 'alex_lacamoire_1.jpg'));
if (!hasFaces) console.info(`roster browser test skipped: no face images at ${FACES}`);
const ARTIFACTS = path.resolve('test-artifacts/roster');

let service: ListeningService;
let workDir: string;
const browsers: Browser[] = [];
let other: { clientId: string; clientSecret: string };

/**
 * Chromium whose webcam shows these photos, each filling the frame as a camera would see the
 * person (a photo shown smaller, inside a border, reads as a photo held up: MiniFASNet rejects
 * it). One photo per camera keeps the captured frame deterministic; these pass liveness alone.
 */
async function browserWithCamera(name: string, images: string[]): Promise<Browser> {
  const video = path.join(workDir, `${name}.y4m`);
  await writeFakeCameraVideo(
    video,
    images.map((image) => path.join(FACES, image)),
    { scale: 1, secondsPerImage: 1.5, fps: 10 },
  );
  const browser = await launchChromium([
    '--use-fake-ui-for-media-stream',
    '--use-fake-device-for-media-stream',
    `--use-file-for-fake-video-capture=${video}`,
  ]);
  browsers.push(browser);
  return browser;
}

const sdk = (method: 'post' | 'get', route: string, creds: { clientId: string; clientSecret: string }) =>
  service.http[method](`/api/sdk${route}`)
    .set('X-Client-Id', creds.clientId)
    .set('X-Client-Secret', creds.clientSecret);
const demoOrg = () => ({ clientId: service.demo.org.client_id, clientSecret: service.demo.org.client_secret });

/** A face invitation whose link comes back to the caller (notify: false). */
async function invite(creds: { clientId: string; clientSecret: string }, email: string) {
  const res = await sdk('post', '/members', creds).send({
    members: [{ email, first_name: 'Sam' }],
    invite: 'face',
    notify: false,
  });
  expect(res.status).toBe(201);
  return res.body.data.created[0] as { member_id: string; activation_link: string };
}

async function takeSelfie(page: Page, shot: string): Promise<string> {
  const button = page.getByRole('button', { name: 'Take selfie' });
  await expect.poll(() => button.isEnabled(), { timeout: 20_000 }).toBe(true);
  // Let the fake camera run a moment so the frame is a steady one.
  await page.waitForTimeout(500);
  await button.click();
  const status = page.getByRole('status');
  await expect
    .poll(async () => (await status.textContent()) ?? '', { timeout: 90_000 })
    .not.toMatch(/^(Checking your selfie…)?$/);
  await page.screenshot({ path: path.join(ARTIFACTS, `${shot}.png`), fullPage: true });
  return (await status.textContent()) ?? '';
}

const member = async (creds: { clientId: string; clientSecret: string }, email: string) =>
  (await sdk('post', '/members/resolve', creds).send({ email })).body.data.member;

describe.skipIf(!chromiumAvailable || !hasFaces)('face activation in Chromium', () => {
  beforeAll(async () => {
    service = await startListeningService();
    workDir = await mkdtemp(path.join(os.tmpdir(), 'verity-camera-'));
    await mkdir(ARTIFACTS, { recursive: true });
    const created = await service.core.tenancy.createOrgApp({ organizationName: 'Second Clinic' });
    other = { clientId: created.app.clientId, clientSecret: created.clientSecret };
  });
  afterAll(async () => {
    for (const browser of browsers) await browser.close();
    await service?.close();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  const person = { email: 'sheldon@people.example', password: 'bazinga-bazinga', name: 'Sheldon' };

  /** Opens an activation link and signs in as `person` (who has an account after the first test). */
  async function signInThroughLink(browser: Browser, link: string): Promise<Page> {
    const page = await browser.newPage();
    await page.goto(link);
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    return page;
  }

  it('signs up, enrols the face from a live selfie and activates the member; the link then stops working', async () => {
    const entry = await invite(demoOrg(), person.email);
    const browser = await browserWithCamera('alex-enrol', ['alex_lacamoire_1.jpg']);
    const page = await browser.newPage();
    await page.goto(entry.activation_link);
    await expect.poll(() => page.getByRole('heading').first().textContent()).toContain('Join Demo Health');
    await page.getByRole('link', { name: 'Create one' }).click();
    await page.getByLabel('Name').fill(person.name);
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Create account' }).click();
    const result = await takeSelfie(page, 'activated-by-enrolment');
    expect(result).toContain('you are now an active member of Demo Health');

    const account = await service.core.accounts.checkPassword(person.email, person.password);
    expect(await member(demoOrg(), person.email)).toMatchObject({
      member_id: entry.member_id,
      status: 'active',
      active: true,
      svc_id: account!.svcId,
    });
    expect(await service.core.accounts.faceReference(account!.svcId)).toBeInstanceOf(Float32Array);
    const trail = await service.core.roster.auditTrail(service.demo.org.id, { memberId: entry.member_id });
    expect(trail[0]).toMatchObject({ action: 'activate', actor: 'activation', after: { status: 'active' } });
    // Single use.
    expect((await page.goto(entry.activation_link))!.status()).toBe(404);
  });

  it('matches the selfie against the face already on the account when signing in', async () => {
    const entry = await invite(other, person.email);
    const page = await signInThroughLink(
      await browserWithCamera('alex-again', ['knn_test_alex_lacamoire1.jpg']),
      entry.activation_link,
    );
    expect(await takeSelfie(page, 'activated-by-match')).toContain('you are now an active member of Second Clinic');
    expect((await member(other, person.email)).status).toBe('active');
  });

  it("refuses someone else's face and leaves the member waiting", async () => {
    const third = await service.core.tenancy.createOrgApp({ organizationName: 'Third Clinic' });
    const creds = { clientId: third.app.clientId, clientSecret: third.clientSecret };
    const entry = await invite(creds, person.email);
    const page = await signInThroughLink(await browserWithCamera('rose', ['rose_leslie_1.jpg']), entry.activation_link);
    const result = await takeSelfie(page, 'refused-other-face');
    expect(result).toContain('does not match the face on this account');
    expect(await member(creds, person.email)).toMatchObject({ status: 'link_sent', svc_id: null });
  });

  it('refuses a link sent to another email, signed in or not, before the camera is asked for', async () => {
    const entry = await invite(other, 'someone-else@second.example');
    const page = await signInThroughLink(
      await browserWithCamera('rose-again', ['rose_leslie_1.jpg']),
      entry.activation_link,
    );
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('sent to someone-else@second.example');
    expect(await member(other, 'someone-else@second.example')).toMatchObject({ status: 'link_sent', svc_id: null });
  });
});
