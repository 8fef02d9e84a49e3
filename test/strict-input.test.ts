import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from './helpers/service.js';

// Strict input through HTTP (issue #49 item 3): a body field a route does not declare is refused
// naming it, with the field the caller probably meant, instead of being dropped (a misspelt
// `redirect_uri` used to give 201 and no redirect); a body in a media type the route does not
// read is 415 saying what to send, instead of "workflow_id: expected string".

let service: TestService;
let apiKey: string;
let workflowId: string;
const org = () => ({ 'X-Client-Id': service.demo.org.client_id, 'X-Client-Secret': service.demo.org.client_secret });

beforeAll(async () => {
  service = await startTestService();
  apiKey = service.demo.api_key;
  workflowId = service.demo.workflows.location;
}, 120_000);
afterAll(async () => {
  await service?.close();
});

const sessionCount = async () =>
  (await service.http.get('/api/v2/session?limit=100').set('X-API-Key', apiKey).expect(200)).body.data.length as number;

describe('unknown body fields', () => {
  it('POST /api/v2/session: a near miss is 400 validation_error naming it and the field meant; no session is made', async () => {
    const before = await sessionCount();
    const res = await service.http
      .post('/api/v2/session')
      .set('X-API-Key', apiKey)
      .send({ workflow_id: workflowId, redirect_uri: 'https://clinic.example/done' })
      .expect(400);
    expect(res.body.error).toEqual({
      code: 'validation_error',
      message: 'redirect_uri: unknown field; did you mean redirect_url?',
    });
    expect(res.body.data).toEqual({ errors: { redirect_uri: 'unknown field; did you mean redirect_url?' } });
    expect(await sessionCount()).toBe(before);
    // The right name is taken, and the redirect is on the session.
    const created = await service.http
      .post('/api/v2/session')
      .set('X-API-Key', apiKey)
      .send({ workflow_id: workflowId, redirect_url: 'https://clinic.example/done' })
      .expect(201);
    expect(created.body.data.redirect_url).toBe('https://clinic.example/done');
  });

  it('a field far from every declared one lists what the body takes; every unknown field is named', async () => {
    const res = await service.http
      .post('/api/v2/session')
      .set('X-API-Key', apiKey)
      .send({ workflow_id: workflowId, colour: 'red', vendor: 'x' })
      .expect(400);
    expect(res.body.data.errors).toEqual({
      colour:
        'unknown field; this object takes workflow_id, redirect_url, callback, vendor_data, ttl_seconds, metadata, svc_access_token',
      vendor: 'unknown field; did you mean vendor_data?',
    });
    // metadata stays free-form.
    await service.http
      .post('/api/v2/session')
      .set('X-API-Key', apiKey)
      .send({ workflow_id: workflowId, metadata: { anything: { nested: true } } })
      .expect(201);
  });

  it('PATCH /api/v2/session/{id}/status names an unknown field before anything else', async () => {
    const created = await service.http
      .post('/api/v2/session')
      .set('X-API-Key', apiKey)
      .send({ workflow_id: workflowId })
      .expect(201);
    const res = await service.http
      .patch(`/api/v2/session/${created.body.data.session_id}/status`)
      .set('X-API-Key', apiKey)
      .send({ status: 'APPROVED', note: 'ok' })
      .expect(400);
    expect(res.body.data.errors).toEqual({ note: 'unknown field; this object takes status' });
  });

  it('a standalone check refuses an unknown field in JSON and in multipart alike, and takes its own fields in both', async () => {
    const json = await service.http
      .post('/api/v2/age-verification')
      .set('X-API-Key', apiKey)
      .send({ dob: '1990-05-01', band: ['18'] })
      .expect(400);
    expect(json.body.error).toEqual({ code: 'validation_error', message: 'band: unknown field; did you mean bands?' });
    const multipart = await service.http
      .post('/api/v2/age-verification')
      .set('X-API-Key', apiKey)
      .field('dob', '1990-05-01')
      .field('bandz', '18')
      .expect(400);
    expect(multipart.body.data.errors).toEqual({ bandz: 'unknown field; did you mean bands?' });
    const ok = await service.http
      .post('/api/v2/age-verification')
      .set('X-API-Key', apiKey)
      .field('dob', '1990-05-01')
      .field('bands', '18')
      .expect(200);
    expect(ok.body.data.status).toBe('passed');
  });

  it('the roster answers in its own dialect: 400 invalid_request with the nested field named', async () => {
    const res = await service.http
      .post('/api/sdk/members')
      .set(org())
      .send({ members: [{ email: 'new.person@clinic.example', firstName: 'New' }], notify: false })
      .expect(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.data.errors).toEqual({ 'members[0].firstName': 'unknown field; did you mean first_name?' });
    const resolve = await service.http
      .post('/api/sdk/members/resolve')
      .set(org())
      .send({ mail: 'x@clinic.example' })
      .expect(400);
    expect(resolve.body.data.errors).toEqual({ mail: 'unknown field; did you mean email?' });
  });

  it('the OAuth token endpoint still ignores parameters it does not use (RFC 6749 3.2)', async () => {
    const { client_id, client_secret } = service.demo.oidc;
    const res = await service.http.post('/api/auth/oidc/token').type('form').send({
      grant_type: 'authorization_code',
      code: 'not-a-code',
      redirect_uri: 'https://x.example/cb',
      client_id,
      client_secret,
      resource: 'https://api.example',
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });
});

describe('a body in a media type the route does not read', () => {
  it('a form-encoded session is 415 unsupported_media_type saying to send JSON, with Accept-Post', async () => {
    const res = await service.http
      .post('/api/v2/session')
      .set('X-API-Key', apiKey)
      .type('form')
      .send({ workflow_id: workflowId })
      .expect(415);
    expect(res.body.error).toEqual({
      code: 'unsupported_media_type',
      message:
        'the body is application/x-www-form-urlencoded, which this route does not read: send Content-Type: application/json',
    });
    expect(res.headers['accept-post']).toBe('application/json');
  });

  it('text, and a body without Content-Type, are 415 too; a PATCH says Accept-Patch', async () => {
    const text = await service.http
      .post('/api/v2/session')
      .set('X-API-Key', apiKey)
      .set('Content-Type', 'text/plain')
      .send(JSON.stringify({ workflow_id: workflowId }))
      .expect(415);
    expect(text.body.error.message).toBe(
      'the body is text/plain, which this route does not read: send Content-Type: application/json',
    );
    const untyped = await service.http
      .patch('/api/v2/session/ses_x/status')
      .set('X-API-Key', apiKey)
      .set('Content-Type', '')
      .send(Buffer.from('{"status":"APPROVED"}'))
      .expect(415);
    expect(untyped.body.error.message).toBe('the body has no Content-Type: send Content-Type: application/json');
    expect(untyped.headers['accept-patch']).toBe('application/json');
  });

  it('a check takes JSON or multipart, and says so for anything else', async () => {
    const res = await service.http
      .post('/api/v2/age-verification')
      .set('X-API-Key', apiKey)
      .type('form')
      .send({ dob: '1990-05-01' })
      .expect(415);
    expect(res.body.error.message).toBe(
      'the body is application/x-www-form-urlencoded, which this route does not read: send application/json (images as base64 or data-URL strings) or multipart/form-data (images as files)',
    );
    expect(res.headers['accept-post']).toBe('application/json, multipart/form-data');
  });

  it('the roster API is JSON only; a route without a body needs no Content-Type', async () => {
    await service.http.post('/api/sdk/members').set(org()).type('form').send({ email: 'x@clinic.example' }).expect(415);
    await service.http.post('/api/v2/session').set('X-API-Key', apiKey).expect(400); // no body: workflow_id is required, no 415
    await service.http.post('/api/v2/antispoof/challenge').set('X-API-Key', apiKey).expect(200);
  });
});
