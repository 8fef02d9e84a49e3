// Face model evaluation over the shared labelled sets (never copied into the repo).
// Run: npm run eval:faces   (node --import @swc-node/register/esm-register scripts/eval-faces.ts)
// Prints, for every PAIRS.csv under the data folder: pair accuracy, true-accept and false-accept
// rates at the default threshold, the equal error rate, the pairs decided wrong, distance
// distributions, detection failures and timings (the figures calibrate src/ml/faces/match.ts);
// how stable the /antispoof/identity face ids are (same person -> same id), and what the
// uniqueness search (src/core/faces/face-index.ts) finds for the set's pairs.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import sharp from 'sharp';
import { fileURLToPath } from 'node:url';
import { decodeImage } from '../src/ml/image.js';
import { DEFAULT_FACE_MATCH_THRESHOLD, faceSimilarity, faceDistance, MATCH_DISTANCE } from '../src/ml/faces/index.js';
import { loadFaceModels } from '../src/ml/inference/index.js';
import { DescriptorTable } from '../src/core/faces/face-index.js';

const DATA = process.env.VERITY_EVAL_DATA ?? fileURLToPath(new URL('../../shared/data/', import.meta.url));
if (!existsSync(DATA)) {
  console.log(`no evaluation data at ${DATA}; nothing to do`);
  process.exit(0);
}
const SETS = readdirSync(DATA)
  .filter((dir) => existsSync(`${DATA}/${dir}/PAIRS.csv`))
  .sort();

function csv(path: string): string[][] {
  return readFileSync(path, 'utf8')
    .trim()
    .split(/\r?\n/)
    .slice(1)
    .map((line) => line.split(',').map((c) => c.replace(/^"|"$/g, '')));
}
const q = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * (s.length - 1) + 0.5))]! : NaN;
};
const f3 = (x: number): string => x.toFixed(3);

const t0 = Date.now();
const models = await loadFaceModels();
console.log(`backend ${models.backend}; models loaded in ${Date.now() - t0} ms`);

// As a face match describes its images: the quick way first for a plainly upright face (quick.ts);
// EVAL_FULL_DETECTOR=1 describes every image the full way (SSD), for a side-by-side comparison.
const quick = process.env.EVAL_FULL_DETECTOR !== '1';
console.log(
  quick
    ? 'describing as a face match does: the quick way first (tiny detector), the full way (SSD) otherwise'
    : 'describing the full way only (SSD)',
);
const upright = new Map<string, Float32Array | null>(); // every pair set's descriptors, for the turned check

for (const set of SETS) {
  const dir = `${DATA}/${set}`;
  const pairs = csv(`${dir}/PAIRS.csv`).map(([a, b, same]) => ({ a: a!, b: b!, same: same === 'Yes' }));
  const files = [...new Set(pairs.flatMap((p) => [p.a, p.b]))];
  const descriptors = new Map<string, Float32Array | null>();
  const times: number[] = [];
  const failures: string[] = [];
  for (const file of files) {
    const image = await decodeImage(readFileSync(`${dir}/${file}`));
    const start = performance.now();
    const face = await models.describeLargestFace(image, { quick });
    times.push(performance.now() - start);
    descriptors.set(file, face?.descriptor ?? null);
    upright.set(`${set}/${file}`, face?.descriptor ?? null);
    if (!face) failures.push(file);
  }
  let correct = 0;
  let falseAccept = 0;
  let falseReject = 0;
  let skipped = 0;
  const same: number[] = [];
  const diff: number[] = [];
  const wrong: string[] = [];
  for (const p of pairs) {
    const a = descriptors.get(p.a);
    const b = descriptors.get(p.b);
    if (!a || !b) {
      skipped++;
      if (p.same) falseReject++; // no face = no match: counts against the pair
      continue;
    }
    const d = faceDistance(a, b);
    (p.same ? same : diff).push(d);
    const match = faceSimilarity(a, b) >= DEFAULT_FACE_MATCH_THRESHOLD;
    if (match === p.same) correct++;
    else {
      if (match) falseAccept++;
      else falseReject++;
      wrong.push(`${p.a}~${p.b} ${p.same ? 'same' : 'diff'} d=${f3(d)}`);
    }
  }
  const dist = (xs: number[]): string =>
    `n=${xs.length} min ${f3(q(xs, 0))} p5 ${f3(q(xs, 0.05))} median ${f3(q(xs, 0.5))} p95 ${f3(q(xs, 0.95))} max ${f3(q(xs, 1))}`;
  console.log(
    `\n== ${set}: ${files.length} images, ${pairs.length} pairs (${pairs.filter((p) => p.same).length} same)`,
  );
  console.log(
    `accuracy at threshold ${DEFAULT_FACE_MATCH_THRESHOLD} (distance ${MATCH_DISTANCE}): ${correct}/${pairs.length} = ${((100 * correct) / pairs.length).toFixed(1)}%`,
  );
  console.log(
    `false accepts ${falseAccept}, false rejects ${falseReject} (of which ${skipped} pairs had an image without a face)`,
  );
  const sameCount = pairs.filter((p) => p.same).length;
  const diffCount = pairs.length - sameCount;
  console.log(
    `TAR ${((100 * (sameCount - falseReject)) / Math.max(1, sameCount)).toFixed(1)}% (${sameCount - falseReject}/${sameCount}), FAR ${((100 * falseAccept) / Math.max(1, diffCount)).toFixed(2)}% (${falseAccept}/${diffCount}) at similarity ${DEFAULT_FACE_MATCH_THRESHOLD}; EER ${(100 * equalErrorRate(same, diff)).toFixed(1)}%`,
  );
  console.log(`detection failures: ${failures.length}${failures.length ? ` (${failures.join(', ')})` : ''}`);
  console.log(`distance same:      ${dist(same)}`);
  console.log(`distance different: ${dist(diff)}`);
  console.log(
    `describeLargestFace ms: median ${q(times, 0.5).toFixed(0)} p95 ${q(times, 0.95).toFixed(0)} max ${q(times, 1).toFixed(0)}`,
  );
  // Best single distance cut on this set, to see how much room the shared threshold leaves.
  const cuts = [...same, ...diff].sort((x, y) => x - y);
  let best = { cut: 0, ok: -1 };
  for (const cut of cuts) {
    const ok = same.filter((d) => d <= cut).length + diff.filter((d) => d > cut).length;
    if (ok > best.ok) best = { cut, ok };
  }
  console.log(`best distance cut on this set: ${f3(best.cut)} (${best.ok}/${same.length + diff.length})`);
  if (wrong.length) console.log(`wrong pairs:\n  ${wrong.slice(0, 30).join('\n  ')}`);
  identityStability(set, descriptors);
  uniquenessRecall(pairs, descriptors);
}

