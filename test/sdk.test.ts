import { createHmac } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { OpenAPI3 } from 'openapi-typescript';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GENERATED_OPERATIONS,
  GENERATED_TYPES,
  generateOperations,
  generateTypes,
} from '../packages/sdk/scripts/generate.js';
import { OPERATIONS } from '../packages/sdk/src/generated/operations.js';
import { VerityClient, VerityError, verifyWebhook, waitForSession } from '../packages/sdk/src/index.js';
import { checkedFetch, servedDocument } from './helpers/contract.js';
import { type ListeningService, startListeningService } from './helpers/service.js';

// The SDK (packages/sdk) against the real service on a loopback port, over real fetch; every JSON
// answer is checked against the OpenAPI document like service.http's (helpers/contract.ts).

interface Received {
  rawBody: Buffer;
  headers: http.IncomingHttpHeaders;
}

let service: ListeningService;
let client: VerityClient;
let checked: typeof fetch;
let receiver: http.Server;
let receiverUrl = '';
const received: Received[] = [];
let workflowId: string;

beforeAll(async () => {
  service = await startListeningService({ runJobs: true, allowInsecureCallbacks: true });
  checked = checkedFetch(await servedDocument(service.url));
  client = new VerityClient({ baseUrl: service.url, apiKey: service.demo.api_key, fetch: checked });
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ rawBody: Buffer.concat(chunks), headers: req.headers });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  await service.core.tenancy.approveCallback({ projectId: service.demo.project_id, url: receiverUrl });
  workflowId = (
    await service.core.tenancy.createWorkflow({
      projectId: service.demo.project_id,
      name: 'loc',
      features: ['location'],
    })
  ).id;
}, 120_000);

afterAll(async () => {
  await new Promise((resolve) => {
    receiver?.close(resolve);
    receiver?.closeAllConnections();
  });
  await service?.close();
});

describe('the generated types and operations', () => {
  it('match the OpenAPI document the service serves (run npm run sdk:generate when this fails)', async () => {
    const document = (await (await checked(`${service.url}/api/v2/openapi.json`)).json()) as OpenAPI3;
    expect(await generateTypes(document)).toBe(readFileSync(GENERATED_TYPES, 'utf8'));
    expect(generateOperations(document)).toBe(readFileSync(GENERATED_OPERATIONS, 'utf8'));
  });

  it('know which operations honour Idempotency-Key, take files and page (read from the document, so a rewording there must keep them)', () => {
    const flagged = (flag: 'idempotencyKey' | 'uploads') =>
      Object.entries(OPERATIONS)
        .filter(([, entry]) => entry[flag])
        .map(([id]) => id)
        .sort();
    expect(flagged('idempotencyKey')).toEqual(
      [
        'postSession',
        'postIdVerification',
        'postFaceMatch',
        'postLiveness',
        'postKycCredential',
        'postAntispoof',
        'postAntispoofIdentity',
        'postFaceUniqueness',
        'postAgeVerification',
        'postLocation',
        'postCredentialVerification',
      ].sort(),
    );
    expect(flagged('uploads')).toEqual(
      [
        'postIdVerification',
        'postFaceMatch',
        'postLiveness',
        'postKycCredential',
        'postAntispoof',
        'postAntispoofIdentity',
        'postFaceUniqueness',
        'postHostedSessionStepsByStep',
      ].sort(),
    );
    expect(OPERATIONS.getSession.pagination).toEqual({ items: null });
    expect(OPERATIONS.getSdkMembers.pagination).toEqual({ items: 'members' });
  });
});

