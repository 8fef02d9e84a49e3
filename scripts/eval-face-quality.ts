// The face-match quality gates (faceQualityProblem: face_blurred, face_cut, face_cartoon, face_child) on the shared
// face
// sets and on copies of every photo made worse as people's photos are: blurred by a 80th and a
// 40th of the face's width, posterised like a cartoon or a drawing, saved as JPEG quality 15, and
// cut by the frame through the face. Prints each face's measures and, per set and copy, how many
// each gate sends to review. The thresholds were chosen on faceapi-bbt-identities and are
// reported on face_recognition-obama-biden.
//
//   node --import @swc-node/register/esm-register scripts/eval-face-quality.ts [--quiet]

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { decodeImage } from '../src/ml/image.js';
import type { FaceQuality } from '../src/ml/faces/index.js';
import { loadFaceModels } from '../src/ml/inference/index.js';
import { boundsOf, type Box } from '../src/ml/faces/geometry.js';
import { faceQualityProblem } from '../src/core/checks/face-match.js';

const DATA = process.env.VERITY_EVAL_DATA ?? fileURLToPath(new URL('../../shared/data/', import.meta.url));
const quiet = process.argv.includes('--quiet');
const SETS = ['faceapi-bbt-identities', 'face_recognition-obama-biden'];
/** As a face match describes (the quick way first); EVAL_FULL_DETECTOR=1 for the SSD only. */
const quick = process.env.EVAL_FULL_DETECTOR !== '1';
const COPIES = ['original', 'blur-mild', 'blur-strong', 'cartoon', 'drawing', 'jpeg15', 'cut'] as const;
type Copy = (typeof COPIES)[number];

async function worsened(bytes: Buffer, copy: Copy, face: Box, width: number, height: number): Promise<Buffer> {
  const extent = Math.max(face.width, face.height);
  const upright = () => sharp(bytes).rotate().removeAlpha();
  switch (copy) {
    case 'original':
      return bytes;
    case 'blur-mild':
      return upright()
        .blur(Math.max(0.3, extent / 80))
        .png()
        .toBuffer();
    case 'blur-strong':
      return upright()
        .blur(Math.max(0.3, extent / 40))
        .png()
        .toBuffer();
    case 'jpeg15':
      return upright().jpeg({ quality: 15 }).toBuffer();
    case 'cut':
      return upright()
        .extract({ left: 0, top: 0, width: Math.min(width, Math.round(face.x + face.width * 0.55)), height })
        .png()
        .toBuffer();
    case 'cartoon':
    case 'drawing': {
      const levels = copy === 'cartoon' ? 6 : 4;
      const { data, info } = await upright()
        .median(Math.max(3, Math.round(extent / 25)) | 1)
        .raw()
        .toBuffer({ resolveWithObject: true });
      const step = 256 / levels;
      for (let i = 0; i < data.length; i++) data[i] = Math.min(255, Math.floor(data[i]! / step) * step + step / 2);
      return sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } })
        .jpeg({ quality: 90 })
        .toBuffer();
    }
  }
}

const models = await loadFaceModels();
for (const set of SETS) {
  const dir = `${DATA}${set}/`;
  if (!existsSync(dir)) continue;
  const tally = new Map<Copy, { faces: number; noFace: number; reasons: Map<string, number> }>();
  for (const file of readdirSync(dir)
    .filter((f) => /\.(jpe?g|png)$/i.test(f))
    .sort()) {
    const bytes = readFileSync(dir + file);
    const image = await decodeImage(bytes);
    const face = await models.describeLargestFace(image, { quick });
    if (!face) continue; // no face in the original: nothing to make worse
    for (const copy of COPIES) {
      const t = tally.get(copy) ?? { faces: 0, noFace: 0, reasons: new Map() };
      tally.set(copy, t);
      const described =
        copy === 'original'
          ? face
          : await models.describeLargestFace(
              await decodeImage(await worsened(bytes, copy, boundsOf(face.landmarks), image.width, image.height)),
              { quick },
            );
      if (!described) {
        t.noFace++;
        if (!quiet) console.log(`${set}\t${file}\t${copy}\tno face`);
        continue;
      }
      t.faces++;
      const reason = faceQualityProblem(described)?.reason ?? 'none';
      t.reasons.set(reason, (t.reasons.get(reason) ?? 0) + 1);
      const q = described.quality as FaceQuality;
      if (!quiet)
        console.log(
          `${set}\t${file}\t${copy}\tsharpness ${q.sharpness.toFixed(3)}\tpeaks ${q.tonalPeaks.toFixed(3)}\tage ${described.estimatedAge?.toFixed(1)}\tvisible ${q.visible.toFixed(2)}\t-> ${reason}`,
        );
    }
  }
  for (const [copy, t] of tally) {
    const reasons = [...t.reasons].map(([r, n]) => `${r} ${n}`).join(', ');
    console.log(`SUMMARY ${set} ${copy}: ${t.faces} faces found (${t.noFace} copies without one): ${reasons}`);
  }
}
await models.close();
process.exit(0);
