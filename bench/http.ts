// HTTP figures of the foundation: start-up time to /readyz, and requests per second of GET /healthz
// and of an authenticated 404 through the full middleware stack, each against a bare Express
// handler measured just before it (this machine's pace drifts over a run; each ratio compares two
// loads of the same minute). Servers run in their own processes; load comes from this one.
//   npm run bench            (builds first; about a minute)
//   BENCH_SECONDS=20 npm run bench
//   BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npm run bench
//     also measures a second instance on a fresh database of that PostgreSQL server, and then
//     `verity serve` with 1 and with 2 workers (docs/workers.md): the billed check and GET session,
//     each beside bare Express, and the resident memory of the whole cluster (BENCH_WORKERS_ONLY=1: only that;
//     BENCH_POSTGRES_ONLY=1: only the PostgreSQL instance's rows)
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { freePort, freshDatabase, runBuiltVerity, startBuiltVerity, stopProcess } from '../test/helpers/processes.js';
import { summary } from './summary.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);

/** `verity serve` on the built code (one worker unless told); a rate limit high enough not to be what is measured. */
function startVerity(dataDir: string, port: number, databaseUrl = '', workers = 1) {
  return startBuiltVerity({
    VERITY_DATA_DIR: dataDir,
    PORT: String(port),
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'info',
    VERITY_RATE_LIMIT_PER_MINUTE: '100000000',
    VERITY_WORKERS: String(workers),
  });
}

/** Resident memory of a process and every process below it (a cluster's primary and workers), in MB. */
async function treeRssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const own = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
  const children = (await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => ''))
    .split(' ')
    .filter(Boolean)
    .map(Number);
  return own + (await Promise.all(children.map(treeRssMb))).reduce((sum, rss) => sum + rss, 0);
}

async function startBare(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn('node', ['--import', '@swc-node/register/esm-register', path.join(root, 'bench/bare.ts')], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve) =>
    child.stdout!.once('data', (chunk) => resolve(JSON.parse(String(chunk)).url)),
  );
  return { child, url };
}

interface Figures {
  name: string;
  rps: number;
  /** The bare Express handler's req/s, measured just before this row. */
  baseline: number;
  p50: number;
  p90: number;
  p99: number;
  non2xx: number;
  errors: number;
}

