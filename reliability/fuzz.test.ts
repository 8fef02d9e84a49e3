import { deflateSync } from 'node:zlib';
import fc from 'fast-check';
import type { OutgoingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminOperations } from '../src/core/admin.js';
import { markerFaceEngine } from '../test/helpers/face-engine.js';
import { contractViolation, type Shape } from './helpers/contract.js';
import {
  fuzzBody,
  fuzzString,
  fuzzValue,
  headerValue,
  imageBytes,
  imageSamples,
  imageValue,
  json,
  multipart,
  pngClaiming,
  type Body,
  type ImageSamples,
} from './helpers/fuzz-inputs.js';
import { startInProcess, type InProcessService } from './helpers/in-process.js';
import { OidcFlow } from './helpers/oidc-flow.js';
import { encodePathSegment, send, type RawRequest, type RawResponse } from './helpers/raw-http.js';

// Bad input on every route of every surface: the REST routes of the OpenAPI document, the hosted
// page API, the roster, OIDC, the pages, GraphQL and tRPC. fast-check builds malformed JSON, wrong
// types, huge and hostile strings, lying headers and broken images; every answer must keep its
// route's contract (reliability/helpers/contract.ts): no 5xx, the envelope with a catalog code,
// and nothing logged at error level. Bounded: FUZZ_SECONDS (default 130) shared by all routes, at
// most FUZZ_MAX_RUNS (default 1000) inputs per route.

const FUZZ_MS = Number(process.env.FUZZ_SECONDS ?? 130) * 1000;
const MAX_RUNS_PER_ROUTE = Number(process.env.FUZZ_MAX_RUNS ?? 1000);

type Auth = 'apiKey' | 'session' | 'orgClient' | 'accessToken' | 'admin' | 'client' | 'none';

interface Route {
  surface: string;
  method: string;
  /** Template with `{param}`s. */
  path: string;
  shape: Shape;
  auth: Auth;
  fields: string[];
  images: string[];
  imageLists: string[];
  query: string[];
}

let service: InProcessService;
let samples: ImageSamples;
let routes: Route[] = [];
let plausible: Record<string, unknown[]> = {};
let sessionTokens: string[] = [];
let graphFields: { query: { name: string; args: string[] }[]; mutation: { name: string; inputFields: string[] }[] };
let inputs = 0;
const perSurface = new Map<string, number>();
/** Answers by status class: how deep the inputs got (a 2xx went through every check). */
const byClass = new Map<string, number>();

async function call(request: RawRequest): Promise<RawResponse> {
  inputs += 1;
  const response = await send(service.url, request);
  const statusClass = `${String(response.status)[0]}xx`;
  byClass.set(statusClass, (byClass.get(statusClass) ?? 0) + 1);
  return response;
}

// ---- the route table ----

const route = (
  surface: string,
  method: string,
  path: string,
  shape: Shape,
  auth: Auth,
  fields: string[] = [],
  extra: Partial<Route> = {},
): Route => ({
  surface,
  method,
  path,
  shape,
  auth,
  fields,
  images: [],
  imageLists: [],
  query: [],
  ...extra,
});

/** Property names of a JSON schema (through allOf/anyOf/oneOf), and which are images or image lists. */
function bodyFields(schema: Record<string, any> | undefined): Pick<Route, 'fields' | 'images' | 'imageLists'> {
  const out = { fields: [] as string[], images: [] as string[], imageLists: [] as string[] };
  const visit = (node: Record<string, any> | undefined) => {
    if (!node) return;
    for (const [name, property] of Object.entries<Record<string, any>>(node.properties ?? {})) {
      out.fields.push(name);
      if (/base64/.test(property.description ?? '')) out.images.push(name);
      if (property.type === 'array' && /base64/.test(property.items?.description ?? '')) out.imageLists.push(name);
    }
    for (const key of ['allOf', 'anyOf', 'oneOf']) for (const member of node[key] ?? []) visit(member);
  };
  visit(schema);
  return out;
}

const PAGES = new Set(['/api/auth/oidc/authorize', '/api/auth/oidc/logout']);
/** The client-authenticated OAuth endpoints: RFC 6749 errors to form bodies, the envelope to JSON. */
const OAUTH = new Set(['/api/auth/oidc/token', '/api/auth/oidc/revoke', '/api/auth/oidc/introspect']);
/**
 * Endpoints that answer errors in RFC 6749's shape though a bearer token authenticates them (OpenID4VCI's credential
 * endpoint).
 */
const OAUTH_SHAPED = new Set([...OAUTH, '/api/auth/oidc/credential']);

function routesFromOpenApi(doc: { paths: Record<string, Record<string, any>> }): Route[] {
  const out: Route[] = [];
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(operations)) {
      const security = JSON.stringify(op.security ?? []);
      const auth: Auth = path.startsWith('/api/hosted')
        ? 'session'
        : OAUTH.has(path)
          ? 'client'
          : security.includes('ApiKey')
            ? 'apiKey'
            : security.includes('ClientId')
              ? 'orgClient'
              : security.includes('AccessToken')
                ? 'accessToken'
                : 'none';
      const success = op.responses?.['200'] ?? op.responses?.['201'];
      const enveloped = Boolean(success?.content?.['application/json']?.schema?.properties?.success);
      const shape: Shape = PAGES.has(path)
        ? 'page'
        : path === '/metrics'
          ? 'text'
          : OAUTH_SHAPED.has(path)
            ? 'oauth'
            : enveloped
              ? 'envelope'
              : 'bare';
      const surface = path.startsWith('/api/hosted')
        ? 'hosted page'
        : path.startsWith('/api/sdk')
          ? 'roster'
          : path.startsWith('/api/v2')
            ? 'REST'
            : path.startsWith('/api/auth') || path.includes('well-known')
              ? 'OIDC'
              : 'system';
      const body = bodyFields(op.requestBody?.content?.['application/json']?.schema);
      const query = (op.parameters ?? [])
        .filter((p: { in: string }) => p.in === 'query')
        .map((p: { name: string }) => p.name);
      out.push(route(surface, method.toUpperCase(), path, shape, auth, body.fields, { ...body, query }));
    }
  }
  return out;
}

