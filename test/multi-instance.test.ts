import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkedFetch, servedDocument } from './helpers/contract.js';
import { freshDatabase } from './helpers/processes.js';
import { VerityProcess, verityEnv } from './helpers/verity-process.js';

// Two `verity serve` processes on one PostgreSQL behave as one service: sessions move across
// them, each webhook attempt is made once, rate limits and idempotency hold across them, the
// JWKS is the same, and a stopped instance finishes what it was doing. PostgreSQL only (the
// embedded store is one process by construction): runs when TEST_DATABASE_URL is set, as in CI.

const server = process.env.TEST_DATABASE_URL;
if (!server) console.info('skipping multi-instance tests: they need TEST_DATABASE_URL (a PostgreSQL server)');

let database: { url: string; drop: () => Promise<void> };
let a: VerityProcess;
let b: VerityProcess;
let demo: { api_key: string; project_id: string; workflows: Record<string, string> };
const hooks: { eventId: string; sessionId: string }[] = [];
let receiver: http.Server;
let receiverUrl: string;
let board: http.Server;
let boardUrl: string;

/** fetch whose JSON answers are checked against the OpenAPI document (helpers/contract.ts). */
let checked: typeof fetch;

const json = (response: Response): Promise<any> => response.json();
const api = (instance: VerityProcess, route: string, init: RequestInit = {}) =>
  checked(`${instance.url}${route}`, {
    ...init,
    headers: { 'X-API-Key': demo.api_key, 'content-type': 'application/json', ...(init.headers ?? {}) },
  });

