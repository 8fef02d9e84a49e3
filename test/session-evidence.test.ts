import { existsSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/core/clock.js';
import { createSession, liveBurst, submitStep } from './helpers/admin-sessions.js';
import { renderDocument, renderSpecs } from './helpers/documents.js';
import { markerFaceEngine } from './helpers/face-engine.js';
import { decodeImage } from '../src/ml/image.js';
import { sql, startTestService, type TestService } from './helpers/service.js';

// Review evidence of hosted sessions through the real interfaces: the hosted page stores the
// images, the sweep's purge deletes them after the project's retention, and the integrator's
// DELETE /api/v2/session/{id}/data erases them (and the sealed data) at once.

let service: TestService;
const clock = new ManualClock(new Date('2026-11-23T10:00:00Z'));
const DAY = 24 * 3600 * 1000;
const key = () => ({ 'X-API-Key': service.demo.api_key });
const dataUrl = (bytes: Buffer) => `data:image/png;base64,${bytes.toString('base64')}`;
let front: Buffer;
let documentOnly: string;

beforeAll(async () => {
  service = await startTestService({}, { clock, faceEngine: markerFaceEngine() });
  documentOnly = (
    await service.core.tenancy.createWorkflow({
      projectId: service.demo.project_id,
      name: 'document',
      features: ['id_verification'],
    })
  ).id;
  // The front of an ID card without its back: no machine-readable zone, so the check is `review`.
  front = (
    await renderDocument({ ...renderSpecs(2)[1]!, layout: 'TD1', rotation: 0, skew: 0, blur: 0, jpegQuality: null })
  ).bytes;
}, 120_000);

afterAll(async () => {
  await service?.close();
});

/** A session whose document went to review: IN_REVIEW with its images kept. */
async function inReview(): Promise<string> {
  const created = await service.http.post('/api/v2/session').set(key()).send({ workflow_id: documentOnly });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const { session_id, session_token } = created.body.data;
  const read = await service.http
    .post('/api/hosted/session/steps/document')
    .set('X-Session-Token', session_token)
    .send({ front_image: dataUrl(front) });
  expect(read.status, JSON.stringify(read.body)).toBe(200);
  expect(read.body.data.status).toBe('IN_REVIEW');
  return session_id;
}

const images = (sessionId: string) =>
  sql<{ kind: string; sealed: Buffer }>(
    service,
    'select kind, sealed from session_evidence where session_id = ? order by id',
    [sessionId],
  );
const decline = (sessionId: string) =>
  service.http.patch(`/api/v2/session/${sessionId}/status`).set(key()).send({ status: 'DECLINED' });
// Through the service, as the dashboards set it: each instance caches the setting, and a change is dropped everywhere.
const setRetention = (days: number) =>
  service.core.tenancy.setEvidenceRetention({ projectId: service.demo.project_id, days });

describe('review evidence', () => {
  it('keeps the document image sealed (AES-256-GCM), never in clear', async () => {
    const sessionId = await inReview();
    const kept = await images(sessionId);
    expect(kept.map((row) => row.kind)).toContain('document_front');
    const row = kept.find((r) => r.kind === 'document_front')!;
    expect(row.sealed.includes(front.subarray(0, 64))).toBe(false);
    expect(service.core.sealer.openBytes(row.sealed).equals(front)).toBe(true);
  }, 60_000);

  it("keeps the selfie burst's middle frame (the one liveness judged), sealed", async () => {
    const workflow = await service.core.tenancy.createWorkflow({
      projectId: service.demo.project_id,
      name: 'selfie',
      features: ['liveness'],
    });
    const session = await createSession(service, service.demo.api_key, { workflow_id: workflow.id });
    const burst = await liveBurst(service, session.session_token);
    expect((await submitStep(service, session.session_token, 'selfie', burst)).status).toBe('APPROVED');
    const kept = await images(session.session_id);
    expect(kept.map((row) => row.kind)).toEqual(['selfie']);
    const middle = Buffer.from(burst.frames[1]!.split(',')[1]!, 'base64');
    expect(service.core.sealer.openBytes(kept[0]!.sealed).equals(middle)).toBe(true);
  }, 60_000);

  it('keeps images of IN_REVIEW sessions through the purge, and purges decided ones after the retention', async () => {
    await setRetention(30);
    const sessionId = await inReview();
    clock.advance(400 * DAY);
    await service.core.sessions.purgeEvidence();
    expect((await images(sessionId)).length).toBeGreaterThan(0);

    expect((await decline(sessionId)).status).toBe(200);
    clock.advance(30 * DAY - 1000);
    await service.core.sessions.purgeEvidence();
    expect((await images(sessionId)).length).toBeGreaterThan(0);
    clock.advance(1000);
    expect(await service.core.sessions.purgeEvidence()).toBeGreaterThan(0);
    expect(await images(sessionId)).toEqual([]);
    const decision = (await service.http.get(`/api/v2/session/${sessionId}/decision`).set(key())).body.data;
    expect(decision).toMatchObject({ status: 'DECLINED', decision: 'DECLINED' });
  }, 60_000);

  it('a shorter retention set after the decision applies to images already decided', async () => {
    await setRetention(30);
    try {
      const sessionId = await inReview();
      expect((await decline(sessionId)).status).toBe(200);
      clock.advance(10 * DAY);
      await service.core.sessions.purgeEvidence();
      expect((await images(sessionId)).length).toBeGreaterThan(0);
      await setRetention(7);
      expect(await service.core.sessions.purgeEvidence()).toBeGreaterThan(0);
      expect(await images(sessionId)).toEqual([]);
    } finally {
      await setRetention(30);
    }
  }, 60_000);

  it('deletes the images at the decision when the retention is 0', async () => {
    await setRetention(0);
    try {
      const sessionId = await inReview();
      expect((await images(sessionId)).length).toBeGreaterThan(0);
      expect((await decline(sessionId)).status).toBe(200);
      expect(await images(sessionId)).toEqual([]);
    } finally {
      await setRetention(30);
    }
  }, 60_000);
});

describe('DELETE /api/v2/session/{id}/data', () => {
  it('erases sealed data and images at once, keeps the decision, is idempotent, and is tenant-scoped', async () => {
    const sessionId = await inReview();
    const { key: otherKey } = await service.core.tenancy.createProject({ name: 'Other', balance: 10 });
    const foreign = await service.http.delete(`/api/v2/session/${sessionId}/data`).set('X-API-Key', otherKey);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('not_found');
    expect((await service.http.delete(`/api/v2/session/${sessionId}/data`)).status).toBe(401);
    expect((await images(sessionId)).length).toBeGreaterThan(0);

    const first = await service.http.delete(`/api/v2/session/${sessionId}/data`).set(key());
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data).toMatchObject({
      session_id: sessionId,
      status: 'IN_REVIEW',
      erased: true,
      already_erased: false,
    });
    expect(await images(sessionId)).toEqual([]);
    const decision = (await service.http.get(`/api/v2/session/${sessionId}/decision`).set(key())).body.data;
    expect(decision.status).toBe('IN_REVIEW');
    expect(
      decision.checks.map((c: { type: string; status: string; data: object }) => [c.type, c.status, c.data]),
    ).toEqual([['id_verification', 'review', { erased: true }]]);
    const timeline = await service.core.sessions.timeline(service.demo.project_id, sessionId);
    expect(timeline.at(-1)).toMatchObject({
      from: 'IN_REVIEW',
      to: 'IN_REVIEW',
      actor: expect.stringMatching(/^api_key:/),
      reason: 'data erased',
    });

    const again = await service.http.delete(`/api/v2/session/${sessionId}/data`).set(key());
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ erased: true, already_erased: true, erased_at: first.body.data.erased_at });
  }, 60_000);

  it('refuses an open session (its steps still need their data) and an unknown id', async () => {
    const created = await service.http.post('/api/v2/session').set(key()).send({ workflow_id: documentOnly });
    const open = await service.http.delete(`/api/v2/session/${created.body.data.session_id}/data`).set(key());
    expect(open.status).toBe(409);
    expect(open.body.error.code).toBe('conflict');
    const unknown = await service.http.delete('/api/v2/session/ses_nope/data').set(key());
    expect(unknown.status).toBe(404);
  });
});

