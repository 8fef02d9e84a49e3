import { z } from 'zod';
import { errorCatalog, type ErrorCode } from '../core/errors.js';

// The OpenAPI 3.1 document is generated from the same zod schemas the routes parse with: each
// router describes its routes here as it mounts them, so the document cannot drift from the code.

export type Security = 'apiKey' | 'orgClient' | 'accessToken' | 'none';

export type BodyMediaType = 'application/json' | 'multipart/form-data' | 'application/x-www-form-urlencoded';

/**
 * The bodies that carry images: JSON with base64 or data-URL strings, or multipart/form-data with files under the same
 * names.
 */
export const IMAGE_BODY: BodyMediaType[] = ['application/json', 'multipart/form-data'];

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
  /** A browser route's redirect (its 303 `Location`). */
  redirect?: string;
  /** A success that is not JSON (`rawSuccess`), as text. */
  raw?: string;
}

/** Sandbox (docs/sandbox.md): a test key forces the outcome of a standalone check or a new session. */
/** An image field's example: the start of a JPEG as a data URL (examples show the shape, not a photo). */
export const EXAMPLE_JPEG =
  'data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8U';

export const testOutcomeHeader: HeaderDoc = {
  name: 'Verity-Test-Outcome',
  description:
    'Test keys (vk_test_) only, ignored for live keys: approve, decline or review forces that verdict without running a model; a catalog error code (e.g. rate_limited) answers that error; anything else is 400 validation_error',
  schema: z.string().meta({ examples: ['approve', 'decline', 'review', 'insufficient_balance'] }),
};

export const idempotencyKeyHeader: HeaderDoc = {
  name: 'Idempotency-Key',
  description:
    'Optional, your own unique string (e.g. a UUID) per intended call, up to 255 characters. Sent again with the same body within 24 hours, the call is not run or charged again: the first answer is replayed with `Idempotent-Replayed: true`. The same key with another body is 422 `idempotency_key_reused`; while the first call still runs, 409 `idempotency_in_progress`. Keys are per project and per mode (test or live).',
  schema: z
    .string()
    .min(1)
    .max(255)
    .meta({ examples: ['5f0c2c0e-8f4e-4a52-9d53-2f5b8c1f7d21'] }),
};

/** A header of a success answer, beyond `X-Request-Id` (which every answer carries). */
export interface ResponseHeaderDoc {
  name: string;
  description: string;
  example: string;
}

/** `Idempotent-Replayed` on the success of a route that takes an `Idempotency-Key`. */
const replayedHeader: ResponseHeaderDoc = {
  name: 'Idempotent-Replayed',
  description:
    '`true` when this answer is the replay of an earlier call with the same Idempotency-Key and body (absent otherwise)',
  example: 'true',
};

/**
 * The sections of the reference, in the order an integrator meets them: verify people (sessions,
 * standalone checks, the credential catalog, the webhooks they send), sign them in, manage a
 * workforce, administer; then what our own pages call, the service's health, and removed routes.
 */
