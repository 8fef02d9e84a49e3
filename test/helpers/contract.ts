import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Response } from 'supertest';

// Every JSON answer an HTTP test receives is checked against the OpenAPI document the service
// serves: the route (method + path template) must be documented, the status must be one of its
// responses, the body must match that response's schema (zod objects are closed in the document:
// additionalProperties false, so an extra field fails), and an error's code must be one the route
// lists. Drift between the code and its documents then fails the test that saw it.

type Schema = Record<string, unknown>;
interface Operation {
  responses: Record<string, { description: string; content?: Record<string, { schema: Schema }> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

// JSON that is not the REST contract: GraphQL and tRPC check their own schemas.
const OWN_SCHEMAS = [/^\/graphql(\/|$)/, /^\/trpc(\/|$)/, /^\/api\/trpc(\/|$)/];

export const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

/** The schema with every `#/components/schemas/...` reference replaced by the component itself. */
export function inlineRefs(schema: unknown, components: Record<string, Schema>): unknown {
  if (Array.isArray(schema)) return schema.map((item) => inlineRefs(item, components));
  if (!schema || typeof schema !== 'object') return schema;
  const ref = (schema as { $ref?: string }).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/'))
    return components[ref.slice('#/components/schemas/'.length)];
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, inlineRefs(value, components)]));
}

/** Whether the request asked a test key's forced outcome (the header as superagent sent it). */
const forcedByTestHeader = (res: Response) =>
  Boolean((res as unknown as { req?: { getHeader(name: string): unknown } }).req?.getHeader('verity-test-outcome'));

export type ResponseCheck = (method: string, url: string, res: Response) => void;

/** An answer as the check reads it, whichever client got it. */
interface Answer {
  status: number;
  contentType: string;
  body: unknown;
  /** The request asked a test key's forced outcome (Verity-Test-Outcome). */
  forced: boolean;
}

/** `served` is the document as GET /api/v2/openapi.json serves it. */
export function responseChecker(served: unknown): ResponseCheck {
  const check = answerChecker(served);
  return (method, url, res) =>
    check(method, url, {
      status: res.status,
      contentType: String(res.headers['content-type'] ?? ''),
      body: res.body,
      forced: forcedByTestHeader(res),
    });
}

/**
 * The same check for an answer `fetch` got (a test that talks to a service in another process, or
 * over a real socket): its status, its Content-Type and its JSON body, read from a clone so the
 * caller can still read the body. `sent` are the request's headers.
 */
export function fetchChecker(
  served: unknown,
): (method: string, url: string | URL, response: globalThis.Response, sent?: RequestInit['headers']) => Promise<void> {
  const check = answerChecker(served);
  return async (method, url, response, sent) => {
    const contentType = response.headers.get('content-type') ?? '';
    if (!contentType.includes('json')) return;
    check(method, String(url), {
      status: response.status,
      contentType,
      body: await response.clone().json(),
      forced: new Headers(sent).has('verity-test-outcome'),
    });
  };
}

/** `fetch` whose every answer is checked against the document `served` (fetchChecker). */
export function checkedFetch(served: unknown): typeof fetch {
  const check = fetchChecker(served);
  return async (input, init = {}) => {
    const response = await fetch(input, init);
    const request = input instanceof Request ? input : undefined;
    await check(
      init.method ?? request?.method ?? 'GET',
      request?.url ?? input.toString(),
      response,
      init.headers ?? request?.headers,
    );
    return response;
  };
}

/** The document a running service serves, for fetchChecker and checkedFetch. */
export async function servedDocument(baseUrl: string): Promise<unknown> {
  const response = await fetch(`${baseUrl}/api/v2/openapi.json`);
  if (!response.ok) throw new Error(`GET ${baseUrl}/api/v2/openapi.json answered ${response.status}`);
  return response.json();
}

function answerChecker(served: unknown): (method: string, url: string, answer: Answer) => void {
  const document = served as Document;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const compiled = new Map<Schema, ReturnType<typeof ajv.compile>>();
  const validatorOf = (schema: Schema) => {
    let validate = compiled.get(schema);
    if (!validate) {
      validate = ajv.compile(inlineRefs(schema, document.components.schemas) as Schema);
      compiled.set(schema, validate);
    }
    return validate;
  };
  // Literal paths win over templates (`/session/list` before `/session/{id}`).
  const templates = Object.keys(document.paths)
    .map((template) => ({
      template,
      params: (template.match(/\{/g) ?? []).length,
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{\w+\\?\}/g, '[^/]+')}$`),
    }))
    .sort((a, b) => a.params - b.params);

  return (method, url, res) => {
    if (!res.contentType.includes('json')) return;
    const path = new URL(url, 'http://test').pathname;
    if (OWN_SCHEMAS.some((pattern) => pattern.test(path))) return;
    const where = `${method.toUpperCase()} ${path} -> ${res.status}`;
    const body = res.body as { success?: boolean; error?: { code?: string } | string | null };
    const code = typeof body?.error === 'string' ? body.error : body?.error?.code;
    const match = templates.find(({ pattern }) => pattern.test(path));
    const operation = match ? document.paths[match.template]![method.toLowerCase()] : undefined;
    if (!operation) {
      // Paths no route owns still get the error envelope (catch-all 404/405, the API key and body
      // limits in front of every /api/v2 route, the retired legacy namespace); a success must be documented.
      if (res.status >= 400 && validatorOf(document.components.schemas.Error!)(res.body)) return;
      throw new Error(`${where}: the route is not in the OpenAPI document`);
    }
    // A test key's forced outcome (Verity-Test-Outcome, README: Sandbox) may be any catalog error on
    // any route, by design: it is checked as an error envelope, not against the route's list.
    if (res.status >= 400 && res.forced && validatorOf(document.components.schemas.Error!)(res.body)) return;
    const documented = operation.responses[String(res.status)];
    if (!documented) throw new Error(`${where}: status not documented for ${method.toUpperCase()} ${match!.template}`);
    const schema = documented.content?.['application/json']?.schema;
    if (!schema) throw new Error(`${where}: documented without a JSON body`);
    const validate = validatorOf(schema);
    if (!validate(res.body)) {
      throw new Error(
        `${where}: body does not match ${match!.template}: ${ajv.errorsText(validate.errors, { separator: '; ' })}\n${JSON.stringify(res.body).slice(0, 600)}`,
      );
    }
    if (res.status >= 400 && code) {
      const codes = documented.description.split(', ');
      if (!codes.includes(code))
        throw new Error(
          `${where}: error code ${code} is not among the route's documented errors (${codes.join(', ')})`,
        );
    }
  };
}
