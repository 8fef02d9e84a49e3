// Passive liveness evaluation over the shared images (read in place, never copied) and an attack
// set made from them in memory (scripts/liveness-attacks.ts). Prints, per image, the verdict and
// every score and piece of evidence; then the share of live images passed and of each attack kind
// caught, on the set the thresholds were chosen on and on the set they are reported on:
//   tuning: the liveness samples, frames of the shared video, attacks made from the bbt photos;
//   report: the obama-biden photos (ordinary photos of real people) and attacks made from them.
// Then the burst evaluation (scripts/eval-bursts.ts) runs: npm run eval:liveness does both.
// VERITY_EVAL_QUICK=1 takes a few images of each set.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { loadFaceModels } from '../src/ml/faces/index.js';
import { decodeImage } from '../src/ml/image.js';
import { loadLivenessModels, type LivenessAssessment } from '../src/ml/liveness/index.js';
import { loadTf } from '../src/ml/tf.js';
import { videoAvailable, videoFrames } from '../test/helpers/video.js';
import { ATTACK_KINDS, ATTACKS } from './liveness-attacks.js';

const DATA = process.env.VERITY_EVAL_DATA ?? fileURLToPath(new URL('../../shared/data/', import.meta.url));
if (!existsSync(`${DATA}liveness-samples/LABELS.csv`)) {
  console.log(`no liveness evaluation data at ${DATA}; nothing to do`);
  process.exit(0);
}
const QUICK = Boolean(process.env.VERITY_EVAL_QUICK);
const some = <T>(items: T[], n: number) => (QUICK ? items.slice(0, n) : items);

function csv(path: string): Record<string, string>[] {
  const lines = readFileSync(path, 'utf8').trim().split(/\r?\n/);
  const split = (line: string): string[] => line.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((c) => c.replace(/,$/, '').replace(/^"|"$/g, ''));
  const head = split(lines[0]!);
  return lines.slice(1).map((l) => Object.fromEntries(split(l).map((v, i) => [head[i] ?? `c${i}`, v])));
}

type Expected = 'live' | 'spoof' | 'no_face';
type Split = 'tuning' | 'report';
interface Item {
  set: string;
  name: string;
  expected: Expected;
  split: Split;
  bytes: () => Promise<Buffer>;
}
const items: Item[] = [];
const file = (path: string) => async () => readFileSync(`${DATA}${path}`);
for (const row of csv(`${DATA}liveness-samples/LABELS.csv`)) {
  items.push({ set: 'liveness-samples', name: row.file!, expected: row.liveness_label === 'LIVE' ? 'live' : 'spoof', split: 'tuning', bytes: file(`liveness-samples/${row.file}`) });
}
for (const row of csv(`${DATA}no-face-negatives/LABELS.csv`)) items.push({ set: 'no-face-negatives', name: row.file!, expected: 'no_face', split: 'report', bytes: file(`no-face-negatives/${row.file}`) });
const photos = readdirSync(`${DATA}face_recognition-obama-biden`)
  .filter((f) => /\.(jpe?g|png)$/i.test(f))
  .sort();
for (const f of some(photos, 4)) items.push({ set: 'obama-biden photos', name: f, expected: 'live', split: 'report', bytes: file(`face_recognition-obama-biden/${f}`) });
if (videoAvailable) {
  for (const t of some([3.8, 4.3, 4.8, 5.3, 5.8, 6.3, 6.8, 7.3], 2)) {
    items.push({ set: 'video frames', name: `shot C at ${t} s`, expected: 'live', split: 'tuning', bytes: async () => (await videoFrames(t, 1, 100, { x: 60, y: 0, width: 480, height: 360 }))[0]! });
  }
}

const t0 = performance.now();
const models = await loadLivenessModels();
const faces = await loadFaceModels();
const tf = await loadTf();
console.log(`backend ${tf.getBackend()}; models loaded and warmed in ${Math.round(performance.now() - t0)} ms\n`);

