import pino from 'pino';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { externalStore } from '../src/core/db/store.js';
import { buildService, type Service } from '../src/main.js';
import { sql, startTestService, type TestService } from './helpers/service.js';

// Two instances of the service on one PostgreSQL database, through HTTP. Each authenticates API
// keys and OIDC clients from its own cache; a key revoked (a client deactivated, its secret
// rotated) on one instance fails on the other on the very next request (LISTEN/NOTIFY), and an
// instance that may have missed an announcement trusts nothing cached. Needs PostgreSQL
// (TEST_DATABASE_URL): the embedded store is one process (test/embedded-caches.test.ts). Webhook signing
// secrets ride the same mechanism.

let a: TestService;
let b: Service;
let httpB: ReturnType<typeof supertest>;

beforeAll(async () => {
  a = await startTestService();
  // The second instance: same database and encryption key, its own process state.
  b = await buildService(
    { ...a.config, seedDemo: false },
    { store: { ...externalStore(a.store.url), close: async () => {} }, logger: pino({ level: 'silent' }) },
  );
  httpB = supertest(b.app);
}, 120_000);
afterAll(async () => {
  await b?.close();
  await a?.close();
});

const onA = (key: string) => a.http.get('/api/v2/nothing').set('X-API-Key', key);
const onB = (key: string) => httpB.get('/api/v2/nothing').set('X-API-Key', key);

async function newKey(): Promise<{ key: string; id: string }> {
  const created = await a.core.tenancy.createApiKey({ projectId: a.demo.project_id, name: 'cached' });
  return { key: created.key, id: created.apiKey.id };
}

/** A mutation through instance A's admin API (GraphQL), as an operator would send it. */
async function adminOnA(query: string, input: Record<string, unknown>) {
  const res = await a.http
    .post('/graphql')
    .set('Authorization', `Bearer ${a.demo.admin_token}`)
    .send({ query, variables: { input: { projectId: a.demo.project_id, ...input } } });
  expect(res.body.errors).toBeUndefined();
  return res.body.data;
}

const revokeOnA = (id: string) =>
  adminOnA('mutation($input: RevokeApiKeyInput!) { revokeApiKey(input: $input) { revokedAt } }', { apiKeyId: id });

/**
 * Marks a key revoked in the table without announcing it (what no code path does): shows whether an instance asks the
 * database.
 */
const revokeSilently = (id: string) => sql(a, 'update api_key set revoked_at = now() where id = ?', [id]);

/** Ends every LISTEN connection of the database, as a PostgreSQL restart or a cut network would. */
const dropListeners = () =>
  sql(
    a,
    "select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = 'verity-notifications'",
  );

