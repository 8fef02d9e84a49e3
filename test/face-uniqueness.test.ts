import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaceIndex } from '../src/core/faces/face-index.js';
import { decodeImage } from '../src/ml/image.js';
import { DESCRIPTOR_DIMENSIONS, FACE_DESCRIPTOR_KIND } from '../src/ml/faces/match.js';
import { markerFaceEngine, markerImage, type MarkerFace } from './helpers/face-engine.js';
import { sql, startTestService, type TestService } from './helpers/service.js';

// POST /api/v2/face-uniqueness and DELETE /api/v2/face-uniqueness/{face_id} through HTTP on the
// deterministic engine: enrol, search, duplicates, unlink, tenant isolation, what is stored, and
// a second instance sharing the database.

const engine = markerFaceEngine();
let service: TestService;
let other: { key: string };

beforeAll(async () => {
  service = await startTestService({}, { faceEngine: engine });
  other = { key: (await service.core.tenancy.createProject({ name: 'Other', balance: 100 })).key };
});
afterAll(async () => {
  await service?.close();
});

const post = (body: Record<string, unknown>, key = service.demo.api_key) =>
  service.http.post('/api/v2/face-uniqueness').set('X-API-Key', key).send(body);
const unlink = (faceId: string, key = service.demo.api_key) =>
  service.http.delete(`/api/v2/face-uniqueness/${faceId}`).set('X-API-Key', key);
/** The demo project's live uniqueness register, as its live key searches it. */
const liveRegister = () => ({ projectId: service.demo.project_id, purpose: 'uniqueness', livemode: true }) as const;
const b64 = async (face: MarkerFace | null) => (await markerImage(face)).toString('base64');

