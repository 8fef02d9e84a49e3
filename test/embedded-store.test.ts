// On the embedded store (what `npm start` runs) the pool holds one connection. Code that takes a
// second pooled connection while its transaction holds the first waits for itself until knex
// gives up (60 s): a hosted session's decision did exactly that (the project's evidence retention
// read outside the deciding transaction). CI runs the other files on PostgreSQL with a pool of
// ten, where this only shows under load; here each path that writes in a transaction must answer
// at once. This file always uses the embedded store, whatever TEST_DATABASE_URL says.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from './helpers/service.js';

delete process.env.TEST_DATABASE_URL;

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
  expect(service.store.embedded).toBe(true);
});
afterAll(async () => {
  await service?.close();
});

const key = () => ({ 'X-API-Key': service.demo.api_key });

describe('the embedded store, one pooled connection', () => {
  it('creates a session and decides it through its last step, at once', { timeout: 20_000 }, async () => {
    const workflow = await service.core.tenancy.createWorkflow({
      projectId: service.demo.project_id,
      name: 'one connection',
      features: ['location'],
    });
    const created = await service.http.post('/api/v2/session').set(key()).send({ workflow_id: workflow.id });
    expect(created.status).toBe(201);
    const stepped = await service.http
      .post('/api/hosted/session/steps/location')
      .set('X-Session-Token', created.body.data.session_token)
      .send({ latitude: 48.85, longitude: 2.35, accuracy: 10 });
    expect(stepped.status, JSON.stringify(stepped.body)).toBe(200);
    expect(stepped.body.data.status).toBe('APPROVED');
    // The polled view reads its own columns by a statement of its own: the same answer on PGlite.
    const read = await service.http.get(`/api/v2/session/${created.body.data.session_id}`).set(key());
    expect(read.body.data).toMatchObject({
      status: 'APPROVED',
      features: ['location'],
      vendor_data: '',
      expires_at: created.body.data.expires_at,
      created_at: created.body.data.created_at,
    });
    expect(Date.parse(read.body.data.decided_at)).toBeGreaterThanOrEqual(Date.parse(created.body.data.created_at));
  });

  it('runs a billed standalone check, which opens a wallet lease and pays from it', { timeout: 20_000 }, async () => {
    const res = await service.http
      .post('/api/v2/age-verification')
      .set(key())
      .send({ dob: '1990-01-01', bands: [18] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });
});