async function load(
  name: string,
  url: string,
  headers: Record<string, string> = {},
  body?: unknown,
  options: { newIdempotencyKeys?: boolean } = {},
): Promise<Omit<Figures, 'baseline'>> {
  let keys = 0;
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { method: 'POST' as const, body: JSON.stringify(body) }),
    // Each call its own Idempotency-Key, as an integrator's retry-safe client sends them.
    ...(options.newIdempotencyKeys
      ? {
          requests: [
            {
              setupRequest: (request: autocannon.Request) => ({
                ...request,
                headers: { ...request.headers, 'idempotency-key': `bench-${process.pid}-${++keys}` },
              }),
            },
          ],
        }
      : {}),
  });
  return {
    name,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

let bareUrl = '';

/** `load` of a Verity route, with the bare Express handler loaded just before it as its baseline. */
async function besideBare(...args: Parameters<typeof load>): Promise<Figures> {
  const baseline = (await load('bare express GET /healthz', `${bareUrl}/healthz`)).rps;
  return { ...(await load(...args)), baseline };
}

/** Enough wallet for every billed call of the run (the demo tenant starts with 1000). */
const topUp = (dir: string, databaseUrl: string) =>
  runBuiltVerity(['admin', 'project', 'topup', '--amount', '1000000'], {
    VERITY_DATA_DIR: dir,
    DATABASE_URL: databaseUrl,
  });

/** The same rows on a second instance that uses PostgreSQL (a fresh database, dropped after). */
async function postgresRows(): Promise<Figures[]> {
  const database = await freshDatabase(process.env.BENCH_DATABASE_URL!, 'verity_bench');
  const pgDir = await mkdtemp(path.join(os.tmpdir(), 'verity-bench-pg-'));
  const pgPort = await freePort();
  const instance = await startVerity(pgDir, pgPort, database.url);
  try {
    const demo = JSON.parse(await readFile(path.join(pgDir, 'demo.json'), 'utf8'));
    await topUp(pgDir, database.url);
    const base = `http://127.0.0.1:${pgPort}`;
    await load('warm-up', `${base}/healthz`);
    // An integrator polling a session it created.
    const sessionId = await demoSession(base, demo);
    return [
      await besideBare('verity GET /healthz (PostgreSQL)', `${base}/healthz`),
      await besideBare('verity authenticated 404 (PostgreSQL)', `${base}/api/v2/nothing`, {
        'X-API-Key': demo.api_key,
      }),
      await besideBare('verity GET /api/v2/session/{id} (PostgreSQL)', `${base}/api/v2/session/${sessionId}`, {
        'X-API-Key': demo.api_key,
      }),
      await besideBare(
        'verity POST /api/v2/age-verification (PostgreSQL)',
        `${base}/api/v2/age-verification`,
        { 'X-API-Key': demo.api_key },
        AGE_CHECK,
      ),
      await besideBare(
        'verity POST /api/v2/location (PostgreSQL)',
        `${base}/api/v2/location`,
        { 'X-API-Key': demo.api_key },
        {
          latitude: 48.8566,
          longitude: 2.3522,
          accuracy: 10,
          expected_latitude: 48.8584,
          expected_longitude: 2.2945,
          radius_m: 5000,
        },
      ),
      await besideBare(
        'verity POST /api/v2/location with a new Idempotency-Key each call (PostgreSQL)',
        `${base}/api/v2/location`,
        { 'X-API-Key': demo.api_key },
        {
          latitude: 48.8566,
          longitude: 2.3522,
          accuracy: 10,
          expected_latitude: 48.8584,
          expected_longitude: 2.2945,
          radius_m: 5000,
        },
        { newIdempotencyKeys: true },
      ),
    ];
  } finally {
    await stopProcess(instance.child);
    await rm(pgDir, { recursive: true, force: true });
    await database.drop();
  }
}

/** The billed check's body. */
const AGE_CHECK = { dob: '1990-05-01', bands: [18, '21+'] };

/** A session of the demo project to read back (an integrator polling it). */
async function demoSession(
  base: string,
  demo: { api_key: string; workflows: Record<string, string> },
): Promise<string> {
  const created = await fetch(`${base}/api/v2/session`, {
    method: 'POST',
    headers: { 'X-API-Key': demo.api_key, 'content-type': 'application/json' },
    body: JSON.stringify({ workflow_id: demo.workflows.location }),
  });
  return ((await created.json()) as { data: { session_id: string } }).data.session_id;
}

interface ClusterFigures {
  workers: number;
  age: Figures;
  session: Figures;
  /** Resident memory of the primary and its workers after the load, models loaded, MB. */
  rssMb: number;
}

/**
 * `verity serve --workers 1`, then `--workers 2`, on one fresh PostgreSQL database (models warmed,
 * as a deployment runs): the billed check and GET session each beside bare Express, and the
 * resident memory of every process of the service.
 */
async function workerRows(): Promise<ClusterFigures[]> {
  const database = await freshDatabase(process.env.BENCH_DATABASE_URL!, 'verity_bench_workers');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'verity-bench-workers-'));
  const figures: ClusterFigures[] = [];
  try {
    for (const workers of [1, 2]) {
      const port = await freePort();
      const instance = await startVerity(dir, port, database.url, workers);
      try {
        const demo = JSON.parse(await readFile(path.join(dir, 'demo.json'), 'utf8'));
        if (workers === 1) await topUp(dir, database.url);
        const base = `http://127.0.0.1:${port}`;
        await load('warm-up', `${base}/healthz`);
        const sessionId = await demoSession(base, demo);
        const age = await besideBare(
          `verity POST /api/v2/age-verification (PostgreSQL, ${workers} worker${workers > 1 ? 's' : ''})`,
          `${base}/api/v2/age-verification`,
          { 'X-API-Key': demo.api_key },
          AGE_CHECK,
        );
        const session = await besideBare(
          `verity GET /api/v2/session/{id} (PostgreSQL, ${workers} worker${workers > 1 ? 's' : ''})`,
          `${base}/api/v2/session/${sessionId}`,
          { 'X-API-Key': demo.api_key },
        );
        figures.push({ workers, age, session, rssMb: Math.round(await treeRssMb(instance.child.pid!)) });
      } finally {
        await stopProcess(instance.child);
      }
    }
    return figures;
  } finally {
    await rm(dir, { recursive: true, force: true });
    await database.drop();
  }
}

/**
 * The workers table: each count's figures, and 2 workers against 1 (goals: at least 1.6x the billed check's throughput,
 * at most 1.3x the memory).
 */
function printWorkers(figures: ClusterFigures[]): void {
  const [one, two] = figures as [ClusterFigures, ClusterFigures];
  console.log(
    `\nworkers (PostgreSQL, models loaded; load from this process on the same 2 cores; load average ${os
      .loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')})`,
  );
  console.log(
    '| workers | age check req/s | bare just before | ratio to bare | GET session req/s | bare just before | ratio to bare | RSS of all processes MB |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const row of figures) {
    console.log(
      `| ${row.workers} | ${row.age.rps} | ${row.age.baseline} | ${(row.age.rps / row.age.baseline).toFixed(2)} | ${row.session.rps} | ${row.session.baseline} | ${(row.session.rps / row.session.baseline).toFixed(2)} | ${row.rssMb} |`,
    );
  }
  // Each count against its own bare run, so that the machine's drift between the two does not count.
  const gain = (pick: (row: ClusterFigures) => Figures) =>
    pick(two).rps / pick(two).baseline / (pick(one).rps / pick(one).baseline);
  console.log(
    `2 workers against 1: age check ${gain((row) => row.age).toFixed(2)}x (goal >= 1.6), GET session ${gain((row) => row.session).toFixed(2)}x, memory ${(two.rssMb / one.rssMb).toFixed(2)}x (goal <= 1.3)`,
  );
  summary(
    {
      area: 'workers',
      what: 'age check req/s, 2 workers (baseline: 1 worker)',
      verity: two.age.rps,
      unit: 'req/s',
      baseline: { name: '1 worker', value: one.age.rps },
    },
    {
      area: 'workers',
      what: 'GET session req/s, 2 workers (baseline: 1 worker)',
      verity: two.session.rps,
      unit: 'req/s',
      baseline: { name: '1 worker', value: one.session.rps },
    },
    {
      area: 'workers',
      what: 'RSS of all processes, 2 workers (baseline: 1 worker)',
      verity: two.rssMb,
      unit: 'MB',
      baseline: { name: '1 worker', value: one.rssMb },
    },
  );
}