/** Routes the OpenAPI document does not describe (or describes without a body): pages, GraphQL, tRPC. */
function otherRoutes(): Route[] {
  const token = [
    'grant_type',
    'code',
    'redirect_uri',
    'code_verifier',
    'client_id',
    'client_secret',
    'refresh_token',
    'scope',
  ];
  return [
    route('OIDC', 'POST', '/api/auth/oidc/token', 'oauth', 'client', token),
    route('OIDC', 'POST', '/api/auth/oidc/userinfo', 'bare', 'accessToken'),
    route('OIDC', 'GET', '/api/.well-known/openid-configuration', 'bare', 'none'),
    route('pages', 'POST', '/api/auth/oidc/login', 'page', 'none', ['interaction', 'email', 'password']),
    route('pages', 'GET', '/api/auth/oidc/signup', 'page', 'none', [], { query: ['interaction'] }),
    route('pages', 'POST', '/api/auth/oidc/signup', 'page', 'none', ['interaction', 'email', 'password', 'name']),
    route('pages', 'POST', '/api/auth/oidc/consent', 'page', 'none', ['interaction', 'decision']),
    route('pages', 'GET', '/api/auth/oidc/verify-email', 'page', 'none', [], { query: ['token'] }),
    route('pages', 'GET', '/api/auth/oidc/forgot-password', 'page', 'none'),
    route('pages', 'POST', '/api/auth/oidc/forgot-password', 'page', 'none', ['email']),
    route('pages', 'GET', '/api/auth/oidc/reset-password', 'page', 'none', [], { query: ['token'] }),
    route('pages', 'POST', '/api/auth/oidc/reset-password', 'page', 'none', ['token', 'password']),
    route('pages', 'GET', '/activate/{token}', 'page', 'none', [], { query: ['signup'] }),
    route('pages', 'POST', '/activate/{token}/signin', 'page', 'none', ['email', 'password']),
    route('pages', 'POST', '/activate/{token}/signup', 'page', 'none', ['email', 'password', 'name']),
    route('pages', 'POST', '/activate/{token}/selfie', 'page', 'none', ['selfie'], { images: ['selfie'] }),
    route('pages', 'GET', '/verify/{sessionId}', 'page', 'none'),
    route('pages', 'GET', '/', 'page', 'none'),
    route('pages', 'GET', '/admin', 'page', 'none'),
    route('GraphQL', 'POST', '/graphql', 'graphql', 'admin', ['query', 'variables', 'operationName']),
    route('GraphQL', 'GET', '/graphql', 'graphql', 'admin', [], { query: ['query', 'variables', 'operationName'] }),
    route('tRPC', 'GET', '/trpc/{procedure}', 'trpc', 'admin', [], { query: ['input', 'batch'] }),
    route('tRPC', 'POST', '/trpc/{procedure}', 'trpc', 'admin'),
    route('system', 'POST', '/api/auth/tpsso/{anything}', 'envelope', 'none', ['token']),
    route('system', 'GET', '/api/v2/{anything}', 'envelope', 'apiKey'),
    // An unknown top-level path. The prefix keeps it unknown whatever the fuzzer draws: an empty
    // `anything` under GET would be the home page, which is HTML by contract.
    route('system', 'PUT', '/unknown-{anything}', 'envelope', 'none'),
  ];
}

// ---- arbitraries for one request ----

/** A plausible value for a known field most of the time, so requests get past the first check. */
function valueFor(field: string, route: Route): fc.Arbitrary<unknown> {
  if (route.images.includes(field)) return imageValue(samples);
  if (route.imageLists.includes(field))
    return fc.oneof(fc.array(imageValue(samples), { maxLength: 10 }), fuzzValue(2_000));
  if (field === 'members') {
    const member = fc.record(
      {
        email: fc.oneof(fc.constantFrom(...(plausible.email as string[])), fuzzString(400)),
        first_name: fuzzValue(300),
        last_name: fuzzString(300),
        role: fc.oneof(fc.constantFrom('member', 'owner', 'admin', 'developer', 'root'), fuzzValue(50)),
      },
      { requiredKeys: ['email'] },
    );
    return fc.oneof(
      { weight: 4, arbitrary: fc.array(member, { maxLength: 6 }) },
      { weight: 1, arbitrary: fuzzValue() },
    );
  }
  const known = plausible[field];
  return known
    ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known) }, { weight: 2, arbitrary: fuzzValue() })
    : fuzzValue();
}

function fieldsOf(route: Route, names = route.fields): fc.Arbitrary<Record<string, unknown>> {
  const known = fc.record(Object.fromEntries(names.map((name) => [name, valueFor(name, route)])), { requiredKeys: [] });
  const extra = fc.dictionary(fuzzString(30), fuzzValue(1_000), { maxKeys: 2 });
  return fc.tuple(known, fc.option(extra, { freq: 4 })).map(([object, more]) => ({ ...(more ?? {}), ...object }));
}