/**
 * The uniqueness search replayed on the set's pairs (its in-memory table, as the service holds
 * it): with every face of the set enrolled, does searching with one photo of a pair find the
 * other? Same-person pairs count when found both ways; different people must never be found.
 * Exact search at MATCH_DISTANCE would find the same-person pairs within that distance.
 */
function uniquenessRecall(
  pairs: { a: string; b: string; same: boolean }[],
  descriptors: Map<string, Float32Array | null>,
): void {
  const table = new DescriptorTable();
  for (const [file, descriptor] of descriptors) if (descriptor) table.add(file, descriptor);
  const finds = (probe: string, enrolled: string) =>
    table.within(descriptors.get(probe)!, MATCH_DISTANCE).some((m) => m.id === enrolled);
  const scored = pairs.filter((p) => descriptors.get(p.a) && descriptors.get(p.b));
  const same = scored.filter((p) => p.same);
  const withinDistance = same.filter(
    (p) => faceDistance(descriptors.get(p.a)!, descriptors.get(p.b)!) <= MATCH_DISTANCE,
  ).length;
  const found = same.filter((p) => finds(p.a, p.b) && finds(p.b, p.a)).length;
  const falseMatches = scored.filter((p) => !p.same && (finds(p.a, p.b) || finds(p.b, p.a))).length;
  console.log(
    `uniqueness search: same person found ${found}/${same.length} same-person pairs (exact search at distance ${MATCH_DISTANCE}: ${withinDistance}); different people found ${falseMatches}/${scored.length - same.length}`,
  );
}

/** Where false rejects (same pairs above the cut) equal false accepts (different pairs at or below it). */
function equalErrorRate(same: number[], diff: number[]): number {
  let best = { gap: Infinity, rate: 1 };
  for (const cut of [...same, ...diff, 0, 2]) {
    const frr = same.filter((d) => d > cut).length / Math.max(1, same.length);
    const far = diff.filter((d) => d <= cut).length / Math.max(1, diff.length);
    if (Math.abs(frr - far) < best.gap) best = { gap: Math.abs(frr - far), rate: (frr + far) / 2 };
  }
  return best.rate;
}

/**
 * The /antispoof/identity rule replayed on the set's labelled single-face images, in file order:
 * a face joins the nearest identity (its first face) within MATCH_DISTANCE, else starts a new one.
 */