describe.skipIf(!server)('several instances on one PostgreSQL', () => {
  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        hooks.push({ eventId: String(req.headers['x-svc-event-id']), sessionId: JSON.parse(body).session_id });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    // A licensing board that takes 1.5 s to answer: a request still in flight at shutdown.
    board = http.createServer((_req, res) =>
      setTimeout(
        () =>
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ number: 'SLOW-1', first: 'Ada', last: 'Slow', status: 'active' })),
        1500,
      ),
    );
    await new Promise<void>((resolve) => board.listen(0, '127.0.0.1', resolve));
    boardUrl = `http://127.0.0.1:${(board.address() as AddressInfo).port}/lookup/{license_number}`;

    database = await freshDatabase(server!, 'verity_multi');
    // One environment (and so one encryption key and base URL) for both instances.
    const env = verityEnv(database.url, { VERITY_BASE_URL: 'http://verity.test', VERITY_RATE_LIMIT_PER_MINUTE: '40' });
    a = await VerityProcess.start(env); // seeds the demo tenant
    demo = await a.demo();
    checked = checkedFetch(await servedDocument(a.url));
    b = await VerityProcess.start(env);
    await a.admin('callback', 'approve', receiverUrl);
    await a.admin(
      'board-add-http',
      '--state',
      'ZZ',
      '--state-name',
      'Slowland',
      '--provider',
      'SLOW',
      '--name',
      'Slow Board',
      '--credential',
      'Slow Licence',
      '--url',
      boardUrl,
      '--fields',
      JSON.stringify({ licenseNumber: 'number', firstName: 'first', lastName: 'last', status: 'status' }),
    );
  }, 240_000);

  afterAll(async () => {
    for (const instance of [a, b]) await instance?.destroy();
    receiver?.close();
    board?.close();
    await database?.drop();
  });

  it('serves the same JWKS and signing keys from both; a key rotated on one is published by both at once', async () => {
    const jwks = () => Promise.all([a, b].map(async (i) => json(await checked(`${i.url}/api/auth/oidc/jwks.json`))));
    const [ja, jb] = await jwks();
    expect(ja.keys.length).toBeGreaterThan(0);
    expect(jb).toEqual(ja);
    // Relying parties cache whichever instance answered: both must show the next key before it signs.
    const rotated = (await a.admin('rotate-keys')) as { kid: string };
    const [ra, rb] = await jwks();
    expect(ra.keys.map((key: { kid: string }) => key.kid)).toEqual([
      rotated.kid,
      ...ja.keys.map((key: { kid: string }) => key.kid),
    ]);
    expect(rb).toEqual(ra);
  });

  it('moves a session created on one instance through the other, and delivers its webhook once', async () => {
    const created = await json(
      await api(a, '/api/v2/session', {
        method: 'POST',
        body: JSON.stringify({ workflow_id: demo.workflows.location, callback: receiverUrl }),
      }),
    );
    const { session_id: sessionId, session_token: token } = created.data;
    const step = await checked(`${b.url}/api/hosted/session/steps/location`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Session-Token': token },
      body: JSON.stringify({ latitude: 1, longitude: 2, accuracy: 5 }),
    });
    expect((await json(step)).data.status).toBe('APPROVED');
    const decision = await json(await api(a, `/api/v2/session/${sessionId}/decision`));
    expect(decision.data.status).toBe('APPROVED');
    for (let waited = 0; !hooks.some((h) => h.sessionId === sessionId) && waited < 20_000; waited += 200)
      await new Promise((r) => setTimeout(r, 200));
    // Both instances run delivery workers; wait a little longer to see that nobody sends it twice.
    await new Promise((r) => setTimeout(r, 3000));
    expect(hooks.filter((h) => h.sessionId === sessionId)).toHaveLength(1);
  }, 60_000);

  it('has a webhook decided on an instance that runs no jobs sent at once by one that does (NOTIFY), not at the sweep', async () => {
    const c = await VerityProcess.start(
      verityEnv(database.url, {
        VERITY_BASE_URL: 'http://verity.test',
        VERITY_RATE_LIMIT_PER_MINUTE: '40',
        VERITY_JOBS: '0',
      }),
    );
    try {
      const created = await json(
        await api(c, '/api/v2/session', {
          method: 'POST',
          body: JSON.stringify({ workflow_id: demo.workflows.location, callback: receiverUrl }),
        }),
      );
      const decided = Date.now();
      const step = await checked(`${c.url}/api/hosted/session/steps/location`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-Session-Token': created.data.session_token },
        body: JSON.stringify({ latitude: 1, longitude: 2, accuracy: 5 }),
      });
      expect((await json(step)).data.status).toBe('APPROVED');
      while (!hooks.some((h) => h.sessionId === created.data.session_id) && Date.now() - decided < 20_000)
        await new Promise((r) => setTimeout(r, 100));
      // The sweep runs once a minute for events overdue by 30 s: this one came in seconds.
      expect(Date.now() - decided).toBeLessThan(10_000);
      expect(hooks.filter((h) => h.sessionId === created.data.session_id)).toHaveLength(1);
    } finally {
      await c.destroy();
    }
  }, 120_000);

  it('counts one rate limit across both instances', async () => {
    // A key of its own, so the limit (40 a minute per key) starts from zero.
    const { key } = (await a.admin('apikey', 'create', '--name', 'rate')) as { key: string };
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        checked(`${(i % 2 ? a : b).url}/api/v2/session?limit=1`, { headers: { 'X-API-Key': key } }).then(
          (r) => r.status,
        ),
      ),
    );
    expect(answers.filter((s) => s === 200)).toHaveLength(40);
    expect(answers.filter((s) => s === 429)).toHaveLength(20);
  }, 60_000);

  it('replays an idempotent call made on one instance from the other, and charges once', async () => {
    const body = JSON.stringify({ dob: '1990-01-01', bands: [18] });
    const headers = { 'Idempotency-Key': 'multi-instance-1' };
    const [first, second] = await Promise.all([
      api(a, '/api/v2/age-verification', { method: 'POST', body, headers }),
      api(b, '/api/v2/age-verification', { method: 'POST', body, headers }),
    ]);
    const statuses = [first.status, second.status].sort();
    // Either the second waited for the first and replays it, or it found it still running.
    expect([
      [200, 200],
      [200, 409],
    ]).toContainEqual(statuses);
    const later = await api(b, '/api/v2/age-verification', { method: 'POST', body, headers });
    expect(later.headers.get('idempotent-replayed')).toBe('true');
    const done = first.status === 200 ? (await json(first)).data : (await json(second)).data;
    expect((await json(later)).data.session_id).toBe(done.session_id);
  }, 30_000);

  it('finishes a request in flight when an instance is stopped, then exits cleanly', async () => {
    const pending = api(b, '/api/v2/credential-verification', {
      method: 'POST',
      body: JSON.stringify({ license_state: 'ZZ', provider_code: 'SLOW', license_number: 'SLOW-1' }),
    });
    await new Promise((r) => setTimeout(r, 400));
    const exited = b.stop();
    const response = await pending;
    expect(response.status).toBe(200);
    expect((await json(response)).data.check.data.found).toBe(true);
    expect(await exited).toBe(0);
    await expect(fetch(`${b.url}/healthz`)).rejects.toThrow();
  }, 60_000);
});