function filesOf(route: Route): fc.Arbitrary<{ name: string; value: Buffer; filename?: string }[]> {
  const names = [...route.images, ...route.imageLists, ...route.imageLists.map((name) => `${name}[]`), 'unexpected'];
  const part = fc.record({
    name: fc.constantFrom(...names),
    value: imageBytes(samples),
    filename: fc.constantFrom('a.png', 'b.jpg', '', '../../x', 'ü 😀.png'),
  });
  return route.images.length || route.imageLists.length
    ? fc.array(part, { maxLength: 5 })
    : fc.constant<{ name: string; value: Buffer }[]>([]);
}

/** The credential headers of a route: usually valid, sometimes missing, wrong, doubled or huge. */
function authHeaders(auth: Auth): fc.Arbitrary<OutgoingHttpHeaders> {
  const { demo } = service;
  const valid: Record<Auth, fc.Arbitrary<OutgoingHttpHeaders>> = {
    apiKey: fc.constantFrom({ 'x-api-key': demo.api_key }, { authorization: `Bearer ${demo.api_key}` }),
    session: fc.oneof(
      fc.constantFrom(...sessionTokens).map((token) => ({ 'x-session-token': token })),
      fc.constantFrom(...sessionTokens).map((token) => ({ authorization: `Session ${token}` })),
    ),
    orgClient: fc.constant({ 'x-client-id': demo.org.client_id, 'x-client-secret': demo.org.client_secret }),
    accessToken: fc
      .constantFrom(...(plausible.svc_access_token as string[]))
      .map((token) => ({ authorization: `Bearer ${token}` })),
    admin: fc.constant({ authorization: `Bearer ${demo.admin_token}` }),
    client: fc.oneof(
      fc.constant({
        authorization: `Basic ${Buffer.from(`${encodeURIComponent(demo.oidc.client_id)}:${encodeURIComponent(demo.oidc.client_secret)}`).toString('base64')}`,
      }),
      fc
        .constantFrom(
          'Basic !!!',
          `Basic ${Buffer.from('no-colon').toString('base64')}`,
          `Basic ${Buffer.from('%zz:%E0%A4%A').toString('base64')}`,
          'Basic',
        )
        .map((authorization) => ({ authorization })),
      fc.constant({}),
    ),
    none: fc.constant({}),
  };
  const headerNames = ['x-api-key', 'authorization', 'x-session-token', 'x-client-id', 'x-client-secret'];
  const broken: fc.Arbitrary<OutgoingHttpHeaders> = fc.oneof(
    fc.constant({}),
    fc.tuple(fc.constantFrom(...headerNames), headerValue(8_000)).map(([name, value]) => ({ [name]: value })),
    fc
      .tuple(fc.constantFrom(...headerNames), headerValue(200), headerValue(200))
      .map(([name, a, b]) => ({ [name]: [a, b] })),
    valid[auth].map((headers) =>
      Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [String(value), String(value)]])),
    ),
    valid[auth].map((headers) =>
      Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, `${String(value)} `])),
    ),
  );
  return fc.oneof({ weight: 4, arbitrary: valid[auth] }, { weight: 1, arbitrary: broken });
}

/** Headers that should not matter: lying, huge, doubled, odd. */
const oddHeaders: fc.Arbitrary<OutgoingHttpHeaders> = fc
  .array(
    fc.tuple(
      fc.constantFrom(
        'idempotency-key',
        'x-request-id',
        'accept',
        'accept-encoding',
        'cookie',
        'origin',
        'x-forwarded-for',
        'range',
        'if-none-match',
        'accept-language',
        'x-http-method-override',
        'apollo-require-preflight',
        'x-unknown',
      ),
      headerValue(4_000),
    ),
    { maxLength: 3 },
  )
  .map((pairs) => Object.fromEntries(pairs));

/** A path parameter: a real id of this tenant or another, or anything at all, possibly badly encoded. */
function paramValue(name: string): fc.Arbitrary<string> {
  const real = plausible[`param:${name}`] as string[] | undefined;
  const anything = fuzzString(1_000).map(encodePathSegment);
  const broken = fc.constantFrom('%E0%A4%A', '%', '%zz', '%00', '%2F..%2F', '..', '.', '%C0%AE', '%FF%FE', '%ED%A0%80');
  return fc.oneof(
    { weight: real ? 4 : 0, arbitrary: fc.constantFrom(...(real ?? ['x'])).map(encodePathSegment) },
    { weight: 3, arbitrary: anything },
    { weight: 1, arbitrary: broken },
  );
}

function queryString(route: Route): fc.Arbitrary<string> {
  const keys = [...route.query, 'x'];
  const value = fc
    .oneof(
      ...keys
        .filter((key) => plausible[key])
        .map((key) =>
          fc
            .constantFrom(...(plausible[key] as unknown[]))
            .map((v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''))),
        ),
      fuzzString(500),
    )
    .map(encodePathSegment);
  const pair = fc.oneof(
    fc.tuple(fc.constantFrom(...keys), value).map(([key, v]) => `${key}=${v}`),
    fc.constantFrom('%E0%A4%A=1', 'a=%zz', '=', '&&', 'a[b]=c', 'a=1&a=2'),
  );
  return fc.array(pair, { maxLength: 6 }).map((pairs) => pairs.join('&'));
}

