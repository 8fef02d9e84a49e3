import { z } from 'zod';
import { errorCatalog, type ErrorCode } from '../core/errors.js';

// The OpenAPI 3.1 document is generated from the same zod schemas the routes parse with: each
// router describes its routes here as it mounts them, so the document cannot drift from the code.

export type Security = 'apiKey' | 'orgClient' | 'accessToken' | 'none';

export type BodyMediaType = 'application/json' | 'application/x-www-form-urlencoded';

/** A request header the route reads (beyond credentials, which the security schemes say). */
export interface HeaderDoc {
  name: string;
  description: string;
  schema: z.ZodType;
}

/** Realistic examples, checked against their schemas by test/openapi-examples.test.ts. */
export interface RouteExamples {
  /** One request body (for every media type the route takes). */
  request?: unknown;
  /** The `data` of a success (the envelope is added for enveloped routes), or the bare body. */
  response?: unknown;
}

/** Sandbox (README: Sandbox): a test key forces the outcome of a standalone check or a new session. */
/** An image field's example: the start of a JPEG as a data URL (examples show the shape, not a photo). */
export const EXAMPLE_JPEG = 'data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8U';

export const testOutcomeHeader: HeaderDoc = {
  name: 'Verity-Test-Outcome',
  description:
    'Test keys (vk_test_) only, ignored for live keys: approve, decline or review forces that verdict without running a model; a catalog error code (e.g. rate_limited) answers that error; anything else is 400 validation_error',
  schema: z.string().meta({ examples: ['approve', 'decline', 'review', 'insufficient_balance'] }),
};

export interface RouteDoc {
  method: 'get' | 'post' | 'patch' | 'put' | 'delete';
  /** OpenAPI path template, e.g. `/api/v2/session/{id}`. */
  path: string;
  summary: string;
  /** Only where the path alone would repeat another route's id (an alias of it). */
  operationId?: string;
  tag: string;
  security: Security;
  body?: z.ZodType;
  /** The media types the body may be sent as; JSON unless said. */
  bodyTypes?: BodyMediaType[];
  headers?: HeaderDoc[];
  examples?: RouteExamples;
  query?: z.ZodObject;
  /** The `data` of a success; the enveloped routes wrap it. */
  response?: z.ZodType;
  /** Top-level JSON instead of the envelope (OIDC token and userinfo). */
  bare?: boolean;
  successStatus?: number;
  errors?: ErrorCode[];
  /** A browser route: success is a 303 redirect, and a request it cannot trust gets an HTML page (400). */
  browser?: boolean;
  /** A success that is not JSON (Prometheus text, a PNG): the media type and what it is. */
  rawSuccess?: { type: 'text/plain' | 'image/png'; description: string };
  /** A removed route: deprecated, and its only success is a placeholder (OpenAPI wants one) that says every call is an error. */
  removed?: boolean;
}

const SECURITY: Record<Exclude<Security, 'none'>, { [scheme: string]: string[] }[]> = {
  apiKey: [{ ApiKeyHeader: [] }, { ApiKeyBearer: [] }],
  orgClient: [{ ClientId: [], ClientSecret: [] }],
  accessToken: [{ AccessToken: [] }],
};

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' });
  return rest;
}

function envelopeOf(data: Record<string, unknown>): Record<string, unknown> {
  return {
    type: 'object',
    required: ['success', 'data', 'error'],
    properties: { success: { type: 'boolean', const: true }, data, error: { type: 'null' } },
  };
}

const errorEnvelope = {
  type: 'object',
  required: ['success', 'error'],
  properties: {
    success: { type: 'boolean', const: false },
    data: {},
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string' }, message: { type: 'string' } },
    },
  },
};

/** RFC 6749 section 5.2 at the token endpoint; RFC 6750 section 3.1 on the bearer routes. */
const oauthError = {
  type: 'object',
  description: 'An OAuth error: RFC 6749 5.2 (invalid_request, invalid_client, invalid_grant, unauthorized_client, unsupported_grant_type, invalid_scope) or RFC 6750 3.1 (invalid_token, insufficient_scope)',
  required: ['error'],
  properties: { error: { type: 'string', examples: ['invalid_grant'] }, error_description: { type: 'string', examples: ['code_verifier does not match the code_challenge'] } },
};

