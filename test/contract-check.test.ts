import type { Response } from 'supertest';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiDocs } from '../src/rest/openapi.js';
import { responseChecker } from './helpers/contract.js';

// The response check every HTTP test runs (helpers/service.ts): drift between an answer and its
// documented schema fails the test that saw it.
const docs = new ApiDocs();
docs.add({ method: 'get', path: '/api/v2/thing/{id}', summary: 'a thing', tag: 't', security: 'apiKey', response: z.object({ id: z.string() }), errors: ['not_found'] });
const check = responseChecker(docs.document('http://test'));
const answer = (status: number, body: unknown) => ({ status, body, headers: { 'content-type': 'application/json' } }) as unknown as Response;

describe('the response check', () => {
  it('passes an answer that matches its documented schema', () => {
    expect(() => check('get', '/api/v2/thing/1?x=1', answer(200, { success: true, data: { id: '1' }, error: null }))).not.toThrow();
    expect(() => check('get', '/api/v2/thing/1', answer(404, { success: false, data: null, error: { code: 'not_found', message: 'no' } }))).not.toThrow();
  });

  it('fails a field the schema does not declare, a missing one, an undocumented status, code or route', () => {
    expect(() => check('get', '/api/v2/thing/1', answer(200, { success: true, data: { id: '1', extra: 1 }, error: null }))).toThrow(/additional properties/);
    expect(() => check('get', '/api/v2/thing/1', answer(200, { success: true, data: {}, error: null }))).toThrow(/required property 'id'/);
    expect(() => check('get', '/api/v2/thing/1', answer(409, { success: false, data: null, error: { code: 'conflict', message: 'no' } }))).toThrow(/status not documented/);
    expect(() => check('get', '/api/v2/thing/1', answer(404, { success: false, data: null, error: { code: 'session_closed', message: 'no' } }))).toThrow(/error code session_closed/);
    expect(() => check('get', '/api/v2/other', answer(200, { success: true, data: {}, error: null }))).toThrow(/not in the OpenAPI document/);
  });
});