function bodyOf(route: Route): fc.Arbitrary<Body | undefined> {
  if (route.surface === 'GraphQL' && route.method === 'POST')
    return fc.oneof(
      { weight: 4, arbitrary: graphqlBody() },
      { weight: 1, arbitrary: fuzzBody(fieldsOf(route), fc.constant([])) },
    );
  if (route.surface === 'tRPC') return fuzzBody(trpcInput(), fc.constant([]));
  const body = fuzzBody(fieldsOf(route), filesOf(route));
  return route.method === 'GET' ? fc.option(body, { freq: 5, nil: undefined }) : body;
}

// ---- GraphQL and tRPC ----

function graphLiteral(field: string): fc.Arbitrary<string> {
  const known = plausible[field];
  return fc.oneof(
    { weight: known ? 3 : 0, arbitrary: fc.constantFrom(...(known ?? [''])).map((v) => JSON.stringify(v)) },
    { weight: 2, arbitrary: fuzzString(2_000).map((s) => JSON.stringify(s)) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '1',
        '-1',
        '2147483648',
        '1.5',
        'true',
        'null',
        'APPROVED',
        '[1, "a"]',
        '{ a: 1 }',
        '$v',
        '"""block"""',
      ),
    },
  );
}

function graphqlBody(): fc.Arbitrary<Body> {
  const query = fc.constantFrom(...graphFields.query).chain(({ name, args }) =>
    fc
      .array(fc.constantFrom(...args, 'bogus'), { maxLength: 4 })
      .chain((names) => fc.tuple(...[...new Set(names)].map((arg) => graphLiteral(arg).map((v) => `${arg}: ${v}`))))
      .map((pairs) => `{ ${name}${pairs.length ? `(${pairs.join(', ')})` : ''} { __typename } }`),
  );
  const mutation = fc.constantFrom(...graphFields.mutation).chain(({ name, inputFields }) =>
    fc
      .array(fc.constantFrom(...inputFields, 'bogus'), { maxLength: 5 })
      .chain((names) =>
        fc.tuple(...[...new Set(names)].map((field) => graphLiteral(field).map((v) => `${field}: ${v}`))),
      )
      .map((pairs) => `mutation { ${name}(input: { ${pairs.join(', ')} }) { __typename } }`),
  );
  const abusive = fc.oneof(
    fuzzString(20_000),
    fc.integer({ min: 1, max: 5_000 }).map((depth) => `{ ${'projects { '.repeat(depth)}id${' }'.repeat(depth)} }`),
    fc
      .integer({ min: 1, max: 3_000 })
      .map((n) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: projects { id }`).join(' ')} }`),
    fc.constant(
      '{ __schema { types { name fields { name args { name type { name ofType { name ofType { name } } } } } } } }',
    ),
    fc.constant('query Q($p: String!) { project(projectId: $p) { id } }'),
  );
  return fc
    .record(
      {
        query: fc.oneof(
          { weight: 3, arbitrary: query },
          { weight: 3, arbitrary: mutation },
          { weight: 2, arbitrary: abusive },
        ),
        variables: fc.option(fuzzValue(2_000)),
        operationName: fc.option(fuzzValue(100)),
      },
      { requiredKeys: ['query'] },
    )
    .map((object) => json(object));
}

function trpcInput(): fc.Arbitrary<Record<string, unknown>> {
  const fields = new Set<string>();
  for (const operation of Object.values(adminOperations)) {
    try {
      for (const name of Object.keys(
        (
          z.toJSONSchema(operation.input as z.ZodType, { io: 'input', unrepresentable: 'any' }) as {
            properties?: object;
          }
        ).properties ?? {},
      ))
        fields.add(name);
    } catch {
      /* schemas JSON Schema cannot express still get fuzzed with the names collected */
    }
  }
  return fieldsOf(route('tRPC', 'POST', '', 'trpc', 'admin'), [...fields]);
}

// ---- one request ----

interface Case {
  request: RawRequest;
  route: Route;
}

function caseOf(route: Route): fc.Arbitrary<Case> {
  const params = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const otherMethod = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE');
  return fc
    .record({
      method: fc.oneof({ weight: 9, arbitrary: fc.constant(route.method) }, { weight: 1, arbitrary: otherMethod }),
      params: fc.tuple(...params.map(paramValue)),
      query: fc.option(queryString(route), { freq: route.query.length ? 2 : 6 }),
      auth: authHeaders(route.auth),
      odd: fc.option(oddHeaders, { freq: 3 }),
      body: bodyOf(route),
    })
    .map(({ method, params: values, query, auth, odd, body }) => {
      let i = 0;
      const path = route.path.replace(/\{\w+\}/g, () => values[i++]!) + (query ? `?${query}` : '');
      const headers: OutgoingHttpHeaders = { ...(odd ?? {}), ...auth };
      if (body?.contentType) headers['content-type'] = body.contentType;
      if (body?.contentEncoding) headers['content-encoding'] = body.contentEncoding;
      return { route, request: { method, path, headers, body: body?.bytes } };
    });
}

function describeCase({ request }: Case, response: RawResponse): string {
  const body = request.body === undefined ? '' : Buffer.from(request.body).subarray(0, 300).toString('latin1');
  return `${request.method} ${request.path.slice(0, 300)}\nheaders: ${JSON.stringify(request.headers).slice(0, 500)}\nbody: ${JSON.stringify(body)}\n-> ${response.status} ${response.headers['content-type'] ?? ''} ${response.text.slice(0, 300)}`;
}

/** The size of the request line and headers, for telling Node's 431 apart from a route's answer. */
function headBytes(request: RawRequest): number {
  let size = request.method.length + request.path.length + 12;
  for (const [name, value] of Object.entries(request.headers ?? {}))
    for (const one of [value].flat()) size += name.length + String(one).length + 4;
  return size;
}

