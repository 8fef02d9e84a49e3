// Growth: the same requests and jobs at two sizes of history, side by side, through the service's
// own code on databases filled by bench/seed.ts (10 thousand and 10 million sessions by default).
//   npm run bench:seed -- --sessions 10000 && nice -n 10 npm run bench:seed   (once)
//   npm run bench:growth [-- --databases verity_growth_10k,verity_growth_10m --repeats 30]
// For each database the service starts in this process (HTTP on a free port; the demo tenant of
// the seed is the caller) and p50/p95 are taken of: GET /api/v2/session/{id}; the session list
// with a cursor ten months back; the console's review queue and dashboard (GraphQL, the console's
// own documents); the dashboard's webhook health; the /metrics scrape; the minute sweep
// (Core.sweep, the job's body) and the evidence purge alone; a face uniqueness search of the
// project's register (FaceIndex, after the first search opened it). The last column is the ratio
// of the second database to the first: the goal is at most 2 (and the scrape under 200 ms).
// The purge and the sweep change the data: the purge first works off the seeded backlog (images
// 30-40 days past their decision, a sweep's rounds at a time, timed), then is timed with nothing due.
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import pg from 'pg';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import type { DemoTenant } from '../src/core/seed.js';
import { buildService } from '../src/main.js';
import { DESCRIPTOR_DIMENSIONS } from '../src/ml/faces/match.js';
import { QUERIES, SESSION_FIELDS } from '../web/console/queries.js';
import { summary, type Timing, timeCalls } from './summary.js';
import { percentile } from '../test/helpers/processes.js';
import { EVIDENCE_PURGE_BATCH, EVIDENCE_PURGE_ROUNDS } from '../src/core/sessions/service.js';

const { values: args } = parseArgs({
  options: {
    server: {
      type: 'string',
      default: process.env.GROWTH_SERVER_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres',
    },
    databases: { type: 'string', default: 'verity_growth_10k,verity_growth_10m' },
    repeats: { type: 'string', default: '30' },
  },
});
const repeats = Number(args.repeats);
const databases = args.databases!.split(',').filter(Boolean);

type Figure = Timing;

const time = (label: string, run: () => Promise<unknown>) =>
  timeCalls(label, run, { repeats, warmUps: 2, indent: '  ', width: 46 });

const load = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

