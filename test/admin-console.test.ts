import http, { type Server } from 'node:http';
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, inReviewSession, submitStep, triedSession } from './helpers/admin-sessions.js';
import { seriousViolations } from './helpers/axe.js';
import { chromiumAvailable, launchChromium } from './helpers/browser.js';
import { markerFaceEngine } from './helpers/face-engine.js';
import { sql, startListeningService, type ListeningService } from './helpers/service.js';

// The admin console in Debian's Chromium against the whole service: sign in with an admin token,
// find a session, decide a review, resend a webhook, invite a member. Screenshots go to
// test-artifacts/admin/.

const ARTIFACTS = path.resolve('test-artifacts/admin');
let service: ListeningService;
let browser: Browser;
let page: Page;
let receiver: Server;
let found: string;
let reviewId: string;
let evidenceId: string;
let otherReviewId: string;
let triedId: string;

const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
/** Every console screen is scanned with axe-core: no serious or critical violation. */
const accessible = async (name: string) => expect(await seriousViolations(page, `console-${name}`)).toEqual([]);

beforeAll(async () => {
  if (!chromiumAvailable) return;
  await mkdir(ARTIFACTS, { recursive: true });
  service = await startListeningService({ allowInsecureCallbacks: true }, { faceEngine: markerFaceEngine() });
  // '/down' answers 503: the dashboard must say so first.
  receiver = await new Promise((resolve) => {
    const s = http
      .createServer((req, res) => {
        res.statusCode = req.url === '/down' ? 503 : 200;
        res.end('ok');
      })
      .listen(0, '127.0.0.1', () => resolve(s));
  });
  await service.core.tenancy.setDefaultCallback({
    projectId: service.demo.project_id,
    url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
  });

  const workflow = await service.core.tenancy.createWorkflow({
    projectId: service.demo.project_id,
    name: 'location only',
    features: ['location'],
  });
  for (let i = 0; i < 3; i++) {
    const session = await createSession(service, service.demo.api_key, {
      workflow_id: workflow.id,
      vendor_data: i === 1 ? 'console-find' : `other-${i}`,
    });
    await submitStep(service, session.session_token, 'location', { latitude: 1, longitude: 2, accuracy: 5 });
    if (i === 1) found = session.session_id;
  }
  // The approval's webhook is delivered once (as the job would), so a resend starts a new series.
  const [event] = await sql<{ id: string }>(service, 'select id from webhook_event where session_id = ?', [found]);
  await service.core.webhooks.deliver(event!.id);
  reviewId = (await inReviewSession(service, { vendorData: 'console-review' })).sessionId;
  // With liveness and face match too, so the review shows a score and liveness evidence beside the images.
  evidenceId = (await inReviewSession(service, { vendorData: 'console-evidence', approvable: true })).sessionId;
  // One more in review, which another reviewer decides while this console shows the queue.
  otherReviewId = (await inReviewSession(service, { vendorData: 'console-other' })).sessionId;
  // A history of tries: an expired document asked again, then three selfies not live, declined.
  triedId = await triedSession(service, 'console-tries');
  // A destination that keeps failing: three attempts in a row answered 503 (each made due at once).
  const down = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/down`;
  await service.core.tenancy.approveCallback({ projectId: service.demo.project_id, url: down });
  const failing = await createSession(service, service.demo.api_key, {
    workflow_id: workflow.id,
    vendor_data: 'console-down',
    callback: down,
  });
  await submitStep(service, failing.session_token, 'location', { latitude: 1, longitude: 2, accuracy: 5 });
  const [downEvent] = await sql<{ id: string }>(service, 'select id from webhook_event where session_id = ?', [
    failing.session_id,
  ]);
  for (let i = 0; i < 3; i++) {
    await sql(service, 'update webhook_event set next_attempt_at = now() where id = ?', [downEvent!.id]);
    await service.core.webhooks.deliver(downEvent!.id);
  }

  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => receiver?.close(resolve));
  await service?.close();
});

describe.skipIf(!chromiumAvailable)('the admin console', () => {
  it('signs in with an admin token (a wrong one is refused) and shows the dashboard', async () => {
    await page.goto(`${service.url}/admin`);
    const token = page.getByLabel('Admin token');
    await token.fill('vat_wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    // The server's sentence, without its catalog code in front.
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('invalid admin token');
    await shot('00-sign-in-refused');
    await accessible('sign-in');
    await token.fill(service.demo.admin_token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Dashboard (last 30 days)' }).waitFor();
    await page.getByRole('img', { name: 'Sessions per day by status' }).waitFor();
    expect(await page.evaluate("sessionStorage.getItem('verity-admin-token')")).toBe(service.demo.admin_token);
    // The webhook headline: recent attempts, and the destination that keeps failing before anything else.
    const card = page.locator('#webhook-health');
    await card.waitFor();
    const text = (await card.textContent())!;
    expect(text).toContain('1 unhealthy destination');
    expect(text).toMatch(/\/down · 3 failed in a row · last answer 503 · 0\.0% ok in the last hour/);
    expect(text.indexOf('unhealthy destination')).toBeLessThan(text.indexOf('Attempts answered 2xx, last hour'));
    expect(await page.locator('#webhook-recent-success').textContent()).toMatch(/^\d+\.\d%$/);
    await shot('01-dashboard');
    await accessible('dashboard');
  });

  it('finds a session by vendor data and opens it: checks, timeline, webhook attempts, no images', async () => {
    await page.getByRole('link', { name: 'Sessions' }).click();
    await page.locator('input[name=vendorData]').fill('console-find');
    await page.getByRole('button', { name: 'Search' }).click();
    const rows = page.locator('tbody tr.link');
    await expect.poll(() => rows.count()).toBe(1);
    await rows.first().click();
    await page.getByRole('heading', { name: `Session ${found}` }).waitFor();
    const text = await page.locator('main').textContent();
    expect(text).toContain('verification.approved');
    expect(text).toContain('Images: none');
    expect(text).toMatch(/location\s*passed/);
    // Check details are fields with their values, not a JSON dump.
    const details = page.locator('dl.details').first();
    expect(await details.textContent()).toMatch(/^latitude/);
    expect(await details.textContent()).not.toContain('{');
    await shot('02-session');
    await accessible('session');
    await page.getByRole('link', { name: 'Sessions' }).click();
    await page.getByRole('heading', { name: 'Sessions' }).waitFor();
    await accessible('sessions');
  });

  it('declines a session from the review queue: Approve is off where the rule refuses it, and decided sessions leave the queue', async () => {
    await page.getByRole('link', { name: 'Review queue' }).click();
    const row = page.locator('tr', { hasText: reviewId });
    await row.waitFor();
    // Approval needs passed liveness and face match, which this workflow never ran: the button is off and says why.
    const approve = row.getByRole('button', { name: 'Approve' });
    expect(await approve.isDisabled()).toBe(true);
    expect(await row.locator('.approve-blocked').textContent()).toBe(
      'Approval needs a passed liveness check, a passed face match, which this session lacks: decline it, or ask the person to verify again.',
    );
    expect(await approve.getAttribute('aria-describedby')).toBe(`approve-blocked-${reviewId}`);
    expect(
      await page.locator('tr', { hasText: evidenceId }).getByRole('button', { name: 'Approve' }).isDisabled(),
    ).toBe(false);
    await shot('03-review-queue');
    await accessible('review-queue');
    // Without a note the server refuses the decision, in words.
    await row.getByRole('button', { name: 'Decline' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('a note saying why is required');
    expect(await page.getByRole('alert').textContent()).not.toContain('validation_error');
    await row.getByLabel(`Review note for ${reviewId}`).fill('blurry photo, asked for a new session');
    await row.getByRole('button', { name: 'Decline' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain(`${reviewId} is now DECLINED`);
    // The decided session leaves the queue at once.
    await expect.poll(() => page.locator('tr', { hasText: reviewId }).count(), { timeout: 5_000 }).toBe(0);
    // Another reviewer decides one of the others meanwhile: this console's queue drops it too, without a reload.
    expect(await page.locator('tr', { hasText: otherReviewId }).count()).toBe(1);
    const other = await service.core.tenancy.createAdminToken({ role: 'reviewer' });
    const decided = await service.http
      .post('/graphql')
      .set('Authorization', `Bearer ${other.token}`)
      .send({
        query: 'mutation($i: ReviewSessionInput!) { reviewSession(input: $i) { status } }',
        variables: {
          i: {
            projectId: service.demo.project_id,
            sessionId: otherReviewId,
            status: 'DECLINED',
            note: 'decided elsewhere',
          },
        },
      });
    expect(decided.body.data.reviewSession.status).toBe('DECLINED');
    await expect.poll(() => page.locator('tr', { hasText: otherReviewId }).count(), { timeout: 15_000 }).toBe(0);
    expect(await page.locator('tr', { hasText: evidenceId }).count()).toBe(1);
    const [session] = await sql<{ status: string; decided_by: string }>(
      service,
      'select status, decided_by from verification_session where id = ?',
      [reviewId],
    );
    expect(session!.status).toBe('DECLINED');
    expect(session!.decided_by).toMatch(/^admin:adm_/);
    await shot('04-review-decided');
  });

  it('opens an IN_REVIEW session: sees its images beside the checks, decides with a note, and the audit shows the views', async () => {
    await page.goto(`${service.url}/admin#/session/${evidenceId}`);
    await page.getByRole('heading', { name: `Session ${evidenceId}` }).waitFor();
    const front = page.getByRole('img', { name: 'document front' });
    await front.waitFor();
    expect(
      await front.evaluate((img) => {
        const image = img as unknown as { complete: boolean; naturalWidth: number };
        return image.complete && image.naturalWidth > 0;
      }),
    ).toBe(true);
    expect(await page.locator('main').textContent()).toMatch(/id_verification\s*review/);
    // Beside the images: why it is in review, the fields read, the face-match score and the liveness evidence.
    const facts = page.locator('.review-side-by-side #review-facts');
    expect(await facts.isVisible()).toBe(true);
    const [checks] = await sql<{ n: string }>(
      service,
      "select count(*) as n from session_check where session_id = ? and type in ('face_match', 'liveness')",
      [evidenceId],
    );
    expect(Number(checks!.n)).toBe(2);
    const [move] = await sql<{ reason: string }>(
      service,
      "select reason from session_event where session_id = ? and to_status = 'IN_REVIEW' order by id desc limit 1",
      [evidenceId],
    );
    expect(move!.reason).toBeTruthy();
    expect(await facts.locator('#review-reason').textContent()).toContain(move!.reason);
    expect(await facts.locator('#review-reason').isVisible()).toBe(true);
    const fieldsTable = facts.locator('table').first();
    expect(await fieldsTable.isVisible()).toBe(true);
    expect(await fieldsTable.textContent()).toContain('document number');
    expect(await facts.locator('h3').first().textContent()).toBe('Why in review');
    expect(await facts.locator('#face-match').textContent()).toMatch(/^score \d(\.\d+)? \(passed\)$/);
    expect(await facts.locator('#face-match').isVisible()).toBe(true);
    expect(await facts.locator('#liveness').textContent()).toBe('live score 1 (passed)');
    expect(await facts.locator('#liveness-challenge').textContent()).toMatch(/^gesture asked: [a-z ]+, performed/);
    const evidenceTable = facts.locator('table').nth(1);
    expect(await evidenceTable.isVisible()).toBe(true);
    expect(await evidenceTable.locator('tbody tr').count()).toBeGreaterThan(0);
    // Measures are over or under their own thresholds, which is not the gesture's verdict: the table says which it
    // shows.
    expect(await evidenceTable.locator('thead').textContent()).toBe('MeasureValueOver its thresholdWhat it measures');
    // Side by side: the facts start to the right of the images, at about the same height.
    const images = (await page.locator('#evidence').boundingBox())!;
    const beside = (await facts.boundingBox())!;
    expect(beside.x).toBeGreaterThanOrEqual(images.x + images.width - 1);
    expect(Math.abs(beside.y - images.y)).toBeLessThan(80);
    await shot('04b-review-evidence');
    await accessible('session-in-review');
    await page.getByLabel(`Review note for ${evidenceId}`).fill('document genuine, checked by hand');
    await page.getByRole('button', { name: 'Decline' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain(`${evidenceId} is now DECLINED`);
    await expect
      .poll(() => page.locator('main').textContent())
      .toContain('manual review: document genuine, checked by hand');
    await shot('04c-review-decided-with-note');
    await page.getByRole('link', { name: 'Audit' }).click();
    await page.getByRole('heading', { name: 'Audit' }).waitFor();
    await expect.poll(() => page.locator('tbody tr', { hasText: `${evidenceId}/` }).count()).toBeGreaterThan(0);
    expect(await page.locator('main').textContent()).toContain('session.evidence.view:document_front');
    await shot('04d-audit');
    await accessible('audit');
    page.once('dialog', (dialog) => dialog.accept());
    await page.goto(`${service.url}/admin#/session/${evidenceId}`);
    await page.getByRole('button', { name: 'Erase data' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain(`Data of ${evidenceId} erased`);
    await expect.poll(() => page.locator('main').textContent()).toContain('Images: none');
    await shot('04e-data-erased');
  });

  it('resends a delivered webhook', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByLabel('State').selectOption('delivered');
    const row = page
      .locator('tbody tr', { hasText: 'verification.approved' })
      .filter({ has: page.getByRole('button', { name: 'Resend' }) });
    await expect.poll(() => row.count()).toBeGreaterThan(0);
    const [event] = await sql<{ id: string; url: string }>(
      service,
      'select id, url from webhook_event where session_id = ?',
      [found],
    );
    // Each event says which session it is about (a link to it) and where it goes.
    const eventRow = page.locator('tbody tr', { hasText: event!.id });
    expect(await eventRow.getByRole('link', { name: found }).getAttribute('href')).toBe(`#/session/${found}`);
    expect(await eventRow.locator('td.destination').textContent()).toBe(event!.url);
    await accessible('webhooks');
    await eventRow.getByRole('button', { name: 'Resend' }).click();
    await expect
      .poll(() => page.getByRole('status').textContent())
      .toContain(`Event ${event!.id} queued again (pending)`);
    const [after] = await sql<{ state: string }>(service, 'select state from webhook_event where id = ?', [event!.id]);
    expect(after!.state).toBe('pending');
    await shot('05-webhook-resent');
  });

  it('invites a member to an organization and lists them', async () => {
    await page.getByRole('link', { name: 'Roster' }).click();
    await page.locator('input[name=email]').fill('console-invite@example.com');
    await page.locator('input[name=firstName]').fill('Grace');
    await page.getByRole('button', { name: 'Invite' }).click();
    await expect
      .poll(() => page.getByRole('status').textContent())
      .toMatch(/Invited console-invite@example\.com: activation link http.*\/activate\//);
    await page.locator('tbody tr', { hasText: 'console-invite@example.com' }).waitFor();
    const [member] = await sql<{ status: string }>(service, 'select status from member where email = ?', [
      'console-invite@example.com',
    ]);
    expect(member!.status).toBe('link_sent');
    await shot('06-roster-invited');
    await accessible('roster');
    for (const view of ['Billing', 'Keys & workflows']) {
      await page.getByRole('link', { name: view }).click();
      await page.getByRole('heading', { name: view === 'Billing' ? 'Billing' : 'API keys', exact: true }).waitFor();
      await accessible(view === 'Billing' ? 'billing' : 'keys');
    }
    await page.getByLabel('Days kept after the decision').fill('14');
    await page.getByRole('button', { name: 'Save retention' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('kept 14 days after the decision');
    expect(await service.core.tenancy.evidenceRetentionDays(service.demo.project_id)).toBe(14);
    await shot('07-keys');
  });

  it('creates a test API key from the console; its sessions carry a Test badge in the list and the view, live ones none', async () => {
    await page.getByRole('link', { name: 'Keys & workflows' }).click();
    await page.getByLabel('Key name').fill('console-sandbox-key');
    await page.getByLabel('Key mode').selectOption('test');
    await page.getByRole('button', { name: 'Create API key' }).click();
    await expect
      .poll(() => page.getByRole('status').textContent())
      .toMatch(/New test key \(shown once, copy it now\): vk_test_/);
    const testKey = (await page.getByRole('status').textContent())!.match(/vk_test_[A-Za-z0-9_-]+/)![0];
    await expect
      .poll(() => page.locator('tbody tr', { hasText: 'console-sandbox-key' }).textContent())
      .toContain('test');
    await shot('08-test-key-created');

    const workflow = await service.core.tenancy.createWorkflow({
      projectId: service.demo.project_id,
      name: 'sandbox',
      features: ['location'],
    });
    const sandbox = await createSession(service, testKey, { workflow_id: workflow.id, vendor_data: 'console-sandbox' });
    await page.getByRole('link', { name: 'Sessions' }).click();
    const search = async (vendorData: string) => {
      await page.locator('input[name=vendorData]').fill(vendorData);
      await page.getByRole('button', { name: 'Search' }).click();
      await expect.poll(() => page.locator('tbody tr.link').count()).toBe(1);
      return page.locator('tbody tr.link').first();
    };
    const liveRow = await search('console-find');
    await expect.poll(() => liveRow.textContent()).toContain(found);
    expect(await liveRow.locator('.test-badge').count()).toBe(0);
    const testRow = await search('console-sandbox');
    await expect.poll(() => testRow.textContent()).toContain(sandbox.session_id);
    expect(await testRow.locator('.test-badge').isVisible()).toBe(true);
    expect(await testRow.locator('.test-badge').textContent()).toBe('Test');
    await shot('09-sessions-test-badge');
    await testRow.click();
    const heading = page.getByRole('heading', { name: `Session ${sandbox.session_id}` });
    await heading.waitFor();
    expect(await heading.locator('.test-badge').isVisible()).toBe(true);
    await shot('10-session-test-badge');
  });

  it("a declined session's history: every try's images and every try in the timeline with its reason; no 'Why in review' on a session never in review", async () => {
    await page.goto(`${service.url}/admin#/session/${triedId}`);
    await page.getByRole('heading', { name: `Session ${triedId}` }).waitFor();
    await page.locator('#evidence figure').first().waitFor();
    expect(await page.locator('#evidence figcaption').allTextContents()).toEqual([
      'document front, try 1',
      'document front, try 2',
      'selfie, try 1',
      'selfie, try 2',
      'selfie, try 3',
    ]);
    const facts = page.locator('#review-facts');
    expect(await facts.locator('h3').first().textContent()).toBe('Why declined');
    expect(await facts.textContent()).not.toContain('Why in review');
    expect(await page.locator('#review-reason').textContent()).toContain('liveness: spoof');
    const timeline = (await page.locator('main').textContent())!;
    for (const reason of [
      'document: expired, asked again (try 1 of 3)',
      'selfie: spoof, retake asked (try 1 of 3)',
      'selfie: spoof, retake asked (try 2 of 3)',
      'liveness: spoof',
    ])
      expect(timeline).toContain(reason);
    await shot('11-session-tries');
    await accessible('session-declined-tries');
  });

  it('GraphiQL reuses the console token: the link opens it signed in, and a query runs', async () => {
    await page.goto(`${service.url}/admin#/dashboard`);
    await page.getByRole('link', { name: 'GraphQL' }).click();
    await page.waitForURL(`${service.url}/graphql`);
    expect(await page.getByLabel('Admin token').inputValue()).toBe(service.demo.admin_token);
    await expect
      .poll(() => page.locator('.graphiql-query-editor .CodeMirror-code').first().textContent(), { timeout: 20_000 })
      .toContain('projects');
    await page.getByRole('button', { name: /Execute query/ }).click();
    await expect
      .poll(() => page.locator('.result-window').textContent(), { timeout: 20_000 })
      .toContain(service.demo.project_id);
    await shot('12-graphiql-with-console-token');
  });
});
