import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import { printSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphSchema } from '../src/graph/schema.js';
import type { AdminRouter } from '../src/graph/trpc.js';
import { startTestService, type TestService } from './helpers/service.js';

let service: TestService;
let server: Server;
let baseUrl: string;
let otherProjectId: string;
let otherWorkflowId: string;

beforeAll(async () => {
  service = await startTestService();
  const other = await service.core.tenancy.createProject({ name: 'Other' });
  otherProjectId = other.project.id;
  otherWorkflowId = (
    await service.core.tenancy.createWorkflow({ projectId: otherProjectId, name: 'age', features: ['age'] })
  ).id;
  server = await new Promise((resolve) => {
    const s = service.app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const address = server.address();
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await service?.close();
});

async function gql(token: string | undefined, query: string, variables: Record<string, unknown> = {}) {
  const request = service.http.post('/graphql').set('Content-Type', 'application/json');
  if (token) request.set('Authorization', `Bearer ${token}`);
  return request.send({ query, variables });
}

describe('GraphQL admin API', () => {
  it('requires an admin token (401, code unauthenticated)', async () => {
    const none = await gql(undefined, '{ projects { id } }');
    expect(none.status).toBe(401);
    expect(none.body.errors[0].extensions.code).toBe('unauthenticated');
    const wrong = await gql('vat_wrong', '{ projects { id } }');
    expect(wrong.status).toBe(401);
  });

  it('creates an API key that works on the REST API at once, and never lists secrets', async () => {
    const created = await gql(
      service.demo.admin_token,
      'mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { key apiKey { id prefix } } }',
      {
        input: { projectId: service.demo.project_id, name: 'from graphql' },
      },
    );
    expect(created.body.errors).toBeUndefined();
    const { key, apiKey } = created.body.data.createApiKey;
    expect(key.startsWith(apiKey.prefix)).toBe(true);
    expect((await service.http.get('/api/v2/unknown').set('X-API-Key', key)).status).toBe(404);

    const listed = await gql(
      service.demo.admin_token,
      'query($p: String!) { apiKeys(projectId: $p) { id name prefix revokedAt } }',
      { p: service.demo.project_id },
    );
    expect(JSON.stringify(listed.body)).not.toContain(key);

    const revoked = await gql(
      service.demo.admin_token,
      'mutation($input: RevokeApiKeyInput!) { revokeApiKey(input: $input) { revokedAt } }',
      {
        input: { projectId: service.demo.project_id, apiKeyId: apiKey.id },
      },
    );
    expect(revoked.body.data.revokeApiKey.revokedAt).toBeTruthy();
    expect((await service.http.get('/api/v2/unknown').set('X-API-Key', key)).status).toBe(401);
  });

  it('answers domain errors with their catalog code in extensions', async () => {
    const bad = await gql(
      service.demo.admin_token,
      'mutation($input: CreateWorkflowInput!) { createWorkflow(input: $input) { id } }',
      {
        input: { projectId: service.demo.project_id, name: 'x', features: ['telepathy'] },
      },
    );
    expect(bad.body.errors[0].extensions.code).toBe('validation_error');
    expect(bad.body.errors[0].extensions.data.errors['features[0]']).toBeTruthy();
    const callback = await gql(
      service.demo.admin_token,
      'mutation($input: CallbackUrlInput!) { approveCallback(input: $input) { id } }',
      {
        input: { projectId: service.demo.project_id, url: 'http://plain.example.com/hook' },
      },
    );
    expect(callback.body.errors[0].extensions.code).toBe('callback_not_allowed');
    const syntax = await gql(service.demo.admin_token, '{ projects { id ');
    expect(syntax.body.errors[0].extensions.code).toBe('validation_error');
  });

  it('keeps a viewer from changing anything', async () => {
    const viewer = await service.core.tenancy.createAdminToken({ role: 'viewer' });
    const read = await gql(viewer.token, '{ projects { id } }');
    expect(read.body.data.projects.length).toBeGreaterThanOrEqual(2);
    const write = await gql(viewer.token, 'mutation { createProject(input: { name: "nope" }) { project { id } } }');
    expect(write.body.errors[0].extensions.code).toBe('forbidden');
  });

  it("isolates a project-scoped token: another project's objects are not found", async () => {
    const scoped = await service.core.tenancy.createAdminToken({ role: 'admin', projectId: service.demo.project_id });
    const projects = await gql(scoped.token, '{ projects { id } }');
    expect(projects.body.data.projects).toEqual([{ id: service.demo.project_id }]);
    for (const query of [
      'query($p: String!) { project(projectId: $p) { id } }',
      'query($p: String!) { workflows(projectId: $p) { id } }',
      'query($p: String!) { apiKeys(projectId: $p) { id } }',
    ]) {
      const res = await gql(scoped.token, query, { p: otherProjectId });
      expect(res.body.errors[0].extensions.code, query).toBe('not_found');
      expect(JSON.stringify(res.body)).not.toContain(otherWorkflowId);
    }
    const create = await gql(
      scoped.token,
      'mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { key } }',
      { input: { projectId: otherProjectId } },
    );
    expect(create.body.errors[0].extensions.code).toBe('not_found');
    const own = await gql(scoped.token, 'query($p: String!) { workflows(projectId: $p) { id } }', {
      p: service.demo.project_id,
    });
    expect(own.body.data.workflows.length).toBeGreaterThanOrEqual(5);
  });

  it('matches the committed schema.graphql', async () => {
    const committed = readFileSync(new URL('../schema.graphql', import.meta.url), 'utf8');
    expect(committed, 'schema.graphql is stale: run npm run schema').toBe(`${printSchema(await graphSchema())}\n`);
  });
});

describe('tRPC admin API', () => {
  const client = (token?: string) =>
    createTRPCClient<AdminRouter>({
      links: [httpLink({ url: `${baseUrl}/trpc`, headers: token ? { authorization: `Bearer ${token}` } : {} })],
    });

  it('runs the same operations with the same input schemas, typed', async () => {
    const admin = client(service.demo.admin_token);
    const workflow = await admin.createWorkflow.mutate({
      projectId: service.demo.project_id,
      name: 'trpc',
      features: ['age', 'location'],
    });
    expect(workflow.features).toEqual(['age', 'location']);
    const listed = await admin.workflows.query({ projectId: service.demo.project_id });
    expect(listed.map((w) => w.id)).toContain(workflow.id);
  });

  it('rejects bad input, missing tokens and other projects with the catalog code', async () => {
    const error = await client(service.demo.admin_token)
      .createWorkflow.mutate({ projectId: service.demo.project_id, name: 'bad', features: ['telepathy' as 'age'] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCClientError);
    expect((error as TRPCClientError<AdminRouter>).data?.httpStatus).toBe(400);

    const anonymous = await client()
      .projects.query({})
      .catch((e: unknown) => e);
    expect((anonymous as TRPCClientError<AdminRouter>).data?.httpStatus).toBe(401);

    const scoped = await service.core.tenancy.createAdminToken({ role: 'admin', projectId: service.demo.project_id });
    const foreign = await client(scoped.token)
      .workflows.query({ projectId: otherProjectId })
      .catch((e: unknown) => e);
    expect((foreign as TRPCClientError<AdminRouter>).data?.httpStatus).toBe(404);
    expect((foreign as TRPCClientError<AdminRouter>).data?.domainCode).toBe('not_found');
  });

  it('refuses a lone UTF-16 surrogate in the input (valid JSON, not text) with 400 validation_error, as the REST routes do', async () => {
    const auth = { authorization: `Bearer ${service.demo.admin_token}` };
    // A body is refused by the service's JSON reader (the REST envelope); a query's input by the tRPC router.
    const posted = await fetch(`${baseUrl}/trpc/createWorkflow`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: `{"projectId":"${service.demo.project_id}","name":"x\\udc00","features":["age"]}`,
    });
    expect(posted.status).toBe(400);
    expect(((await posted.json()) as { error: { code: string } }).error.code).toBe('validation_error');
    const input = encodeURIComponent(`{"projectId":"${service.demo.project_id}\\ud800"}`);
    const queried = await fetch(`${baseUrl}/trpc/workflows?input=${input}`, { headers: auth });
    expect(queried.status).toBe(400);
    const body = (await queried.json()) as { error: { message: string; data: { domainCode: string } } };
    expect(body.error.data.domainCode).toBe('validation_error');
    expect(body.error.message).toContain('lone surrogate');
  });
});
