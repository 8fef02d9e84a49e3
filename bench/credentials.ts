// Licence lookups against the built-in registry with 1,000,000 rows: latency of the lookup
// (p50, p95) with the unique (state, provider, number) index and, for contrast, a few without it;
// and requests per second of POST /api/v2/credential-verification in search mode.
//   BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npm run bench:credentials
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { createOrm, migrate } from '../src/core/db/orm.js';
import { CredentialRegistry } from '../src/core/credentials/registry.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const server = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const rows = Number(process.env.BENCH_ROWS ?? 1_000_000);
const lookups = Number(process.env.BENCH_LOOKUPS ?? 5000);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const ms = (value: number) => Math.round(value * 100) / 100;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

const name = `verity_bench_licences_${Date.now()}`;
const admin = new pg.Client({ connectionString: server });
await admin.connect();
await admin.query(`create database ${name}`);
const url = new URL(server);
url.pathname = `/${name}`;
let child: ChildProcess | undefined;
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'verity-bench-licences-'));
try {
  const orm = await createOrm(url.toString(), { poolMax: 4 });
  await migrate(orm);
  const connection = orm.em.getConnection();
  const loadStarted = Date.now();
  await connection.execute(`insert into credential_state (state_code, state_name) values ('CA', 'California')`);
  await connection.execute(`insert into credential_provider (id, state_code, provider_code, provider_display_name, credential_name, required_fields, adapter)
    values ('prv_bench', 'CA', 'RN', 'California Board of Registered Nursing', 'Registered Nurse', '{license_number,first_name,last_name}', 'builtin')`);
  await connection.execute(`insert into license_record (state_code, provider_code, license_number, license_key, first_name, last_name, status, issued_at, expires_at, specialty)
    select 'CA', 'RN', 'RN-' || lpad(g::text, 7, '0'), 'RN' || lpad(g::text, 7, '0'), 'First' || (g % 997), 'Last' || (g % 1009),
      (array['active','active','active','expired','suspended','revoked'])[1 + g % 6], '2015-01-01', '2029-12-31', 'Registered Nurse'
    from generate_series(1, ${rows}) g`);
  await connection.execute('analyze license_record');
  console.log(`loaded ${rows} licence rows in ${((Date.now() - loadStarted) / 1000).toFixed(1)} s`);

  const registry = new CredentialRegistry(orm);
  const provider = await registry.resolveProvider('CA', { providerCode: 'RN' });
  const number = () => `RN-${String(1 + Math.floor(Math.random() * rows)).padStart(7, '0')}`;
  const times: number[] = [];
  for (let i = 0; i < lookups; i += 1) {
    const started = performance.now();
    const { record } = await registry.lookup(provider, number());
    times.push(performance.now() - started);
    if (!record) throw new Error('a generated licence was not found');
  }
  times.sort((a, b) => a - b);
  const plan = await connection.execute(`explain select * from license_record where state_code = 'CA' and provider_code = 'RN' and license_number = 'RN-0500000'`);
  console.log(`lookup through the registry (${lookups} random numbers): p50 ${ms(percentile(times, 50))} ms, p95 ${ms(percentile(times, 95))} ms`);
  console.log(`plan: ${plan.map((line: Record<string, string>) => Object.values(line)[0]).join(' | ')}`);

  // The same lookup without the index, for contrast (a handful: each scans every row).
  await connection.execute('alter table license_record drop constraint license_record_state_code_provider_code_license_number_unique');
  const slow: number[] = [];
  for (let i = 0; i < 10; i += 1) {
    const started = performance.now();
    await registry.lookup(provider, number());
    slow.push(performance.now() - started);
  }
  slow.sort((a, b) => a - b);
  console.log(`without the unique (state_code, provider_code, license_number) index: p50 ${ms(percentile(slow, 50))} ms over 10 lookups`);
  await connection.execute('alter table license_record add constraint license_record_state_code_provider_code_license_number_unique unique (state_code, provider_code, license_number)');
  await orm.close();

  const port = await freePort();
  child = spawn('node', [path.join(root, 'dist/src/cli.js'), 'serve'], {
    env: { ...process.env, DATABASE_URL: url.toString(), VERITY_DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn', VERITY_WARM_MODELS: '0', VERITY_SEED_LICENSES: '0', VERITY_RATE_LIMIT_PER_MINUTE: '100000000' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  while (!(await fetch(`${base}/readyz`).then((res) => res.ok, () => false))) await new Promise((resolve) => setTimeout(resolve, 100));
  const demo = JSON.parse(await readFile(path.join(dataDir, 'demo.json'), 'utf8'));
  await new Promise<void>((resolve) => spawn('node', [path.join(root, 'dist/src/cli.js'), 'admin', 'project', 'topup', '--amount', '1000000'], { env: { ...process.env, DATABASE_URL: url.toString(), VERITY_DATA_DIR: dataDir }, stdio: 'ignore' }).once('exit', () => resolve()));
  const common = { url: `${base}/api/v2/credential-verification`, method: 'POST' as const, connections: 32, duration: seconds, headers: { 'x-api-key': demo.api_key, 'content-type': 'application/json' } };
  const search = await autocannon({ ...common, body: JSON.stringify({ state: 'CA', provider_code: 'RN', license_no: 'RN-0500000' }) });
  const notFound = await autocannon({ ...common, url: `${base}/api/v2/nothing`, method: 'GET' });
  console.log(`\nPOST /api/v2/credential-verification, search mode, ${seconds} s, 32 connections: ${Math.round(search.requests.average)} req/s, p50 ${search.latency.p50} ms, p99 ${search.latency.p99} ms, non-2xx ${search.non2xx}`);
  console.log(`authenticated 404 in the same run: ${Math.round(notFound.requests.average)} req/s (ratio ${(search.requests.average / notFound.requests.average).toFixed(2)})`);
} finally {
  if (child) { const exited = new Promise((resolve) => child!.once('exit', resolve)); child.kill('SIGTERM'); await exited; }
  await rm(dataDir, { recursive: true, force: true });
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
}
