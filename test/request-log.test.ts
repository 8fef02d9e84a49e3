import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCodeOf } from '../src/http/observability.js';
import { loggerIntoMemory } from './helpers/logs.js';
import { startTestService, type TestService } from './helpers/service.js';

// The access log of error answers: an operator tells `image_too_large` from
// `idempotency_key_reused` by the line's `err_code`, and the line never carries the message,
// which may quote what the caller sent.

describe('errorCodeOf (the code an error answer logs)', () => {
  it("reads the envelope's code and an OAuth answer's error, and nothing else", () => {
    expect(
      errorCodeOf({
        success: false,
        data: null,
        error: { code: 'validation_error', message: 'jane@example.com is not a workflow' },
      }),
    ).toBe('validation_error');
    expect(errorCodeOf({ error: 'invalid_grant', error_description: 'code_verifier does not match' })).toBe(
      'invalid_grant',
    );
    expect(errorCodeOf({ success: true, data: {}, error: null })).toBeUndefined();
    expect(errorCodeOf('text')).toBeUndefined();
    // a string that is not a code (free text) is not logged
    expect(errorCodeOf({ error: 'Jane Doe was not found' })).toBeUndefined();
  });
});

describe('request log lines of error answers', () => {
  const { logger, lines } = loggerIntoMemory();
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({}, { logger });
  }, 120_000);
  afterAll(() => service?.close());

  const lineOf = (requestId: string) => lines.find((line) => line.msg === 'request' && line.req_id === requestId);

  it('carry the catalog code and never the message', async () => {
    const personal = 'jane.doe@example.com';
    const refused = await service.http
      .post('/api/v2/session')
      .set('X-API-Key', service.demo.api_key)
      .set('X-Request-Id', 'log-wf-missing')
      .send({ workflow_id: `wf_${personal}`, vendor_data: personal })
      .expect(404);
    expect(refused.body.error.code).toBe('workflow_not_found');
    const line = lineOf('log-wf-missing');
    expect(line).toMatchObject({ route: '/api/v2/session', status: 404, err_code: 'workflow_not_found' });
    expect(JSON.stringify(line)).not.toContain(personal);
    expect(JSON.stringify(line)).not.toContain(refused.body.error.message);
    expect(Object.keys(line!)).not.toContain('message');

    await service.http
      .get('/api/v2/session/ses_x')
      .set('X-API-Key', 'vk_live_wrong')
      .set('X-Request-Id', 'log-bad-key')
      .expect(401);
    expect(lineOf('log-bad-key')).toMatchObject({ status: 401, err_code: 'invalid_api_key' });
  });

  it('of OAuth answers carry their error, and a success carries none', async () => {
    await service.http
      .post('/api/auth/oidc/token')
      .type('form')
      .send({ grant_type: 'authorization_code', code: 'nope' })
      .set('X-Request-Id', 'log-oauth')
      .expect(401);
    expect(lineOf('log-oauth')).toMatchObject({ status: 401, err_code: 'invalid_client' });

    await service.http.get('/healthz').set('X-Request-Id', 'log-ok').expect(200);
    expect(lineOf('log-ok')).toMatchObject({ status: 200 });
    expect(lineOf('log-ok')).not.toHaveProperty('err_code');
  });
});