export const TAGS = {
  sessions: {
    group: 'Verification',
    name: 'Hosted verification sessions',
    description:
      'Create a session for a workflow, send the person to its `url`, and read the authoritative decision once a webhook says it is final (or poll the session). See [Hosted flow](#tag/guide-hosted-flow).',
  },
  checks: {
    group: 'Verification',
    name: 'Standalone checks',
    description:
      'Synchronous server-to-server checks: ID document, liveness, face match, anti-spoof, face uniqueness, age, location, professional licence, and KYC with licence in one call. Each answers `{ session_id, status, check }` in the envelope and is billed per call. Images are sent as multipart/form-data files or as base64 / data-URL strings in JSON under the same field names; send originals (recompression causes false rejects).',
  },
  credentials: {
    group: 'Verification',
    name: 'Credential discovery',
    description:
      'The states and licensing boards the licence checks can query, with the fields each board needs. Read them before `POST /api/v2/credential-verification` to pick `license_state` and `provider_code`.',
  },
  webhooks: {
    group: 'Verification',
    name: 'Webhooks',
    description:
      'What Verity POSTs to your callback URL when a session reaches a final state (or review). Each is signed: verify `X-Svc-Signature` over the raw body before parsing it, answer 2xx quickly, deduplicate on `event_id`, then read `GET /api/v2/session/{id}/decision`. See [Receiving webhooks](#tag/guide-webhooks).',
  },
  login: {
    group: 'Login',
    name: 'Login (OpenID Connect)',
    description:
      'A standard OpenID Connect provider: discovery, authorization code with PKCE (S256), token exchange and refresh (rotated on every use), revocation, introspection, RP-initiated logout and the JWKS. Any certified relying-party library works; point it at the discovery document.',
  },
  account: {
    group: 'Login',
    name: 'Account data',
    description:
      "Reads of the signed-in person's account with the access token from the token endpoint: claims (scope `profile`), licences, and verification status (scope `verifications`). Never raw identity data.",
  },
  wallet: {
    group: 'Login',
    name: 'Verifiable credentials (zkp)',
    description:
      'A verified person carries proofs in their own wallet: an SD-JWT VC (selectively disclosable: age thresholds, name, nationality, document validity, licences) issued over OpenID for Verifiable Credential Issuance with the `zkp` scope, revocable through a status list. Integrators check what a wallet presents with `POST /api/v2/credential-presentation` and learn only what the person disclosed. See docs/credentials.md.',
  },
  roster: {
    group: 'Workforce',
    name: 'Organization roster',
    description:
      "Your organization's workforce under `/api/sdk`, authenticated by the organization app's `X-Client-Id` and `X-Client-Secret` (server side only): add (with invitations), list, resolve, deactivate, reactivate, remove and re-invite members, and read seats and billing. Bad input is 400 `invalid_request` with a per-field map in `data.errors`.",
  },
  admin: {
    group: 'Administration',
    name: 'Admin API',
    description:
      'Projects, API keys, workflows, callback destinations, OIDC clients, organization apps, sessions, the review queue and webhook deliveries are administered over GraphQL at `/graphql` (GraphiQL in a browser) and tRPC at `/trpc`, with an admin token (`Authorization: Bearer`), and with the `verity admin` command. They are not REST routes: their schema is `schema.graphql` in the repository and the GraphQL introspection.',
    trait: true,
  },
  pages: {
    group: 'Service',
    name: 'Hosted pages (internal)',
    description:
      "The calls our own pages make: the hosted verification page (`/verify/{session_id}`, authenticated by the session token in `X-Session-Token`) and the roster activation page (the person's browser session). Listed for completeness and for integrators who build their own capture front end on a session; a server never calls them.",
  },
  system: {
    group: 'Service',
    name: 'System',
    description: 'Liveness and readiness probes, Prometheus metrics, and this document.',
  },
  legacy: {
    group: 'Service',
    name: 'Removed (legacy SSO)',
    description:
      'The `/api/auth/tpsso` namespace is removed: every call answers 410 `endpoint_removed`. Migrate to the OpenID Connect endpoints.',
  },
} as const satisfies Record<string, { group: string; name: string; description: string; trait?: boolean }>;

export type Tag = keyof typeof TAGS;

export interface RouteDoc {
  method: 'get' | 'post' | 'patch' | 'put' | 'delete';
  /** OpenAPI path template, e.g. `/api/v2/session/{id}`. */
  path: string;
  /** One line: what the operation does (the sidebar's entry). */
  summary: string;
  /** What a reader needs to call it well: when, the rules it applies, what to do with the answer (markdown). */
  description: string;
  /** Only where the path alone would repeat another route's id (an alias of it). */
  operationId?: string;
  tag: Tag;
  security: Security;
  body?: z.ZodType;
  /** The media types the body may be sent as; JSON unless said. */
  bodyTypes?: BodyMediaType[];
  headers?: HeaderDoc[];
  /** Headers of the success answer (a cursor, a Link). */
  responseHeaders?: ResponseHeaderDoc[];
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
  rawSuccess?: { type: 'text/plain' | 'image/png' | 'application/statuslist+jwt'; description: string };
  /**
   * Errors as OAuth writes them (`{ error, error_description }`) whatever the body's type (OpenID4VCI's credential
   * endpoint).
   */
  oauthErrors?: boolean;
  /**
   * A removed route: deprecated, and its only success is a placeholder (OpenAPI wants one) that says every call is an
   * error.
   */
  removed?: boolean;
}

