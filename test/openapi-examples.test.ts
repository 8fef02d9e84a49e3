import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiDocs, type RouteDoc } from '../src/http/openapi.js';
import { addFormats, inlineRefs } from './helpers/contract.js';
import { startTestService, type TestService } from './helpers/service.js';

// Every example in the served OpenAPI document (request bodies, success responses, each error
// code's answer) must validate against the schema next to it, so the reference never shows an
// integrator a body the service would refuse or never send.

type Schema = Record<string, unknown>;
interface Media {
  schema?: Schema;
  example?: unknown;
  /** Named examples (the error answers: one per code). */
  examples?: Record<string, { value: unknown }>;
}
interface Operation {
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

/** The alternatives of a `oneOf` schema (none for any other schema). */
const alternatives = (schema: Schema | undefined) => (schema?.oneOf ?? []) as (Schema & { examples?: unknown[] })[];

/** Each example of the document, where it is, and what its schema says of it (empty when it fits). */
function checkExamples(served: unknown): { where: string; problems: string }[] {
  const document = served as Document;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const results: { where: string; problems: string }[] = [];
  const check = (where: string, media: Media) => {
    if (!media.schema) return;
    const shown = [
      ...(media.example === undefined ? [] : [{ where, value: media.example }]),
      ...Object.entries(media.examples ?? {}).map(([name, example]) => ({
        where: `${where} ${name}`,
        value: example.value,
      })),
    ];
    if (shown.length === 0) return;
    const validate = ajv.compile(inlineRefs(media.schema, document.components.schemas) as Schema);
    for (const example of shown)
      results.push({
        where: example.where,
        problems: validate(example.value) ? '' : ajv.errorsText(validate.errors, { separator: '; ' }),
      });
  };
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
        check(`${method.toUpperCase()} ${path} request ${type}`, media);
        // A body that is one of several (the hosted steps): each alternative's example must fit the
        // whole schema, that is exactly one alternative.
        for (const [i, branch] of alternatives(media.schema).entries()) {
          for (const example of branch.examples ?? [])
            check(`${method.toUpperCase()} ${path} request ${type} oneOf[${i}]`, { schema: media.schema, example });
        }
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const [type, media] of Object.entries(response.content ?? {}))
          check(`${method.toUpperCase()} ${path} ${status} ${type}`, media);
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
      for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
        if (media.example === undefined) missing.push(`${where} request ${type}`);
        for (const [i, branch] of alternatives(media.schema).entries())
          if (!branch.examples?.length) missing.push(`${where} request ${type} oneOf[${i}]`);
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        const json = response.content?.['application/json'];
        if (status.startsWith('2') && json && json.example === undefined) missing.push(`${where} ${status}`);
      }
    }
  }
  return missing;
}

/** A document of one route, `POST /api/v2/thing`, for the checks' own tests. */
function thing(route: Partial<RouteDoc>): unknown {
  const docs = new ApiDocs();
  docs.add({
    method: 'post',
    path: '/api/v2/thing',
    summary: 'a thing',
    description: 'a thing to test with',
    tag: 'system',
    security: 'apiKey',
    response: z.object({ id: z.string() }),
    ...route,
  });
  return docs.document('http://test');
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

  it('checks the named examples of an answer too (one per error code)', () => {
    const served = thing({ examples: { response: { id: '1' } } }) as Document;
    const unauthorized = served.paths['/api/v2/thing']!.post!.responses['401']!.content!['application/json']!;
    expect(Object.keys(unauthorized.examples ?? {})).toEqual(['invalid_api_key']);
    expect(checkExamples(served).filter((result) => result.problems)).toEqual([]);
    unauthorized.examples!.invalid_api_key!.value = { success: false };
    expect(
      checkExamples(served)
        .filter((result) => result.problems)
        .map((result) => result.where),
    ).toEqual(['POST /api/v2/thing 401 application/json invalid_api_key']);
  });

  it('catches an example its schema refuses', () => {
    const served = thing({
      body: z.object({ name: z.string() }),
      examples: { request: { name: 1 }, response: { id: '1', extra: true } },
    });
    const problems = checkExamples(served)
      .filter((result) => result.problems)
      .map((result) => `${result.where}: ${result.problems}`);
    expect(problems).toEqual([
      expect.stringMatching(/request application\/json: .*must be string/),
      expect.stringMatching(/200 application\/json: .*additional properties/),
    ]);
  });

  it('names a body or a success without an example', () => {
    expect(missingExamples(thing({ body: z.object({ name: z.string() }) }))).toEqual([
      'POST /api/v2/thing request application/json',
      'POST /api/v2/thing 200',
    ]);
  });

  it('wants an example of each alternative of a oneOf body, each fitting exactly one alternative', () => {
    const named = z.strictObject({ name: z.string() }).meta({ examples: [{ name: 'a' }] });
    const open = z.object({ name: z.string() }).meta({ examples: [{ name: 'b', extra: 1 }] });
    const counted = z.strictObject({ count: z.number() });
    const served = thing({
      body: z.xor([named, open, counted]),
      examples: { request: { count: 1 }, response: { id: '1' } },
    });
    expect(missingExamples(served)).toEqual(['POST /api/v2/thing request application/json oneOf[2]']);
    // { name: 'a' } fits the open alternative too: not exactly one.
    expect(
      checkExamples(served)
        .filter((result) => result.problems)
        .map((result) => result.where),
    ).toEqual(['POST /api/v2/thing request application/json oneOf[0]']);
  });
});