const waitFor = async (condition: () => Promise<boolean>) => {
  for (let i = 0; i < 100 && !(await condition()); i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
};

describe.runIf(process.env.TEST_DATABASE_URL)('API keys on two instances', () => {
  it("are served from the cache: a key revoked behind the service's back (no announcement) still works until it expires there", async () => {
    const { key, id } = await newKey();
    expect((await onB(key)).status).toBe(404);
    await revokeSilently(id);
    expect((await onB(key)).status).toBe(404);
    // An instance that never saw the key reads the database.
    expect((await onA(key)).status).toBe(401);
  });

  it('revoked on one instance, fail on the other on the next request', async () => {
    for (let round = 0; round < 10; round += 1) {
      const { key, id } = await newKey();
      expect((await onA(key)).status).toBe(404);
      expect((await onB(key)).status).toBe(404);
      await revokeOnA(id);
      expect((await onB(key)).status).toBe(401);
      expect((await onA(key)).status).toBe(401);
    }
  });

  it('are read from the database again after the notification connection dropped, and cached again once it is back', async () => {
    const { key, id } = await newKey();
    expect((await onB(key)).status).toBe(404);
    await dropListeners();
    await revokeSilently(id);
    // B hears of the drop when its socket closes, a moment after the backend ends (CI once asked
    // first and got the cached answer); well within the cache's 30 s, it reads the database.
    await waitFor(async () => (await onB(key)).status === 401);
    expect((await onB(key)).status).toBe(401);
    // Reconnected (about a second): revocations are heard again.
    await waitFor(
      async () =>
        (
          await sql(
            a,
            "select 1 from pg_stat_activity where datname = current_database() and application_name = 'verity-notifications'",
          )
        ).length === 2,
    );
    const next = await newKey();
    expect((await onB(next.key)).status).toBe(404);
    await revokeOnA(next.id);
    expect((await onB(next.key)).status).toBe(401);
  });

  it('OIDC clients: deactivated or given a new secret on one instance, refused on the other on the next request', async () => {
    const created = await a.core.tenancy.createOidcClient({
      projectId: a.demo.project_id,
      name: 'Cached RP',
      redirectUris: ['https://rp.example/cb'],
    });
    const tokenOnB = (secret: string) =>
      httpB.post('/api/auth/oidc/token').type('form').send({
        grant_type: 'refresh_token',
        refresh_token: 'vr_unknown',
        client_id: created.client.clientId,
        client_secret: secret,
      });
    // Authenticated (the refresh token is what is wrong), and now cached on B.
    expect((await tokenOnB(created.clientSecret)).body.error).toBe('invalid_grant');
    expect((await tokenOnB(created.clientSecret)).body.error).toBe('invalid_grant');
    await adminOnA('mutation($input: OidcClientActiveInput!) { setOidcClientActive(input: $input) { clientId } }', {
      clientId: created.client.clientId,
      active: false,
    });
    expect((await tokenOnB(created.clientSecret)).body.error).toBe('invalid_client');
    await adminOnA('mutation($input: OidcClientActiveInput!) { setOidcClientActive(input: $input) { clientId } }', {
      clientId: created.client.clientId,
      active: true,
    });
    expect((await tokenOnB(created.clientSecret)).body.error).toBe('invalid_grant');
    const rotated = await adminOnA(
      'mutation($input: OidcClientRefInput!) { rotateOidcClientSecret(input: $input) { clientSecret } }',
      { clientId: created.client.clientId },
    );
    expect((await tokenOnB(created.clientSecret)).body.error).toBe('invalid_client');
    expect((await tokenOnB(rotated.rotateOidcClientSecret.clientSecret)).body.error).toBe('invalid_grant');
  });

  it('webhook signing secrets: rotated on one instance, the other signs with the new one (and the old one beside it) at once', async () => {
    const before = await b.core.tenancy.webhookSigningSecrets(a.demo.project_id, 'live');
    expect(before).toEqual({ current: a.demo.webhook_signing_secret, previous: null });
    const { rotateWebhookSecret } = await adminOnA(
      'mutation($input: RotateWebhookSecretInput!) { rotateWebhookSecret(input: $input) { webhookSigningSecret } }',
      {},
    );
    expect(await b.core.tenancy.webhookSigningSecrets(a.demo.project_id, 'live')).toEqual({
      current: rotateWebhookSecret.webhookSigningSecret,
      previous: a.demo.webhook_signing_secret,
    });
  });

  it("the hosted page's branding: changed on one instance, shown by the other on its next page call", async () => {
    const created = await a.http
      .post('/api/v2/session')
      .set('X-API-Key', a.demo.api_key)
      .send({ workflow_id: a.demo.workflows.location });
    const page = () => httpB.get('/api/hosted/session').set('X-Session-Token', created.body.data.session_token);
    const before = (await page()).body.data.privacy_policy_url;
    await adminOnA(
      'mutation($input: ProjectBrandingInput!) { setProjectBranding(input: $input) { privacyPolicyUrl } }',
      { privacyPolicyUrl: 'https://acme.example/privacy-v2' },
    );
    expect(before).not.toBe('https://acme.example/privacy-v2');
    expect((await page()).body.data.privacy_policy_url).toBe('https://acme.example/privacy-v2');
  });

  it('approved callbacks: disabled on one instance, refused for a new session on the other on the next request', async () => {
    const url = 'https://hooks.cached.example/verity';
    await adminOnA('mutation($input: CallbackUrlInput!) { approveCallback(input: $input) { url } }', { url });
    const createOnB = () =>
      httpB
        .post('/api/v2/session')
        .set('X-API-Key', a.demo.api_key)
        .send({ workflow_id: a.demo.workflows.location, callback: url });
    expect((await createOnB()).status).toBe(201);
    expect((await createOnB()).status).toBe(201); // now cached on B
    await adminOnA('mutation($input: SetCallbackActiveInput!) { setCallbackActive(input: $input) { active } }', {
      url,
      active: false,
    });
    const refused = await createOnB();
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('callback_not_allowed');
    await adminOnA('mutation($input: SetCallbackActiveInput!) { setCallbackActive(input: $input) { active } }', {
      url,
      active: true,
    });
    expect((await createOnB()).status).toBe(201);
  });

  it("a project's evidence retention and default callback: changed on one instance, read by the other's next decision", async () => {
    expect((await b.core.tenancy.projectSettingsOf(a.demo.project_id)).evidenceRetentionDays).toBe(30); // cached on B
    await adminOnA(
      'mutation($input: EvidenceRetentionInput!) { setEvidenceRetention(input: $input) { evidenceRetentionDays } }',
      { days: 0 },
    );
    await adminOnA(
      'mutation($input: DefaultCallbackInput!) { setDefaultCallback(input: $input) { defaultCallbackUrl } }',
      { url: 'https://hooks.cached.example/default' },
    );
    await adminOnA(
      'mutation($input: DefaultCallbackInput!) { setDefaultCallback(input: $input) { testDefaultCallbackUrl } }',
      { url: 'https://hooks.cached.example/test', mode: 'test' },
    );
    expect(await b.core.tenancy.projectSettingsOf(a.demo.project_id)).toEqual({
      evidenceRetentionDays: 0,
      defaultCallbackUrl: 'https://hooks.cached.example/default',
      testDefaultCallbackUrl: 'https://hooks.cached.example/test',
    });
    await adminOnA(
      'mutation($input: EvidenceRetentionInput!) { setEvidenceRetention(input: $input) { evidenceRetentionDays } }',
      { days: 30 },
    );
    await adminOnA(
      'mutation($input: DefaultCallbackInput!) { setDefaultCallback(input: $input) { defaultCallbackUrl } }',
      { url: null },
    );
    await adminOnA(
      'mutation($input: DefaultCallbackInput!) { setDefaultCallback(input: $input) { testDefaultCallbackUrl } }',
      { url: null, mode: 'test' },
    );
    expect(await b.core.tenancy.projectSettingsOf(a.demo.project_id)).toEqual({
      evidenceRetentionDays: 30,
      defaultCallbackUrl: null,
      testDefaultCallbackUrl: null,
    });
  });
});