const SECURITY: Record<Exclude<Security, 'none'>, { [scheme: string]: string[] }[]> = {
  apiKey: [{ ApiKeyHeader: [] }, { ApiKeyBearer: [] }],
  orgClient: [{ ClientId: [], ClientSecret: [] }],
  accessToken: [{ AccessToken: [] }],
};

/**
 * What a route's credentials can answer whatever the route: a wrong credential; on /api/v2 the
 * API key's rate limit; and, wherever a credential is looked up, the store being away (503).
 */
const CREDENTIAL_ERRORS: Record<Security, ErrorCode[]> = {
  apiKey: ['invalid_api_key', 'rate_limited', 'service_unavailable'],
  orgClient: ['invalid_client', 'service_unavailable'],
  accessToken: ['invalid_token', 'service_unavailable'],
  none: [],
};

/** Whether a route reads JSON (or multipart) only: any other body is 415 there. */
const readsJsonBody = (route: RouteDoc) =>
  route.body !== undefined && !(route.bodyTypes ?? []).includes('application/x-www-form-urlencoded');

/** Every error a route can answer: its credentials', a body in another media type, and its own. */
export function errorsOf(route: RouteDoc): ErrorCode[] {
  return [
    ...new Set<ErrorCode>([
      ...CREDENTIAL_ERRORS[route.security],
      ...(readsJsonBody(route) ? (['unsupported_media_type'] as const) : []),
      ...(route.errors ?? []),
    ]),
  ];
}

/** The path parameters of every route, by name: what they are and an example. */
const PATH_PARAMETERS: Record<string, { description: string; example: string; enum?: string[] }> = {
  id: { description: 'the `session_id` from POST /api/v2/session', example: 'ses_9f8e7d6c5b4a39281a0b2c3d' },
  state: { description: 'a 2-letter state code from GET .../credential/states', example: 'CA' },
  face_id: { description: 'the `face_id` an enrolment answered', example: 'fce_2b4d6f8a0c1e3a5b7d9f1c3e' },
  member_id: { description: "the member's `member_id`, email or `svc_id`", example: 'mem_6b8d0f2a4c6e8a1b3d5f7a9c' },
  step: {
    description: 'the step of the hosted flow',
    example: 'document',
    enum: ['document', 'selfie', 'location', 'licence'],
  },
  token: { description: "the activation link's token", example: 'act_Zm9yRXhhbXBsZU9ubHlOb3RBUmVhbExpbmsw' },
  list: { description: "a status list's number, from a credential's `status.status_list.uri`", example: '1' },
};

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
  });
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
  description:
    'Every error of an enveloped route: `error.code` is the catalog code to branch on, `error.message` says what to do in words; `data` is null or details (e.g. `data.errors`, a per-field map)',
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
  description:
    'An OAuth error: RFC 6749 5.2 (invalid_request, invalid_client, invalid_grant, unauthorized_client, unsupported_grant_type, invalid_scope) or RFC 6750 3.1 (invalid_token, insufficient_scope)',
  required: ['error'],
  properties: {
    error: { type: 'string', examples: ['invalid_grant'] },
    error_description: { type: 'string', examples: ['code_verifier does not match the code_challenge'] },
  },
};

/** Headers every answer, or every answer of a kind, carries. */
const HEADERS = {
  XRequestId: {
    description:
      "This request's id, in our logs and traces: quote it when you ask about a call. A sane `X-Request-Id` of yours (1 to 128 of `A-Za-z0-9._:-`) is kept; otherwise a new UUID.",
    schema: { type: 'string' },
    example: '4f9e1c2a-7b3d-4e5f-8a9b-0c1d2e3f4a5b',
  },
  RetryAfter: {
    description:
      'Seconds to wait before trying again (429: until the limit lets you; 503: a short pause). Honour it, then retry with backoff.',
    schema: { type: 'integer', minimum: 1 },
    example: 1,
  },
} as const;

const headerRef = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });

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

const htmlExample = (title: string) =>
  `<!doctype html><html lang="en"><head><title>${title} · Verity</title></head><body><main>…</main></body></html>`;

/**
 * A browser route's answers: its pages, the redirect, and the page shown instead of redirecting to an untrusted URI.
 */
