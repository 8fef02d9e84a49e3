import pino from 'pino';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { externalStore } from '../src/core/db/store.js';
import { buildService, type Service } from '../src/main.js';
import { sql, startTestService, type TestService } from './helpers/service.js';

// Two instances of the service on one PostgreSQL database, through HTTP. Each authenticates API
// keys from its own cache; a key revoked on one instance fails on the other on the very next
// request (LISTEN/NOTIFY), and an instance that may have missed an announcement trusts no cached
// key. Needs PostgreSQL (TEST_DATABASE_URL): the embedded store is one process and caches nothing.

let a: TestService;
let b: Service;
let httpB: ReturnType<typeof supertest>;

beforeAll(async () => {
  a = await startTestService();
  // The second instance: same database and encryption key, its own process state.
  b = await buildService({ ...a.config, seedDemo: false }, { store: { ...externalStore(a.store.url), close: async () => {} }, logger: pino({ level: 'silent' }) });
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

/** Revokes through instance A's admin API (GraphQL), as an operator would. */
async function revokeOnA(id: string) {
  const res = await a.http.post('/graphql').set('Authorization', `Bearer ${a.demo.admin_token}`)
    .send({ query: 'mutation($input: RevokeApiKeyInput!) { revokeApiKey(input: $input) { revokedAt } }', variables: { input: { projectId: a.demo.project_id, apiKeyId: id } } });
  expect(res.body.data.revokeApiKey.revokedAt).toBeTruthy();
}

/** Marks a key revoked in the table without announcing it (what no code path does): shows whether an instance asks the database. */
const revokeSilently = (id: string) => sql(a, 'update api_key set revoked_at = now() where id = ?', [id]);

/** Ends every LISTEN connection of the database, as a PostgreSQL restart or a cut network would. */
const dropListeners = () => sql(a, "select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = 'verity-notifications'");

const waitFor = async (condition: () => Promise<boolean>) => {
  for (let i = 0; i < 100 && !(await condition()); i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
};

describe.runIf(process.env.TEST_DATABASE_URL)('API keys on two instances', () => {
  it('are served from the cache: a key revoked behind the service\'s back (no announcement) still works until it expires there', async () => {
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
    expect((await onB(key)).status).toBe(401);
    // Reconnected (about a second): revocations are heard again.
    await waitFor(async () => (await sql(a, "select 1 from pg_stat_activity where datname = current_database() and application_name = 'verity-notifications'")).length === 2);
    const next = await newKey();
    expect((await onB(next.key)).status).toBe(404);
    await revokeOnA(next.id);
    expect((await onB(next.key)).status).toBe(401);
  });
});
