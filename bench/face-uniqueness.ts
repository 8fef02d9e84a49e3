// Face uniqueness search time at 10k, 100k and 1M enrolled descriptors in one project, through
// FaceIndex (the code behind POST /api/v2/face-uniqueness without the model and HTTP time, which
// bench/faces.ts measures), on PostgreSQL or the embedded PGlite.
//   npm run bench:face-uniqueness
//   BENCH_POSTGRES=postgresql://postgres@127.0.0.1:5432/postgres  (a fresh database there, dropped after;
//   without it: the embedded PGlite)  BENCH_SIZES=10000,100000,1000000  BENCH_SEARCHES=200
//
// Setup inserts sealed synthetic descriptors with plain SQL (batches of 5,000), as enrolment
// would store them. For each size a new FaceIndex (a freshly started instance) opens the register
// on its first search (timed apart), then the searches are timed.
//
// Descriptors are synthetic but shaped like face-api's on the shared photos: the common mean
// plus a per-person offset (different people ~0.82 apart, their median there) plus per-photo
// noise (two photos of one person ~0.47 apart, their median there). Half the searches are a new
// photo of an enrolled person (must be found), half are people never enrolled (must not be).
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { DESCRIPTOR_MEAN, FaceIndex } from '../src/core/faces/face-index.js';
import { FACE_DESCRIPTOR_KIND } from '../src/ml/faces/match.js';
import { newId, Sealer } from '../src/core/secrets.js';
import { buildService } from '../src/main.js';
import { freshDatabase, percentile } from '../test/helpers/processes.js';

const sizes = (process.env.BENCH_SIZES ?? '10000,100000,1000000').split(',').map(Number);
const searches = Number(process.env.BENCH_SEARCHES ?? 200);
const PERSON_SPREAD = 0.82 / 16; // |a - b| ~ sqrt(2 * 128) * sigma
const PHOTO_NOISE = 0.47 / 16;
const BATCH = 5000;

let seed = 12345;
const uniform = () => {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return (seed + 0.5) / 2 ** 32;
};
const gauss = () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
const person = () => Float32Array.from(DESCRIPTOR_MEAN, (m) => m + PERSON_SPREAD * gauss());
const photo = (center: Float32Array) => Float32Array.from(center, (c) => c + PHOTO_NOISE * gauss());
const base64 = (d: Float32Array) => Buffer.from(d.buffer, d.byteOffset, d.byteLength).toString('base64');
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const database = process.env.BENCH_POSTGRES ? await freshDatabase(process.env.BENCH_POSTGRES, 'verity_bench_uniq') : null;
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'verity-bench-uniq-'));
const config = loadConfig({}, { dataDir, encryptionKey: Sealer.generateKey(), logLevel: 'silent', warmModels: false, seedLicenses: false, runJobs: false, databaseUrl: database?.url ?? '' });
const service = await buildService(config, { logger: pino({ level: 'silent' }) });
const { orm, sealer } = service.core;
const projectId = service.demo!.project_id;
const em = orm.em.fork();
console.log(`store: ${service.store.embedded ? 'embedded PGlite' : 'PostgreSQL'}; exact search over the register held in memory`);

// One person in 16 of the register is kept for the "new photo of an enrolled person" probes.
const enrolledPeople: Float32Array[] = [];
let enrolled = 0;
try {
  for (const size of sizes) {
    const started = performance.now();
    while (enrolled < size) {
      const n = Math.min(BATCH, size - enrolled);
      const ids: string[] = [];
      const sealed: string[] = [];
      for (let i = 0; i < n; i++) {
        const center = person();
        if ((enrolled + i) % 16 === 0) enrolledPeople.push(center);
        ids.push(newId('fce'));
        sealed.push(sealer.seal(base64(photo(center))));
      }
      await em.execute(
        `insert into face_enrollment (id, project_id, purpose, reference, descriptor_sealed, descriptor_kind, created_at)
         select id, ?, 'uniqueness', null, sealed, '${FACE_DESCRIPTOR_KIND}', now() from unnest(?::text[], ?::text[]) as t(id, sealed)`,
        [projectId, `{${ids.join(',')}}`, `{${sealed.join(',')}}`],
      );
      enrolled += n;
    }
    const setupMs = performance.now() - started;
    await em.execute('analyze face_enrollment');

    const index = new FaceIndex({ orm, clock: service.core.clock, sealer });
    const openStarted = performance.now();
    await index.search(projectId, 'uniqueness', person());
    const openMs = performance.now() - openStarted;

    const times: number[] = [];
    let found = 0;
    let falseMatches = 0;
    for (let i = 0; i < searches; i++) {
      const known = i % 2 === 0;
      const probe = photo(known ? enrolledPeople[Math.floor(uniform() * enrolledPeople.length)]! : person());
      const t = performance.now();
      const { matches } = await index.search(projectId, 'uniqueness', probe);
      times.push(performance.now() - t);
      if (known && matches.length) found++;
      if (!known && matches.length) falseMatches++;
    }
    times.sort((a, b) => a - b);
    console.log(
      `${size} enrolled (SQL insert ${seconds(setupMs)}; a new instance opens the register on its first search in ${seconds(openMs)}, ${((size * 512) / 2 ** 20).toFixed(0)} MB of descriptors in memory): ` +
        `search p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms over ${searches}; ` +
        `enrolled people found ${found}/${searches / 2}; strangers matched ${falseMatches}/${searches / 2}`,
    );
  }
} finally {
  await service.close();
  await database?.drop();
  await rm(dataDir, { recursive: true, force: true });
}
