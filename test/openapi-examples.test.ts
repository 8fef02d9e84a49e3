import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiDocs } from '../src/rest/openapi.js';
import { addFormats, inlineRefs } from './helpers/contract.js';
import { startTestService, type TestService } from './helpers/service.js';

// Every example in the served OpenAPI document (request bodies, success responses) must validate
// against the schema next to it, so the reference never shows an integrator a body the service
// would refuse or never send.

type Schema = Record<string, unknown>;
interface Media {
  schema?: Schema;
  example?: unknown;
}
interface Operation {
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

/** Each example of the document, where it is, and what its schema says of it (empty when it fits). */
function checkExamples(served: unknown): { where: string; problems: string }[] {
  const document = served as Document;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const results: { where: string; problems: string }[] = [];
  const check = (where: string, media: Media) => {
    if (media.example === undefined || !media.schema) return;
    const validate = ajv.compile(inlineRefs(media.schema, document.components.schemas) as Schema);
    results.push({ where, problems: validate(media.example) ? '' : ajv.errorsText(validate.errors, { separator: '; ' }) });
  };
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) check(`${method.toUpperCase()} ${path} request ${type}`, media);
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const [type, media] of Object.entries(response.content ?? {})) check(`${method.toUpperCase()} ${path} ${status} ${type}`, media);
      }
    }
  }
  return results;
}

/** Each request body and JSON success response of the document that shows no example. */
function missingExamples(served: unknown): string[] {
  const document = served as Document;
  const missing: string[] = [];
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const where = `${method.toUpperCase()} ${path}`;
      for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) if (media.example === undefined) missing.push(`${where} request ${type}`);
      for (const [status, response] of Object.entries(operation.responses)) {
        const json = response.content?.['application/json'];
        if (status.startsWith('2') && json && json.example === undefined) missing.push(`${where} ${status}`);
      }
    }
  }
  return missing;
}

describe('examples in the OpenAPI document', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  }, 120_000);
  afterAll(async () => {
    await service?.close();
  });

  it('each validates against its schema, and every request body and JSON success has one', async () => {
    const served = (await service.http.get('/api/v2/openapi.json').expect(200)).body;
    const results = checkExamples(served);
    expect(results.filter((result) => result.problems)).toEqual([]);
    expect(missingExamples(served)).toEqual([]);
  });

  it('catches an example its schema refuses', () => {
    const docs = new ApiDocs();
    docs.add({
      method: 'post',
      path: '/api/v2/thing',
      summary: 'a thing',
      tag: 't',
      security: 'apiKey',
      body: z.object({ name: z.string() }),
      response: z.object({ id: z.string() }),
      examples: { request: { name: 1 }, response: { id: '1', extra: true } },
    });
    const problems = checkExamples(docs.document('http://test')).map((result) => `${result.where}: ${result.problems}`);
    expect(problems).toEqual([expect.stringMatching(/request application\/json: .*must be string/), expect.stringMatching(/200 application\/json: .*additional properties/)]);
  });

  it('names a body or a success without an example', () => {
    const docs = new ApiDocs();
    docs.add({ method: 'post', path: '/api/v2/thing', summary: 'a thing', tag: 't', security: 'apiKey', body: z.object({ name: z.string() }), response: z.object({ id: z.string() }) });
    expect(missingExamples(docs.document('http://test'))).toEqual(['POST /api/v2/thing request application/json', 'POST /api/v2/thing 200']);
  });
});