function identityStability(set: string, descriptors: Map<string, Float32Array | null>): void {
  const labels = existsSync(`${DATA}/${set}/LABELS.csv`) ? csv(`${DATA}/${set}/LABELS.csv`) : [];
  const people = labels
    .map(([file, identity]) => ({
      file: file!,
      identity: (identity ?? '').replace(/"/g, ''),
      descriptor: descriptors.get(file!),
    }))
    .filter((p): p is { file: string; identity: string; descriptor: Float32Array } =>
      Boolean(p.identity && p.descriptor),
    );
  if (people.length < 2) return;
  const clusters: Float32Array[] = [];
  const ids = people.map((p) => {
    let best = { id: -1, d: Infinity };
    clusters.forEach((c, id) => {
      const d = faceDistance(c, p.descriptor);
      if (d < best.d) best = { id, d };
    });
    if (best.d <= MATCH_DISTANCE) return best.id;
    clusters.push(p.descriptor);
    return clusters.length - 1;
  });
  let samePairs = 0,
    sameId = 0,
    diffPairs = 0,
    collide = 0;
  for (let i = 0; i < people.length; i++) {
    for (let j = i + 1; j < people.length; j++) {
      if (people[i]!.identity === people[j]!.identity) {
        samePairs++;
        if (ids[i] === ids[j]) sameId++;
      } else {
        diffPairs++;
        if (ids[i] === ids[j]) collide++;
      }
    }
  }
  const perPerson = new Map<string, Set<number>>();
  for (const [i, p] of people.entries())
    (perPerson.get(p.identity) ?? perPerson.set(p.identity, new Set()).get(p.identity)!).add(ids[i]!);
  console.log(
    `identity ids: ${people.length} faces of ${perPerson.size} people got ${clusters.length} ids; same person same id ${sameId}/${samePairs} pairs (${((100 * sameId) / samePairs).toFixed(1)}%), different people sharing an id ${collide}/${diffPairs} (${((100 * collide) / diffPairs).toFixed(2)}%); ids per person: ${[...perPerson].map(([who, set]) => `${who} ${set.size}`).join(', ')}`,
  );
}

// Every pair-set image turned 90, 180 and 270 degrees (in memory, no EXIF tag) must still give the same person.
for (const degrees of [90, 180, 270]) {
  console.log(`\n== the pair sets turned ${degrees} degrees clockwise (no EXIF tag)`);
  let found = 0;
  let matched = 0;
  const distances: number[] = [];
  const misses: string[] = [];
  for (const [file, reference] of upright) {
    if (!reference) continue;
    const bytes = await sharp(readFileSync(`${DATA}/${file}`))
      .autoOrient()
      .rotate(degrees)
      .jpeg({ quality: 92 })
      .toBuffer();
    const face = await models.describeLargestFace(await decodeImage(bytes), { quick });
    if (!face) {
      misses.push(`${file} no face`);
      continue;
    }
    found++;
    distances.push(faceDistance(face.descriptor, reference));
    if (faceSimilarity(face.descriptor, reference) >= DEFAULT_FACE_MATCH_THRESHOLD) matched++;
    else misses.push(`${file} d=${f3(faceDistance(face.descriptor, reference))} roll ${face.rollDegrees.toFixed(0)}`);
  }
  console.log(
    `found ${found}/${upright.size}, matched to the upright copy ${matched}/${upright.size}, distance median ${f3(q(distances, 0.5))} max ${f3(q(distances, 1))}`,
  );
  if (misses.length) console.log(`  not matched: ${misses.join('; ')}`);
}

// Detection on images that must have no face, and on multi-face and EXIF-rotated images.
const negDir = `${DATA}/no-face-negatives`;
console.log('\n== no-face-negatives');
let falsePositives = 0;
for (const [file] of csv(`${negDir}/LABELS.csv`)) {
  const image = await decodeImage(readFileSync(`${negDir}/${file}`));
  const start = performance.now();
  const faces = await models.detectFaces(image);
  const ms = performance.now() - start;
  const described = await models.describeLargestFace(image, { quick }); // as a face match would
  if (faces.length || described) falsePositives++;
  console.log(
    `${file}: ${faces.length} faces${faces.length ? ` (scores ${faces.map((f) => f3(f.score)).join(', ')})` : ''}${described ? ', one described' : ''} ${ms.toFixed(0)} ms`,
  );
}
console.log(`images with a false face: ${falsePositives}`);

console.log('\n== multi-face and rotated');
const extra = [
  'faceapi-bbt-identities/group_bbt4.jpg',
  'faceapi-bbt-identities/group_bbt1.jpg',
  'face_recognition-obama-biden/knn_test_obama_and_biden.jpg',
  'face_recognition-obama-biden/two_people.jpg',
  'face_recognition-obama-biden/knn_test_kit_with_rose.jpg',
  'liveness-samples/live_image_T1.jpg',
  'liveness-samples/spoof_print_image_F1.jpg',
  'liveness-samples/spoof_screen_tablet_image_F2.jpg',
];
for (const file of extra) {
  if (!existsSync(`${DATA}/${file}`)) continue;
  const image = await decodeImage(readFileSync(`${DATA}/${file}`));
  const start = performance.now();
  const faces = await models.detectFaces(image);
  console.log(
    `${file}: ${faces.length} faces, widths ${faces.map((f) => f.box.width.toFixed(0)).join(' ')}, roll ${faces.map((f) => f.rollDegrees.toFixed(0)).join(' ')} (${(performance.now() - start).toFixed(0)} ms)`,
  );
}
await models.close();
