import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BillingService, DEFAULT_PRICES_MINOR } from '../src/core/billing/service.js';
import { ManualClock } from '../src/core/clock.js';
import { haversineMetres } from '../src/core/checks/location.js';
import { sql, startTestService, type TestService } from './helpers/service.js';

const clock = new ManualClock(new Date('2026-11-23T12:00:00Z'));
let service: TestService;
const key = () => service.demo.api_key;
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  service.http
    .post(`/api/v2${path}`)
    .set('X-API-Key', key())
    .set(headers)
    .send(body as object);

beforeAll(async () => {
  service = await startTestService({}, { clock });
});
afterAll(async () => {
  await service?.close();
});
beforeEach(() => clock.set(new Date('2026-11-23T12:00:00Z')));

describe('POST /api/v2/age-verification', () => {
  it('reads the four band forms as the same threshold', async () => {
    const res = await post('/age-verification', { dob: '1990-05-01', bands: ['18', 18, '18+', 'is_18_plus'] });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data.status).toBe('passed');
    expect(res.body.data.session_id).toMatch(/^chk_[0-9a-f]{24}$/);
    const { check } = res.body.data;
    expect(check).toMatchObject({ type: 'age', status: 'passed', error: null });
    expect(check.score).toBeUndefined();
    expect(check.data.age).toBe(36);
    expect(check.data.dob).toBe('1990-05-01');
    expect(check.data.bands).toEqual({
      '18': { verified: true, min_age: 18 },
      '18+': { verified: true, min_age: 18 },
      is_18_plus: { verified: true, min_age: 18 },
    });
  });

  it('defaults to is_18_plus when bands is empty or absent', async () => {
    for (const body of [{ dob: '2000-01-01', bands: [] }, { dob: '2000-01-01' }]) {
      const res = await post('/age-verification', body);
      expect(res.body.data.check.data.bands).toEqual({ is_18_plus: { verified: true, min_age: 18 } });
    }
  });

  it('answers an unparseable band with unknown_band and fails overall', async () => {
    const res = await post('/age-verification', { dob: '2000-01-01', bands: ['18', 'adult', 'is_x_plus', 21.5] });
    expect(res.body.data.status).toBe('failed');
    expect(res.body.data.check.data.bands.adult).toEqual({ verified: null, error: 'unknown_band' });
    expect(res.body.data.check.data.bands.is_x_plus).toEqual({ verified: null, error: 'unknown_band' });
    expect(res.body.data.check.data.bands['21.5']).toEqual({ verified: null, error: 'unknown_band' });
    expect(res.body.data.check.data.bands['18']).toEqual({ verified: true, min_age: 18 });
  });

  it('passes only when every band is satisfied; fresh mode answers any threshold', async () => {
    const res = await post('/age-verification', { dob: '2005-06-15', bands: [16, 21, '25+', 'is_99_plus'] });
    expect(res.body.data.status).toBe('failed');
    expect(res.body.data.check.data.bands).toEqual({
      '16': { verified: true, min_age: 16 },
      '21': { verified: true, min_age: 21 },
      '25+': { verified: false, min_age: 25 },
      is_99_plus: { verified: false, min_age: 99 },
    });
    expect(res.body.data.check.data.age).toBe(21);
    expect(res.body.data.check.error).toBe('not every band is satisfied: 25+, is_99_plus');
  });

  it('turns 18 on the birthday, not the day before', async () => {
    expect((await post('/age-verification', { dob: '2008-11-23', bands: [18] })).body.data.status).toBe('passed');
    expect((await post('/age-verification', { dob: '2008-11-24', bands: [18] })).body.data.status).toBe('failed');
  });

  it('ages someone born on 29 February on 1 March in common years', async () => {
    clock.set(new Date('2026-02-28T23:30:00Z'));
    const before = await post('/age-verification', { dob: '2008-02-29', bands: [18] });
    expect(before.body.data.check.data.age).toBe(17);
    clock.set(new Date('2026-03-01T00:30:00Z'));
    const after = await post('/age-verification', { dob: '2008-02-29', bands: [18] });
    expect(after.body.data.check.data.age).toBe(18);
    clock.set(new Date('2028-02-29T08:00:00Z'));
    expect((await post('/age-verification', { dob: '2008-02-29', bands: [20] })).body.data.check.data.age).toBe(20);
  });

  it('accepts the documented date formats and refuses ambiguous or impossible ones', async () => {
    for (const dob of ['2000-01-02', '2000/01/02', '20000102', '2000-01-02T23:59:00Z', '2000-01-02T10:00:00+02:00']) {
      const res = await post('/age-verification', { dob, bands: [18] });
      expect(res.status, dob).toBe(200);
      expect(res.body.data.check.data.dob).toBe('2000-01-02');
    }
    for (const dob of ['01/02/2000', '2000-02-30', '2000-13-01', 'yesterday', '2030-01-01']) {
      const res = await post('/age-verification', { dob, bands: [18] });
      expect(res.status, dob).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
  });

  it('answers missing_dob without a date of birth, and validation_error for wrong types', async () => {
    const missing = await post('/age-verification', { bands: [18] });
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe('missing_dob');
    for (const body of [
      { dob: 19900101 },
      { dob: '1990-01-01', bands: '18' },
      { dob: '1990-01-01', bands: [{ min: 18 }] },
      ['1990-01-01'],
    ]) {
      const res = await post('/age-verification', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
  });

  it('takes the same fields as multipart/form-data', async () => {
    const res = await service.http
      .post('/api/v2/age-verification')
      .set('X-API-Key', key())
      .field('dob', '1990-01-01')
      .field('bands', '18')
      .field('bands', 'is_21_plus');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data.check.data.bands)).toEqual(['18', 'is_21_plus']);
  });

  it('refuses other content types (415 unsupported_media_type) and malformed JSON (400 validation_error)', async () => {
    const text = await service.http
      .post('/api/v2/age-verification')
      .set('X-API-Key', key())
      .set('Content-Type', 'text/plain')
      .send('dob=1990-01-01');
    expect(text.status).toBe(415);
    expect(text.body.error.code).toBe('unsupported_media_type');
    const broken = await service.http
      .post('/api/v2/age-verification')
      .set('X-API-Key', key())
      .set('Content-Type', 'application/json')
      .send('{"dob": "1990');
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('validation_error');
  });
});

