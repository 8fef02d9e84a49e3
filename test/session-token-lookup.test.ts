// The hosted page's token lookup is a named prepared statement (every hosted call makes it). It
// names its columns: a statement prepared with `select *` fails on every connection that
// prepared it once a migration adds a column ("cached plan must not change result type"), i.e.
// during a rolling deploy every older instance's hosted page would answer 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, startTestService, type TestService } from './helpers/service.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service?.close();
});

describe('the session token lookup', () => {
  it('keeps answering after a migration adds a column to the sessions table', async () => {
    const created = await service.http
      .post('/api/v2/session')
      .set('X-API-Key', service.demo.api_key)
      .send({ workflow_id: service.demo.workflows.location });
    expect(created.status).toBe(201);
    const token = created.body.data.session_token as string;
    // Enough calls at once that every pooled connection has prepared the statement.
    const page = () =>
      Promise.all(
        Array.from({ length: 12 }, () => service.http.get('/api/hosted/session').set('X-Session-Token', token)),
      );
    for (const res of await page()) expect(res.status).toBe(200);
    await sql(service, 'alter table verification_session add column added_by_a_later_release integer');
    try {
      for (const res of await page()) {
        expect(res.status).toBe(200);
        expect(res.body.data.session_id).toBe(created.body.data.session_id);
      }
    } finally {
      await sql(service, 'alter table verification_session drop column added_by_a_later_release');
    }
  });
});
