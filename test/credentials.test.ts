import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanedCandidates, namesMatch } from '../src/core/credentials/matching.js';
import { licenseTypeKey } from '../src/core/oidc/resources.js';
import { sql, startTestService, type TestService } from './helpers/service.js';

let service: TestService;
let board: http.Server;
let boardUrl: string;
const post = (body: Record<string, unknown>) =>
  service.http.post('/api/v2/credential-verification').set('X-API-Key', service.demo.api_key).send(body);
const balance = async () =>
  Number(
    (
      await sql<{ balance_minor: string }>(service, 'select balance_minor from wallet where project_id = ?', [
        service.demo.project_id,
      ])
    )[0]!.balance_minor,
  );

beforeAll(async () => {
  service = await startTestService({ seedLicenses: true });
  // A stand-in licensing board on loopback: a JSON lookup, a slow one and a broken one.
  board = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://board');
    const number = url.searchParams.get('number');
    const answer = () => {
      if (number !== 'TX-778899') {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          result: {
            number: 'TX-778899',
            person: { first: 'Renée', last: 'Dubois' },
            state: 'ACTIVE',
            issued: '2021-04-01',
            expires: '06/30/2029',
            kind: 'Pharmacist',
          },
        }),
      );
    };
    if (url.pathname === '/slow') setTimeout(answer, 1500);
    else if (url.pathname === '/broken') res.writeHead(500).end('oops');
    else answer();
  });
  await new Promise<void>((resolve) => board.listen(0, '127.0.0.1', resolve));
  boardUrl = `http://127.0.0.1:${(board.address() as AddressInfo).port}`;
  const fields = {
    licenseNumber: 'result.number',
    firstName: 'result.person.first',
    lastName: 'result.person.last',
    status: 'result.state',
    issuedAt: 'result.issued',
    expiresAt: 'result.expires',
    specialty: 'result.kind',
  };
  const add = (code: string, path: string, timeoutMs: number) =>
    service.core.credentials.upsertHttpProvider({
      stateCode: 'WA',
      stateName: 'Washington',
      providerCode: code,
      providerDisplayName: `Washington board ${code}`,
      credentialName: `Credential ${code}`,
      config: { url: `${boardUrl}${path}?number={license_number}`, fields, timeoutMs, retries: 1 },
    });
  await add('FAST', '/lookup', 5000);
  await add('SLOW', '/slow', 5000);
  await add('SLOWER', '/slow', 400);
  await add('BROKEN', '/broken', 3000);
});
afterAll(async () => {
  await new Promise((resolve) => board?.close(resolve));
  await service?.close();
});