describe('account mode', () => {
  let token: string;
  let svcId: string;

  beforeAll(async () => {
    svcId = service.demo.account.svc_id;
    await service.core.accounts.recordVerifiedIdentity({ svcId, fullName: 'Demo User', dateOfBirth: '1999-12-01' });
    token = (await service.core.accessTokens.issue(svcId, service.demo.oidc.client_id, ['openid'])).token;
  });

  it('answers only the account thresholds and returns proofs, never the date of birth', async () => {
    const res = await post('/age-verification', {
      svc_access_token: token,
      dob: '2015-01-01',
      bands: [18, '21+', 25, 'is_65_plus'],
    });
    expect(res.status).toBe(200);
    const { data } = res.body.data.check;
    expect(data.bands).toEqual({
      '18': { verified: true, min_age: 18 },
      '21+': { verified: true, min_age: 21 },
      '25': { verified: null, error: 'unknown_band' },
      is_65_plus: { verified: false, min_age: 65 },
    });
    expect(data.age).toBeUndefined();
    expect(data.dob).toBeUndefined();
    expect(JSON.stringify(res.body)).not.toContain('1999');
    const record = await sql<{ mode: string; svc_id: string }>(
      service,
      'select mode, svc_id from check_record where id = ?',
      [res.body.data.session_id],
    );
    expect(record[0]).toEqual({ mode: 'account', svc_id: svcId });
  });

  it('accepts svc_id for someone who signed in to this project', async () => {
    const res = await post('/age-verification', { svc_id: svcId, bands: [16] });
    expect(res.body.data.status).toBe('passed');
  });

  it('answers account_dob_unavailable when the account has no verified date of birth', async () => {
    const other = await service.core.accounts.createAccount({ email: 'nodob@example.com', password: 'long enough' });
    const { token: otherToken } = await service.core.accessTokens.issue(other.svcId, service.demo.oidc.client_id, [
      'openid',
    ]);
    const res = await post('/age-verification', { svc_access_token: otherToken, bands: [18] });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('account_dob_unavailable');
  });

  it('reuses a verified identity for id-verification, with the codes for none on file and for an expired document', async () => {
    const reused = await post('/id-verification', { svc_access_token: token });
    expect(reused.status).toBe(200);
    expect(reused.body.data.check).toMatchObject({
      type: 'id_verification',
      status: 'passed',
      data: { id_verified: true, reused: true },
    });
    expect(JSON.stringify(reused.body)).not.toContain('Demo User');

    const fresh = await service.core.accounts.createAccount({
      email: 'unverified@example.com',
      password: 'long enough',
    });
    const freshToken = (await service.core.accessTokens.issue(fresh.svcId, service.demo.oidc.client_id, ['openid']))
      .token;
    const none = await post('/id-verification', { svc_access_token: freshToken });
    expect(none.status).toBe(400);
    expect(none.body.error.code).toBe('no_reusable_record');

    await service.core.accounts.recordVerifiedIdentity({
      svcId: fresh.svcId,
      fullName: 'Old Passport',
      dateOfBirth: '1980-01-01',
      documentExpiry: '2026-11-22',
    });
    const expired = await post('/id-verification', { svc_access_token: freshToken });
    expect(expired.status).toBe(400);
    expect(expired.body.error.code).toBe('reuse_not_available');
    expect(expired.body.error.message).toContain('2026-11-22');
  });

  it("refuses a bad token, an unknown svc_id and another project's users", async () => {
    const bad = await post('/age-verification', { svc_access_token: 'vt_nope', bands: [18] });
    expect(bad.status).toBe(401);
    expect(bad.body.error.code).toBe('invalid_token');
    const unknown = await post('/age-verification', { svc_id: 'svc_000000000000000000000000', bands: [18] });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('account_not_found');

    const other = await service.core.tenancy.createProject({ name: 'Other', balance: 10 });
    const foreign = await service.http
      .post('/api/v2/age-verification')
      .set('X-API-Key', other.key)
      .send({ svc_access_token: token, bands: [18] });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('account_not_found');
    const foreignId = await service.http
      .post('/api/v2/age-verification')
      .set('X-API-Key', other.key)
      .send({ svc_id: svcId, bands: [18] });
    expect(foreignId.body.error.code).toBe('account_not_found');
  });
});

