// Passive liveness evaluation over the shared labelled images (read in place, never copied).
// Run: node --import @swc-node/register/esm-register scripts/eval-liveness.ts
// Prints per image the model scores, the pixel evidence and the decision, the confusion counts
// and the time per image. VERITY_EVAL_QUICK=1 skips the face-recognition photo set.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { decodeImage } from '../src/ml/image.js';
import { loadLivenessModels, type LivenessAssessment } from '../src/ml/liveness/index.js';
import { loadTf } from '../src/ml/tf.js';

const DATA = process.env.VERITY_EVAL_DATA ?? fileURLToPath(new URL('../../shared/data/', import.meta.url));
if (!existsSync(`${DATA}liveness-samples/LABELS.csv`)) {
  console.log(`no liveness evaluation data at ${DATA}; nothing to do`);
  process.exit(0);
}

function csv(path: string): Record<string, string>[] {
  const lines = readFileSync(path, 'utf8').trim().split(/\r?\n/);
  const split = (line: string): string[] => line.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((c) => c.replace(/,$/, '').replace(/^"|"$/g, ''));
  const head = split(lines[0]!);
  return lines.slice(1).map((l) => Object.fromEntries(split(l).map((v, i) => [head[i] ?? `c${i}`, v])));
}

type Expected = 'live' | 'spoof' | 'no_face' | 'real_photo';
const items: { set: string; file: string; expected: Expected }[] = [];
for (const row of csv(`${DATA}liveness-samples/LABELS.csv`)) {
  items.push({ set: 'liveness-samples', file: row.file!, expected: row.liveness_label === 'LIVE' ? 'live' : 'spoof' });
}
for (const row of csv(`${DATA}no-face-negatives/LABELS.csv`)) items.push({ set: 'no-face-negatives', file: row.file!, expected: 'no_face' });
if (!process.env.VERITY_EVAL_QUICK) {
  const dir = `${DATA}face_recognition-obama-biden`;
  for (const file of readdirSync(dir).filter((f) => /\.(jpe?g|png)$/i.test(f)).sort()) items.push({ set: 'face_recognition-obama-biden', file, expected: 'real_photo' });
}

const t0 = performance.now();
const models = await loadLivenessModels();
const tf = await loadTf();
console.log(`backend ${tf.getBackend()}; models loaded and warmed in ${Math.round(performance.now() - t0)} ms\n`);

const f3 = (x: number | undefined): string => (x === undefined ? '-' : x.toFixed(3));
const results: { expected: Expected; got: LivenessAssessment; ms: number; name: string }[] = [];
const tensorsBefore = tf.memory().numTensors;
for (const item of items) {
  const name = `${item.set}/${item.file}`;
  let image;
  try {
    image = await decodeImage(readFileSync(`${DATA}${name}`));
  } catch (error) {
    console.log(`${name}: refused at intake (${(error as Error).message})`);
    continue;
  }
  const start = performance.now();
  const got = await models.assess(image);
  const ms = performance.now() - start;
  results.push({ expected: item.expected, got, ms, name });
  console.log(`${name}  expected=${item.expected}  -> ${got.result} (live_score ${got.liveScore})  ${Math.round(ms)} ms  faces=${got.faceCount}`);
  console.log(`   antispoof=${f3(got.scores.antispoof)} liveness=${f3(got.scores.liveness)}`);
  for (const e of got.evidence) console.log(`   ${e.passed ? 'pass' : 'FAIL'} ${e.name}=${f3(e.value)}  ${e.detail}`);
}
const tensorsAfter = tf.memory().numTensors;

console.log('\nconfusion (rows expected, columns decided):');
const classes: Expected[] = ['live', 'spoof', 'no_face', 'real_photo'];
console.log(`${'expected'.padEnd(12)}${['live', 'spoof', 'no_face'].map((c) => c.padStart(9)).join('')}`);
for (const c of classes) {
  const rows = results.filter((r) => r.expected === c);
  if (!rows.length) continue;
  console.log(`${c.padEnd(12)}${(['live', 'spoof', 'no_face'] as const).map((d) => String(rows.filter((r) => r.got.result === d).length).padStart(9)).join('')}`);
}
const labelled = results.filter((r) => r.expected !== 'real_photo');
const correct = labelled.filter((r) => r.got.result === r.expected).length;
console.log(`labelled correct: ${correct}/${labelled.length}`);
const ms = results.map((r) => r.ms).sort((a, b) => a - b);
console.log(`time per image: median ${Math.round(ms[Math.floor(ms.length / 2)]!)} ms, max ${Math.round(ms[ms.length - 1]!)} ms, mean ${Math.round(ms.reduce((a, b) => a + b, 0) / ms.length)} ms`);
console.log(`tensors before ${tensorsBefore}, after ${tensorsAfter}`);
await models.close();