function browserResponses(route: RouteDoc): Record<string, unknown> {
  return {
    '200': {
      description:
        'an HTML page for the person: sign-in or consent (authorize), the sign-out question or signed out (logout)',
      headers: { 'X-Request-Id': headerRef('XRequestId') },
      content: { 'text/html': { schema: { type: 'string' }, example: htmlExample('Sign in') } },
    },
    '303': {
      description: "redirect (Location) to the client's registered URI with the result in the query",
      headers: {
        Location: {
          schema: { type: 'string', format: 'uri' },
          ...(route.examples?.redirect ? { example: route.examples.redirect } : {}),
        },
        'X-Request-Id': headerRef('XRequestId'),
      },
    },
    '400': {
      description:
        'an HTML page saying what is wrong, never a redirect: unknown client, unregistered redirect URI, bad id_token_hint',
      headers: { 'X-Request-Id': headerRef('XRequestId') },
      content: { 'text/html': { schema: { type: 'string' }, example: htmlExample('Sign-in request not valid') } },
    },
  };
}

/** A removed route answers nothing but its errors; the 2xx is there only because OpenAPI requires one. */
const removedResponses = {
  '200': { description: 'never sent: the route is removed and every call answers its error' },
};

/** The success answer: JSON (enveloped or bare), or the raw media a route sends instead. */
function successResponse(route: RouteDoc, json: Record<string, unknown>): Record<string, unknown> {
  const extra = [
    ...(route.responseHeaders ?? []),
    ...((route.headers ?? []).includes(idempotencyKeyHeader) ? [replayedHeader] : []),
  ];
  const headers = {
    'X-Request-Id': headerRef('XRequestId'),
    ...Object.fromEntries(
      extra.map((header) => [
        header.name,
        { description: header.description, schema: { type: 'string' }, example: header.example },
      ]),
    ),
  };
  if (!route.rawSuccess) return { description: 'success', headers, content: { 'application/json': json } };
  const schema =
    route.rawSuccess.type === 'image/png' ? { type: 'string', contentMediaType: 'image/png' } : { type: 'string' };
  return {
    description: route.rawSuccess.description,
    headers,
    content: { [route.rawSuccess.type]: { schema, ...(route.examples?.raw ? { example: route.examples.raw } : {}) } },
  };
}

/** Whether a route answers errors in OAuth's own shape (a form-encoded request to the token endpoints). */
const answersOAuthErrors = (route: RouteDoc) =>
  route.oauthErrors === true ||
  (route.bare === true && (route.bodyTypes ?? []).includes('application/x-www-form-urlencoded'));

/** One error answer as the route sends it, with the catalog's message. */
function errorExample(route: RouteDoc, code: ErrorCode): unknown {
  const message = errorCatalog[code].message;
  return answersOAuthErrors(route)
    ? { error: code, error_description: message }
    : { success: false, data: null, error: { code, message } };
}

/**
 * The answers of one status: the codes it carries (the description lists them), an example of each, and its headers.
 */
function errorResponse(route: RouteDoc, status: number, codes: ErrorCode[]): Record<string, unknown> {
  // The OAuth routes (token, revoke, introspect, userinfo) answer grant errors as RFC 6749 does
  // and client or token failures in the envelope: the document says both.
  const schema = route.bare
    ? { anyOf: [{ $ref: '#/components/schemas/OAuthError' }, { $ref: '#/components/schemas/Error' }] }
    : { $ref: '#/components/schemas/Error' };
  return {
    description: codes.join(', '),
    headers: {
      'X-Request-Id': headerRef('XRequestId'),
      ...(status === 429 || status === 503 ? { 'Retry-After': headerRef('RetryAfter') } : {}),
    },
    content: {
      'application/json': {
        schema,
        examples: Object.fromEntries(
          codes.map((code) => [code, { summary: errorCatalog[code].message, value: errorExample(route, code) }]),
        ),
      },
    },
  };
}

/** An event Verity sends to the integrator's callback URL (OpenAPI 3.1 `webhooks`). */
export interface WebhookDoc {
  /** The event type, e.g. `verification.approved` (the key under `webhooks`). */
  type: string;
  summary: string;
  description: string;
  /** The signed JSON body, exactly as sent. */
  payload: z.ZodType;
  example: unknown;
  headers: HeaderDoc[];
  /** What the receiver's answers mean to the sender. */
  responses: Record<string, string>;
}

/** The document's guides: one section each, before the operations (Redoc's trait tags). */
export interface Guide {
  /** The tag name (`guide-quickstart`), the anchor `#tag/guide-quickstart`. */
  name: string;
  title: string;
  /** Markdown. */
  body: string;
}