/** The head and shoulders of a photo (2.6 times the face, square): what an attacker prints or shows. */
async function portrait(bytes: Buffer): Promise<Buffer | null> {
  const image = await decodeImage(bytes);
  const face = (await faces.detectFaces(image))[0];
  if (!face) return null;
  const side = Math.floor(Math.min(Math.max(face.box.width, face.box.height) * 2.6, image.width, image.height));
  const left = Math.round(Math.max(0, Math.min(image.width - side, face.box.x + face.box.width / 2 - side / 2)));
  const top = Math.round(Math.max(0, Math.min(image.height - side, face.box.y + face.box.height * 0.55 - side / 2)));
  return sharp(bytes).rotate().extract({ left, top, width: side, height: side }).jpeg({ quality: 92 }).toBuffer();
}
const sources: { path: string; split: Split }[] = [
  ...some(
    readdirSync(`${DATA}faceapi-bbt-identities`)
      .filter((f) => /[a-z]+[13]\.png$/.test(f))
      .sort(),
    2,
  ).map((f) => ({ path: `faceapi-bbt-identities/${f}`, split: 'tuning' as const })),
  ...some(photos, 3).map((f) => ({ path: `face_recognition-obama-biden/${f}`, split: 'report' as const })),
];
let seed = 0;
for (const source of sources) {
  const shown = await portrait(readFileSync(`${DATA}${source.path}`));
  if (!shown) continue;
  for (const kind of ATTACK_KINDS) {
    const s = ++seed;
    items.push({ set: `attack ${kind}`, name: source.path, expected: 'spoof', split: source.split, bytes: () => ATTACKS[kind](shown, s) });
  }
}

const f3 = (x: number | undefined): string => (x === undefined ? '-' : x.toFixed(3));
const results: { item: Item; got: LivenessAssessment; ms: number }[] = [];
const tensorsBefore = tf.memory().numTensors;
for (const item of items) {
  let image: Awaited<ReturnType<typeof decodeImage>>;
  try {
    image = await decodeImage(await item.bytes());
  } catch (error) {
    console.log(`${item.set}/${item.name}: refused at intake (${(error as Error).message})`);
    continue;
  }
  const start = performance.now();
  const got = await models.assess(image);
  const ms = performance.now() - start;
  results.push({ item, got, ms });
  console.log(`[${item.split}] ${item.set}/${item.name}  expected=${item.expected} -> ${got.result} (live_score ${got.liveScore})  ${Math.round(ms)} ms  faces=${got.faceCount}`);
  console.log(`   minifasnet=${f3(got.scores.minifasnet)} (V2 ${f3(got.scores.minifasnetV2)}, V1SE ${f3(got.scores.minifasnetV1SE)})`);
  for (const e of got.evidence) console.log(`   ${e.passed ? 'pass' : 'FAIL'} ${e.name}=${f3(e.value)}  ${e.detail}`);
}
const tensorsAfter = tf.memory().numTensors;

console.log('\nsummary (live sets: share called live; attacks and no-face: share decided as expected)');
const sets = [...new Set(results.map((r) => `${r.item.split}|${r.item.set}`))];
for (const key of sets) {
  const [split, set] = key.split('|');
  const rows = results.filter((r) => r.item.split === split && r.item.set === set);
  const right = rows.filter((r) => (r.item.expected === 'spoof' ? r.got.result !== 'live' : r.got.result === r.item.expected)).length;
  const expected = new Set(rows.map((r) => r.item.expected));
  const verb = expected.size > 1 ? 'decided right' : expected.has('live') ? 'called live' : expected.has('spoof') ? 'caught' : 'no face';
  console.log(`  ${split!.padEnd(7)} ${set!.padEnd(24)} ${right}/${rows.length} ${verb}`);
}
const ms = results.map((r) => r.ms).sort((a, b) => a - b);
console.log(`time per image: median ${Math.round(ms[Math.floor(ms.length / 2)]!)} ms, max ${Math.round(ms[ms.length - 1]!)} ms`);
console.log(`tensors before ${tensorsBefore}, after ${tensorsAfter}`);
await models.close();
process.exit(0);