describe('POST /api/v2/face-uniqueness', () => {
  it('finds nothing in an empty register, enrols on request, then finds the same person in another photo', async () => {
    const first = await post({ image: await b64({ person: 1, variant: 1 }), enroll: true, reference: 'user-1' });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data.status).toBe('passed');
    expect(first.body.data.check.data).toMatchObject({ unique: true, matches: [], enrolled: true });
    const faceId = first.body.data.check.data.face_id;
    expect(faceId).toMatch(/^fce_/);

    const again = await post({ image: await b64({ person: 1, variant: 2 }) });
    expect(again.body.data.status).toBe('failed');
    expect(again.body.data.check.data.unique).toBe(false);
    expect(again.body.data.check.data.matches[0]).toMatchObject({ face_id: faceId, reference: 'user-1' });
    expect(again.body.data.check.data.matches[0].similarity).toBeGreaterThanOrEqual(0.95);
    expect(again.body.data.check.data.enrolled).toBe(false);

    const stranger = await post({ image: await b64({ person: 2, variant: 1 }) });
    expect(stranger.body.data.check.data).toMatchObject({ unique: true, enrolled: false, face_id: null });
  });

  it('never enrols a duplicate', async () => {
    await post({ image: await b64({ person: 3 }), enroll: true });
    const duplicate = await post({ image: await b64({ person: 3, variant: 4 }), enroll: true });
    expect(duplicate.body.data.status).toBe('failed');
    expect(duplicate.body.data.check.data).toMatchObject({ enrolled: false, face_id: null });
    expect(duplicate.body.data.check.error).toMatch(/already enrolled.*not enrolled again/);
  });

  it('keeps registers per project: another project neither sees the face nor can unlink it (404)', async () => {
    const mine = await post({ image: await b64({ person: 4 }), enroll: true });
    const faceId = mine.body.data.check.data.face_id;
    const theirs = await post({ image: await b64({ person: 4, variant: 1 }) }, other.key);
    expect(theirs.body.data.check.data.unique).toBe(true);
    const steal = await unlink(faceId, other.key);
    expect(steal.status).toBe(404);
    expect(steal.body.error.code).toBe('not_found');
    expect((await post({ image: await b64({ person: 4, variant: 1 }) })).body.data.check.data.unique).toBe(false);
  });

  it('unlinks a face: it is no longer found, and a second unlink is 404', async () => {
    const enrolled = await post({ image: await b64({ person: 5 }), enroll: true });
    const faceId = enrolled.body.data.check.data.face_id;
    const res = await unlink(faceId);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ face_id: faceId, unlinked: true });
    expect((await post({ image: await b64({ person: 5, variant: 1 }) })).body.data.check.data.unique).toBe(true);
    expect((await unlink(faceId)).status).toBe(404);
    expect((await unlink('no-such-face')).status).toBe(404);
  });

  it('stores sealed descriptors only: no image, no readable numbers, nothing derived in clear', async () => {
    const rows = await sql<Record<string, unknown>>(service, 'select * from face_enrollment');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(Object.keys(row).sort()).toEqual([
        'created_at',
        'descriptor_kind',
        'descriptor_sealed',
        'id',
        'livemode',
        'project_id',
        'purpose',
        'reference',
        'seq',
      ]);
      expect(row.descriptor_sealed).toMatch(/^v1\./);
      expect(row.descriptor_kind).toBe(FACE_DESCRIPTOR_KIND);
      // opened with the key: exactly one descriptor's floats, not an image
      expect(Buffer.from(service.core.sealer.open(row.descriptor_sealed as string), 'base64').length).toBe(
        4 * DESCRIPTOR_DIMENSIONS,
      );
    }
  });

  it('sees what another instance enrols and unlinks in the shared database', async () => {
    // A second server on the same database: its own in-memory copy of the register.
    const elsewhere = new FaceIndex({
      orm: service.core.orm,
      clock: { now: () => new Date() },
      sealer: service.core.sealer,
    });
    const descriptor = async (face: MarkerFace) =>
      (await engine.describeLargestFace(await decodeImage(await markerImage(face))))!.descriptor;
    expect((await post({ image: await b64({ person: 11, variant: 1 }) })).body.data.check.data.unique).toBe(true); // this instance has the register open
    const [faceId] = await elsewhere.enroll(liveRegister(), [
      { descriptor: await descriptor({ person: 11 }), reference: 'user-11' },
    ]);
    const found = await post({ image: await b64({ person: 11, variant: 1 }) });
    expect(found.body.data.check.data.matches[0]).toMatchObject({ face_id: faceId, reference: 'user-11' });
    await elsewhere.unlink(liveRegister(), faceId!);
    expect((await post({ image: await b64({ person: 11, variant: 1 }) })).body.data.check.data.unique).toBe(true);
    // And the other way round: its first search opens the register with everything enrolled here.
    const { matches } = await elsewhere.search(liveRegister(), await descriptor({ person: 1, variant: 3 }));
    expect(matches.map((m) => m.reference)).toEqual(['user-1']);
  });

  it('never compares a face with descriptors another model made (marked by the migration, ignored by searches)', async () => {
    // A face enrolled by an earlier descriptor model: the same sealed numbers, another kind. A
    // fresh instance (another server, or this one after a restart) opens the register from the database.
    const enrolled = await post({ image: await b64({ person: 13 }), enroll: true, reference: 'user-13' });
    const faceId = enrolled.body.data.check.data.face_id as string;
    await sql(service, "update face_enrollment set descriptor_kind = 'old-model-64' where id = ?", [faceId]);
    const restarted = new FaceIndex({
      orm: service.core.orm,
      clock: { now: () => new Date() },
      sealer: service.core.sealer,
    });
    const probe = (await engine.describeLargestFace(await decodeImage(await markerImage({ person: 13, variant: 1 }))))!
      .descriptor;
    expect((await restarted.search(liveRegister(), probe)).matches).toEqual([]);
    // enrolling again stores the face under the current kind, and it is found from then on
    const [again] = await restarted.enroll(liveRegister(), [{ descriptor: probe, reference: 'user-13' }]);
    expect((await restarted.search(liveRegister(), probe)).matches.map((m) => m.faceId)).toEqual([again]);
  });

  it('enrols one face when the same new person arrives twice at once', async () => {
    const image = await b64({ person: 12 });
    const results = await Promise.all([post({ image, enroll: true }), post({ image, enroll: true })]);
    const [enrolled, duplicate] = results
      .map((res) => res.body.data.check.data)
      .sort((a, b) => Number(b.enrolled) - Number(a.enrolled));
    expect([enrolled.enrolled, duplicate.enrolled]).toEqual([true, false]);
    expect(duplicate.matches[0].face_id).toBe(enrolled.face_id);
  });

  it('answers bad input with the envelope, before any model runs', async () => {
    const calls = engine.calls;
    expect((await post({})).body.error.code).toBe('validation_error');
    expect((await post({ image: 12 })).body.error.code).toBe('validation_error');
    expect((await post({ image: await b64({ person: 1 }), enroll: 'yes' })).body.error.code).toBe('validation_error');
    expect(engine.calls).toBe(calls);
    const none = await post({ image: await b64(null) });
    expect(none.status).toBe(422);
    expect(none.body.error.code).toBe('no_face');
  });

  it("searches with the account's face reference in account mode and labels the enrolment with the svc_id", async () => {
    const svcId = service.demo.account.svc_id;
    const { token } = await service.core.accessTokens.issue(svcId, service.demo.oidc.client_id, ['openid']);
    const none = await post({ svc_access_token: token });
    expect(none.status).toBe(409);
    expect(none.body.error.code).toBe('face_not_enrolled');
    const face = await engine.describeLargestFace(await decodeImage(await markerImage({ person: 9 })));
    await service.core.accounts.setFaceReference(svcId, face!.descriptor);
    const enrolled = await post({ svc_access_token: token, enroll: true });
    expect(enrolled.body.data.check.data.enrolled).toBe(true);
    const found = await post({ image: await b64({ person: 9, variant: 2 }) });
    expect(found.body.data.check.data.matches[0].reference).toBe(svcId);
  });
});