describe('sessions through the SDK', () => {
  it('creates a session, reads it back, polls it to APPROVED and verifies the signed webhook', async () => {
    const created = await client.createSession({
      workflow_id: workflowId,
      callback: receiverUrl,
      vendor_data: 'sdk-user-1',
    });
    expect(created.status).toBe('NOT_STARTED');
    const read = await client.getSession(created.session_id);
    expect(read).toMatchObject({
      session_id: created.session_id,
      workflow_id: workflowId,
      vendor_data: 'sdk-user-1',
      status: 'NOT_STARTED',
    });

    // The user finishes the one step (location) on the hosted page; the poller sees it end.
    const polling = waitForSession(client, created.session_id, { intervalMs: 50, timeoutMs: 20_000 });
    const step = await checked(`${service.url}/api/hosted/session/steps/location`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-session-token': created.session_token },
      body: JSON.stringify({ latitude: 1, longitude: 2, accuracy: 5 }),
    });
    expect(step.status).toBe(200);
    expect((await polling).status).toBe('APPROVED');

    const started = Date.now();
    while (received.length === 0 && Date.now() - started < 40_000)
      await new Promise((resolve) => setTimeout(resolve, 200));
    const delivery = received[0]!;
    const secret = service.demo.webhook_signing_secret;
    const valid = verifyWebhook({ rawBody: delivery.rawBody, headers: delivery.headers, secret });
    expect(valid).toMatchObject({
      ok: true,
      eventId: delivery.headers['x-svc-event-id'],
      event: { session_id: created.session_id, status: 'APPROVED' },
    });
    // The raw body as a string verifies too; a re-serialised or tampered one does not.
    expect(verifyWebhook({ rawBody: delivery.rawBody.toString('utf8'), headers: delivery.headers, secret }).ok).toBe(
      true,
    );
    const tampered = delivery.rawBody.toString('utf8').replace('APPROVED', 'DECLINED');
    expect(verifyWebhook({ rawBody: tampered, headers: delivery.headers, secret })).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    expect(verifyWebhook({ rawBody: delivery.rawBody, headers: delivery.headers, secret: `${secret}x` })).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    expect(
      verifyWebhook({ rawBody: delivery.rawBody, headers: { ...delivery.headers, 'x-svc-signature': 'zz' }, secret }),
    ).toEqual({ ok: false, reason: 'bad_signature' });
    const timestamp = Number(delivery.headers['x-svc-timestamp']);
    expect(
      verifyWebhook({ rawBody: delivery.rawBody, headers: delivery.headers, secret, now: timestamp + 301 }),
    ).toEqual({ ok: false, reason: 'stale_timestamp' });
    expect(
      verifyWebhook({
        rawBody: delivery.rawBody,
        headers: delivery.headers,
        secret,
        now: timestamp + 3601,
        toleranceSeconds: 3600,
      }).ok,
    ).toBe(false);
    expect(
      verifyWebhook({
        rawBody: delivery.rawBody,
        headers: delivery.headers,
        secret,
        now: timestamp + 30,
        toleranceSeconds: 60,
      }).ok,
    ).toBe(true);
    const { 'x-svc-timestamp': _dropped, ...withoutTimestamp } = delivery.headers;
    expect(verifyWebhook({ rawBody: delivery.rawBody, headers: withoutTimestamp, secret })).toEqual({
      ok: false,
      reason: 'missing_headers',
    });
    // What the result names comes from the signed body: a forged or missing X-Svc-Event-Id changes nothing.
    const eventId = JSON.parse(delivery.rawBody.toString('utf8')).event_id;
    expect(valid).toMatchObject({ eventId, livemode: true, event: { livemode: true } });
    expect(
      verifyWebhook({
        rawBody: delivery.rawBody,
        headers: { ...delivery.headers, 'x-svc-event-id': 'evt_forged' },
        secret,
      }),
    ).toMatchObject({ ok: true, eventId });
    const { 'x-svc-event-id': _id, ...withoutEventId } = delivery.headers;
    expect(verifyWebhook({ rawBody: delivery.rawBody, headers: withoutEventId, secret })).toMatchObject({
      ok: true,
      eventId,
    });
    // A signed body that is not an event (no event_id) is refused rather than handed over without an id.
    const odd = '{"type":"verification.approved"}';
    const oddSignature = createHmac('sha256', secret).update(`${timestamp}.${odd}`).digest('hex');
    expect(
      verifyWebhook({
        rawBody: odd,
        headers: { 'x-svc-timestamp': String(timestamp), 'x-svc-signature': oddSignature },
        secret,
        now: timestamp,
      }),
    ).toEqual({ ok: false, reason: 'malformed_body' });
  });

  it("a test-mode event verifies with the project's test secret only, and says livemode: false", async () => {
    const projectId = service.demo.project_id;
    const { key: testKey } = await service.core.tenancy.createApiKey({ projectId, mode: 'test' });
    const { webhookSigningSecret: testSecret } = await service.core.tenancy.rotateWebhookSecret({
      projectId,
      mode: 'test',
      overlapHours: 0,
    });
    const testHook = `${receiverUrl}/test`;
    await service.core.tenancy.approveCallback({ projectId, url: testHook, mode: 'test' });
    const response = await checked(`${service.url}/api/v2/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': testKey, 'verity-test-outcome': 'approve' },
      body: JSON.stringify({ workflow_id: workflowId, callback: testHook, vendor_data: 'sdk-test-1' }),
    });
    expect(response.status).toBe(201);
    const sessionId = ((await response.json()) as { data: { session_id: string } }).data.session_id;
    const started = Date.now();
    const arrived = () => received.find((r) => r.rawBody.includes(sessionId));
    while (!arrived() && Date.now() - started < 40_000) await new Promise((resolve) => setTimeout(resolve, 200));
    const delivery = arrived()!;
    expect(verifyWebhook({ rawBody: delivery.rawBody, headers: delivery.headers, secret: testSecret })).toMatchObject({
      ok: true,
      livemode: false,
      event: { session_id: sessionId, status: 'APPROVED', vendor_data: 'sdk-test-1', livemode: false },
    });
    // A production receiver, holding the live secret, refuses it.
    expect(
      verifyWebhook({
        rawBody: delivery.rawBody,
        headers: delivery.headers,
        secret: service.demo.webhook_signing_secret,
      }),
    ).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('stops polling when aborted', async () => {
    const created = await client.createSession({ workflow_id: workflowId });
    const controller = new AbortController();
    const polling = waitForSession(client, created.session_id, { intervalMs: 50, signal: controller.signal });
    controller.abort(new Error('user left'));
    await expect(polling).rejects.toThrow('user left');
  });

  it("an error carries the status, catalog code, the service's message and the request id of the answer", async () => {
    let requestId: string | null = null;
    const observed = new VerityClient({
      baseUrl: service.url,
      apiKey: service.demo.api_key,
      fetch: async (input, init) => {
        const response = await checked(input, init);
        requestId = response.headers.get('x-request-id');
        return response;
      },
    });
    const missing = (await observed
      .getSession('00000000-0000-0000-0000-000000000000')
      .catch((error: unknown) => error)) as VerityError;
    expect(missing).toBeInstanceOf(VerityError);
    expect(missing).toMatchObject({ status: 404, code: 'not_found', message: expect.stringMatching(/\w/) });
    expect(missing.message).not.toContain('verity answered');
    expect(missing.requestId).toBe(requestId);
    expect(requestId).toBeTruthy();
    const notAPresentation = (await client
      .credentialPresentation({
        presentation: 'not-an-sd-jwt',
        nonce: 'n-verifier-0001',
        audience: 'https://shop.example',
      })
      .catch((error: unknown) => error)) as VerityError;
    expect(notAPresentation).toMatchObject({ status: 400, code: 'invalid_presentation' });
    const invalid = (await client
      .createSession({ workflow_id: 42 as unknown as string })
      .catch((error: unknown) => error)) as VerityError;
    expect(invalid).toMatchObject({
      status: 400,
      code: 'validation_error',
      data: { errors: { workflow_id: expect.any(String) } },
    });
  });

  it('lists sessions page by page and iterates them all, reads the decision, reviews and erases a session', async () => {
    const projectId = service.demo.project_id;
    const { key: testKey } = await service.core.tenancy.createApiKey({ projectId, mode: 'test' });
    const sandbox = new VerityClient({ baseUrl: service.url, apiKey: testKey, fetch: checked });
    const vendorData = 'sdk-list-1';
    const made: string[] = [];
    for (const outcome of ['approve', 'decline', 'review'] as const)
      made.push(
        (await sandbox.createSession({ workflow_id: workflowId, vendor_data: vendorData }, { testOutcome: outcome }))
          .session_id,
      );
    // Newest first (sessions made in one millisecond are ordered by id): the order of one big page.
    const whole = (await sandbox.listSessions({ vendor_data: vendorData, limit: 100 })).items.map((s) => s.session_id);
    expect([...whole].sort()).toEqual([...made].sort());
    const first = await sandbox.listSessions({ vendor_data: vendorData, limit: 2 });
    expect(first.items.map((s) => s.session_id)).toEqual(whole.slice(0, 2));
    expect(first.nextCursor).toEqual(expect.any(String));
    const seen: string[] = [];
    for await (const session of sandbox.iterateSessions({ vendor_data: vendorData, limit: 1 }))
      seen.push(session.session_id);
    expect(seen).toEqual(whole);
    // The live key sees none of the test sessions.
    expect((await client.listSessions({ vendor_data: vendorData })).items).toEqual([]);

    const inReview = made[2]!;
    expect(await sandbox.getSessionDecision(inReview)).toMatchObject({ session_id: inReview, status: 'IN_REVIEW' });
    expect(await sandbox.reviewSession(inReview, { status: 'DECLINED' })).toMatchObject({
      session_id: inReview,
      status: 'DECLINED',
    });
    expect(await sandbox.eraseSessionData(inReview)).toMatchObject({
      session_id: inReview,
      erased: true,
      already_erased: false,
    });
    // A retried erase (DELETE: repeated safely) says so.
    expect(await sandbox.eraseSessionData(inReview)).toMatchObject({ erased: true, already_erased: true });
  });
});

const data = fileURLToPath(new URL('../../shared/data/', import.meta.url));
const faces = existsSync(`${data}faceapi-bbt-identities`);

describe('standalone checks through the SDK', () => {
  it('sends bytes as multipart files the service reads by name', async () => {
    const png = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#888' } })
      .png()
      .toBuffer();
    const answer = (await client
      .faceMatch({ image1: { data: png, filename: 'a.png', contentType: 'image/png' } })
      .catch((error: unknown) => error)) as VerityError;
    expect(answer).toBeInstanceOf(VerityError);
    // image1 arrived as a file: only the absent image2 is reported.
    expect((answer.data as { errors: object }).errors).toEqual({ image2: expect.anything() });
  });

  it('forces an outcome with a test key, and unlinks a face', async () => {
    const { key: testKey } = await service.core.tenancy.createApiKey({
      projectId: service.demo.project_id,
      mode: 'test',
    });
    const sandbox = new VerityClient({ baseUrl: service.url, apiKey: testKey, fetch: checked });
    const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16]);
    const forced = await sandbox.faceMatch({ image1: jpeg, image2: new Blob([jpeg]) }, { testOutcome: 'decline' });
    expect(forced).toMatchObject({
      status: 'failed',
      livemode: false,
      check: { type: 'face_match', status: 'failed' },
    });
    const unlinked = (await sandbox
      .unlinkFace('face_0000000000000000')
      .catch((error: unknown) => error)) as VerityError;
    expect(unlinked).toMatchObject({ status: 404, code: 'not_found' });
  });

  it.skipIf(!faces)('runs a face match on two real photos', { timeout: 120_000 }, async () => {
    const photo = (name: string) => ({
      data: readFileSync(`${data}faceapi-bbt-identities/${name}`),
      filename: name,
      contentType: 'image/png',
    });
    const result = await client.faceMatch({ image1: photo('sheldon1.png'), image2: photo('sheldon2.png') });
    expect(result.status).toBe('passed');
  });
});
