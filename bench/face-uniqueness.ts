// Face uniqueness search time at 10k and 100k enrolled descriptors in one project, on the
// embedded PGlite (or BENCH_DATABASE_URL's PostgreSQL), through core.faceIndex (the code behind
// POST /api/v2/face-uniqueness without the model and HTTP time, which bench/faces.ts measures).
//   node --import @swc-node/register/esm-register bench/face-uniqueness.ts
//   BENCH_SIZES=10000,100000 BENCH_SEARCHES=100
//
// Descriptors are synthetic but shaped like face-api's on the shared photos: the common mean
// plus a per-person offset (different people ~0.82 apart, their median there) plus per-photo
// noise (two photos of one person ~0.47 apart, their median there). Half the searches are a new
// photo of an enrolled person (must be found), half are people never enrolled.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { DESCRIPTOR_MEAN, LSH } from '../src/core/faces/face-index.js';
import { Sealer } from '../src/core/secrets.js';
import { buildService } from '../src/main.js';
import { percentile } from '../test/helpers/processes.js';

const sizes = (process.env.BENCH_SIZES ?? '10000,100000').split(',').map(Number);
const searches = Number(process.env.BENCH_SEARCHES ?? 100);
const PERSON_SPREAD = 0.82 / 16; // |a - b| ~ sqrt(2 * 128) * sigma
const PHOTO_NOISE = 0.47 / 16;

let seed = 12345;
const uniform = () => {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return (seed + 0.5) / 2 ** 32;
};
const gauss = () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
const person = () => Float32Array.from(DESCRIPTOR_MEAN, (m) => m + PERSON_SPREAD * gauss());
const photo = (center: Float32Array) => Float32Array.from(center, (c) => c + PHOTO_NOISE * gauss());

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'verity-bench-uniq-'));
const config = loadConfig({}, { dataDir, encryptionKey: Sealer.generateKey(), logLevel: 'silent', warmModels: false, seedLicenses: false, runJobs: false, databaseUrl: process.env.BENCH_DATABASE_URL ?? '' });
const service = await buildService(config, { logger: pino({ level: 'silent' }) });
const projectId = service.demo!.project_id;
const index = service.core.faceIndex;
console.log(`store: ${service.store.embedded ? 'embedded PGlite' : 'PostgreSQL'}; LSH ${LSH.tables} tables x ${LSH.bits} bits, multi-probe 1 bit`);

const centers: Float32Array[] = [];
try {
  for (const size of sizes) {
    const started = performance.now();
    while (centers.length < size) {
      const batch = Array.from({ length: Math.min(1000, size - centers.length) }, person);
      await index.enroll(projectId, 'uniqueness', batch.map((center) => ({ descriptor: photo(center) })));
      centers.push(...batch);
    }
    const enrolMs = performance.now() - started;
    // Planner statistics, as autovacuum keeps them on a server (PGlite runs no autovacuum).
    await service.core.orm.em.getConnection().execute('analyze face_enrollment');
    const times: number[] = [];
    const candidates: number[] = [];
    let found = 0;
    let falseMatches = 0;
    for (let i = 0; i < searches; i++) {
      const known = i % 2 === 0;
      const probe = photo(known ? centers[Math.floor(uniform() * centers.length)]! : person());
      const t = performance.now();
      const result = await index.search(projectId, 'uniqueness', probe);
      times.push(performance.now() - t);
      candidates.push(result.candidates);
      if (known && result.matches.length) found++;
      if (!known && result.matches.length) falseMatches++;
    }
    times.sort((a, b) => a - b);
    candidates.sort((a, b) => a - b);
    console.log(
      `${size} enrolled (enrolment of the batch ${(enrolMs / 1000).toFixed(1)} s): search p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms; ` +
        `candidates compared p50 ${percentile(candidates, 50)} p95 ${percentile(candidates, 95)}; enrolled people found ${found}/${searches / 2}; strangers matched ${falseMatches}/${searches / 2}`,
    );
  }
} finally {
  await service.close();
  await rm(dataDir, { recursive: true, force: true });
}