describe('POST /api/v2/location', () => {
  const paris = { latitude: 48.8566, longitude: 2.3522, accuracy: 12 };

  it('passes inside the geofence with the distance as score', async () => {
    const res = await post('/location', {
      ...paris,
      expected_latitude: 48.8584,
      expected_longitude: 2.2945,
      radius_m: 5000,
    });
    expect(res.status).toBe(200);
    const { check } = res.body.data;
    expect(check.status).toBe('passed');
    expect(check.data.match).toBe(true);
    expect(check.score).toBeCloseTo(4230, -2);
    expect(check.data.distance_m).toBe(check.score);
    expect(check.data).toMatchObject({
      latitude: 48.8566,
      longitude: 2.3522,
      accuracy: 12,
      source: 'gps',
      expected_latitude: 48.8584,
      expected_longitude: 2.2945,
      radius_m: 5000,
    });
    expect(check.error).toBeNull();
  });

  it('fails outside the geofence with a readable distance message', async () => {
    const res = await post('/location', {
      ...paris,
      expected_latitude: 51.5074,
      expected_longitude: -0.1278,
      radius_m: 1000,
    });
    expect(res.body.data.status).toBe('failed');
    expect(res.body.data.check.data.match).toBe(false);
    expect(res.body.data.check.error).toMatch(
      /outside the geofence: 343\.\d km from the expected point, radius 1000 m/,
    );
  });

  it('reports the distance without a verdict when no radius is given', async () => {
    const res = await post('/location', { ...paris, expected_latitude: 48.8584, expected_longitude: 2.2945 });
    expect(res.body.data.status).toBe('passed');
    expect(res.body.data.check.data.match).toBeNull();
    expect(res.body.data.check.data.distance_m).toBeGreaterThan(4000);
  });

  it('captures only when no expected point is given', async () => {
    const res = await post('/location', { ...paris, captured_at: '2026-11-23T11:59:00Z', source: 'gps' });
    expect(res.body.data.status).toBe('passed');
    expect(res.body.data.check.data).not.toHaveProperty('match');
    expect(res.body.data.check.data).not.toHaveProperty('distance_m');
    expect(res.body.data.check.data.captured_at).toBe('2026-11-23T11:59:00Z');
    expect(res.body.data.check.score).toBeUndefined();
  });

  it('fails hard with permission_denied when there is no fix', async () => {
    for (const body of [
      {},
      { latitude: null, longitude: null },
      { source: 'permission_denied', expected_latitude: 1, expected_longitude: 1, radius_m: 10 },
    ]) {
      const res = await post('/location', body);
      expect(res.status).toBe(200);
      expect(res.body.data.status).toBe('failed');
      expect(res.body.data.check.error).toMatch(/^permission_denied/);
      expect(res.body.data.check.data.source).toBe('permission_denied');
    }
  });

  it('validates ranges, types and pairs', async () => {
    for (const body of [
      { ...paris, latitude: 91 },
      { ...paris, longitude: -180.5 },
      { ...paris, accuracy: -1 },
      { ...paris, latitude: 'north' },
      { latitude: 1, longitude: 1 },
      { ...paris, expected_latitude: 1 },
      { ...paris, radius_m: 10 },
      { ...paris, expected_latitude: 1, expected_longitude: 1, radius_m: 0 },
      { latitude: 1, accuracy: 5 },
    ]) {
      const res = await post('/location', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
  });

  it('computes haversine distances', () => {
    expect(haversineMetres(48.8566, 2.3522, 51.5074, -0.1278)).toBeCloseTo(343_556, -3);
    expect(haversineMetres(0, 0, 0, 0)).toBe(0);
    expect(haversineMetres(0, 179.9, 0, -179.9)).toBeCloseTo(22_239, -2);
  });
});

describe('the pipeline: records, wallet, idempotency', () => {
  const balance = async () =>
    Number(
      (
        await sql<{ balance_minor: string }>(service, 'select balance_minor from wallet where project_id = ?', [
          service.demo.project_id,
        ])
      )[0]!.balance_minor,
    );

  it('stores a record of each call without raw identity data', async () => {
    const res = await post('/age-verification', { dob: '1987-03-04', bands: [18] });
    const rows = await sql(service, 'select * from check_record where id = ?', [res.body.data.session_id]);
    expect(rows[0]).toMatchObject({
      project_id: service.demo.project_id,
      type: 'age',
      status: 'passed',
      mode: 'fresh',
    });
    expect(JSON.stringify(rows)).not.toContain('1987');
  });

  it('charges each call and not bad input', async () => {
    const before = await balance();
    await post('/age-verification', { dob: '1990-01-01' });
    expect(await balance()).toBe(before - 5);
    await post('/age-verification', { dob: 'not a date' });
    await post('/location', { latitude: 'x' });
    expect(await balance()).toBe(before - 5);
    const charges = await service.core.billing.listCharges(service.demo.project_id, { limit: 1 });
    expect(charges[0]).toMatchObject({
      item: 'check:age',
      amount: 0.05,
      refunded: false,
      checkId: expect.stringMatching(/^chk_/),
    });
  });

  it('calls at once share statements, yet each has its own record and its own charge, and the wallet pays exactly their sum', async () => {
    const before = await balance();
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, i) => post('/age-verification', { dob: `19${50 + i}-01-01`, bands: [18] })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(30).fill(200));
    const ids = responses.map((r) => r.body.data.session_id as string);
    const records = await sql<{ id: string; type: string }>(
      service,
      `select id, type from check_record where id in (${ids.map(() => '?').join(', ')})`,
      ids,
    );
    expect(records).toHaveLength(30);
    const charges = await sql<{ check_id: string; amount_minor: string }>(
      service,
      `select check_id, amount_minor from charge where check_id in (${ids.map(() => '?').join(', ')})`,
      ids,
    );
    expect(charges.map((c) => c.check_id).sort()).toEqual([...ids].sort());
    expect(charges.every((c) => Number(c.amount_minor) === 5)).toBe(true);
    expect(await balance()).toBe(before - 30 * 5);
  });

  it('a wallet lease whose instance died comes back with the sweep, less what it paid for, once; a call paying from a swept lease pays from a new one', async () => {
    const projectId = service.demo.project_id;
    const rowBalance = async () =>
      Number(
        (
          await sql<{ balance_minor: string }>(service, 'select balance_minor from project where id = ?', [projectId])
        )[0]!.balance_minor,
      );
    const openLeases = async () =>
      Number(
        (
          await sql<{ n: string }>(
            service,
            'select count(*) as n from wallet_lease where project_id = ? and closed_at is null',
            [projectId],
          )
        )[0]!.n,
      );
    const before = await balance();
    // Another instance takes a lease, records one paid check, then dies holding the rest.
    const other = new BillingService({ orm: service.core.orm, clock, prices: DEFAULT_PRICES_MINOR });
    const held = await other.reserve(projectId, 'check:age');
    await other.recordCheck(
      {
        id: 'chk_dead_instance',
        projectId,
        type: 'age',
        status: 'passed',
        mode: 'fresh',
        svcId: null,
        livemode: true,
        reason: null,
        durationMs: 1,
        createdAt: clock.now(),
      },
      held,
    );
    expect(await balance()).toBe(before - 5);
    expect(await rowBalance()).toBeLessThan(before - 5); // the rest of the lease is held away from the row
    expect(await service.core.billing.returnExpiredLeases()).toBe(0); // its calls may still be running
    clock.advance(2 * 60_000);
    const sweeps = await Promise.all([
      service.core.billing.returnExpiredLeases(),
      service.core.billing.returnExpiredLeases(),
    ]);
    expect(sweeps.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1);
    expect(await openLeases()).toBe(0);
    expect(await rowBalance()).toBe(before - 5);
    expect(await balance()).toBe(before - 5);
    // This instance's own lease was swept too (the clock moved past its expiry): its next call pays from a new lease.
    expect((await post('/age-verification', { dob: '1990-01-01' })).status).toBe(200);
    expect(await balance()).toBe(before - 10);
    expect(await openLeases()).toBe(1);
  });

  it('answers 402 before any work when the wallet is empty', async () => {
    const poor = await service.core.tenancy.createProject({ name: 'Poor', balance: 0.04 });
    const first = await service.http
      .post('/api/v2/location')
      .set('X-API-Key', poor.key)
      .send({ latitude: 1, longitude: 1, accuracy: 1 });
    expect(first.status).toBe(200);
    const records = (await sql(service, 'select id from check_record where project_id = ?', [poor.project.id])).length;
    const broke = await service.http
      .post('/api/v2/age-verification')
      .set('X-API-Key', poor.key)
      .send({ dob: '1990-01-01' });
    expect(broke.status).toBe(402);
    expect(broke.body.error.code).toBe('insufficient_balance');
    expect((await sql(service, 'select id from check_record where project_id = ?', [poor.project.id])).length).toBe(
      records,
    );
    // Bad input is still answered as bad input, not as 402.
    expect(
      (await service.http.post('/api/v2/age-verification').set('X-API-Key', poor.key).send({})).body.error.code,
    ).toBe('missing_dob');
  });

  it('replays the first response for the same key and body, charging once', async () => {
    const before = await balance();
    const first = await post('/age-verification', { dob: '1991-01-01', bands: [21] }, { 'Idempotency-Key': 'order-1' });
    const again = await post('/age-verification', { dob: '1991-01-01', bands: [21] }, { 'Idempotency-Key': 'order-1' });
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await balance()).toBe(before - 5);
    const other = await post('/age-verification', { dob: '1991-01-02', bands: [21] }, { 'Idempotency-Key': 'order-1' });
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('idempotency_key_reused');
  });

  it('replays errors too, and seals stored responses', async () => {
    const first = await post('/age-verification', { bands: [18] }, { 'Idempotency-Key': 'order-2' });
    expect(first.body.error.code).toBe('missing_dob');
    const again = await post('/age-verification', { bands: [18] }, { 'Idempotency-Key': 'order-2' });
    expect(again.status).toBe(400);
    expect(again.headers['idempotent-replayed']).toBe('true');
    await post('/age-verification', { dob: '1977-07-07' }, { 'Idempotency-Key': 'order-3' });
    const stored = await sql(service, "select * from idempotency_record where key = 'order-3'");
    expect(JSON.stringify(stored)).not.toContain('1977');
  });

  it('answers 409 while the first request with a key is still running', async () => {
    await service.core.idempotency.begin(service.demo.project_id, 'running-key', 'x'.repeat(64));
    const res = await post('/age-verification', { dob: '1990-01-01' }, { 'Idempotency-Key': 'running-key' });
    expect(res.status).toBe(422); // different body than the running one
    const fingerprintOfRunning = await sql<{ fingerprint: string }>(
      service,
      "select fingerprint from idempotency_record where key = 'running-key'",
    );
    expect(fingerprintOfRunning).toHaveLength(1);
    const { fingerprint } = await import('../src/core/billing/idempotency.js');
    await service.core.idempotency.begin(
      service.demo.project_id,
      'running-2',
      fingerprint('check:age', { dob: '1990-01-01' }),
    );
    const busy = await post('/age-verification', { dob: '1990-01-01' }, { 'Idempotency-Key': 'running-2' });
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe('idempotency_in_progress');
  });

  it('lets exactly one of several concurrent retries run', async () => {
    const before = await balance();
    const results = await Promise.all(
      [1, 2, 3, 4].map(() =>
        post('/location', { latitude: 1, longitude: 2, accuracy: 3 }, { 'Idempotency-Key': 'race-1' }),
      ),
    );
    const ok = results.filter((res) => res.status === 200);
    const sessionIds = new Set(ok.map((res) => res.body.data.session_id));
    expect(sessionIds.size).toBe(1);
    for (const res of results) expect([200, 409]).toContain(res.status);
    expect(await balance()).toBe(before - 2);
  });

  it('refunds a charge an older version left unsettled once, however many sweeps race; top-ups and the charge list', async () => {
    const { project } = await service.core.tenancy.createProject({ name: 'Upgraded', balance: 1 });
    const walletOf = async () =>
      Number(
        (
          await sql<{ balance_minor: string }>(service, 'select balance_minor from wallet where project_id = ?', [
            project.id,
          ])
        )[0]!.balance_minor,
      );
    // What a version before wallet leases wrote when it died between the debit and the record.
    const anHourAgo = new Date(clock.now().getTime() - 3600_000);
    await sql(
      service,
      "insert into charge (id, project_id, item, check_id, amount_minor, currency, refunded, created_at) values ('chg_unsettled', ?, 'check:age', null, 7, 'USD', false, ?)",
      [project.id, anHourAgo],
    );
    await Promise.all([1, 2, 3].map(() => service.core.billing.refundAbandoned()));
    expect(await walletOf()).toBe(100 + 7);
    expect(await service.core.billing.topUp(project.id, 0.5)).toBe(1.57);
    const [charge] = await service.core.billing.listCharges(project.id);
    expect(charge).toMatchObject({
      id: 'chg_unsettled',
      item: 'check:age',
      checkId: null,
      amount: 0.07,
      refunded: true,
    });
    await expect(service.core.billing.topUp('prj_missing', 1)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('refuses a malformed Idempotency-Key', async () => {
    const res = await post('/age-verification', { dob: '1990-01-01' }, { 'Idempotency-Key': 'x'.repeat(300) });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
  });
});

describe('rate limits', () => {
  it('answers 429 rate_limited with Retry-After past the per-key limit', async () => {
    const limited = await startTestService({ rateLimitPerMinute: 3 });
    try {
      const call = () =>
        limited.http
          .post('/api/v2/location')
          .set('X-API-Key', limited.demo.api_key)
          .send({ latitude: 1, longitude: 1, accuracy: 1 });
      for (let i = 0; i < 3; i += 1) expect((await call()).status).toBe(200);
      const res = await call();
      expect(res.status).toBe(429);
      expect(res.body.error.code).toBe('rate_limited');
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      // Another key of the same project has its own budget.
      const { key: second } = await limited.core.tenancy.createApiKey({ projectId: limited.demo.project_id });
      expect(
        (
          await limited.http
            .post('/api/v2/location')
            .set('X-API-Key', second)
            .send({ latitude: 1, longitude: 1, accuracy: 1 })
        ).status,
      ).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