// BENCH_POSTGRES_ONLY=1: the PostgreSQL instance's rows alone (about 2 minutes), to compare two versions side by side.
if (process.env.BENCH_POSTGRES_ONLY === '1' && process.env.BENCH_DATABASE_URL) {
  const bare = await startBare();
  bareUrl = bare.url;
  try {
    await load('warm-up', `${bare.url}/healthz`);
    for (const row of await postgresRows())
      console.log(
        `| ${row.name} | ${row.rps} | ${row.baseline} | ${(row.rps / row.baseline).toFixed(2)} | ${row.p50} |`,
      );
  } finally {
    await stopProcess(bare.child);
  }
  process.exit(0);
}

// BENCH_WORKERS_ONLY=1: the workers table alone (about 2 minutes plus the model loads).
if (process.env.BENCH_WORKERS_ONLY === '1' && process.env.BENCH_DATABASE_URL) {
  const bare = await startBare();
  bareUrl = bare.url;
  try {
    await load('warm-up', `${bare.url}/healthz`);
    printWorkers(await workerRows());
  } finally {
    await stopProcess(bare.child);
  }
  process.exit(0);
}

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'verity-bench-'));
const port = await freePort();
try {
  const fresh = await startVerity(dataDir, port);
  await stopProcess(fresh.child);
  const again = await startVerity(dataDir, port);
  console.log(`start to /readyz 200: fresh data dir ${fresh.ms} ms, second start ${again.ms} ms`);

  const demo = JSON.parse(await readFile(path.join(dataDir, 'demo.json'), 'utf8'));
  await topUp(dataDir, '');
  const bare = await startBare();
  bareUrl = bare.url;
  const base = `http://127.0.0.1:${port}`;
  try {
    // Warm both up, then measure in the same run.
    await load('warm-up', `${bare.url}/healthz`);
    await load('warm-up', `${base}/healthz`);
    const sessionId = await demoSession(base, demo);
    const rows: Figures[] = [
      await besideBare('verity GET /healthz (embedded store)', `${base}/healthz`),
      await besideBare('verity authenticated 404 (embedded store)', `${base}/api/v2/nothing`, {
        'X-API-Key': demo.api_key,
      }),
      await besideBare('verity GET /api/v2/session/{id} (embedded store)', `${base}/api/v2/session/${sessionId}`, {
        'X-API-Key': demo.api_key,
      }),
      await besideBare(
        'verity POST /api/v2/age-verification (embedded store)',
        `${base}/api/v2/age-verification`,
        { 'X-API-Key': demo.api_key },
        AGE_CHECK,
      ),
      await besideBare(
        'verity POST /api/v2/location (embedded store)',
        `${base}/api/v2/location`,
        { 'X-API-Key': demo.api_key },
        {
          latitude: 48.8566,
          longitude: 2.3522,
          accuracy: 10,
          expected_latitude: 48.8584,
          expected_longitude: 2.2945,
          radius_m: 5000,
        },
      ),
    ];
    if (process.env.BENCH_DATABASE_URL) rows.push(...(await postgresRows()));
    const clusters = process.env.BENCH_DATABASE_URL && process.env.BENCH_WORKERS !== '0' ? await workerRows() : [];
    const authenticated404 = rows.find((row) => row.name.startsWith('verity authenticated 404'))!.rps;
    console.log(`\n${seconds} s each, ${connections} connections, loopback, 2 cores shared by load and server`);
    console.log(
      '| route | req/s | bare Express just before, req/s | ratio to bare | ratio to auth. 404 (embedded) | p50 ms | p90 ms | p99 ms | non-2xx | errors |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|');
    for (const row of rows) {
      console.log(
        `| ${row.name} | ${row.rps} | ${row.baseline} | ${(row.rps / row.baseline).toFixed(2)} | ${(row.rps / authenticated404).toFixed(2)} | ${row.p50} | ${row.p90} | ${row.p99} | ${row.non2xx} | ${row.errors} |`,
      );
    }
    summary(
      ...rows.map((row) => ({
        area: 'REST',
        what: `${row.name.replace(/^verity /, '')} req/s (p50 ${row.p50} ms, p99 ${row.p99} ms)`,
        verity: row.rps,
        unit: 'req/s',
        baseline: { name: 'bare Express GET /healthz, just before', value: row.baseline },
      })),
    );
    if (clusters.length) printWorkers(clusters);
  } finally {
    await stopProcess(bare.child);
    await stopProcess(again.child);
  }
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