function headerParameter(header: HeaderDoc, required = false): Record<string, unknown> {
  return {
    name: header.name,
    in: 'header',
    required,
    description: header.description,
    schema: jsonSchema(header.schema, 'input'),
  };
}

export class ApiDocs {
  private readonly routes: RouteDoc[] = [];
  private readonly events: WebhookDoc[] = [];
  private built?: { serverUrl: string; document: Record<string, unknown> };

  /** `guides` are read when the document is first built (docs/guides by default). */
  constructor(private readonly guides: () => Guide[] = () => []) {}

  add(...docs: RouteDoc[]): void {
    this.routes.push(...docs);
    this.built = undefined;
  }

  addWebhooks(...events: WebhookDoc[]): void {
    this.events.push(...events);
    this.built = undefined;
  }

  list(): readonly RouteDoc[] {
    return this.routes;
  }

  /** The document; built once per server URL (every route is added when the app is made). */
  document(serverUrl: string): Record<string, unknown> {
    if (this.built?.serverUrl !== serverUrl) this.built = { serverUrl, document: this.build(serverUrl) };
    return this.built.document;
  }

  private operation(route: RouteDoc): Record<string, unknown> {
    const success = route.response ? jsonSchema(route.response, 'output') : {};
    const successContent: Record<string, unknown> = { schema: route.bare ? success : envelopeOf(success) };
    if (route.examples && 'response' in route.examples)
      successContent.example = route.bare
        ? route.examples.response
        : { success: true, data: route.examples.response, error: null };
    const responses: Record<string, unknown> = route.browser
      ? browserResponses(route)
      : route.removed
        ? { ...removedResponses }
        : { [String(route.successStatus ?? 200)]: successResponse(route, successContent) };
    const byStatus = new Map<number, ErrorCode[]>();
    for (const code of errorsOf(route))
      byStatus.set(errorCatalog[code].status, [...(byStatus.get(errorCatalog[code].status) ?? []), code]);
    for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b))
      responses[String(status)] = errorResponse(route, status, codes);
    const operation: Record<string, unknown> = {
      operationId: route.operationId ?? operationIdOf(route),
      summary: route.summary,
      description: route.description,
      tags: [route.tag],
      security: route.security === 'none' ? [] : SECURITY[route.security],
    };
    if (route.removed) operation.deprecated = true;
    const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => {
      const known = PATH_PARAMETERS[name!];
      if (!known) throw new Error(`${route.path}: say what {${name}} is in PATH_PARAMETERS`);
      return {
        name,
        in: 'path',
        required: true,
        description: known.description,
        schema: { type: 'string', ...(known.enum ? { enum: known.enum } : {}) },
        example: known.example,
      };
    });
    const shape = route.query
      ? (jsonSchema(route.query, 'input') as {
          properties?: Record<string, { description?: string }>;
          required?: string[];
        })
      : {};
    const queryParams = Object.entries(shape.properties ?? {}).map(([name, schema]) => ({
      name,
      in: 'query',
      required: shape.required?.includes(name) ?? false,
      ...(schema.description ? { description: schema.description } : {}),
      schema,
    }));
    const parameters = [
      ...pathParams,
      ...queryParams,
      ...(route.headers ?? []).map((header) => headerParameter(header)),
    ];
    if (parameters.length) operation.parameters = parameters;
    if (route.body) {
      const schema = jsonSchema(route.body, 'input');
      const media = {
        schema,
        ...(route.examples && 'request' in route.examples ? { example: route.examples.request } : {}),
      };
      operation.requestBody = {
        required: true,
        content: Object.fromEntries((route.bodyTypes ?? ['application/json']).map((type) => [type, media])),
      };
    }
    operation.responses = responses;
    return operation;
  }

  private webhook(event: WebhookDoc): Record<string, unknown> {
    return {
      post: {
        operationId: `webhook${event.type.replace(/(^|[._])(\w)/g, (_all, _sep, letter: string) => letter.toUpperCase())}`,
        summary: event.summary,
        description: event.description,
        tags: ['webhooks'],
        security: [],
        parameters: event.headers.map((header) => headerParameter(header, header.name !== 'X-Svc-Signature-Previous')),
        requestBody: {
          required: true,
          content: { 'application/json': { schema: jsonSchema(event.payload, 'output'), example: event.example } },
        },
        responses: Object.fromEntries(
          Object.entries(event.responses).map(([status, description]) => [status, { description }]),
        ),
      },
    };
  }

  private build(serverUrl: string): Record<string, unknown> {
    const paths: Record<string, Record<string, unknown>> = {};
    const operationIds = new Set<string>();
    for (const route of this.routes) {
      const operation = this.operation(route);
      const operationId = operation.operationId as string;
      if (operationIds.has(operationId)) throw new Error(`two routes have the operationId ${operationId}`);
      operationIds.add(operationId);
      paths[route.path] ??= {};
      paths[route.path]![route.method] = operation;
    }
    const guides = this.guides();
    const tags = [
      ...guides.map((guide) => ({
        name: guide.name,
        'x-displayName': guide.title,
        description: guide.body,
        'x-traitTag': true,
      })),
      ...Object.entries(TAGS).map(([name, tag]) => ({
        name,
        'x-displayName': tag.name,
        description: tag.description,
        ...('trait' in tag ? { 'x-traitTag': true } : {}),
      })),
    ];
    // Redoc's sidebar: the guides, then each group of tags in the order TAGS lists them.
    const groups = new Map<string, string[]>();
    if (guides.length)
      groups.set(
        'Guides',
        guides.map((guide) => guide.name),
      );
    for (const [name, tag] of Object.entries(TAGS)) groups.set(tag.group, [...(groups.get(tag.group) ?? []), name]);
    return {
      openapi: '3.1.0',
      info: {
        title: 'Verity',
        version: '2.0.0',
        description: INTRODUCTION,
      },
      servers: [{ url: serverUrl }],
      tags,
      'x-tagGroups': [...groups].map(([name, members]) => ({ name, tags: members })),
      paths,
      webhooks: Object.fromEntries(this.events.map((event) => [event.type, this.webhook(event)])),
      components: {
        schemas: { Error: errorEnvelope, OAuthError: oauthError },
        headers: HEADERS,
        securitySchemes: {
          ApiKeyHeader: {
            type: 'apiKey',
            in: 'header',
            name: 'X-API-Key',
            description:
              "Your project's API key (`vk_live_...`, or `vk_test_...` for the sandbox). Server side only: never ship it to a browser or an app.",
          },
          ApiKeyBearer: {
            type: 'http',
            scheme: 'bearer',
            description: 'The same API key as `Authorization: Bearer <key>`',
          },
          ClientId: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Client-Id',
            description: "The organization app's client id (roster API)",
          },
          ClientSecret: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Client-Secret',
            description: "The organization app's client secret (roster API; server side only)",
          },
          AccessToken: {
            type: 'http',
            scheme: 'bearer',
            description: "A person's access token from the OIDC token endpoint (about 15 minutes)",
          },
        },
      },
    };
  }
}