/** A random unit descriptor of the real dimension (a person not enrolled). */
function probe(): Float32Array {
  const v = Float32Array.from({ length: DESCRIPTOR_DIMENSIONS }, () => Math.random() - 0.5);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

async function measure(database: string): Promise<{ figures: Figure[]; sessions: number; load: string }> {
  const url = new URL(args.server!);
  url.pathname = `/${database}`;
  const dataDir = path.join(os.tmpdir(), `verity-growth-${database}`);
  const demo = JSON.parse(await readFile(path.join(dataDir, 'demo.json'), 'utf8')) as DemoTenant;
  const db = new pg.Client({ connectionString: url.toString() });
  await db.connect();
  const config = loadConfig(
    {},
    {
      dataDir,
      databaseUrl: url.toString(),
      logLevel: 'silent',
      warmModels: false,
      seedLicenses: false,
      runJobs: false,
      rateLimitPerMinute: 100_000_000,
      metricsPublic: true,
    },
  );
  const starting = performance.now();
  const service = await buildService(config, { logger: pino({ level: 'silent' }) });
  const startMs = performance.now() - starting;
  const server = service.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const [{ n }] = (await db.query<{ n: string }>('select count(*) as n from verification_session')).rows as [
      { n: string },
    ];
    console.log(
      `${database}: ${Number(n).toLocaleString('en')} sessions; the service started in ${(startMs / 1000).toFixed(1)} s (pending migrations included); load average ${load()}`,
    );
    const p = demo.project_id;
    // Live sessions of the demo project (the live key sees those), newest to a year old.
    const { rows: picks } = await db.query<{ id: string; created_at: Date }>(
      `select id, created_at from verification_session where project_id = $1 and livemode order by random() limit 200`,
      [p],
    );
    const { rows: deep } = await db.query<{ id: string; created_at: Date }>(
      `select id, created_at from verification_session where project_id = $1 and livemode and created_at < now() - interval '300 days' order by created_at desc limit 50`,
      [p],
    );
    const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)]!;
    const get = async (route: string, headers: Record<string, string> = {}) => {
      const response = await fetch(`${base}${route}`, { headers });
      if (!response.ok) throw new Error(`${route}: ${response.status} ${await response.text()}`);
      return response.text();
    };
    const api = (route: string) => get(route, { authorization: `Bearer ${demo.api_key}` });
    const gql = async (query: string, variables: Record<string, unknown>) => {
      const response = await fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${demo.admin_token}` },
        body: JSON.stringify({ query, variables }),
      });
      const body = (await response.json()) as { errors?: unknown[] };
      if (body.errors) throw new Error(JSON.stringify(body.errors));
    };
    const cursorOf = (row: { id: string; created_at: Date }) =>
      Buffer.from(`${row.created_at.toISOString()}|${row.id}`).toString('base64url');
    const figures: Figure[] = [];
    figures.push(await time('GET /api/v2/session/{id}', () => api(`/api/v2/session/${pick(picks).id}`)));
    figures.push(
      await time('GET /api/v2/session, cursor 300+ days back', () =>
        api(`/api/v2/session?limit=20&cursor=${cursorOf(pick(deep.length ? deep : picks))}`),
      ),
    );
    figures.push(await time('review queue (console, GraphQL)', () => gql(QUERIES.reviewQueue, { p })));
    figures.push(await time('dashboard (console, GraphQL, 6 queries)', () => gql(QUERIES.dashboard, { p })));
    figures.push(
      await time('webhook health of the project (GraphQL)', () =>
        gql('query($p: String!) { webhookHealth(projectId: $p) { destination healthy } }', { p }),
      ),
    );
    figures.push(
      await time('sessions page, status filter (console)', () =>
        gql(
          `query($p: String!, $f: SessionFilterInput) { sessions(projectId: $p, filter: $f, first: 25) { edges { node { ${SESSION_FIELDS} } } } }`,
          { p, f: { status: 'DECLINED' } },
        ),
      ),
    );
    figures.push(await time('GET /metrics (scrape)', () => get('/metrics')));
    // The seeded backlog (images 30-40 days past their decision) goes a sweep's worth of rounds at
    // a time; then the purge of a minute with nothing new due, as it runs from then on.
    const full = EVIDENCE_PURGE_BATCH * EVIDENCE_PURGE_ROUNDS;
    const sweeps: number[] = [];
    let purged = 0;
    for (;;) {
      const started = performance.now();
      const n = await service.core.sessions.purgeEvidence();
      if (n === full) sweeps.push(performance.now() - started);
      purged += n;
      if (n < full) break;
    }
    sweeps.sort((a, b) => a - b);
    console.log(
      `  evidence purge backlog: ${purged} images, ${sweeps.length} full sweeps of ${full}: p50 ${percentile(sweeps, 50).toFixed(0)} ms, p95 ${percentile(sweeps, 95).toFixed(0)} ms`,
    );
    if (sweeps.length)
      figures.push({
        label: `evidence purge, a sweep of ${full} (backlog)`,
        p50: percentile(sweeps, 50),
        p95: percentile(sweeps, 95),
      });
    figures.push(await time('evidence purge (nothing due)', () => service.core.sessions.purgeEvidence()));
    figures.push(await time('minute sweep (Core.sweep)', () => service.core.sweep()));
    const register = { projectId: p, purpose: 'uniqueness', livemode: true } as const;
    const opened = performance.now();
    const { compared } = await service.core.faceIndex.search(register, probe());
    console.log(
      `  face register opened on the first search       ${(performance.now() - opened).toFixed(0).padStart(8)} ms (${compared} faces)`,
    );
    figures.push(
      await time(`face uniqueness search (${compared} faces)`, () => service.core.faceIndex.search(register, probe())),
    );
    return { figures, sessions: Number(n), load: load() };
  } finally {
    server.closeAllConnections();
    server.close();
    await service.close();
    await db.end();
  }
}

const runs: { database: string; figures: Figure[]; sessions: number; load: string }[] = [];
for (const database of databases) runs.push({ database, ...(await measure(database)) });
if (runs.length >= 2) {
  const [small, large] = [runs[0]!, runs.at(-1)!];
  console.log(
    `\n${'query'.padEnd(46)} ${`p50 @ ${small.sessions.toLocaleString('en')}`.padStart(14)} ${`p50 @ ${large.sessions.toLocaleString('en')}`.padStart(16)}  ratio`,
  );
  for (const figure of large.figures) {
    const base = small.figures.find(
      (f) => f.label.replace(/\(\d+ faces\)/, '') === figure.label.replace(/\(\d+ faces\)/, ''),
    );
    const ratio = base ? (figure.p50 / Math.max(base.p50, 0.01)).toFixed(2) : '-';
    console.log(
      `${figure.label.padEnd(46)} ${(base ? `${base.p50.toFixed(1)} ms` : '-').padStart(14)} ${`${figure.p50.toFixed(1)} ms`.padStart(16)}  ${ratio.padStart(5)}`,
    );
  }
  console.log(`load average after each: ${runs.map((run) => `${run.database} ${run.load}`).join('; ')}`);
}
// The large run against the small one as its baseline (or the one run alone).
const [first, last] = [runs[0]!, runs.at(-1)!];
summary(
  ...last.figures.map((f) => ({
    area: 'growth',
    what: `${f.label} p50 @ ${last.sessions} sessions`,
    verity: Math.round(f.p50 * 10) / 10,
    unit: 'ms',
    ...(first === last
      ? {}
      : {
          baseline: {
            name: `${first.sessions} sessions`,
            value: Math.round((first.figures.find((g) => g.label === f.label)?.p50 ?? Number.NaN) * 10) / 10,
          },
        }),
  })),
);
