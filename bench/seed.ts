// Fills a PostgreSQL database of its own with a year of a large service's history, for
// bench/growth.ts: sessions across projects, their checks, review images, webhook events and
// attempts, accounts, and one project's register of enrolled faces.
//   npm run bench:seed -- --sessions 10000                    (the small run: verity_growth_10k)
//   nice -n 10 npm run bench:seed                              (10 million sessions: verity_growth_10m)
// Options: --server <postgres URL of the server> (GROWTH_SERVER_URL, default the loopback one),
// --database <name> (default from the size), --sessions, --projects (1,000), --attempts (3 a
// session), --accounts and --faces (one per 10 sessions), --data-dir (where the instance's
// encryption key and demo.json go; default $TMPDIR/verity-growth-<database>); --only charges adds
// the charges to a database seeded before they were.
//
// The database is dropped and created again, the service starts once on it (its migrations, its
// signing keys, the demo tenant: the project the bench asks as), then rows go in with set-based
// SQL (generate_series, INSERT ... SELECT) while the big tables' indexes and constraints are set
// aside; they are rebuilt from their own definitions afterwards, which is several times faster
// than maintaining a dozen indexes row by row. Sealed columns hold values sealed with the
// instance's key in the shapes the service writes (a few of each, repeated); face descriptors
// are sealed one by one, as enrolment stores them.
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { buildService } from '../src/main.js';
import { addCharges, seedHistory } from './growth-data.js';

const { values: args } = parseArgs({
  options: {
    server: {
      type: 'string',
      default: process.env.GROWTH_SERVER_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres',
    },
    database: { type: 'string' },
    sessions: { type: 'string', default: '10000000' },
    projects: { type: 'string', default: '1000' },
    attempts: { type: 'string' },
    accounts: { type: 'string' },
    faces: { type: 'string' },
    'data-dir': { type: 'string' },
    /** `charges`: add the charges to a database seeded before they were, and nothing else. */
    only: { type: 'string' },
  },
});

/** A whole number option, at least `min`; anything else stops the run with the option's name. */
function count(name: string, value: string | undefined, fallback: number, min = 0): number {
  const n = value === undefined ? fallback : Number(value.replace(/_/g, ''));
  if (!Number.isInteger(n) || n < min)
    throw new Error(`--${name} must be a whole number of at least ${min}, not ${value}`);
  return n;
}

const sessions = count('sessions', args.sessions, 10_000_000, 1);
const projects = Math.min(count('projects', args.projects, 1000, 1), sessions);
const attempts = count('attempts', args.attempts, 3 * sessions);
const accounts = count('accounts', args.accounts, Math.ceil(sessions / 10));
const faces = count('faces', args.faces, Math.ceil(sessions / 10));

/** 10000 -> 10k, 10000000 -> 10m: the default database's suffix. */
const sizeName = (n: number) =>
  n % 1_000_000 === 0 ? `${n / 1_000_000}m` : n % 1000 === 0 ? `${n / 1000}k` : String(n);
const databaseName = args.database ?? `verity_growth_${sizeName(sessions)}`;

/** Only a database of our own: never the test database, the server's own, or a template. */
export function checkGrowthDatabaseName(name: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name))
    throw new Error(`--database must be a plain lower-case name, not ${JSON.stringify(name)}`);
  if (['test', 'postgres', 'template0', 'template1'].includes(name) || !name.startsWith('verity_growth')) {
    throw new Error(
      `--database ${name}: the seed drops and refills its database, so it only takes a name starting with verity_growth`,
    );
  }
  return name;
}

/** Drops and creates the database on the server; returns its URL. */
async function recreateDatabase(serverUrl: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** What the service itself makes on a first start: schema, keys, the demo tenant (written to demo.json). */
async function startOnce(databaseUrl: string, dataDir: string) {
  const config = loadConfig(
    {},
    { dataDir, databaseUrl, logLevel: 'silent', warmModels: false, seedLicenses: false, runJobs: false },
  );
  const service = await buildService(config, { logger: pino({ level: 'silent' }) });
  try {
    if (!service.demo) throw new Error('the demo tenant was not seeded on the fresh database');
    await writeFile(path.join(dataDir, 'demo.json'), `${JSON.stringify(service.demo, null, 2)}\n`, { mode: 0o600 });
    return { demo: service.demo, sealer: service.core.sealer };
  } finally {
    await service.close();
  }
}

const log = (message: string) => console.log(`${new Date().toISOString().slice(11, 19)} ${message}`);
const serverUrl = new URL(args.server!);
serverUrl.pathname = `/${checkGrowthDatabaseName(databaseName)}`;
if (args.only !== undefined && args.only !== 'charges') throw new Error(`--only takes charges, not ${args.only}`);
const databaseUrl = args.only ? serverUrl.toString() : await recreateDatabase(args.server!, databaseName);
const dataDir = args['data-dir'] ?? path.join(os.tmpdir(), `verity-growth-${databaseName}`);
await mkdir(dataDir, { recursive: true, mode: 0o700 });
const started = Date.now();
const db = new pg.Client({ connectionString: databaseUrl });
if (args.only) {
  await db.connect();
  await addCharges(db, log).finally(() => db.end());
} else {
  log(
    `seeding ${databaseName}: ${sessions} sessions over ${projects} projects, ${attempts} webhook attempts, ${accounts} accounts, ${faces} faces; data dir ${dataDir}`,
  );
  const startedOnce = Date.now();
  const { demo, sealer } = await startOnce(databaseUrl, dataDir);
  log(`service started once (migrations, keys, demo tenant) (${((Date.now() - startedOnce) / 1000).toFixed(1)} s)`);
  await db.connect();
  try {
    await seedHistory(db, { sessions, projects, attempts, accounts, faces }, demo, sealer, log);
    const { rows } = await db.query(
      `select (select count(*) from verification_session) as sessions, (select count(*) from webhook_event) as events, (select count(*) from webhook_attempt) as attempts,
         (select count(*) from account) as accounts, (select count(*) from face_enrollment) as faces, (select count(*) from session_evidence) as images,
         pg_size_pretty(pg_database_size(current_database())) as size`,
    );
    log(`done in ${((Date.now() - started) / 60_000).toFixed(1)} min: ${JSON.stringify(rows[0])}`);
  } finally {
    await db.end();
  }
}
