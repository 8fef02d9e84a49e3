import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeImage } from '../src/ml/image.js';
import { renderDocument } from '../test/helpers/documents.js';
import { markerFaceEngine, markerImage } from '../test/helpers/face-engine.js';
import { personSignedInTo, type Tenant, tenantWithKeys } from '../test/helpers/tenants.js';
import { startInProcess, type InProcessService } from './helpers/in-process.js';

// The sandbox as an attacker uses it (issue #46 items 1 and 2): a test key (vk_test_...) costs
// nothing and may force outcomes, so anything it made that counted in live mode, and any live
// data it could read or change, would be a hole. Test mode shares nothing with live mode but the
// project's settings: each attack below must be held. Two tenants; the attacker holds tenant A's
// test key, the victims are live data of A and B. Faces come from the deterministic engine; the
// one document is read by the real OCR (the only slow step, a few seconds).

const engine = markerFaceEngine();
let service: InProcessService;
let api: ReturnType<typeof supertest>;
let a: Tenant;
let b: Tenant;

const call = (key: string, path: string, body: object) => api.post(`/api/v2${path}`).set('X-API-Key', key).send(body);
const step = (token: string, path: string, body: object = {}) =>
  api.post(`/api/hosted/session${path}`).set('X-Session-Token', token).send(body);
const image = async (person: number, variant = 0) =>
  `data:image/png;base64,${(await markerImage({ person, variant })).toString('base64')}`;
const flow = async (tenant: Tenant, features: string[]) =>
  (
    await service.core.tenancy.createWorkflow({
      projectId: tenant.projectId,
      name: `flow-${features.join('-')}`,
      features,
    })
  ).id;
const session = async (key: string, workflowId: string, token: string) =>
  (await call(key, '/session', { workflow_id: workflowId, svc_access_token: token })).body.data as {
    session_id: string;
    session_token: string;
  };
const held = (res: { status: number; body: { error?: { code: string } } }, status: number, code: string) =>
  expect([res.status, res.body.error?.code], JSON.stringify(res.body)).toEqual([status, code]);

beforeAll(async () => {
  service = await startInProcess({ rateLimitPerMinute: 1e9 }, { faceEngine: engine });
  api = supertest(service.url);
  a = await tenantWithKeys(service.core, 'Attacker');
  b = await tenantWithKeys(service.core, 'Bystander');
}, 120_000);
afterAll(async () => {
  await service?.close();
});

describe('a test key and the accounts of real people', () => {
  it('a sandbox approval is never a live identity: no live reuse, no id_verified, no live approval elsewhere', async () => {
    const victim = await personSignedInTo(service.core, 'victim-unverified@example.com', [a, b]);
    const [viaA, viaB] = victim.tokens as [string, string];
    const sandbox = await session(a.testKey, await flow(a, ['id_verification']), viaA);
    const passport = await renderDocument({
      name: 'attack',
      layout: 'TD3',
      font: 'sans',
      rotation: 0,
      skew: 0,
      blur: 0,
      jpegQuality: 90,
      seed: 23,
    });
    const approved = await step(sandbox.session_token, '/steps/document', {
      front_image: `data:image/jpeg;base64,${passport.bytes.toString('base64')}`,
    });
    expect(approved.body.data.status).toBe('APPROVED');

    held(await call(b.liveKey, '/id-verification', { svc_access_token: viaB }), 400, 'no_reusable_record');
    expect((await api.get('/api/auth/oidc/userinfo').set('Authorization', `Bearer ${viaB}`)).body.id_verified).toBe(
      false,
    );
    const live = await session(b.liveKey, await flow(b, ['id_verification', 'location']), viaB);
    await step(live.session_token, '/start');
    expect(
      (await step(live.session_token, '/steps/location', { latitude: 1, longitude: 2, accuracy: 5 })).body.data.status,
    ).toBe('IN_PROGRESS');
  });

  it("a test key reads no live identity or face reference: no `reused: true`, no match against the person's face", async () => {
    const victim = await personSignedInTo(service.core, 'victim-verified@example.com', [a]);
    await service.core.accounts.recordVerifiedIdentity({
      svcId: victim.svcId,
      fullName: 'Grace Hopper',
      dateOfBirth: '1986-12-09',
    });
    await service.core.accounts.setFaceReference(
      victim.svcId,
      (await engine.describeLargestFace(await decodeImage(await markerImage({ person: 50 }))))!.descriptor,
    );
    const token = victim.tokens[0]!;
    held(await call(a.testKey, '/id-verification', { svc_access_token: token }), 400, 'no_reusable_record');
    held(
      await call(a.testKey, '/age-verification', { svc_id: victim.svcId, bands: [21] }),
      422,
      'account_dob_unavailable',
    );
    held(
      await call(a.testKey, '/face-match', { svc_access_token: token, image2: await image(50, 1) }),
      409,
      'face_not_enrolled',
    );
    const sandbox = await session(a.testKey, await flow(a, ['id_verification', 'location']), token);
    expect((await step(sandbox.session_token, '/start')).body.data.checks).toEqual([]);
    expect(
      (await api.get(`/api/v2/session/${sandbox.session_id}/decision`).set('X-API-Key', a.testKey)).body.data.identity,
    ).toEqual({ full_name: null, licenses: [] });
    // The live key of the same project still reads them: the data was there to steal.
    expect((await call(a.liveKey, '/id-verification', { svc_access_token: token })).body.data.check.data.reused).toBe(
      true,
    );
  });
});

describe('a test key and the live face registers', () => {
  it('cannot find a live face or read its reference, nor unlink it, in its own project or another', async () => {
    const ownFace = (
      await call(a.liveKey, '/face-uniqueness', { image: await image(60), enroll: true, reference: 'customer-60' })
    ).body.data.check.data.face_id;
    const otherFace = (
      await call(b.liveKey, '/face-uniqueness', { image: await image(61), enroll: true, reference: 'customer-61' })
    ).body.data.check.data.face_id;
    const search = await call(a.testKey, '/face-uniqueness', { image: await image(60, 1) });
    expect(search.body.data.check.data).toMatchObject({ unique: true, matches: [] });
    expect(JSON.stringify(search.body)).not.toContain('customer-60');
    for (const faceId of [ownFace, otherFace])
      held(await api.delete(`/api/v2/face-uniqueness/${faceId}`).set('X-API-Key', a.testKey), 404, 'not_found');
    expect(
      (await call(a.liveKey, '/face-uniqueness', { image: await image(60, 2) })).body.data.check.data.matches[0]
        .face_id,
    ).toBe(ownFace);
  });

  it('cannot make live searches fail by enrolling faces, nor learn live identity ids', async () => {
    expect(
      (await call(a.testKey, '/face-uniqueness', { image: await image(62), enroll: true })).body.data.check.data
        .enrolled,
    ).toBe(true);
    expect((await call(a.liveKey, '/face-uniqueness', { image: await image(62, 1) })).body.data).toMatchObject({
      status: 'passed',
      check: { data: { unique: true } },
    });
    const liveId = (await call(a.liveKey, '/antispoof/identity', { image: await image(63) })).body.data.check.data
      .face_id;
    const testId = (await call(a.testKey, '/antispoof/identity', { image: await image(63, 1) })).body.data.check.data
      .face_id;
    expect(testId).toMatch(/^fce_/);
    expect(testId).not.toBe(liveId);
  });
});
