// Licence lookups against the built-in registry with 1,000,000 rows: latency of the lookup
// (p50, p95) with the unique (state, provider, number) index and, for contrast, a few without it;
// and requests per second of POST /api/v2/credential-verification in search mode.
//   BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npm run bench:credentials
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import {
  freePort,
  freshDatabase,
  percentile,
  runBuiltVerity,
  startBuiltVerity,
  stopProcess,
} from '../test/helpers/processes.js';
import { createOrm, migrate } from '../src/core/db/orm.js';
import { entities } from '../src/core/entities.js';
import { CredentialRegistry } from '../src/core/credentials/registry.js';
import { summary } from './summary.js';

const server = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const rows = Number(process.env.BENCH_ROWS ?? 1_000_000);
const lookups = Number(process.env.BENCH_LOOKUPS ?? 5000);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);

const ms = (value: number) => Math.round(value * 100) / 100;

const database = await freshDatabase(server, 'verity_bench_licences');
let child: ChildProcess | undefined;
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'verity-bench-licences-'));
try {
  const orm = await createOrm(database.url, { entities, poolMax: 4 });
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
  const plan = await connection.execute(
    `explain select * from license_record where state_code = 'CA' and provider_code = 'RN' and license_number = 'RN-0500000'`,
  );
  console.log(
    `lookup through the registry (${lookups} random numbers): p50 ${ms(percentile(times, 50))} ms, p95 ${ms(percentile(times, 95))} ms`,
  );
  console.log(`plan: ${plan.map((line: Record<string, string>) => Object.values(line)[0]).join(' | ')}`);

  // The same lookup without the index, for contrast (a handful: each scans every row).
  await connection.execute(
    'alter table license_record drop constraint license_record_state_code_provider_code_license_number_unique',
  );
  const slow: number[] = [];
  for (let i = 0; i < 10; i += 1) {
    const started = performance.now();
    await registry.lookup(provider, number());
    slow.push(performance.now() - started);
  }
  slow.sort((a, b) => a - b);
  console.log(
    `without the unique (state_code, provider_code, license_number) index: p50 ${ms(percentile(slow, 50))} ms over 10 lookups`,
  );
  summary({
    area: 'licences',
    what: `lookup among ${rows} licences, p50`,
    verity: ms(percentile(times, 50)),
    unit: 'ms',
    baseline: { name: 'the same query without the unique index', value: ms(percentile(slow, 50)) },
  });
  await connection.execute(
    'alter table license_record add constraint license_record_state_code_provider_code_license_number_unique unique (state_code, provider_code, license_number)',
  );
  await orm.close();

  const port = await freePort();
  const started = await startBuiltVerity({
    DATABASE_URL: database.url,
    VERITY_DATA_DIR: dataDir,
    PORT: String(port),
    LOG_LEVEL: 'warn',
    VERITY_WARM_MODELS: '0',
    VERITY_SEED_LICENSES: '0',
    VERITY_RATE_LIMIT_PER_MINUTE: '100000000',
  });
  child = started.child;
  const base = started.url;
  const demo = JSON.parse(await readFile(path.join(dataDir, 'demo.json'), 'utf8'));
  await runBuiltVerity(['admin', 'project', 'topup', '--amount', '1000000'], {
    DATABASE_URL: database.url,
    VERITY_DATA_DIR: dataDir,
  });
  const common = {
    url: `${base}/api/v2/credential-verification`,
    method: 'POST' as const,
    connections: 32,
    duration: seconds,
    headers: { 'x-api-key': demo.api_key, 'content-type': 'application/json' },
  };
  const search = await autocannon({
    ...common,
    body: JSON.stringify({ state: 'CA', provider_code: 'RN', license_no: 'RN-0500000' }),
  });
  const notFound = await autocannon({ ...common, url: `${base}/api/v2/nothing`, method: 'GET' });
  console.log(
    `\nPOST /api/v2/credential-verification, search mode, ${seconds} s, 32 connections: ${Math.round(search.requests.average)} req/s, p50 ${search.latency.p50} ms, p99 ${search.latency.p99} ms, non-2xx ${search.non2xx}`,
  );
  console.log(
    `authenticated 404 in the same run: ${Math.round(notFound.requests.average)} req/s (ratio ${(search.requests.average / notFound.requests.average).toFixed(2)})`,
  );
  summary({
    area: 'licences',
    what: `POST /api/v2/credential-verification (search) req/s (p50 ${search.latency.p50} ms)`,
    verity: Math.round(search.requests.average),
    unit: 'req/s',
    baseline: { name: 'authenticated 404, same server', value: Math.round(notFound.requests.average) },
  });
} finally {
  if (child) await stopProcess(child);
  await rm(dataDir, { recursive: true, force: true });
  await database.drop();
}
