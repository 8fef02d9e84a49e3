import { lookup } from 'node:dns/promises';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../src/core/net/destinations.js';
import { loggerIntoMemory } from './helpers/logs.js';
import { sql, startTestService, type TestService } from './helpers/service.js';

// Webhook destinations on a service that refuses private addresses (no
// VERITY_ALLOW_INSECURE_CALLBACKS), through GraphQL and HTTP: IPv6 spellings of loopback are
// refused at approval like 127.0.0.1, and a delivery to a name that resolves to a private address
// is refused with an attempt that does not tell the tenant what the name resolved to.

const { logger, lines: logLines } = loggerIntoMemory();

let service: TestService;
let adminToken: string;

const gql = async (query: string, variables: Record<string, unknown> = {}) =>
  (await service.http.post('/graphql').set('Authorization', `Bearer ${adminToken}`).send({ query, variables })).body;
const APPROVE = 'mutation($i: CallbackUrlInput!) { approveCallback(input: $i) { url mode active } }';

/** This machine's name, which resolves to an address of its own (127.0.0.1 or 127.0.1.1 on most Linux hosts). */
const internalName = os.hostname();
const internalAddress = (await lookup(internalName).catch(() => ({ address: '' }))).address;

beforeAll(async () => {
  service = await startTestService({ runJobs: true, allowInsecureCallbacks: false }, { logger });
  adminToken = service.demo.admin_token;
}, 120_000);

afterAll(async () => {
  await service?.close();
});

describe('approving a destination', () => {
  it('refuses IPv6 spellings of private IPv4 addresses as it refuses the addresses themselves, for either mode', async () => {
    for (const host of [
      '127.0.0.1',
      '[::127.0.0.1]',
      '[2002:7f00:1::]',
      '[::ffff:127.0.0.1]',
      '[::ffff:0:a00:1]',
      '[2002:a9fe:a9fe::1]',
      '[64:ff9b::a00:1]',
    ]) {
      for (const mode of ['live', 'test']) {
        const answer = await gql(APPROVE, {
          i: { projectId: service.demo.project_id, url: `https://${host}/hook`, mode },
        });
        expect(answer.errors?.[0]?.extensions?.code, `${host} ${mode}`).toBe('callback_not_allowed');
      }
    }
    const rows = await sql(service, 'select url from callback_destination where project_id = ?', [
      service.demo.project_id,
    ]);
    expect(rows).toEqual([]);
    // A public IPv6 address (and the 6to4 form of a public IPv4 one) is approved.
    for (const host of ['[2606:4700:4700::1111]', '[2002:808:808::1]']) {
      expect(
        (await gql(APPROVE, { i: { projectId: service.demo.project_id, url: `https://${host}/hook` } })).data
          .approveCallback,
        host,
      ).toMatchObject({ active: true, mode: 'live' });
    }
  });
});

describe('delivering to a name that resolves to a private address', () => {
  it.skipIf(!isPrivateAddress(internalAddress))(
    'is refused, and the attempt, the ops views and the log say "refused: private address" without the address',
    async () => {
      const callback = `https://${internalName}:9/hook`;
      expect(
        (await gql(APPROVE, { i: { projectId: service.demo.project_id, url: callback } })).data.approveCallback.active,
      ).toBe(true);
      const workflowId = (
        await service.core.tenancy.createWorkflow({
          projectId: service.demo.project_id,
          name: 'loc',
          features: ['location'],
        })
      ).id;
      const created = await service.http
        .post('/api/v2/session')
        .set('X-API-Key', service.demo.api_key)
        .send({ workflow_id: workflowId, callback });
      expect(created.status).toBe(201);
      await service.http
        .post('/api/hosted/session/steps/location')
        .set('X-Session-Token', created.body.data.session_token)
        .send({ latitude: 1, longitude: 2, accuracy: 5 });
      const sessionId = created.body.data.session_id as string;
      let eventId = '';
      for (let i = 0; i < 200 && !eventId; i++) {
        const [row] = await sql<{ id: string }>(
          service,
          'select e.id from webhook_event e join webhook_attempt a on a.event_id = e.id where e.session_id = ?',
          [sessionId],
        );
        eventId = row?.id ?? '';
        if (!eventId) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(eventId).not.toBe('');

      const attempts = await gql(
        'query($p: String!, $e: String!) { webhookAttempts(projectId: $p, eventId: $e) { httpStatus error } }',
        { p: service.demo.project_id, e: eventId },
      );
      expect(attempts.data.webhookAttempts[0]).toEqual({ httpStatus: null, error: 'refused: private address' });
      const health = await gql('query($p: String!) { webhookHealth(projectId: $p) { destination lastError } }', {
        p: service.demo.project_id,
      });
      expect(
        health.data.webhookHealth.find((d: { destination: string }) => d.destination.startsWith(internalName))
          ?.lastError,
      ).toBe('refused: private address');
      const warnings = logLines.filter((line) => line.msg === 'webhook attempt failed' && line.event_id === eventId);
      expect(warnings[0]).toMatchObject({ error: 'refused: private address', http_status: null });
      for (const said of [JSON.stringify(attempts), JSON.stringify(health), JSON.stringify(warnings)]) {
        expect(said).not.toContain(internalAddress);
        expect(said).not.toContain('resolves');
      }
    },
  );
});
