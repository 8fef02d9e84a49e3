import http from 'node:http';
import type { AddressInfo } from 'node:net';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../packages/sdk/src/index.js';
import { closeServer } from '../test/helpers/processes.js';
import { sql, startTestService, type TestService } from '../test/helpers/service.js';

// The sandbox is a separate world for webhooks: whoever holds a test key (`vk_test_...`, the kind
// that ends up in CI logs and laptops) can force any outcome with `Verity-Test-Outcome`, so
// nothing a test key does may reach the receivers of production, or be signed with the secret
// they trust. The attack: force `verification.approved` for a real user's `vendor_data` with a
// test key, and wait for it at the production receiver.

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

let service: TestService;
let api: ReturnType<typeof supertest>;
let receiver: http.Server;
let base = '';
const received: Received[] = [];
let tenant: {
  projectId: string;
  liveKey: string;
  testKey: string;
  workflowId: string;
  liveSecret: string;
  testSecret: string;
};

const graphql = async (query: string, variables: Record<string, unknown>) => {
  const answer = await api
    .post('/graphql')
    .set('Authorization', `Bearer ${service.demo.admin_token}`)
    .send({ query, variables });
  expect(answer.body.errors, JSON.stringify(answer.body.errors)).toBeUndefined();
  return answer.body.data;
};
const forceApproval = (callback?: string) =>
  api
    .post('/api/v2/session')
    .set('X-API-Key', tenant.testKey)
    .set('Verity-Test-Outcome', 'approve')
    .send({ workflow_id: tenant.workflowId, vendor_data: 'user-42', ...(callback ? { callback } : {}) });
const arrivalsAt = (path: string) => received.filter((delivery) => delivery.path === path);

beforeAll(async () => {
  service = await startTestService({ runJobs: true, allowInsecureCallbacks: true });
  api = supertest(service.app);
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const made = await service.core.tenancy.createProject({ name: 'Production shop', balance: 100 });
  tenant = {
    projectId: made.project.id,
    liveKey: made.key,
    testKey: (await service.core.tenancy.createApiKey({ projectId: made.project.id, mode: 'test' })).key,
    workflowId: (
      await service.core.tenancy.createWorkflow({ projectId: made.project.id, name: 'loc', features: ['location'] })
    ).id,
    liveSecret: made.webhookSigningSecret,
    testSecret: made.testWebhookSigningSecret,
  };
  // Production: the app-level callback and a per-session destination, both live.
  await graphql('mutation($i: DefaultCallbackInput!) { setDefaultCallback(input: $i) { defaultCallbackUrl } }', {
    i: { projectId: tenant.projectId, url: `${base}/production` },
  });
  await graphql('mutation($i: CallbackUrlInput!) { approveCallback(input: $i) { url } }', {
    i: { projectId: tenant.projectId, url: `${base}/production/session` },
  });
}, 120_000);

afterAll(async () => {
  await closeServer(receiver);
  await service?.close();
});

describe('a test key forcing approvals', () => {
  it('never reaches the production receiver, by default or by naming its callback', async () => {
    const byDefault = await forceApproval();
    expect(byDefault.status).toBe(201);
    expect(byDefault.body.data.status).toBe('APPROVED');
    const named = await forceApproval(`${base}/production/session`);
    expect(named.status).toBe(422);
    expect(named.body.error.code).toBe('callback_not_allowed');
    // A live session after it is delivered at once: the forced one had the same chance, and was kept.
    const live = await api
      .post('/api/v2/session')
      .set('X-API-Key', tenant.liveKey)
      .send({ workflow_id: tenant.workflowId });
    await api
      .post('/api/hosted/session/steps/location')
      .set('X-Session-Token', live.body.data.session_token)
      .send({ latitude: 1, longitude: 2, accuracy: 5 });
    for (let i = 0; i < 200 && arrivalsAt('/production').length === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(arrivalsAt('/production').map((delivery) => JSON.parse(delivery.body.toString()).session_id)).toEqual([
      live.body.data.session_id,
    ]);
    const [forced] = await sql<{ state: string; livemode: boolean; url: string | null }>(
      service,
      'select state, livemode, url from webhook_event where session_id = ?',
      [byDefault.body.data.session_id],
    );
    expect(forced).toEqual({ state: 'no_destination', livemode: false, url: null });
  });

  it("with a test destination configured, what it is sent fails a production receiver's verification and says livemode: false", async () => {
    await graphql('mutation($i: DefaultCallbackInput!) { setDefaultCallback(input: $i) { testDefaultCallbackUrl } }', {
      i: { projectId: tenant.projectId, url: `${base}/sandbox`, mode: 'test' },
    });
    const forced = await forceApproval();
    for (let i = 0; i < 200 && arrivalsAt('/sandbox').length === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    const [delivery] = arrivalsAt('/sandbox');
    expect(delivery).toBeDefined();
    expect(verifyWebhook({ rawBody: delivery!.body, headers: delivery!.headers, secret: tenant.liveSecret })).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    expect(
      verifyWebhook({ rawBody: delivery!.body, headers: delivery!.headers, secret: tenant.testSecret }),
    ).toMatchObject({
      ok: true,
      livemode: false,
      event: { session_id: forced.body.data.session_id, status: 'APPROVED', vendor_data: 'user-42' },
    });
    expect(arrivalsAt('/production')).toHaveLength(1); // still only the live session's event
  });
});