describe('the review screen over GraphQL', () => {
  const gql = (token: string, query: string, variables: Record<string, unknown> = {}) =>
    service.http.post('/graphql').set('Authorization', `Bearer ${token}`).send({ query, variables });
  const EVIDENCE =
    'query($p: String!, $s: String!) { sessionEvidence(projectId: $p, sessionId: $s) { id kind dataUrl } }';
  const REVIEW =
    'mutation($i: ReviewSessionInput!) { reviewSession(input: $i) { status timeline { to actor reason } } }';

  it('serves the images to reviewers of the project only, audits every image served, and requires a note to decide', async () => {
    const sessionId = await inReview();
    const p = service.demo.project_id;
    const reviewer = await service.core.tenancy.createAdminToken({ role: 'reviewer', projectId: p });
    const viewer = await service.core.tenancy.createAdminToken({ role: 'viewer', projectId: p });
    const admin = await service.core.tenancy.createAdminToken({ role: 'admin', projectId: p });
    const { project: other } = await service.core.tenancy.createProject({ name: 'Elsewhere', balance: 1 });
    const foreign = await service.core.tenancy.createAdminToken({ role: 'admin', projectId: other.id });

    expect((await gql(viewer.token, EVIDENCE, { p, s: sessionId })).body.errors[0].extensions.code).toBe('forbidden');
    // Another tenant's token is told the project does not exist for it, and its own project has no such session.
    expect((await gql(foreign.token, EVIDENCE, { p, s: sessionId })).body.errors[0].extensions.code).toBe('not_found');
    expect((await gql(foreign.token, EVIDENCE, { p: other.id, s: sessionId })).body.errors[0].extensions.code).toBe(
      'not_found',
    );

    const served = await gql(reviewer.token, EVIDENCE, { p, s: sessionId });
    expect(served.body.errors).toBeUndefined();
    const images = served.body.data.sessionEvidence as { id: string; kind: string; dataUrl: string }[];
    const shown = images.find((image) => image.kind === 'document_front')!;
    expect(Buffer.from(shown.dataUrl.split(',')[1]!, 'base64').equals(front)).toBe(true);
    const session = await gql(
      reviewer.token,
      'query($p: String!, $s: String!) { session(projectId: $p, sessionId: $s) { imagesRetained } }',
      { p, s: sessionId },
    );
    expect(session.body.data.session.imagesRetained).toBe(true);

    const audit = await gql(
      admin.token,
      'query($p: String) { adminAudit(projectId: $p, first: 50) { edges { node { tokenId action target } } } }',
      { p },
    );
    const views = audit.body.data.adminAudit.edges
      .map((e: { node: { tokenId: string; action: string; target: string } }) => e.node)
      .filter((n: { tokenId: string }) => n.tokenId === reviewer.id);
    expect(views.map((v: { action: string; target: string }) => [v.action, v.target]).sort()).toEqual(
      images.map((image) => [`session.evidence.view:${image.kind}`, `${sessionId}/${image.id}`]).sort(),
    );

    for (const note of ['', '   ']) {
      const refused = await gql(reviewer.token, REVIEW, { i: { projectId: p, sessionId, status: 'DECLINED', note } });
      expect(refused.body.errors[0].extensions.code).toBe('validation_error');
    }
    const decided = await gql(reviewer.token, REVIEW, {
      i: { projectId: p, sessionId, status: 'DECLINED', note: 'photo of a screen' },
    });
    expect(decided.body.data.reviewSession.status).toBe('DECLINED');
    expect(decided.body.data.reviewSession.timeline.at(-1)).toEqual({
      to: 'DECLINED',
      actor: `admin:${reviewer.id}`,
      reason: 'manual review: photo of a screen',
    });
  }, 60_000);

  it('lets admins of the project set the retention (0 to 3650 days); reviewers may not', async () => {
    const p = service.demo.project_id;
    const SET = 'mutation($i: EvidenceRetentionInput!) { setEvidenceRetention(input: $i) { evidenceRetentionDays } }';
    const reviewer = await service.core.tenancy.createAdminToken({ role: 'reviewer', projectId: p });
    const admin = await service.core.tenancy.createAdminToken({ role: 'admin', projectId: p });
    expect((await gql(reviewer.token, SET, { i: { projectId: p, days: 7 } })).body.errors[0].extensions.code).toBe(
      'forbidden',
    );
    expect((await gql(admin.token, SET, { i: { projectId: p, days: -1 } })).body.errors[0].extensions.code).toBe(
      'validation_error',
    );
    expect((await gql(admin.token, SET, { i: { projectId: p, days: 7 } })).body.data.setEvidenceRetention).toEqual({
      evidenceRetentionDays: 7,
    });
    expect(await service.core.tenancy.evidenceRetentionDays(p)).toBe(7);
    await setRetention(30);
  });

  it('erases from the console API (admins only), like the REST DELETE', async () => {
    const sessionId = await inReview();
    const p = service.demo.project_id;
    const ERASE = 'mutation($i: SessionRefInput!) { eraseSessionData(input: $i) { sessionId status alreadyErased } }';
    const reviewer = await service.core.tenancy.createAdminToken({ role: 'reviewer', projectId: p });
    const admin = await service.core.tenancy.createAdminToken({ role: 'admin', projectId: p });
    expect((await gql(reviewer.token, ERASE, { i: { projectId: p, sessionId } })).body.errors[0].extensions.code).toBe(
      'forbidden',
    );
    const erased = await gql(admin.token, ERASE, { i: { projectId: p, sessionId } });
    expect(erased.body.data.eraseSessionData).toEqual({ sessionId, status: 'IN_REVIEW', alreadyErased: false });
    expect(await images(sessionId)).toEqual([]);
  }, 60_000);
});

