import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeImage } from '../src/ml/image.js';
import { renderDocument } from './helpers/documents.js';
import { markerFaceEngine, markerImage } from './helpers/face-engine.js';
import { sql, startTestService, type TestService } from './helpers/service.js';
import { personSignedInTo, type Tenant, tenantWithKeys } from './helpers/tenants.js';

// Test mode and a person's account (issue #46 item 1), through HTTP: what a test key does with an
// account is never written to it, and a test key never reads the account's live identity or face
// reference. Two tenants, each with a live key, a test key and an app the same person signed in
// to. Documents are read by the real OCR; faces come from the deterministic engine.

const engine = markerFaceEngine();
let service: TestService;
let a: Tenant;
let b: Tenant;

const post = (key: string, path: string, body: object) =>
  service.http.post(`/api/v2${path}`).set('X-API-Key', key).send(body);
const hosted = (token: string, path: string, body: object = {}) =>
  service.http.post(`/api/hosted/session${path}`).set('X-Session-Token', token).send(body);
const dataUrl = (bytes: Buffer) => `data:image/jpeg;base64,${bytes.toString('base64')}`;
const workflow = async (tenant: Tenant, features: string[]) =>
  (await service.core.tenancy.createWorkflow({ projectId: tenant.projectId, name: features.join('+'), features })).id;

/** A session of `key`'s mode bound to the person (`token`), as its 201 answer. */
async function boundSession(key: string, workflowId: string, token: string) {
  const created = await post(key, '/session', { workflow_id: workflowId, svc_access_token: token });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data as { session_id: string; session_token: string; livemode?: false };
}

/** A person whose identity a live flow verified (an operator recorded it) and whose face is on file. */
async function verifiedPerson(email: string) {
  const person = await personSignedInTo(service.core, email, [a, b]);
  await service.core.accounts.recordVerifiedIdentity({
    svcId: person.svcId,
    fullName: 'Ada Lovelace',
    dateOfBirth: '1990-12-10',
    documentExpiry: '2035-01-01',
  });
  await service.core.accounts.setFaceReference(
    person.svcId,
    (await engine.describeLargestFace(await decodeImage(await markerImage({ person: 40 }))))!.descriptor,
  );
  return person;
}

beforeAll(async () => {
  service = await startTestService({}, { faceEngine: engine });
  a = await tenantWithKeys(service.core, 'Tenant A');
  b = await tenantWithKeys(service.core, 'Tenant B');
});
afterAll(async () => {
  await service?.close();
});

describe('a test session bound to an account', () => {
  it('approved on a real document, leaves the account unverified: no live reuse, no id_verified, no approval elsewhere', {
    timeout: 180_000,
  }, async () => {
    const person = await personSignedInTo(service.core, 'sandbox-writer@example.com', [a, b]);
    const [tokenA, tokenB] = person.tokens as [string, string];
    const test = await boundSession(a.testKey, await workflow(a, ['id_verification']), tokenA);
    expect(test.livemode).toBe(false);
    const passport = await renderDocument({
      name: 'sandbox',
      layout: 'TD3',
      font: 'sans',
      rotation: 0,
      skew: 0,
      blur: 0,
      jpegQuality: 90,
      seed: 21,
    });
    const read = await hosted(test.session_token, '/steps/document', { front_image: dataUrl(passport.bytes) });
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body.data.status).toBe('APPROVED'); // the attack ran: a sandbox approval on a document read for real

    // Nothing reached the account: not in the database, not for a live key, not for the person's apps.
    const [row] = await sql<{ id_verified: boolean; identity_sealed: string | null }>(
      service,
      'select id_verified, identity_sealed from account where id = ?',
      [person.svcId],
    );
    expect(row).toEqual({ id_verified: false, identity_sealed: null });
    const userinfo = await service.http.get('/api/auth/oidc/userinfo').set('Authorization', `Bearer ${tokenB}`);
    expect(userinfo.status).toBe(200);
    expect(userinfo.body).toMatchObject({ id_verified: false, name: 'sandbox-writer@example.com' });
    const reuse = await post(b.liveKey, '/id-verification', { svc_access_token: tokenB });
    expect(reuse.status).toBe(400);
    expect(reuse.body.error.code).toBe('no_reusable_record');
    const live = await boundSession(b.liveKey, await workflow(b, ['id_verification', 'location']), tokenB);
    const opened = await hosted(live.session_token, '/start');
    expect(opened.body.data.steps.map(({ step, done }: { step: string; done: boolean }) => ({ step, done }))).toEqual([
      { step: 'document', done: false },
      { step: 'location', done: false },
    ]);
    const decision = await service.http.get(`/api/v2/session/${test.session_id}/decision`).set('X-API-Key', a.testKey);
    expect(decision.body.data).toMatchObject({
      status: 'APPROVED',
      svc_id: person.svcId,
      identity: { full_name: null, licenses: [] },
      livemode: false,
    });
  });

  it("never reuses the account's live identity: the person verifies in full, and the decision shows no identity", async () => {
    const person = await verifiedPerson('sandbox-reuse@example.com');
    const test = await boundSession(
      a.testKey,
      await workflow(a, ['id_verification', 'age', 'location']),
      person.tokens[0]!,
    );
    const opened = await hosted(test.session_token, '/start');
    expect(opened.body.data.steps.map(({ step, done }: { step: string; done: boolean }) => ({ step, done }))).toEqual([
      { step: 'document', done: false },
      { step: 'location', done: false },
    ]);
    expect(opened.body.data.checks).toEqual([]);
    const decision = await service.http.get(`/api/v2/session/${test.session_id}/decision`).set('X-API-Key', a.testKey);
    expect(decision.body.data.identity).toEqual({ full_name: null, licenses: [] });
    // The same account in a live session of the same project: reused as before.
    const live = await boundSession(
      a.liveKey,
      await workflow(a, ['id_verification', 'age', 'location']),
      person.tokens[0]!,
    );
    expect((await hosted(live.session_token, '/start')).body.data.steps[0]).toMatchObject({
      step: 'document',
      done: true,
    });
  });
});