describe('credential discovery', () => {
  it('lists states and their providers with required fields', async () => {
    const states = await service.http.get('/api/v2/credential/states').set('X-API-Key', service.demo.api_key);
    expect(states.body.data.states).toEqual(
      expect.arrayContaining([
        { state_name: 'California', state_code: 'CA' },
        { state_name: 'Texas', state_code: 'TX' },
      ]),
    );
    const providers = await service.http
      .get('/api/v2/credential/states/ca/providers')
      .set('X-API-Key', service.demo.api_key);
    expect(providers.body.data.providers).toEqual(
      expect.arrayContaining([
        {
          provider_code: 'RN',
          provider_display_name: 'California Board of Registered Nursing',
          credential_name: 'Registered Nurse',
          required_fields: ['license_number', 'first_name', 'last_name'],
        },
      ]),
    );
  });

  it('answers 404 for an unknown state', async () => {
    for (const state of ['ZZ', 'California', '1']) {
      const res = await service.http
        .get(`/api/v2/credential/states/${state}/providers`)
        .set('X-API-Key', service.demo.api_key);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });
});

describe('search mode', () => {
  it('finds the board record without claiming ownership', async () => {
    const res = await post({ license_state: 'CA', provider_code: 'RN', license_number: 'RN-0012345' });
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('passed');
    expect(res.body.data.check.data).toMatchObject({ mode: 'search', found: true, match: null });
    expect(res.body.data.check.data.license).toEqual({
      license_number: 'RN-0012345',
      status: 'active',
      issued_at: '2019-07-01',
      expires_at: '2028-06-30',
      specialty: 'Clinical Nurse Specialist',
    });
    expect(JSON.stringify(res.body)).not.toMatch(/Garc/);
  });

  it('takes the aliases and a credential name instead of a provider code', async () => {
    const res = await post({ state: 'CA', license_type: 'registered nurse', license_no: 'RN-0012345' });
    expect(res.body.data.check.data.found).toBe(true);
  });

  it('fails for suspended, revoked and date-expired licences', async () => {
    const suspended = await post({ state: 'CA', provider_code: 'RN', license_no: 'RN-0054321' });
    expect(suspended.body.data.status).toBe('failed');
    expect(suspended.body.data.check.error).toBe('the licence is suspended');
    const lapsed = await post({ state: 'CA', provider_code: 'RN', license_no: 'RN-0099999' });
    expect(lapsed.body.data.check.data.license.status).toBe('expired');
    expect(lapsed.body.data.status).toBe('failed');
    expect((await post({ state: 'TX', provider_code: 'RN', license_no: '111111' })).body.data.check.error).toBe(
      'the licence is revoked',
    );
  });

  it('reports not found, and with do_ai_clean retries odd formats and says what it tried', async () => {
    const odd = await post({ state: 'CA', provider_code: 'RN', license_no: 'rn 001-2345' });
    expect(odd.body.data.status).toBe('failed');
    expect(odd.body.data.check.data).toMatchObject({ found: false, match: null, license: null });
    const cleaned = await post({ state: 'CA', provider_code: 'RN', license_no: 'rn 001-2345', do_ai_clean: true });
    expect(cleaned.body.data.status).toBe('passed');
    expect(cleaned.body.data.check.data.tried).toEqual(['rn 001-2345', 'RN0012345']);
    expect(cleaned.body.data.check.data.license.license_number).toBe('RN-0012345');
  });
});

describe('verify mode', () => {
  it.each(['Maria Garcia-Lopez', 'MARÍA GARCÍA LÓPEZ', 'María José García-López', 'maria jose garcia lopez'])(
    'matches %s',
    async (name) => {
      const res = await post({ state: 'CA', provider_code: 'RN', license_number: 'RN-0012345', full_name: name });
      expect(res.body.data.check.data).toMatchObject({ mode: 'verify', found: true, match: true });
      expect(res.body.data.status).toBe('passed');
    },
  );

  it('fails a wrong name even with the right number', async () => {
    const res = await post({
      state: 'CA',
      provider_code: 'RN',
      license_number: 'RN-0012345',
      first_name: 'John',
      last_name: 'Garcia-Lopez',
    });
    expect(res.body.data.status).toBe('failed');
    expect(res.body.data.check.data.match).toBe(false);
    expect(res.body.data.check.error).toMatch(/name does not match/);
  });

  it('sets suffixes aside', async () => {
    expect(
      (
        await post({
          state: 'TX',
          provider_code: 'RN',
          license_number: '654321',
          first_name: 'Kwame',
          last_name: 'Mensah',
        })
      ).body.data.check.data.match,
    ).toBe(true);
    expect(
      (await post({ state: 'TX', provider_code: 'RN', license_number: '654321', full_name: 'Kwame Mensah, Jr.' })).body
        .data.check.data.match,
    ).toBe(true);
  });

  it('matches names by first and family name', () => {
    expect(namesMatch('Ana Lopez', 'Ana', 'García-López')).toBe(true);
    expect(namesMatch('Ana Garcia', 'Ana', 'García-López')).toBe(false);
    expect(namesMatch('Liam OBrien', 'Liam', "O'Brien")).toBe(true);
    expect(namesMatch('Liam', 'Liam', "O'Brien")).toBe(false);
    expect(cleanedCandidates('CA-RN 000123', ['CA', 'RN'])).toEqual(['CARN000123', 'RN000123']);
    expect(cleanedCandidates('RN 000123', ['CA', 'RN'])).toEqual(['RN000123', '000123', '123']);
  });
});

describe('account mode', () => {
  it("matches the account's verified name, ignores a sent name, and badges the licence", async () => {
    const account = await service.core.accounts.createAccount({ email: 'nurse@example.com', password: 'long enough' });
    await service.core.accounts.recordVerifiedIdentity({
      svcId: account.svcId,
      fullName: 'María García-López',
      dateOfBirth: '1985-02-03',
    });
    const { token } = await service.core.accessTokens.issue(account.svcId, service.demo.oidc.client_id, [
      'openid',
      'verifications',
    ]);
    const res = await post({
      state: 'CA',
      provider_code: 'RN',
      license_number: 'RN-0012345',
      full_name: 'Somebody Else',
      svc_access_token: token,
    });
    expect(res.body.data.status).toBe('passed');
    expect(res.body.data.check.data).toMatchObject({ mode: 'account', match: true });
    const verifications = await service.http
      .get('/api/auth/oidc/verifications')
      .set('Authorization', `Bearer ${token}`);
    expect(verifications.body.data.verifications.licenses).toEqual([
      {
        license_type: 'Registered Nurse',
        verified: true,
        verified_from: 'California Board of Registered Nursing (CA)',
        expire_at: '2028-06-30T23:59:59.000Z',
      },
    ]);
    const licenses = await service.http.get('/api/auth/oidc/licenses').set('Authorization', `Bearer ${token}`);
    expect(licenses.body.data.licenses).toEqual([
      {
        type: 'nurse_licenses',
        number: 'RN-0012345',
        status: 'active',
        expires_on: '2028-06-30',
        issuer: 'California Board of Registered Nursing',
      },
    ]);
    // Checked again: the badge is brought up to date, not added twice.
    expect(
      (await post({ state: 'CA', provider_code: 'RN', license_number: 'RN-0012345', svc_access_token: token })).body
        .data.status,
    ).toBe('passed');
    const again = await service.http.get('/api/auth/oidc/licenses').set('Authorization', `Bearer ${token}`);
    expect(again.body.data.licenses).toEqual(licenses.body.data.licenses);
  });

  it("with a test key, neither reads the account's verified name nor badges the licence on it (kyc_required, as for an unverified account)", async () => {
    const account = await service.core.accounts.createAccount({
      email: 'sandbox-nurse@example.com',
      password: 'long enough',
    });
    await service.core.accounts.recordVerifiedIdentity({
      svcId: account.svcId,
      fullName: 'María García-López',
      dateOfBirth: '1985-02-03',
    });
    const { token } = await service.core.accessTokens.issue(account.svcId, service.demo.oidc.client_id, [
      'openid',
      'verifications',
    ]);
    const { key: testKey } = await service.core.tenancy.createApiKey({
      projectId: service.demo.project_id,
      mode: 'test',
    });
    const res = await service.http
      .post('/api/v2/credential-verification')
      .set('X-API-Key', testKey)
      .send({ state: 'CA', provider_code: 'RN', license_number: 'RN-0012345', svc_access_token: token });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('kyc_required');
    const licenses = await service.http.get('/api/auth/oidc/licenses').set('Authorization', `Bearer ${token}`);
    expect(licenses.body.data.licenses).toEqual([]);
  });

  it('names licence expiry exactly as the spec does on each route: expires_at, expires_on, expire_at, expire_date', async () => {
    // Every key that names an expiry, anywhere in a body.
    const expiryKeys = (value: unknown): string[] =>
      value && typeof value === 'object'
        ? Object.entries(value).flatMap(([key, child]) => [...(/^expir/.test(key) ? [key] : []), ...expiryKeys(child)])
        : [];
    const account = await service.core.accounts.createAccount({
      email: 'expiry-names@example.com',
      password: 'long enough',
    });
    await service.core.accounts.recordVerifiedIdentity({
      svcId: account.svcId,
      fullName: 'María García-López',
      dateOfBirth: '1985-02-03',
    });
    const { token } = await service.core.accessTokens.issue(account.svcId, service.demo.oidc.client_id, [
      'openid',
      'verifications',
    ]);
    const check = await post({
      state: 'CA',
      provider_code: 'RN',
      license_number: 'RN-0012345',
      svc_access_token: token,
    });
    expect(expiryKeys(check.body.data.check)).toEqual(['expires_at']);
    expect(check.body.data.check.data.license.expires_at).toBe('2028-06-30');

    const licenses = await service.http.get('/api/auth/oidc/licenses').set('Authorization', `Bearer ${token}`);
    expect(expiryKeys(licenses.body.data)).toEqual(['expires_on']);
    expect(licenses.body.data.licenses[0]).toMatchObject({ type: 'nurse_licenses', expires_on: '2028-06-30' });

    const verifications = await service.http
      .get('/api/auth/oidc/verifications')
      .set('Authorization', `Bearer ${token}`);
    expect(expiryKeys(verifications.body.data)).toEqual(['expire_at']);

    const workflow = await service.core.tenancy.createWorkflow({
      projectId: service.demo.project_id,
      name: 'licence expiry',
      features: ['credential'],
    });
    const session = await service.http
      .post('/api/v2/session')
      .set('X-API-Key', service.demo.api_key)
      .send({ workflow_id: workflow.id, svc_access_token: token });
    expect(session.status, JSON.stringify(session.body)).toBe(201);
    const decision = await service.http
      .get(`/api/v2/session/${session.body.data.session_id}/decision`)
      .set('X-API-Key', service.demo.api_key);
    expect(expiryKeys(decision.body.data.identity)).toEqual(['expire_date']);
    expect(decision.body.data.identity.licenses).toEqual([
      { license_state: 'CA', status: 'active', expire_date: '2028-06-30' },
    ]);
  });

  it('answers /licenses type as a key: nurse_licenses, cpr_certification, else the credential name in snake_case', () => {
    expect(licenseTypeKey('Registered Nurse')).toBe('nurse_licenses');
    expect(licenseTypeKey('Licensed Vocational Nurse')).toBe('nurse_licenses');
    expect(licenseTypeKey('BLS/CPR Certification')).toBe('cpr_certification');
    expect(licenseTypeKey('Physician and Surgeon')).toBe('physician_and_surgeon');
    expect(licenseTypeKey('nurse_licenses')).toBe('nurse_licenses');
  });

  it('answers kyc_required without a verified identity', async () => {
    const account = await service.core.accounts.createAccount({ email: 'nokyc@example.com', password: 'long enough' });
    const { token } = await service.core.accessTokens.issue(account.svcId, service.demo.oidc.client_id, ['openid']);
    const res = await post({ state: 'CA', provider_code: 'RN', license_number: 'RN-0012345', svc_access_token: token });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('kyc_required');
  });
});

describe('bad input and boards that misbehave', () => {
  it.each([
    [{ provider_code: 'RN', license_number: 'RN-0012345' }, 400, 'validation_error'],
    [{ state: 'CA', provider_code: 'RN' }, 400, 'validation_error'],
    [{ state: 'CA', license_number: 'RN-0012345' }, 400, 'validation_error'],
    [{ state: 'ZZ', provider_code: 'RN', license_number: '1' }, 404, 'not_found'],
    [{ state: 'CA', provider_code: 'DENTIST', license_number: '1' }, 404, 'not_found'],
    [{ state: 'CA', license_type: 'Astronaut', license_number: '1' }, 404, 'not_found'],
    [{ state: 'CA', provider_code: 'RN', license_number: 123 }, 400, 'validation_error'],
    [{ state: 'CA', provider_code: 'RN', license_number: 'RN-0012345', npi: '12' }, 400, 'validation_error'],
  ] as [Record<string, unknown>, number, string][])('%o answers %i %s', async (body, status, code) => {
    const res = await post(body);
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
    expect(res.body.error.message.length).toBeGreaterThan(5);
  });

  it('reads a board over HTTP with a field mapping, and a slow one within its timeout', async () => {
    const fast = await post({
      state: 'WA',
      provider_code: 'FAST',
      license_number: 'TX-778899',
      full_name: 'Renee Dubois',
    });
    expect(fast.body.data.status).toBe('passed');
    expect(fast.body.data.check.data.license).toEqual({
      license_number: 'TX-778899',
      status: 'active',
      issued_at: '2021-04-01',
      expires_at: '2029-06-30',
      specialty: 'Pharmacist',
    });
    expect(
      (await post({ state: 'WA', provider_code: 'FAST', license_number: 'NOPE' })).body.data.check.data.found,
    ).toBe(false);
    expect((await post({ state: 'WA', provider_code: 'SLOW', license_number: 'TX-778899' })).body.data.status).toBe(
      'passed',
    );
  });

  it('answers a board timeout and a board failure with engine_unreachable, quickly and without charge', async () => {
    const before = await balance();
    const started = Date.now();
    const slow = await post({ state: 'WA', provider_code: 'SLOWER', license_number: 'TX-778899' });
    expect(slow.status).toBe(503);
    expect(slow.body.error.code).toBe('engine_unreachable');
    expect(slow.body.error.message).toMatch(/did not answer in time/);
    const broken = await post({ state: 'WA', provider_code: 'BROKEN', license_number: 'TX-778899' });
    expect(broken.status).toBe(503);
    expect(broken.body.error.message).toMatch(/HTTP 500/);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await balance()).toBe(before);
  });
});