describe('test keys and live keys keep separate registers (test mode shares no face with live mode)', () => {
  let testKey: string;
  beforeAll(async () => {
    testKey = (await service.core.tenancy.createApiKey({ projectId: service.demo.project_id, mode: 'test' })).key;
  });
  const identity = async (face: MarkerFace, key: string) =>
    (
      await service.http
        .post('/api/v2/antispoof/identity')
        .set('X-API-Key', key)
        .send({ image: await b64(face) })
    ).body.data.check.data;

  it('a test key neither finds a live face (nor reads its reference) nor unlinks it', async () => {
    const faceId = (await post({ image: await b64({ person: 30 }), enroll: true, reference: 'live-user-30' })).body.data
      .check.data.face_id;
    const probe = await post({ image: await b64({ person: 30, variant: 1 }) }, testKey);
    expect(probe.status, JSON.stringify(probe.body)).toBe(200);
    expect(probe.body.data).toMatchObject({ status: 'passed', livemode: false });
    expect(probe.body.data.check.data).toMatchObject({ unique: true, matches: [] });
    expect(JSON.stringify(probe.body)).not.toContain('live-user-30');
    const steal = await unlink(faceId, testKey);
    expect(steal.status).toBe(404);
    expect(steal.body.error.code).toBe('not_found');
    expect(
      (await post({ image: await b64({ person: 30, variant: 1 }) })).body.data.check.data.matches[0],
    ).toMatchObject({ face_id: faceId, reference: 'live-user-30' });
  });

  it("a test key's enrolments never make a live search fail, and a live key cannot unlink them", async () => {
    const enrolled = await post({ image: await b64({ person: 31 }), enroll: true, reference: 'test-user-31' }, testKey);
    expect(enrolled.body.data.check.data).toMatchObject({ enrolled: true });
    const testFace = enrolled.body.data.check.data.face_id as string;
    const live = await post({ image: await b64({ person: 31, variant: 1 }), enroll: true });
    expect(live.body.data.status).toBe('passed');
    expect(live.body.data.check.data).toMatchObject({ unique: true, enrolled: true });
    expect((await unlink(testFace)).status).toBe(404);
    // Each mode finds its own face of the person, and unlinks only that one.
    const inTest = await post({ image: await b64({ person: 31, variant: 2 }) }, testKey);
    expect(
      inTest.body.data.check.data.matches.map((m: { face_id: string; reference: string }) => [m.face_id, m.reference]),
    ).toEqual([[testFace, 'test-user-31']]);
    expect((await unlink(testFace, testKey)).body.data).toEqual({ face_id: testFace, unlinked: true });
    const rows = await sql<{ id: string; livemode: boolean }>(
      service,
      'select id, livemode from face_enrollment where id in (?, ?) order by livemode',
      [testFace, live.body.data.check.data.face_id],
    );
    expect(rows).toEqual([{ id: live.body.data.check.data.face_id, livemode: true }]);
  });

  it('/antispoof/identity gives a test key identities of its own, never the live id of the person', async () => {
    const live = await identity({ person: 32 }, service.demo.api_key);
    expect(live).toMatchObject({ new_identity: true });
    const test = await identity({ person: 32, variant: 1 }, testKey);
    expect(test).toMatchObject({ new_identity: true });
    expect(test.face_id).not.toBe(live.face_id);
    expect(await identity({ person: 32, variant: 2 }, testKey)).toMatchObject({
      face_id: test.face_id,
      new_identity: false,
    });
    expect(await identity({ person: 32, variant: 2 }, service.demo.api_key)).toMatchObject({
      face_id: live.face_id,
      new_identity: false,
    });
  });
});
