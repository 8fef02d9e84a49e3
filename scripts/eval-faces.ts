// Face model evaluation over the shared labelled sets (never copied into the repo).
// Run: npm run eval:faces   (node --import @swc-node/register/esm-register scripts/eval-faces.ts)
// Prints pair accuracy at the default threshold, false accepts/rejects, distance distributions,
// detection failures and timings; the figures calibrate src/ml/faces/match.ts.
import { existsSync, readFileSync } from 'node:fs';
import sharp from 'sharp';
import { fileURLToPath } from 'node:url';
import { decodeImage } from '../src/ml/image.js';
import { DEFAULT_FACE_MATCH_THRESHOLD, faceSimilarity, faceDistance, loadFaceModels, MATCH_DISTANCE } from '../src/ml/faces/index.js';

const DATA = process.env.VERITY_EVAL_DATA ?? fileURLToPath(new URL('../../shared/data/', import.meta.url));
const SETS = ['faceapi-bbt-identities', 'face_recognition-obama-biden'];

if (!existsSync(DATA)) {
  console.log(`no evaluation data at ${DATA}; nothing to do`);
  process.exit(0);
}

function csv(path: string): string[][] {
  return readFileSync(path, 'utf8').trim().split(/\r?\n/).slice(1).map((line) => line.split(',').map((c) => c.replace(/^"|"$/g, '')));
}
const q = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * (s.length - 1) + 0.5))]! : NaN;
};
const f3 = (x: number): string => x.toFixed(3);

const t0 = Date.now();
const models = await loadFaceModels();
console.log(`backend ${models.backend}; models loaded in ${Date.now() - t0} ms`);

const upright = new Map<string, Float32Array | null>(); // obama-biden descriptors, for the turned check

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
    const face = await models.describeLargestFace(image);
    times.push(performance.now() - start);
    descriptors.set(file, face?.descriptor ?? null);
    if (set === SETS[1]) upright.set(file, face?.descriptor ?? null);
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
  const dist = (xs: number[]): string => `n=${xs.length} min ${f3(q(xs, 0))} p5 ${f3(q(xs, 0.05))} median ${f3(q(xs, 0.5))} p95 ${f3(q(xs, 0.95))} max ${f3(q(xs, 1))}`;
  console.log(`\n== ${set}: ${files.length} images, ${pairs.length} pairs (${pairs.filter((p) => p.same).length} same)`);
  console.log(`accuracy at threshold ${DEFAULT_FACE_MATCH_THRESHOLD} (distance ${MATCH_DISTANCE}): ${correct}/${pairs.length} = ${((100 * correct) / pairs.length).toFixed(1)}%`);
  console.log(`false accepts ${falseAccept}, false rejects ${falseReject} (of which ${skipped} pairs had an image without a face)`);
  console.log(`detection failures: ${failures.length}${failures.length ? ` (${failures.join(', ')})` : ''}`);
  console.log(`distance same:      ${dist(same)}`);
  console.log(`distance different: ${dist(diff)}`);
  console.log(`describeLargestFace ms: median ${q(times, 0.5).toFixed(0)} p95 ${q(times, 0.95).toFixed(0)} max ${q(times, 1).toFixed(0)}`);
  // Best single distance cut on this set, to see how much room the shared threshold leaves.
  const cuts = [...same, ...diff].sort((x, y) => x - y);
  let best = { cut: 0, ok: -1 };
  for (const cut of cuts) {
    const ok = same.filter((d) => d <= cut).length + diff.filter((d) => d > cut).length;
    if (ok > best.ok) best = { cut, ok };
  }
  console.log(`best distance cut on this set: ${f3(best.cut)} (${best.ok}/${same.length + diff.length})`);
  if (wrong.length) console.log(`wrong pairs:\n  ${wrong.slice(0, 30).join('\n  ')}`);
}

// Every obama-biden image turned 90 degrees (in memory) must still give the same person.
{
  console.log('\n== face_recognition-obama-biden turned 90 degrees clockwise (no EXIF tag)');
  let found = 0;
  let matched = 0;
  const distances: number[] = [];
  const misses: string[] = [];
  for (const [file, reference] of upright) {
    if (!reference) continue;
    const bytes = await sharp(readFileSync(`${DATA}/${SETS[1]}/${file}`)).autoOrient().rotate(90).jpeg({ quality: 92 }).toBuffer();
    const face = await models.describeLargestFace(await decodeImage(bytes));
    if (!face) continue;
    found++;
    distances.push(faceDistance(face.descriptor, reference));
    if (faceSimilarity(face.descriptor, reference) >= DEFAULT_FACE_MATCH_THRESHOLD) matched++;
    else misses.push(`${file} d=${f3(faceDistance(face.descriptor, reference))} roll ${face.rollDegrees.toFixed(0)}`);
  }
  console.log(`found ${found}/${upright.size}, matched to the upright copy ${matched}/${upright.size}, distance median ${f3(q(distances, 0.5))} max ${f3(q(distances, 1))}`);
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
  if (faces.length) falsePositives++;
  console.log(`${file}: ${faces.length} faces${faces.length ? ` (scores ${faces.map((f) => f3(f.score)).join(', ')})` : ''} ${ms.toFixed(0)} ms`);
}
console.log(`images with a false face: ${falsePositives}`);

console.log('\n== multi-face and rotated');
const extra = [
  'faceapi-bbt-identities/group_bbt4.jpg', 'faceapi-bbt-identities/group_bbt1.jpg', 'face_recognition-obama-biden/knn_test_obama_and_biden.jpg',
  'face_recognition-obama-biden/two_people.jpg', 'face_recognition-obama-biden/knn_test_kit_with_rose.jpg',
  'liveness-samples/live_image_T1.jpg', 'liveness-samples/spoof_print_image_F1.jpg', 'liveness-samples/spoof_screen_tablet_image_F2.jpg',
];
for (const file of extra) {
  if (!existsSync(`${DATA}/${file}`)) continue;
  const image = await decodeImage(readFileSync(`${DATA}/${file}`));
  const start = performance.now();
  const faces = await models.detectFaces(image);
  console.log(`${file}: ${faces.length} faces, widths ${faces.map((f) => f.box.width.toFixed(0)).join(' ')}, roll ${faces.map((f) => f.rollDegrees.toFixed(0)).join(' ')} (${(performance.now() - start).toFixed(0)} ms)`);
}
await models.close();
