// Face uniqueness search time at 10k, 100k and 1M enrolled descriptors in one project, through
// FaceIndex (the code behind POST /api/v2/face-uniqueness without the model and HTTP time, which
// bench/faces.ts measures), on PostgreSQL or the embedded PGlite.
//   npm run bench:face-uniqueness
//   BENCH_POSTGRES=postgresql://postgres@127.0.0.1:5432/postgres  (a fresh database there, dropped after;
//   without it: the embedded PGlite)  BENCH_SIZES=10000,100000,1000000  BENCH_SEARCHES=200
//
// Setup inserts sealed synthetic descriptors with plain SQL (batches of 5,000), as enrolment
// would store them. For each size a new FaceIndex (a freshly started instance) opens the register
// on its first search (timed apart), then the searches are timed. The register's memory is what
// a full garbage collection frees when that instance is dropped (heap: ids; buffers: descriptors),
// beside the whole process's RSS.
//
// Descriptors are synthetic 512-d unit vectors: a person is the unit vector of 0.41 x a direction
// common to all faces plus a random part whose variance falls off over about 72 effective
// dimensions (turned by a fixed random rotation, so that every value has the same spread); a
// photo is the unit vector of its person plus noise. Two photos of one person then have a cosine
// of about 0.70, photos of different people 0.10 on average with a standard deviation of 0.08
// (measured and printed at the start). Half the searches are a new photo of an enrolled person
// (must be found), half are people never enrolled, matched only where face match itself would
// call an enrolled face the same person (cosine >= MATCH_COSINE); on these descriptors that is
// rare: the highest of 100 strangers against 200,000 faces was 0.48.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { FaceIndex } from '../src/core/faces/face-index.js';
import {
  DESCRIPTOR_DIMENSIONS,
  FACE_DESCRIPTOR_KIND,
  faceCosine,
  MATCH_COSINE,
  MATCH_DISTANCE,
} from '../src/ml/faces/match.js';
import { newId, Sealer } from '../src/core/secrets.js';
import { buildService } from '../src/main.js';
import { freshDatabase, percentile } from '../test/helpers/processes.js';

const sizes = (process.env.BENCH_SIZES ?? '10000,100000,1000000').split(',').map(Number);
const searches = Number(process.env.BENCH_SEARCHES ?? 200);
const D = DESCRIPTOR_DIMENSIONS;
/** Weight of the common direction in a person: impostor cosines average 0.10 once photo noise is added. */
const COMMON = 0.41;
/**
 * The random part's variance falls as exp(-i / SPREAD) over its dimensions: about 2 x SPREAD effective dimensions,
 * impostor cosines' sd 0.08.
 */
const SPREAD = 36;
/** Length of a photo's noise against its unit person: two photos' cosine is about 1 / (1 + PHOTO_NOISE^2) = 0.70. */
const PHOTO_NOISE = Math.sqrt(1 / 0.7 - 1);
const BATCH = 5000;
if ((D & (D - 1)) !== 0) throw new Error('the rotation here needs a power-of-two descriptor size');

// xoshiro128**: a million faces draw about 2^30 numbers, where a 32-bit LCG's sequence starts
// to repeat itself shifted.
const state = Uint32Array.of(0x9e3779b9, 0x243f6a88, 0xb7e15162, 12345);
const rotl = (x: number, k: number) => (x << k) | (x >>> (32 - k));
const uniform = () => {
  const [s0, s1, s2, s3] = [state[0]!, state[1]!, state[2]!, state[3]!];
  const result = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
  state[2] = s2 ^ s0;
  state[3] = s3 ^ s1;
  state[1] = s1 ^ s2 ^ s0;
  state[0] = s0 ^ s3 ^ s1;
  state[2] = state[2]! ^ (s1 << 9);
  state[3] = rotl(state[3]!, 11);
  return (result + 0.5) / 2 ** 32;
};
let spare: number | null = null;
const gauss = () => {
  if (spare !== null) {
    const value = spare;
    spare = null;
    return value;
  }
  const radius = Math.sqrt(-2 * Math.log(uniform()));
  const angle = 2 * Math.PI * uniform();
  spare = radius * Math.sin(angle);
  return radius * Math.cos(angle);
};
const unit = (v: Float64Array) => {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum);
  return Float32Array.from(v, (x) => x / norm);
};
const spread = Float64Array.from({ length: D }, (_, i) => Math.exp(-i / SPREAD / 2));
const common = unit(Float64Array.from({ length: D }, gauss));
const signs = Float64Array.from({ length: D }, () => (uniform() < 0.5 ? -1 : 1));
/** A fixed rotation (random signs, then a Walsh-Hadamard transform; lengths scale by sqrt(D), undone by `unit`). */
const rotate = (v: Float64Array) => {
  for (let i = 0; i < D; i++) v[i]! *= signs[i]!;
  for (let h = 1; h < D; h *= 2) {
    for (let i = 0; i < D; i += 2 * h) {
      for (let j = i; j < i + h; j++) {
        const [a, b] = [v[j]!, v[j + h]!];
        v[j] = a + b;
        v[j + h] = a - b;
      }
    }
  }
  return v;
};
const spreadNorm = Math.sqrt(spread.reduce((sum, s) => sum + s * s, 0));
const person = () =>
  unit(rotate(Float64Array.from({ length: D }, (_, i) => COMMON * common[i]! + (spread[i]! / spreadNorm) * gauss())));
