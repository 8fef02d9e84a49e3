// The embedded store with a data dir (what `npm start` runs) is one instance by construction: it
// keeps API keys (and the other shared caches) in memory instead of asking PGlite on every
// request. The one other writer is an outside session through the password gate (`verity
// admin`, psql, with the published postgres.url): while one is connected the caches read the
// database, and when it closes they forget what they held. Through HTTP, on the real gate. With
// the caches, a session costs only its own statements: counted here on the client's wire.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { postgresUrlFile } from '../src/core/db/store.js';
import { Sealer } from '../src/core/secrets.js';
import { buildService, type Service } from '../src/main.js';

let service: Service;
let dataDir: string;
let http: ReturnType<typeof supertest>;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'verity-embedded-caches-'));
  const config = loadConfig(
    {},
    {
      dataDir,
      encryptionKey: Sealer.generateKey(),
      logLevel: 'silent',
      warmModels: false,
      seedLicenses: false,
      runJobs: false,
    },
  );
  service = await buildService(config, { logger: pino({ level: 'silent' }) });
  expect(service.store.embedded).toBe(true);
  http = supertest(service.app);
}, 120_000);
afterAll(async () => {
  await service?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const call = (key: string) => http.get('/api/v2/nothing').set('X-API-Key', key);

async function newKey(): Promise<{ key: string; id: string }> {
  const created = await service.core.tenancy.createApiKey({ projectId: service.demo!.project_id, name: 'cached' });
  return { key: created.key, id: created.apiKey.id };
}

/** An outside session as `verity admin` opens it: the URL published in the data dir. */
async function outsideSession(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: (await readFile(postgresUrlFile(dataDir), 'utf8')).trim() });
  await client.connect();
  return client;
}

/**
 * Marks a key revoked without announcing it (what no code path of the service does): shows whether the service asks the
 * database.
 */
const revokeOnOwnConnection = (id: string) =>
  service.core.orm.em.getConnection().execute('update api_key set revoked_at = now() where id = ?', [id]);

describe('the embedded store with a data dir', () => {
  it('answers a known key from memory: a revocation the service was not told of is not read back', async () => {
    const { key, id } = await newKey();
    expect((await call(key)).status).toBe(404);
    await revokeOnOwnConnection(id);
    expect((await call(key)).status).toBe(404);
  });

  it('revoked through the service, fails on the next request', async () => {
    const { key, id } = await newKey();
    expect((await call(key)).status).toBe(404);
    await service.core.tenancy.revokeApiKey({ projectId: service.demo!.project_id, apiKeyId: id });
    expect((await call(key)).status).toBe(401);
  });

  it('reads the database while an outside session is connected, and caches again once it has closed', async () => {
    const { key, id } = await newKey();
    expect((await call(key)).status).toBe(404); // cached
    const admin = await outsideSession();
    try {
      // What the outside session changes is seen at once: what was cached before it opened is gone.
      await admin.query('update api_key set revoked_at = now() where id = $1', [id]);
      expect((await call(key)).status).toBe(401);
    } finally {
      await admin.end();
    }
    expect((await call(key)).status).toBe(401);
    // Once the gate has seen the session close, keys are served from memory again.
    const later = await newKey();
    await waitFor(async () => {
      expect((await call(later.key)).status).toBe(404);
      await revokeOnOwnConnection(later.id);
      const cached = (await call(later.key)).status === 404;
      if (!cached)
        await service.core.orm.em
          .getConnection()
          .execute('update api_key set revoked_at = null where id = ?', [later.id]);
      return cached;
    });
    expect((await call(later.key)).status).toBe(404);
  });

  it('refuses the wrong password at the gate', async () => {
    const url = new URL((await readFile(postgresUrlFile(dataDir), 'utf8')).trim());
    url.password = 'wrong';
    const client = new pg.Client({ connectionString: url.toString() });
    await expect(client.connect()).rejects.toThrow(/password authentication failed/);
    await client.end().catch(() => undefined);
  });
});

describe('the statements of a session', () => {
  it('a session created and decided by its one step costs 12 statements: 4 to create it, 8 for the step', async () => {
    const workflow = await service.core.tenancy.createWorkflow({
      projectId: service.demo!.project_id,
      name: 'statements',
      features: ['location'],
    });
    const key = { 'X-API-Key': service.demo!.api_key };
    const location = { latitude: 48.85, longitude: 2.35, accuracy: 10 };
    // The first session warms what is cached (the key, the workflow, the project's settings).
    const first = await http.post('/api/v2/session').set(key).send({ workflow_id: workflow.id });
    await http
      .post('/api/hosted/session/steps/location')
      .set('X-Session-Token', first.body.data.session_token)
      .send(location);
    const counted = await countStatements(async () => {
      const created = await http.post('/api/v2/session').set(key).send({ workflow_id: workflow.id });
      const stepped = await http
        .post('/api/hosted/session/steps/location')
        .set('X-Session-Token', created.body.data.session_token)
        .send(location);
      expect(stepped.body.data.status).toBe('APPROVED');
    });
    // BEGIN, the charge, the session, COMMIT; the token's session, opened, BEGIN, the locked
    // session, its checks, the webhook event, the decision, COMMIT.
    expect(counted.length, counted.join('\n')).toBeLessThanOrEqual(12);
  });
});

describe('the statements of a billed check', () => {
  it('one to record it with its charge; a new Idempotency-Key adds its claim, and a replay is one read', async () => {
    const key = { 'X-API-Key': service.demo!.api_key };
    const body = { dob: '1990-05-01', bands: [18] };
    await service.core.billing.topUp(service.demo!.project_id, 10_000);
    await http.post('/api/v2/age-verification').set(key).send(body); // opens the wallet lease
    const plain = await countStatements(async () => {
      expect((await http.post('/api/v2/age-verification').set(key).send(body)).status).toBe(200);
    });
    expect(plain, plain.join('\n')).toHaveLength(1);
    let first: supertest.Response | undefined;
    const keyed = await countStatements(async () => {
      first = await http.post('/api/v2/age-verification').set(key).set('Idempotency-Key', 'statements-1').send(body);
    });
    expect(keyed, keyed.join('\n')).toHaveLength(2);
    let again: supertest.Response | undefined;
    const replay = await countStatements(async () => {
      again = await http.post('/api/v2/age-verification').set(key).set('Idempotency-Key', 'statements-1').send(body);
    });
    expect(replay, replay.join('\n')).toHaveLength(1);
    // The answer stored by the record's statement is the first answer, replayed.
    expect(again!.headers['idempotent-replayed']).toBe('true');
    expect(again!.body).toEqual(first!.body);
  });
});

/** Every statement the service's connections send while `work` runs (node-postgres is the only driver). */
async function countStatements(work: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const config = args[0] as string | { text?: string };
    seen.push((typeof config === 'string' ? config : (config.text ?? '')).replace(/\s+/g, ' ').trim().slice(0, 120));
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  try {
    await work();
  } finally {
    pg.Client.prototype.query = query;
  }
  return seen;
}

/** The gate hears the outside session close a moment after the client ends it. */
async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 50 && !(await condition()); i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
}
