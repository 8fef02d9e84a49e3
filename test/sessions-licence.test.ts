import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markerFaceEngine } from './helpers/face-engine.js';
import { startTestService, type TestService } from './helpers/service.js';

// The hosted licence step must prove the licence is the person's: matched against the verified
// name of a bound account or of the document read in this session, else against the name typed.
// TX RN 654321 belongs to Kwame Mensah Jr in the sample roster.

let service: TestService;
const key = () => ({ 'X-API-Key': service.demo.api_key });

beforeAll(async () => {
  service = await startTestService({ seedLicenses: true }, { faceEngine: markerFaceEngine() });
}, 120_000);
afterAll(async () => {
  await service?.close();
});

async function session(extra: Record<string, unknown> = {}) {
  const workflow = await service.core.tenancy.createWorkflow({
    projectId: service.demo.project_id,
    name: 'licence',
    features: ['credential'],
  });
  const res = await service.http
    .post('/api/v2/session')
    .set(key())
    .send({ workflow_id: workflow.id, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data as { session_id: string; session_token: string };
}
const licence = (token: string, body: Record<string, unknown>) =>
  service.http
    .post('/api/hosted/session/steps/licence')
    .set('X-Session-Token', token)
    .send({ license_state: 'TX', provider_code: 'RN', license_number: '654321', ...body });
const decision = async (id: string) => (await service.http.get(`/api/v2/session/${id}/decision`).set(key())).body.data;

describe('the hosted licence step', () => {
  it("of a bound session matches the account's verified name, whatever name is typed: Maria cannot pass on Kwame's licence", async () => {
    const account = await service.core.accounts.createAccount({
      email: 'maria@people.example',
      password: 'correct horse battery 7',
    });
    await service.core.accounts.recordVerifiedIdentity({
      svcId: account.svcId,
      fullName: 'Maria Garcia',
      dateOfBirth: '1985-03-04',
    });
    const { token } = await service.core.accessTokens.issue(account.svcId, service.demo.oidc.client_id, ['openid']);
    const bound = await session({ svc_access_token: token });
    const res = await licence(bound.session_token, { first_name: 'Kwame', last_name: 'Mensah' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const made = await decision(bound.session_id);
    expect(made.status).toBe('DECLINED');
    expect(made.checks[0]).toMatchObject({ type: 'credential', status: 'failed', data: { found: true, match: false } });
  });

  it('of a session with no verified name needs a name: a search hit alone is no proof', async () => {
    const open = await session();
    const nameless = await licence(open.session_token, {});
    expect(nameless.status).toBe(400);
    expect(nameless.body.error.code).toBe('validation_error');
    expect(nameless.body.data.errors).toHaveProperty('full_name');
    const wrong = await licence(open.session_token, { full_name: 'Maria Garcia' });
    expect(wrong.status).toBe(200);
    expect((await decision(open.session_id)).checks[0]).toMatchObject({ status: 'failed', data: { match: false } });
    const other = await session();
    await licence(other.session_token, { first_name: 'Kwame', last_name: 'Mensah' });
    const made = await decision(other.session_id);
    expect(made.status).toBe('APPROVED');
    expect(made.checks[0]).toMatchObject({ status: 'passed', data: { match: true } });
  });

  it('asks again, with the reason, when the licence number is not found (a mistyped digit); the right number then passes', async () => {
    const open = await session();
    const mistyped = await licence(open.session_token, {
      first_name: 'Kwame',
      last_name: 'Mensah',
      license_number: '654312',
    });
    expect(mistyped.status, JSON.stringify(mistyped.body)).toBe(422);
    expect(mistyped.body.error.code).toBe('step_retry_required');
    expect(mistyped.body.data).toEqual({ step: 'licence', reason: 'not_found', tries_left: 2 });
    const right = await licence(open.session_token, { first_name: 'Kwame', last_name: 'Mensah' });
    expect(right.status, JSON.stringify(right.body)).toBe(200);
    expect((await decision(open.session_id)).status).toBe('APPROVED');
  });

  it('the third licence number not found is recorded and declines', async () => {
    const open = await session();
    for (const tries_left of [2, 1]) {
      const miss = await licence(open.session_token, {
        first_name: 'Kwame',
        last_name: 'Mensah',
        license_number: '000000',
      });
      expect(miss.body.data.tries_left).toBe(tries_left);
    }
    const last = await licence(open.session_token, {
      first_name: 'Kwame',
      last_name: 'Mensah',
      license_number: '000000',
    });
    expect(last.status).toBe(200);
    const made = await decision(open.session_id);
    expect(made.status).toBe('DECLINED');
    expect(made.checks[0]).toMatchObject({ type: 'credential', status: 'failed', data: { found: false } });
  });
});
