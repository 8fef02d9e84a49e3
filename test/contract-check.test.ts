import type { Response } from 'supertest';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiDocs } from '../src/http/openapi.js';
import { fetchChecker, responseChecker } from './helpers/contract.js';

// The response check every HTTP test runs (helpers/service.ts): drift between an answer and its
// documented schema fails the test that saw it.
const docs = new ApiDocs();
docs.add({
  method: 'get',
  path: '/api/v2/thing/{id}',
  summary: 'a thing',
  description: 'a thing to test with',
  tag: 'system',
  security: 'apiKey',
  response: z.object({ id: z.string() }),
  errors: ['not_found'],
});
const check = responseChecker(docs.document('http://test'));
const answer = (status: number, body: unknown) =>
  ({ status, body, headers: { 'content-type': 'application/json' } }) as unknown as Response;

describe('the response check', () => {
  it('passes an answer that matches its documented schema', () => {
    expect(() =>
      check('get', '/api/v2/thing/1?x=1', answer(200, { success: true, data: { id: '1' }, error: null })),
    ).not.toThrow();
    expect(() =>
      check(
        'get',
        '/api/v2/thing/1',
        answer(404, { success: false, data: null, error: { code: 'not_found', message: 'no' } }),
      ),
    ).not.toThrow();
  });

  it('fails a field the schema does not declare, a missing one, an undocumented status, code or route', () => {
    expect(() =>
      check('get', '/api/v2/thing/1', answer(200, { success: true, data: { id: '1', extra: 1 }, error: null })),
    ).toThrow(/additional properties/);
    expect(() => check('get', '/api/v2/thing/1', answer(200, { success: true, data: {}, error: null }))).toThrow(
      /required property 'id'/,
    );
    expect(() =>
      check(
        'get',
        '/api/v2/thing/1',
        answer(409, { success: false, data: null, error: { code: 'conflict', message: 'no' } }),
      ),
    ).toThrow(/status not documented/);
    expect(() =>
      check(
        'get',
        '/api/v2/thing/1',
        answer(404, { success: false, data: null, error: { code: 'session_closed', message: 'no' } }),
      ),
    ).toThrow(/error code session_closed/);
    expect(() => check('get', '/api/v2/other', answer(200, { success: true, data: {}, error: null }))).toThrow(
      /not in the OpenAPI document/,
    );
  });
});

describe('the response check of a fetch answer', () => {
  const checkFetch = fetchChecker(docs.document('http://test'));
  const fetched = (status: number, body: unknown, type = 'application/json') =>
    new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, headers: { 'content-type': type } });

  it('checks the status and the JSON body, and leaves the body to read', async () => {
    const ok = fetched(200, { success: true, data: { id: '1' }, error: null });
    await expect(checkFetch('GET', 'http://127.0.0.1:9/api/v2/thing/1', ok)).resolves.toBeUndefined();
    expect(await ok.json()).toEqual({ success: true, data: { id: '1' }, error: null });
    await expect(
      checkFetch(
        'GET',
        'http://127.0.0.1:9/api/v2/thing/1',
        fetched(200, { success: true, data: { id: 1 }, error: null }),
      ),
    ).rejects.toThrow(/must be string/);
    await expect(
      checkFetch(
        'GET',
        new URL('http://127.0.0.1:9/api/v2/thing/1'),
        fetched(409, { success: false, data: null, error: { code: 'conflict', message: 'no' } }),
      ),
    ).rejects.toThrow(/status not documented/);
  });

  it('passes what is not JSON, and a forced test outcome as any catalog error', async () => {
    await expect(
      checkFetch('GET', 'http://127.0.0.1:9/api/v2/thing/1', fetched(200, 'plain', 'text/plain')),
    ).resolves.toBeUndefined();
    const forced = fetched(402, {
      success: false,
      data: null,
      error: { code: 'insufficient_balance', message: 'forced' },
    });
    await expect(checkFetch('GET', 'http://127.0.0.1:9/api/v2/thing/1', forced.clone())).rejects.toThrow(
      /status not documented/,
    );
    await expect(
      checkFetch('GET', 'http://127.0.0.1:9/api/v2/thing/1', forced, { 'Verity-Test-Outcome': 'insufficient_balance' }),
    ).resolves.toBeUndefined();
  });
});