async function expectContract(item: Case): Promise<void> {
  const response = await call(item.request);
  const problem = contractViolation(item.route.shape, response, headBytes(item.request));
  if (problem) throw new Error(`${problem}\n${describeCase(item, response)}`);
}

/** The time left is shared by the routes not fuzzed yet: what a quick route leaves goes to the next. */
let deadline = 0;
let routesLeft = 0;

async function fuzzSurface(surface: string): Promise<void> {
  const selected = routes.filter((r) => r.surface === surface);
  expect(selected.length).toBeGreaterThan(0);
  if (!deadline) [deadline, routesLeft] = [Date.now() + FUZZ_MS, routes.length];
  const before = inputs;
  for (const r of selected) {
    const share = Math.max(200, (deadline - Date.now()) / routesLeft--);
    await fc.assert(fc.asyncProperty(caseOf(r), expectContract), {
      numRuns: MAX_RUNS_PER_ROUTE,
      interruptAfterTimeLimit: share,
      markInterruptAsFailure: false,
    });
  }
  perSurface.set(surface, inputs - before);
  expect((await call({ method: 'GET', path: '/healthz' })).status).toBe(200);
}

// ---- fixtures ----

let started = 0;

beforeAll(async () => {
  started = Date.now();
  service = await startInProcess(
    { rateLimitPerMinute: 1e9, hostedRateLimitPerMinute: 1e9 },
    { faceEngine: markerFaceEngine() },
  );
  const { core, demo } = service;
  await core.billing.topUp(demo.project_id, 1e6);
  samples = await imageSamples();
  const other = await core.tenancy.createProject({ name: 'Other', balance: 10 });
  const otherWorkflow = await core.tenancy.createWorkflow({
    projectId: other.project.id,
    name: 'other',
    features: ['location'],
  });
  const key = { 'x-api-key': demo.api_key, 'content-type': 'application/json' };
  const createSession = async (workflowId: string) =>
    JSON.parse(
      (
        await send(service.url, {
          method: 'POST',
          path: '/api/v2/session',
          headers: key,
          body: JSON.stringify({ workflow_id: workflowId }),
        })
      ).text,
    ).data as { session_id: string; session_token: string };
  const sessions = await Promise.all(
    Array.from({ length: 30 }, (_, i) => createSession(i % 2 ? demo.workflows.full : demo.workflows.location)),
  );
  sessionTokens = sessions.map((s) => s.session_token);
  const otherSession = (await core.sessions.create(other.project.id, 'system', { workflow_id: otherWorkflow.id }))
    .session.session_id;
  const { token: accessToken } = await core.accessTokens.issue(demo.account.svc_id, demo.oidc.client_id, [
    'openid',
    'profile',
    'verifications',
  ]);
  const { token: narrowToken } = await core.accessTokens.issue(demo.account.svc_id, demo.oidc.client_id, ['openid']);
  const refresh = (await new OidcFlow(service).tokens()).refresh_token;
  const added = JSON.parse(
    (
      await send(service.url, {
        method: 'POST',
        path: '/api/sdk/members',
        headers: {
          'x-client-id': demo.org.client_id,
          'x-client-secret': demo.org.client_secret,
          'content-type': 'application/json',
        },
        body: JSON.stringify({
          members: [1, 2, 3].map((i) => ({ email: `fuzz.member${i}@corp.example` })),
          notify: false,
          invite: 'face',
        }),
      })
    ).text,
  ).data.created as { member_id: string; email: string; activation_link: string }[];
  const challenges = await Promise.all(
    [1, 2, 3].map(async () => (await core.challenges.create(demo.project_id)).challenge_id),
  );

  plausible = {
    'param:id': [...sessions.map((s) => s.session_id), otherSession],
    'param:sessionId': [sessions[0]!.session_id, otherSession],
    'param:face_id': ['fid_nope', otherSession],
    'param:state': ['CA', 'ca', 'ZZ'],
    'param:step': ['document', 'selfie', 'location', 'licence', 'license'],
    'param:member_id': [
      ...added.map((m) => m.member_id),
      ...added.map((m) => m.email.toUpperCase()),
      demo.account.svc_id,
    ],
    'param:token': added.map((m) => new URL(m.activation_link).pathname.split('/').pop()!),
    'param:procedure': Object.keys(adminOperations),
    'param:anything': ['x', 'token', 'a/b'],
    workflow_id: [demo.workflows.full, demo.workflows.location, otherWorkflow.id, 'wf_nope'],
    redirect_url: ['https://app.example.com/done', 'javascript:alert(1)', 'http://[::1', 'https://a.example/\u0000'],
    callback: ['https://hooks.example.com/verity', 'http://127.0.0.1/x'],
    vendor_data: ['user-1', 'x'.repeat(1001)],
    ttl_seconds: [300, 299, 604_800, 604_801, 'soon', 1e20],
    metadata: [
      { expected_lat: 40.7, expected_lng: -74, radius_m: 500 },
      { min_age: 21 },
      { expected_lat: 95 },
      { ['k'.repeat(101)]: 1 },
    ],
    svc_access_token: [accessToken, narrowToken, 'nope'],
    svc_id: [demo.account.svc_id, 'svc_nope'],
    dob: [
      '1990-01-01',
      '1990/01/01',
      '19900101',
      '01/02/1990',
      '2990-01-01',
      '2001-02-29',
      '1990-01-01T23:59:59+14:00',
      '0000-00-00',
    ],
    bands: [[18, '21+', 'is_18_plus', 65], ['x'], [], [151], [-1], 'nope'],
    latitude: [0, 48.85, 91, -181, 'x', null],
    longitude: [0, 2.35, 181, 'x'],
    accuracy: [12, -1, 0, 1e9],
    expected_latitude: [48.8],
    expected_longitude: [2.29],
    radius_m: [5000, 0, -1],
    source: ['gps', 'permission_denied', 'network'],
    captured_at: ['2026-01-01T00:00:00Z', 'yesterday'],
    threshold: [0.5, 0.999, 0.2, 2],
    enroll: [true, false, 'true'],
    reference: ['user-1', 'r'.repeat(201)],
    challengeId: challenges,
    challenge_id: challenges,
    license_state: ['CA', 'TX', 'ZZ'],
    state: ['CA'],
    provider_code: ['RN', 'MD'],
    license_type: ['RN'],
    license_number: ['RN-0012345', ''],
    license_no: ['RN-0012345'],
    npi: ['1234567890', '12'],
    full_name: ['María José García-López'],
    first_name: ['Maria'],
    last_name: ['Garcia'],
    do_ai_clean: [true, 'yes'],
    status: ['APPROVED', 'DECLINED', 'IN_REVIEW', 'approved'],
    limit: [1, 100, 0, 101, '5'],
    cursor: ['garbage', 'MjAyNnx4'],
    notify: [true, false, 'false'],
    invite: ['auto', 'email', 'face', 'sms'],
    role: ['member', 'owner'],
    email: [demo.account.email, 'fuzz.member1@corp.example', 'new.person@corp.example', 'not-an-email', 'a@b'],
    password: [demo.account.password, 'short', 'x'.repeat(10_000)],
    name: ['Fuzz Person'],
    grant_type: ['authorization_code', 'refresh_token', 'password', 'client_credentials'],
    client_id: [demo.oidc.client_id, 'vc_nope'],
    client_secret: [demo.oidc.client_secret, 'nope'],
    code: ['vc_code_nope'],
    redirect_uri: demo.oidc.redirect_uris,
    code_verifier: ['v'.repeat(43), 'short'],
    refresh_token: [refresh, 'vr_nope'],
    scope: ['openid', 'openid profile', 'openid mcp', 'admin'],
    interaction: ['int_nope', ''],
    decision: ['allow', 'deny'],
    permanent: ['true', 'false', '1', 'maybe'],
    signup: ['1'],
    response_type: ['code', 'token'],
    nonce: ['n', 'n'.repeat(600)],
    code_challenge: ['x'.repeat(43)],
    code_challenge_method: ['S256', 'plain'],
    prompt: ['none', 'login', 'bogus'],
    max_age: ['60', '-1', 'x'],
    id_token_hint: ['eyJhbGciOiJub25lIn0.e30.', 'garbage'],
    post_logout_redirect_uri: demo.oidc.redirect_uris,
    projectId: [demo.project_id, other.project.id, 'prj_nope'],
    sessionId: [sessions[0]!.session_id, otherSession],
    eventId: ['evt_nope'],
    organizationId: [demo.org.id, 999_999, -1],
    svcId: [demo.account.svc_id],
    apiKeyId: ['key_nope'],
    first: [1, 100, 0, 1000],
    after: ['garbage'],
    input: ['{}', `{"projectId":"${demo.project_id}"}`, '{', '{"0":{}}'],
    batch: ['1', 'true'],
    query: ['{ projects { id } }', '{'],
    variables: ['{}', '{'],
  };

  const doc = JSON.parse((await send(service.url, { method: 'GET', path: '/api/v2/openapi.json' })).text);
  const introspection = JSON.parse(
    (
      await send(service.url, {
        method: 'POST',
        path: '/graphql',
        headers: { authorization: `Bearer ${demo.admin_token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          query:
            '{ __schema { queryType { fields { name args { name } } } mutationType { fields { name args { type { ofType { name } } } } } types { name inputFields { name } } } }',
        }),
      })
    ).text,
  ).data.__schema;
  const inputTypes = new Map<string, string[]>(
    introspection.types
      .filter((t: { inputFields: unknown }) => t.inputFields)
      .map((t: { name: string; inputFields: { name: string }[] }) => [t.name, t.inputFields.map((f) => f.name)]),
  );
  graphFields = {
    query: introspection.queryType.fields.map((f: { name: string; args: { name: string }[] }) => ({
      name: f.name,
      args: f.args.map((a) => a.name),
    })),
    mutation: introspection.mutationType.fields.map(
      (f: { name: string; args: { type: { ofType: { name: string } } }[] }) => ({
        name: f.name,
        inputFields: inputTypes.get(f.args[0]?.type.ofType?.name ?? '') ?? [],
      }),
    ),
  };
  // Where both describe a route, the hand-written entry (with the body's fields) wins.
  const table = new Map([...routesFromOpenApi(doc), ...otherRoutes()].map((r) => [`${r.method} ${r.path}`, r]));
  routes = [...table.values()];
}, 120_000);

afterAll(async () => {
  const surfaces = [...perSurface.entries()].map(([surface, count]) => `${surface} ${count}`).join(', ');
  const classes = [...byClass.entries()]
    .sort()
    .map(([statusClass, count]) => `${statusClass} ${count}`)
    .join(', ');
  console.info(
    `fuzz: ${inputs} inputs over ${routes.length} routes in ${Math.round((Date.now() - started) / 1000)} s (${surfaces}; answers ${classes})`,
  );
  await service?.close();
});

// ---- the tests ----

describe('the route table', () => {
  it('covers every path and method of the OpenAPI document, the hosted page, pages, GraphQL and tRPC', () => {
    const covered = new Set(routes.map((r) => `${r.method} ${r.path}`));
    expect(covered.size).toBeGreaterThan(60);
    for (const surface of ['REST', 'hosted page', 'roster', 'OIDC', 'pages', 'GraphQL', 'tRPC', 'system'])
      expect(
        routes.some((r) => r.surface === surface),
        surface,
      ).toBe(true);
    expect(routes.filter((r) => r.images.length || r.imageLists.length).map((r) => r.path)).toEqual(
      expect.arrayContaining([
        '/api/v2/id-verification',
        '/api/v2/face-match',
        '/api/v2/liveness',
        '/api/v2/antispoof',
        '/api/hosted/session/steps/{step}',
        '/activate/{token}/selfie',
      ]),
    );
  });
});

describe('regressions and transport edge cases', () => {
  const key = () => ({ 'x-api-key': service.demo.api_key });
  const cases: [string, () => RawRequest, number?, Shape?][] = [
    // Found by this fuzzer: router URIError and body-parser zlib errors were 500 internal_error.
    ['undecodable path parameter', () => ({ method: 'GET', path: '/api/v2/session/%E0%A4%A', headers: key() }), 400],
    [
      'undecodable roster member id',
      () => ({
        method: 'PATCH',
        path: '/api/sdk/members/%zz/deactivate',
        headers: { 'x-client-id': service.demo.org.client_id, 'x-client-secret': service.demo.org.client_secret },
      }),
      400,
    ],
    ['undecodable activation token', () => ({ method: 'GET', path: '/activate/%E0%A4%A' }), 400],
    [
      'gzip that is not gzip',
      () => ({
        method: 'POST',
        path: '/api/v2/session',
        headers: { ...key(), 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: 'notgzip',
      }),
      400,
    ],
    [
      'brotli that is not brotli, on a check',
      () => ({
        method: 'POST',
        path: '/api/v2/age-verification',
        headers: { ...key(), 'content-type': 'application/json', 'content-encoding': 'br' },
        body: 'xx',
      }),
      400,
    ],
    [
      'gzip garbage to GraphQL',
      () => ({
        method: 'POST',
        path: '/graphql',
        headers: {
          authorization: `Bearer ${service.demo.admin_token}`,
          'content-type': 'application/json',
          'content-encoding': 'gzip',
        },
        body: 'zz',
      }),
      400,
    ],
    [
      'gzip garbage to the token endpoint',
      () => ({
        method: 'POST',
        path: '/api/auth/oidc/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'gzip' },
        body: 'a=b',
      }),
      400,
      'oauth',
    ],
    // Found by this fuzzer: a NUL reached PostgreSQL (a protocol error: 500, or 503 once those meant "database down").
    ['a NUL in a session id', () => ({ method: 'GET', path: '/api/v2/session/%00', headers: key() }), 400],
    [
      'a NUL in vendor_data',
      () => ({
        method: 'POST',
        path: '/api/v2/session',
        headers: { ...key(), 'content-type': 'application/json' },
        body: JSON.stringify({ workflow_id: service.demo.workflows.location, vendor_data: 'a\u0000b' }),
      }),
      400,
    ],
    [
      'an escaped NUL in jsonb metadata',
      () => ({
        method: 'POST',
        path: '/api/v2/session',
        headers: { ...key(), 'content-type': 'application/json' },
        body: JSON.stringify({ workflow_id: service.demo.workflows.location, metadata: { note: '\u0000' } }),
      }),
      400,
    ],
    [
      'a NUL in the state of an authorization request',
      () => ({
        method: 'GET',
        // PKCE as every client must send it, so the request gets as far as the database
        path: `/api/auth/oidc/authorize?client_id=${service.demo.oidc.client_id}&redirect_uri=${encodeURIComponent(service.demo.oidc.redirect_uris[0]!)}&response_type=code&scope=openid&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256&state=%00`,
      }),
      400,
    ],
    [
      'a NUL in a roster member id',
      () => ({
        method: 'DELETE',
        path: '/api/sdk/members/a%00b',
        headers: { 'x-client-id': service.demo.org.client_id, 'x-client-secret': service.demo.org.client_secret },
      }),
      400,
    ],
    [
      'an escaped NUL in a token endpoint client_id',
      () => ({
        method: 'POST',
        path: '/api/auth/oidc/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'client_id=%7B%22%5Cu0000%22%7D&client_secret=x&grant_type=refresh_token',
      }),
      undefined,
      'oauth',
    ],
    [
      'a NUL in a GraphQL argument',
      () => ({
        method: 'POST',
        path: '/graphql',
        headers: { authorization: `Bearer ${service.demo.admin_token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          query: `{ session(projectId: "${service.demo.project_id}", sessionId: "a\\u0000b") { id } }`,
        }),
      }),
      200,
      'graphql',
    ],
    // Found by this fuzzer: a multipart field named `constructor` threw inside busboy's event handler: the process
    // died.
    [
      'a multipart field named constructor',
      () => ({
        method: 'POST',
        path: '/api/v2/location',
        headers: { ...key(), 'content-type': multipart([]).contentType! },
        body: multipart([
          { name: 'constructor', value: '1' },
          { name: '__proto__', value: '2' },
          { name: 'latitude', value: '1' },
        ]).bytes,
      }),
      400,
    ],
    // Found by this fuzzer: tRPC re-serializes the parsed body recursively (stack overflow, 500).
    [
      'a deeply nested body to tRPC',
      () => ({
        method: 'POST',
        path: '/trpc/projects',
        headers: { authorization: `Bearer ${service.demo.admin_token}`, 'content-type': 'application/json' },
        body: `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`,
      }),
      400,
    ],
    // Found by this fuzzer: the Idempotency-Key fingerprint recursed once per nesting level (stack overflow, 500).
    [
      'a deeply nested body with an Idempotency-Key',
      () => ({
        method: 'POST',
        path: '/api/v2/antispoof/identity',
        headers: { ...key(), 'idempotency-key': 'deep-1', 'content-type': 'application/json' },
        body: `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`,
      }),
      400,
    ],
    [
      'deflated JSON is read',
      () => ({
        method: 'POST',
        path: '/api/v2/age-verification',
        headers: { ...key(), 'content-type': 'application/json', 'content-encoding': 'deflate' },
        body: deflateSync('{"dob":"1990-01-01"}'),
      }),
      200,
    ],
    [
      'a JSON body over the 1 MB limit',
      () => ({
        method: 'POST',
        path: '/api/v2/session',
        headers: { ...key(), 'content-type': 'application/json' },
        body: JSON.stringify({ vendor_data: 'x'.repeat(1_100_000) }),
      }),
      413,
    ],
    [
      'a check body over 64 MB',
      () => ({
        method: 'POST',
        path: '/api/v2/liveness',
        headers: { ...key(), 'content-type': 'application/json' },
        body: Buffer.alloc(64 * 1024 * 1024 + 10, 0x41),
      }),
      413,
    ],
    [
      'a 21 MB image as base64',
      () => ({
        method: 'POST',
        path: '/api/v2/liveness',
        headers: { ...key(), 'content-type': 'application/json' },
        body: JSON.stringify({ image: Buffer.alloc(21 * 1024 * 1024, 1).toString('base64') }),
      }),
      413,
    ],
    [
      'a 21 MB image as a file',
      () => ({
        method: 'POST',
        path: '/api/v2/liveness',
        headers: { ...key(), 'content-type': multipart([]).contentType! },
        body: multipart([{ name: 'image', value: Buffer.alloc(21 * 1024 * 1024, 1), filename: 'big.png' }]).bytes,
      }),
      413,
    ],
    [
      'a PNG claiming 100000x100000',
      () => ({
        method: 'POST',
        path: '/api/v2/liveness',
        headers: { ...key(), 'content-type': 'application/json' },
        body: JSON.stringify({ image: pngClaiming(100_000, 100_000).toString('base64') }),
      }),
      422,
    ],
    [
      'the same bomb as a multipart file',
      () => ({
        method: 'POST',
        path: '/api/v2/face-match',
        headers: { ...key(), 'content-type': multipart([]).contentType! },
        body: multipart([
          { name: 'image1', value: pngClaiming(100_000, 100_000), filename: 'a.png' },
          { name: 'image2', value: pngClaiming(100_000, 100_000), filename: 'b.png' },
        ]).bytes,
      }),
      422,
    ],
    [
      'a data URL of a PDF',
      () => ({
        method: 'POST',
        path: '/api/v2/liveness',
        headers: { ...key(), 'content-type': 'application/json' },
        body: JSON.stringify({ image: `data:application/pdf;base64,${Buffer.from('%PDF-1.4').toString('base64')}` }),
      }),
      422,
    ],
    [
      'two different Authorization headers',
      () => ({
        method: 'GET',
        path: '/api/v2/session',
        headers: { authorization: [`Bearer ${service.demo.api_key}`, 'Bearer vk_live_other'] as unknown as string },
      }),
    ],
    [
      'two X-API-Key headers',
      () => ({
        method: 'GET',
        path: '/api/v2/session',
        headers: { 'x-api-key': [service.demo.api_key, service.demo.api_key] },
      }),
      401,
    ],
    ['OPTIONS on a check route', () => ({ method: 'OPTIONS', path: '/api/v2/liveness', headers: key() })],
    ['HEAD on the session list', () => ({ method: 'HEAD', path: '/api/v2/session', headers: key() })],
  ];

  it.each(cases)('%s', async (_name, build, status, shape = 'envelope') => {
    const request = build();
    const response = await call(request);
    expect(response.status).toBeLessThan(500);
    if (status !== undefined) expect(response.status, response.text.slice(0, 300)).toBe(status);
    if (!['OPTIONS', 'HEAD'].includes(request.method)) expect(contractViolation(shape, response)).toBeNull();
  });

  it('refuses headers over 16 KB at the transport (431) and keeps serving', async () => {
    const response = await call({
      method: 'GET',
      path: '/api/v2/session',
      headers: { 'x-api-key': 'k'.repeat(20_000) },
    });
    expect(response.status).toBe(431);
    expect((await call({ method: 'GET', path: '/healthz' })).status).toBe(200);
  });
});

describe('fuzzing every route (no 5xx, the contract shape, a catalog code)', () => {
  for (const surface of ['REST', 'hosted page', 'roster', 'OIDC', 'pages', 'GraphQL', 'tRPC', 'system']) {
    it(surface, () => fuzzSurface(surface));
  }

  it('logged nothing at error level: no unhandled error, no error after a response started', () => {
    expect(service.log.errors().map((entry) => `${String(entry.msg)}: ${JSON.stringify(entry.err)}`)).toEqual([]);
  });
});