// The document portrait with the real face models: a passport whose portrait is a real photo keeps
// the crop the face match uses as evidence; one with the printed grey silhouette keeps none.
const PORTRAIT = path.resolve('../shared/data/face_recognition-obama-biden/lin-manuel-miranda.png');

describe.skipIf(!existsSync(PORTRAIT))('the document portrait as evidence (real face models)', () => {
  let real: TestService;
  let workflowId: string;
  beforeAll(async () => {
    real = await startTestService({});
    workflowId = (
      await real.core.tenancy.createWorkflow({
        projectId: real.demo.project_id,
        name: 'document',
        features: ['id_verification'],
      })
    ).id;
  }, 120_000);
  afterAll(async () => {
    await real?.close();
  });

  /** Sends `document` as the front in a new hosted session; the kinds and sealed bytes it kept. */
  async function keptFor(document: Buffer) {
    const created = await real.http
      .post('/api/v2/session')
      .set('X-API-Key', real.demo.api_key)
      .send({ workflow_id: workflowId });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { session_id, session_token } = created.body.data;
    const read = await real.http
      .post('/api/hosted/session/steps/document')
      .set('X-Session-Token', session_token)
      .send({ front_image: dataUrl(document) });
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    return sql<{ kind: string; sealed: Buffer }>(
      real,
      'select kind, sealed from session_evidence where session_id = ? order by id',
      [session_id],
    );
  }

  const passport = (portraitImage?: Buffer) =>
    renderDocument({
      ...renderSpecs(1)[0]!,
      layout: 'TD3',
      rotation: 0,
      skew: 0,
      blur: 0,
      jpegQuality: null,
      portraitImage,
    });

  it('keeps the portrait crop (document_portrait), sealed, when the document has a face', async () => {
    const document = (await passport(await sharp(PORTRAIT).resize({ width: 300 }).jpeg().toBuffer())).bytes;
    const kept = await keptFor(document);
    expect(kept.map((row) => row.kind)).toEqual(['document_front', 'document_portrait']);
    const sealed = kept.find((row) => row.kind === 'document_portrait')!.sealed;
    const crop = real.core.sealer.openBytes(sealed);
    expect(sealed.includes(crop.subarray(0, 64))).toBe(false);
    // A crop of the page around the face: smaller than the page, and the face models find a face in it.
    const [page, cropped] = await Promise.all([sharp(document).metadata(), sharp(crop).metadata()]);
    expect(cropped.width! * cropped.height!).toBeLessThan((page.width! * page.height!) / 4);
    expect(await real.core.faceEngine.detectFaces(await decodeImage(crop))).toHaveLength(1);
  }, 180_000);

  it('keeps no portrait when the document shows none (the printed silhouette)', async () => {
    const kept = await keptFor((await passport()).bytes);
    expect(kept.map((row) => row.kind)).toEqual(['document_front']);
  }, 180_000);
});