/** `get /api/v2/session/{id}/decision` -> `getSessionByIdDecision`: one per route, stable while the path is. */
export function operationIdOf(route: Pick<RouteDoc, 'method' | 'path'>): string {
  const words = route.path
    .split('/')
    .filter((segment) => segment && segment !== 'api' && segment !== 'v2')
    .flatMap((segment) => (segment.startsWith('{') ? ['by', segment.slice(1, -1)] : [segment]))
    .flatMap((segment) => segment.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  return route.method + words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('');
}

/** A browser route's answers: its pages, the redirect, and the page shown instead of redirecting to an untrusted URI. */
const browserResponses = {
  '200': { description: 'an HTML page for the person: sign-in or consent (authorize), the sign-out question or signed out (logout)', content: { 'text/html': { schema: { type: 'string' } } } },
  '303': { description: "redirect (Location) to the client's registered URI with the result in the query", headers: { Location: { schema: { type: 'string', format: 'uri' } } } },
  '400': { description: 'an HTML page saying what is wrong, never a redirect: unknown client, unregistered redirect URI, bad id_token_hint', content: { 'text/html': { schema: { type: 'string' } } } },
};

/** A removed route answers nothing but its errors; the 2xx is there only because OpenAPI requires one. */
const removedResponses = { '200': { description: 'never sent: the route is removed and every call answers its error' } };

/** The success answer: JSON (enveloped or bare), or the raw media a route sends instead. */
function successResponse(route: RouteDoc, json: Record<string, unknown>): Record<string, unknown> {
  if (!route.rawSuccess) return { description: 'success', content: { 'application/json': json } };
  const schema = route.rawSuccess.type === 'image/png' ? { type: 'string', contentMediaType: 'image/png' } : { type: 'string' };
  return { description: route.rawSuccess.description, content: { [route.rawSuccess.type]: { schema } } };
}

export class ApiDocs {
  private readonly routes: RouteDoc[] = [];

  add(...docs: RouteDoc[]): void {
    this.routes.push(...docs);
  }

  list(): readonly RouteDoc[] {
    return this.routes;
  }

  document(serverUrl: string): Record<string, unknown> {
    const paths: Record<string, Record<string, unknown>> = {};
    const operationIds = new Set<string>();
    for (const route of this.routes) {
      const operationId = route.operationId ?? operationIdOf(route);
      if (operationIds.has(operationId)) throw new Error(`two routes have the operationId ${operationId}`);
      operationIds.add(operationId);
      const success = route.response ? jsonSchema(route.response, 'output') : {};
      const successContent: Record<string, unknown> = { schema: route.bare ? success : envelopeOf(success) };
      if (route.examples && 'response' in route.examples) successContent.example = route.bare ? route.examples.response : { success: true, data: route.examples.response, error: null };
      const responses: Record<string, unknown> = route.browser ? { ...browserResponses } : route.removed ? { ...removedResponses } : { [String(route.successStatus ?? 200)]: successResponse(route, successContent) };
      for (const code of route.errors ?? []) {
        const status = String(errorCatalog[code].status);
        const existing = responses[status] as { description: string } | undefined;
        responses[status] = {
          description: existing ? `${existing.description}, ${code}` : code,
          // The OAuth routes (token, revoke, introspect, userinfo) answer grant errors as RFC 6749
          // does and client or token failures in the envelope: the document says both.
          content: { 'application/json': { schema: route.bare ? { anyOf: [{ $ref: '#/components/schemas/OAuthError' }, { $ref: '#/components/schemas/Error' }] } : { $ref: '#/components/schemas/Error' } } },
        };
      }
      const operation: Record<string, unknown> = {
        operationId,
        summary: route.summary,
        tags: [route.tag],
        security: route.security === 'none' ? [] : SECURITY[route.security],
        responses,
      };
      if (route.removed) operation.deprecated = true;
      if (route.query) {
        const shape = jsonSchema(route.query, 'input') as { properties?: Record<string, unknown>; required?: string[] };
        operation.parameters = Object.entries(shape.properties ?? {}).map(([name, schema]) => ({
          name,
          in: 'query',
          required: shape.required?.includes(name) ?? false,
          schema,
        }));
      }
      const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => ({
        name: match[1],
        in: 'path',
        required: true,
        schema: { type: 'string' },
      }));
      const headerParams = (route.headers ?? []).map((header) => ({ name: header.name, in: 'header', required: false, description: header.description, schema: jsonSchema(header.schema, 'input') }));
      const parameters = [...pathParams, ...((operation.parameters as unknown[]) ?? []), ...headerParams];
      if (parameters.length) operation.parameters = parameters;
      if (route.body) {
        const schema = jsonSchema(route.body, 'input');
        const media = { schema, ...(route.examples && 'request' in route.examples ? { example: route.examples.request } : {}) };
        operation.requestBody = { required: true, content: Object.fromEntries((route.bodyTypes ?? ['application/json']).map((type) => [type, media])) };
      }
      paths[route.path] ??= {};
      paths[route.path]![route.method] = operation;
    }
    return {
      openapi: '3.1.0',
      info: {
        title: 'Verity',
        version: '2.0.0',
        description: 'Identity verification, OpenID Connect login and workforce roster service.',
      },
      servers: [{ url: serverUrl }],
      paths,
      components: {
        schemas: { Error: errorEnvelope, OAuthError: oauthError },
        securitySchemes: {
          ApiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          ApiKeyBearer: { type: 'http', scheme: 'bearer', description: 'the API key as a bearer token' },
          ClientId: { type: 'apiKey', in: 'header', name: 'X-Client-Id' },
          ClientSecret: { type: 'apiKey', in: 'header', name: 'X-Client-Secret' },
          AccessToken: { type: 'http', scheme: 'bearer', description: 'an access token from the OIDC token endpoint' },
        },
      },
    };
  }
}
