// Head pose from the face mesh on the shared photos (read in place, never copied).
// Run: npm run eval:pose
// The photos carry no pose labels, so the check is one every photo has: a mirror image turns the
// head the other way. Per photo: yaw/pitch/roll of the photo and of its mirror; then how often
// the yaw's sign flips (photos turned at least 3 degrees), how far |yaw| and pitch move under
// the mirror, and the time of one mesh pose (the face already found).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { loadFaceModels, loadLivenessModels } from '../src/ml/inference/index.js';
import { decodeImage } from '../src/ml/image.js';
import type { HeadPose } from '../src/ml/liveness/index.js';
import { percentile } from '../test/helpers/processes.js';

const DATA = process.env.VERITY_EVAL_DATA ?? fileURLToPath(new URL('../../shared/data/', import.meta.url));
const SETS = ['faceapi-bbt-identities', 'face_recognition-obama-biden', 'liveness-samples'];
if (!existsSync(`${DATA}${SETS[0]}`)) {
  console.log(`no evaluation photos at ${DATA}; nothing to do`);
  process.exit(0);
}

const faces = await loadFaceModels();
const liveness = await loadLivenessModels();
const poseMs: number[] = [];

async function pose(bytes: Buffer): Promise<HeadPose | null> {
  const image = await decodeImage(bytes);
  const face = await faces.describeLargestFace(image);
  if (!face) return null;
  const started = performance.now();
  const found = await liveness.headPose(image, face);
  poseMs.push(performance.now() - started);
  return found;
}

const f1 = (x: number) => x.toFixed(1).padStart(6);
const rows: { name: string; a: HeadPose; b: HeadPose }[] = [];
let unposed = 0;
for (const set of SETS) {
  for (const file of readdirSync(`${DATA}${set}`)
    .filter((f) => /\.(jpe?g|png)$/i.test(f))
    .sort()) {
    const name = `${set}/${file}`;
    const bytes = readFileSync(`${DATA}${name}`);
    const a = await pose(bytes);
    const b = await pose(await sharp(bytes).autoOrient().flop().png().toBuffer());
    if (!a || !b) {
      if (a || b) unposed++;
      console.log(
        `${name.padEnd(60)} ${a ? 'posed' : 'no face / no pose'}; mirrored: ${b ? 'posed' : 'no face / no pose'}`,
      );
      continue;
    }
    rows.push({ name, a, b });
    console.log(
      `${name.padEnd(60)} yaw ${f1(a.yaw)} pitch ${f1(a.pitch)} roll ${f1(a.roll)} | mirrored yaw ${f1(b.yaw)} pitch ${f1(b.pitch)} roll ${f1(b.roll)}`,
    );
  }
}
await faces.close();
await liveness.close();

const turned = rows.filter((r) => Math.abs(r.a.yaw) >= 3);
const flipped = turned.filter((r) => Math.sign(r.a.yaw) === -Math.sign(r.b.yaw));
const yawGap = rows.map((r) => Math.abs(r.a.yaw + r.b.yaw)).sort((x, y) => x - y);
const pitchGap = rows.map((r) => Math.abs(r.a.pitch - r.b.pitch)).sort((x, y) => x - y);
const ms = poseMs.sort((x, y) => x - y);
console.log(`\nposed ${rows.length} photos and their mirrors (${unposed} posed one way only)`);
console.log(`yaw sign flips under the mirror: ${flipped.length}/${turned.length} photos turned >= 3 degrees`);
console.log(
  `|yaw + mirrored yaw|: median ${percentile(yawGap, 50).toFixed(1)}, p95 ${percentile(yawGap, 95).toFixed(1)}, max ${yawGap.at(-1)!.toFixed(1)} degrees`,
);
console.log(
  `|pitch - mirrored pitch|: median ${percentile(pitchGap, 50).toFixed(1)}, p95 ${percentile(pitchGap, 95).toFixed(1)}, max ${pitchGap.at(-1)!.toFixed(1)} degrees`,
);
console.log(
  `yaw across the photos: ${Math.min(...rows.map((r) => r.a.yaw)).toFixed(1)} to ${Math.max(...rows.map((r) => r.a.yaw)).toFixed(1)} degrees`,
);
console.log(
  `one mesh pose (crop + inference): p50 ${percentile(ms, 50).toFixed(0)} ms, p95 ${percentile(ms, 95).toFixed(0)} ms over ${ms.length}`,
);
