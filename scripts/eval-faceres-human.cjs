// faceres (@vladmandic/human's face description net) run the way human runs it: human's own
// detector, face mesh, crop and scaling, then human.match.similarity. This is the check on
// scripts/eval-face-models.ts, which feeds the net our own chips: if our preprocessing were wrong,
// human's own pipeline would show it. For each shared pair set it prints the EER, the closest
// impostors and weakest genuine pairs, and TAR/FAR at a threshold fitted on the OTHER set (just
// above its closest impostor).
//
//   node scripts/eval-faceres-human.cjs
//
// CommonJS on purpose: human's node-wasm build is CommonJS and not in the package's exports map.
const fs = require('node:fs');
const path = require('node:path');
const sharp = require('sharp');
const wasm = require('@tensorflow/tfjs-backend-wasm');

const root = path.resolve(__dirname, '..');
const data = process.env.VERITY_EVAL_DATA ?? path.resolve(root, '../shared/data');
const wasmDir = path.join(path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm')), '/');
wasm.setWasmPaths(wasmDir);
const { Human } = require(path.join(root, 'node_modules/@vladmandic/human/dist/human.node-wasm.js'));

// human loads models with fetch(), which Node's undici cannot do for file:// URLs: serve them from disk.
const networkFetch = globalThis.fetch;
globalThis.fetch = async (url, options) => {
  const href = String(url);
  if (!href.startsWith('file://')) return networkFetch(url, options);
  return new Response(fs.readFileSync(new URL(href)), {
    status: 200,
    headers: { 'content-type': href.endsWith('.json') ? 'application/json' : 'application/octet-stream' },
  });
};

const off = { enabled: false };
const human = new Human({
  backend: 'wasm',
  wasmPath: wasmDir,
  debug: false,
  modelBasePath: `file://${path.join(root, 'node_modules/@vladmandic/human/models')}/`,
  face: {
    enabled: true,
    detector: { rotation: true, maxDetected: 5, minConfidence: 0.2 },
    mesh: { enabled: true },
    iris: off,
    description: { enabled: true },
    emotion: off,
    antispoof: off,
    liveness: off,
  },
  body: off,
  hand: off,
  object: off,
  gesture: off,
  segmentation: off,
});

async function scores(set) {
  const dir = path.join(data, set);
  const rows = fs
    .readFileSync(path.join(dir, 'PAIRS.csv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.split(','));
  const embedding = {};
  for (const file of new Set(rows.flatMap((r) => [r[0], r[1]]))) {
    const { data: rgb, info } = await sharp(path.join(dir, file))
      .rotate()
      .removeAlpha()
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    const input = human.tf.tidy(() =>
      human.tf.cast(
        human.tf.expandDims(human.tf.tensor3d(new Uint8Array(rgb), [info.height, info.width, 3]), 0),
        'float32',
      ),
    );
    const result = await human.detect(input);
    input.dispose();
    const largest = result.face
      .filter((f) => f.embedding?.length)
      .sort((a, b) => b.box[2] * b.box[3] - a.box[2] * a.box[3])[0];
    embedding[file] = largest?.embedding;
  }
  const same = [];
  const different = [];
  let missing = 0;
  for (const [a, b, label] of rows) {
    if (!embedding[a] || !embedding[b]) {
      missing++;
      continue;
    }
    (label === 'Yes' ? same : different).push({
      score: human.match.similarity(embedding[a], embedding[b]),
      pair: `${a}~${b}`,
    });
  }
  same.sort((x, y) => x.score - y.score);
  different.sort((x, y) => y.score - x.score);
  return { set, same, different, missing };
}

function eer({ same, different }) {
  let best = { gap: 2, at: 0, rate: 1 };
  for (let t = 0; t <= 1.0001; t += 0.005) {
    const frr = same.filter((s) => s.score < t).length / same.length;
    const far = different.filter((d) => d.score >= t).length / different.length;
    if (Math.abs(frr - far) < best.gap) best = { gap: Math.abs(frr - far), at: t, rate: (frr + far) / 2 };
  }
  return best;
}

(async () => {
  await human.load();
  const sets = ['face_recognition-obama-biden', 'faceapi-bbt-identities'].filter((s) =>
    fs.existsSync(path.join(data, s)),
  );
  const measured = [];
  for (const set of sets) measured.push(await scores(set));
  for (const [i, m] of measured.entries()) {
    const e = eer(m);
    const other = measured[1 - i];
    const pct = (n, d) => `${((100 * n) / d).toFixed(1)}% (${n}/${d})`;
    console.log(
      `${m.set}: ${m.same.length} same, ${m.different.length} different pairs (${m.missing} without a face); EER ${(100 * e.rate).toFixed(1)}% at ${e.at.toFixed(3)}`,
    );
    console.log(
      `  weakest same: ${m.same
        .slice(0, 4)
        .map((s) => `${s.score.toFixed(2)} ${s.pair}`)
        .join('; ')}`,
    );
    console.log(
      `  closest different: ${m.different
        .slice(0, 4)
        .map((s) => `${s.score.toFixed(2)} ${s.pair}`)
        .join('; ')}`,
    );
    if (other) {
      const threshold = other.different[0].score + 0.01;
      console.log(
        `  at ${threshold.toFixed(2)} (fitted on ${other.set}): TAR ${pct(m.same.filter((s) => s.score >= threshold).length, m.same.length)}, FAR ${pct(m.different.filter((d) => d.score >= threshold).length, m.different.length)}`,
      );
    }
  }
  process.exit(0);
})();