describe('account-mode checks with a test key', () => {
  it('read no live identity or face reference: answered as for an account with none, while the live key still reads them', async () => {
    const person = await verifiedPerson('sandbox-reader@example.com');
    const token = person.tokens[0]!;
    const selfie = dataUrl(await markerImage({ person: 40, variant: 1 }));

    const live = await post(a.liveKey, '/id-verification', { svc_access_token: token });
    expect(live.body.data.check.data).toMatchObject({ id_verified: true, reused: true });
    expect((await post(a.liveKey, '/face-match', { svc_access_token: token, image2: selfie })).body.data.status).toBe(
      'passed',
    );

    const attempts: [string, object, number, string][] = [
      ['/id-verification', {}, 400, 'no_reusable_record'],
      ['/age-verification', { bands: [18] }, 422, 'account_dob_unavailable'],
      ['/face-match', { image2: selfie }, 409, 'face_not_enrolled'],
      ['/face-uniqueness', {}, 409, 'face_not_enrolled'],
      ['/antispoof', { image: selfie }, 409, 'face_not_enrolled'],
    ];
    for (const [path, body, status, code] of attempts) {
      const res = await post(a.testKey, path, { ...body, svc_access_token: token });
      expect([res.status, res.body.error?.code], path).toEqual([status, code]);
    }
    // svc_id names the same account: the same answer.
    expect((await post(a.testKey, '/id-verification', { svc_id: person.svcId })).body.error.code).toBe(
      'no_reusable_record',
    );
  });
});

describe("the console's raw identity", () => {
  it('is not opened to a project by its approved test session: proofs only', { timeout: 180_000 }, async () => {
    const person = await verifiedPerson('sandbox-console@example.com');
    const test = await boundSession(a.testKey, await workflow(a, ['id_verification']), person.tokens[0]!);
    const passport = await renderDocument({
      name: 'console',
      layout: 'TD3',
      font: 'sans',
      rotation: 0,
      skew: 0,
      blur: 0,
      jpegQuality: 90,
      seed: 22,
    });
    const read = await hosted(test.session_token, '/steps/document', { front_image: dataUrl(passport.bytes) });
    expect(read.body.data.status).toBe('APPROVED');
    const { token } = await service.core.tenancy.createAdminToken({
      role: 'admin',
      projectId: a.projectId,
      name: 'tenant A admin',
    });
    const identity = await service.http
      .post('/graphql')
      .set('Authorization', `Bearer ${token}`)
      .send({
        query:
          'query($p: String!, $s: String!) { accountIdentity(projectId: $p, svcId: $s) { proofsOnly identityVerified fullName dateOfBirth } }',
        variables: { p: a.projectId, s: person.svcId },
      });
    expect(identity.body.errors).toBeUndefined();
    expect(identity.body.data.accountIdentity).toEqual({
      proofsOnly: true,
      identityVerified: true,
      fullName: null,
      dateOfBirth: null,
    });
  });
});