const photo = (center: Float32Array) =>
  unit(Float64Array.from(center, (c) => c + (PHOTO_NOISE / Math.sqrt(D)) * gauss()));
const base64 = (d: Float32Array) => Buffer.from(d.buffer, d.byteOffset, d.byteLength).toString('base64');
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
/** Memory use after collections with pauses between (buffers are freed after the collection that finds them dead). */
const settled = async () => {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return process.memoryUsage();
};

{
  const same: number[] = [];
  const different: number[] = [];
  for (let i = 0; i < 5000; i++) {
    const p = person();
    same.push(faceCosine(photo(p), photo(p)));
    different.push(faceCosine(photo(p), photo(person())));
  }
  same.sort((a, b) => a - b);
  const mean = different.reduce((sum, c) => sum + c, 0) / different.length;
  const sd = Math.sqrt(different.reduce((sum, c) => sum + (c - mean) ** 2, 0) / different.length);
  console.log(
    `synthetic ${D}-d descriptors: two photos of one person cosine median ${percentile(same, 50).toFixed(2)} (lowest ${same[0]!.toFixed(2)} of ${same.length}); ` +
      `different people mean ${mean.toFixed(2)}, sd ${sd.toFixed(2)}, highest ${Math.max(...different).toFixed(2)} of ${different.length}; same person at cosine >= ${MATCH_COSINE} (distance <= ${MATCH_DISTANCE.toFixed(3)})`,
  );
}

const database = process.env.BENCH_POSTGRES
  ? await freshDatabase(process.env.BENCH_POSTGRES, 'verity_bench_uniq')
  : null;
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'verity-bench-uniq-'));
const config = loadConfig(
  {},
  {
    dataDir,
    encryptionKey: Sealer.generateKey(),
    logLevel: 'silent',
    warmModels: false,
    seedLicenses: false,
    runJobs: false,
    databaseUrl: database?.url ?? '',
  },
);
const service = await buildService(config, { logger: pino({ level: 'silent' }) });
const { orm, sealer } = service.core;
const projectId = service.demo!.project_id;
/** The live uniqueness register (rows inserted below take the column's default: live). */
const register = { projectId, purpose: 'uniqueness', livemode: true } as const;
const em = orm.em.fork();
console.log(
  `store: ${service.store.embedded ? 'embedded PGlite' : 'PostgreSQL'}; exact search over the register held in memory`,
);

// One person in 16 of the register is kept for the "new photo of an enrolled person" probes.
const enrolledPeople: Float32Array[] = [];
let enrolled = 0;
// Dropped after each size, to measure what its register held; kept in an object, not a local:
// an optimised frame drops a local that is only set to null afterwards, an interpreted one may
// keep a stale copy.
const instance: { index: FaceIndex | null } = { index: null };
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

    instance.index = new FaceIndex({ orm, clock: service.core.clock, sealer });
    const openStarted = performance.now();
    await instance.index.search(register, person());
    const openMs = performance.now() - openStarted;

    const times: number[] = [];
    let found = 0;
    let falseMatches = 0;
    for (let i = 0; i < searches; i++) {
      const known = i % 2 === 0;
      const probe = photo(known ? enrolledPeople[Math.floor(uniform() * enrolledPeople.length)]! : person());
      const t = performance.now();
      const { matches } = await instance.index.search(register, probe);
      times.push(performance.now() - t);
      if (known && matches.length) found++;
      if (!known && matches.length) falseMatches++;
    }
    times.sort((a, b) => a - b);
    // The register's memory: what full garbage collections free once the instance is dropped.
    const held = await settled();
    instance.index = null;
    const freed = await settled();
    const heap = held.heapUsed - freed.heapUsed;
    const buffers = held.arrayBuffers - freed.arrayBuffers;
    console.log(
      `${size} enrolled (SQL insert ${seconds(setupMs)}; a new instance opens the register on its first search in ${seconds(openMs)}; ` +
        `the opened register takes ${mb(heap + buffers)} (heap ${mb(heap)}, buffers ${mb(buffers)}: ${Math.round((heap + buffers) / size)} bytes a face), process RSS ${mb(held.rss)}): ` +
        `search p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms over ${searches}; ` +
        `enrolled people found ${found}/${searches / 2}; strangers matched ${falseMatches}/${searches / 2}`,
    );
  }
} finally {
  await service.close();
  await database?.drop();
  await rm(dataDir, { recursive: true, force: true });
}
