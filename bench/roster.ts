// The organization roster API over HTTP: time to add 500 members in one call (with invitations
// into the mail outbox), GET /members with 10,000 and 100,000 members (every page), and resolve latency.
//   BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npm run bench:roster
// Without BENCH_DATABASE_URL it runs on the embedded PGlite store.
import type { Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { externalStore, openEmbeddedStore, type Store } from '../src/core/db/store.js';
import { Sealer } from '../src/core/secrets.js';
import { buildService } from '../src/main.js';
import { freePort, freshDatabase, percentile } from '../test/helpers/processes.js';
import { summary } from './summary.js';

const server = process.env.BENCH_DATABASE_URL;
const resolves = Number(process.env.BENCH_RESOLVES ?? 500);
const ms = (value: number) => Math.round(value * 10) / 10;

let store: Store;
let dropDatabase = async () => {};
if (server) {
  const database = await freshDatabase(server, 'verity_bench_roster');
  store = externalStore(database.url);
  dropDatabase = database.drop;
} else {
  store = await openEmbeddedStore();
}
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'verity-bench-roster-'));
const port = await freePort();
const url = `http://127.0.0.1:${port}`;
const config = loadConfig(
  {},
  {
    baseUrl: url,
    orgApiUrl: url,
    dataDir,
    encryptionKey: Sealer.generateKey(),
    logLevel: 'silent',
    warmModels: false,
    seedLicenses: false,
  },
);
const service = await buildService(config, { store, logger: pino({ level: 'silent' }) });
const listening = await new Promise<Server>((resolve) => {
  const s = service.app.listen(port, '127.0.0.1', () => resolve(s));
});
const org = service.demo!.org;
const headers = {
  'X-Client-Id': org.client_id,
  'X-Client-Secret': org.client_secret,
  'Content-Type': 'application/json',
};

async function call(
  method: string,
  route: string,
  body?: unknown,
): Promise<{ status: number; json: { data: Record<string, unknown[]> } }> {
  const res = await fetch(`${url}/api/sdk${route}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as { data: Record<string, unknown[]> } };
}

/**
 * Every member, page after page (GET /members answers at most 1000 and names the next page's cursor in X-Next-Cursor).
 */
async function listAll(): Promise<{ members: unknown[]; pages: number }> {
  const members: unknown[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await fetch(`${url}/api/sdk/members${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`, {
      headers,
    });
    if (res.status !== 200) throw new Error(`list failed: ${res.status}`);
    members.push(...((await res.json()) as { data: { members: unknown[] } }).data.members);
    cursor = res.headers.get('x-next-cursor');
    pages += 1;
  } while (cursor);
  return { members, pages };
}

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await work();
  return [result, performance.now() - started];
}

/** Fills the roster up to `total` members directly in SQL (the add route is measured separately). */
async function fillTo(total: number) {
  await service.core.orm.em.getConnection().execute(
    `insert into member (member_id, organization_id, email, first_name, last_name, role, status, created_at)
     select 'mem_' || lpad(to_hex(g), 24, '0'), ?, 'bulk' || g || '@corp.example', 'First' || g, 'Last' || g, 'member', 'invited', now()
     from generate_series((select count(*) from member) + 1, ?) g`,
    [org.id, total],
  );
  await service.core.orm.em.getConnection().execute('analyze member');
}

try {
  for (const round of [1, 2]) {
    const members = Array.from({ length: 500 }, (_, i) => ({
      email: `round${round}-${i}@corp.example`,
      first_name: 'Ada',
      last_name: `N${i}`,
    }));
    const [res, elapsed] = await timed(() => call('POST', '/members', { members, invite: 'email', notify: true }));
    if (res.status !== 201 || res.json.data.created!.length !== 500) throw new Error(`add failed: ${res.status}`);
    console.log(`add 500 members in one call (round ${round}, 500 invitations to the outbox): ${ms(elapsed)} ms`);
    if (round === 2)
      summary({ area: 'roster', what: 'POST /members, 500 members in one call', verity: ms(elapsed), unit: 'ms' });
  }
  for (const total of [10_000, 100_000]) {
    await fillTo(total);
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const [listed, elapsed] = await timed(listAll);
      if (listed.members.length < total - 1000) throw new Error('list came back short');
      times.push(elapsed);
    }
    times.sort((a, b) => a - b);
    console.log(
      `GET /members with ${total} members, every page of 1000 in turn: median ${ms(percentile(times, 50))} ms (of 3)`,
    );
    summary({
      area: 'roster',
      what: `GET /members with ${total} members, all pages of 1000, median`,
      verity: ms(percentile(times, 50)),
      unit: 'ms',
    });
  }
  const times: number[] = [];
  for (let i = 0; i < resolves; i++) {
    const email = `bulk${2000 + Math.floor(Math.random() * 98_000)}@corp.example`;
    const [res, elapsed] = await timed(() => call('POST', '/members/resolve', { email }));
    if (!res.json.data.found) throw new Error(`not found: ${email}`);
    times.push(elapsed);
  }
  times.sort((a, b) => a - b);
  console.log(
    `POST /members/resolve by email (${resolves}, 100,000 members): p50 ${ms(percentile(times, 50))} ms, p95 ${ms(percentile(times, 95))} ms`,
  );
  summary({
    area: 'roster',
    what: 'POST /members/resolve among 100,000, p50',
    verity: ms(percentile(times, 50)),
    unit: 'ms',
  });
  console.log(`store: ${server ? 'PostgreSQL' : 'embedded PGlite'}`);
} finally {
  await new Promise((resolve) => listening.close(resolve));
  await service.close();
  await dropDatabase();
  await rm(dataDir, { recursive: true, force: true });
}