/** The document's `info.description`: what Verity is, how to authenticate, and the conventions every route keeps. */
const INTRODUCTION = `Identity verification, OpenID Connect login and a workforce roster, over one REST API.

Start with the [Quickstart](#tag/guide-quickstart), then the hosted flow: create a session, send the person to its \`url\`, receive the signed webhook, read the decision.

## Conventions

- **Envelope.** Answers are \`{ "success": true, "data": ..., "error": null }\`, or \`{ "success": false, "data": null, "error": { "code", "message" } }\` with the HTTP status. Branch on \`error.code\` (see [Errors](#tag/guide-errors)); the OIDC token and userinfo endpoints answer top-level JSON as OAuth requires.
- **Request bodies** are JSON (\`Content-Type: application/json\`; 415 \`unsupported_media_type\` otherwise); the standalone checks also take multipart/form-data, and the OAuth endpoints form fields. A field a route does not declare is 400 \`validation_error\` naming it, with the field you probably meant.
- **Request ids.** Every answer carries \`X-Request-Id\`; quote it when you ask about a call.
- **Retries.** \`POST\`s that cost money take an \`Idempotency-Key\`; a 429 or 503 says how long to wait in \`Retry-After\`.
- **Test mode.** A \`vk_test_\` key runs the same API without charges, and \`Verity-Test-Outcome\` forces an outcome (see [Sandbox](#tag/guide-sandbox)).

## Authentication

<!-- ReDoc-Inject: <security-definitions> -->
`;
