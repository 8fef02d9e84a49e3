import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as Tf from '@tensorflow/tfjs';
import { rgbBytes } from './crop.js';
import type { Box, Rgb } from './evidence.js';
import type { TfModule } from '../tf.js';
import { modelFolder } from '../model-files.js';

// MiniFASNet, a passive face anti-spoofing network (Minivision, Apache-2.0), rebuilt in TF.js
// from weights converted by scripts/convert-minifasnet.py (models/minifasnet/README.md says
// where they come from). Two networks, each on its own crop of the same face: MiniFASNetV2 on a
// square-ish crop 2.7 times the face box, MiniFASNetV1SE on 4.0 times (more of the scene: the
// edge of a phone or a sheet of paper). Each gives softmax over 3 classes, class 1 a real face;
// as in the original, the two softmaxes are averaged.
//
// Architecture (MobileFaceNet-like): conv 3x3/2 -> depthwise 3x3 -> stages of inverted
// bottlenecks (1x1 expand, depthwise 3x3, 1x1 project; residual inside a stage, stride 2 between
// stages; V1SE adds squeeze-and-excitation to each stage's last block) -> 1x1 to 512 ->
// depthwise 5x5 to 1x1 -> 512 -> 128 -> 3. Batch norms are folded into the weights.

export interface MiniFasNet {
  name: string;
  /** The crop is this many times the face box (clamped to the image, as the original does). */
  cropScale: number;
  weights: Map<string, Tf.Tensor>;
}

interface Manifest {
  name: string;
  crop_scale: number;
  tensors: { name: string; shape: number[]; offset: number }[];
}

const INPUT = 80;
const STAGES: [string, number | null][] = [
  ['conv_23', null],
  ['conv_3', 4],
  ['conv_34', null],
  ['conv_4', 6],
  ['conv_45', null],
  ['conv_5', 2],
];

export function loadMiniFasNet(tf: TfModule, name: 'MiniFASNetV2' | 'MiniFASNetV1SE'): MiniFasNet {
  const dir = modelFolder('minifasnet');
  const manifest = JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as Manifest;
  const bytes = readFileSync(join(dir, `${name}.bin`));
  const weights = new Map<string, Tf.Tensor>();
  for (const { name: key, shape, offset } of manifest.tensors) {
    const size = shape.reduce((a, b) => a * b, 1);
    const values = new Float32Array(size);
    for (let i = 0; i < size; i++) values[i] = bytes.readFloatLE(offset + 4 * i);
    weights.set(key, tf.tensor(values, shape));
  }
  return { name, cropScale: manifest.crop_scale, weights };
}

/** Logits [1, 3] for a [1, 80, 80, 3] BGR 0..255 input. Call inside tf.tidy. */
export function miniFasNetLogits(tf: TfModule, net: MiniFasNet, input: Tf.Tensor4D): Tf.Tensor2D {
  const w = (key: string): Tf.Tensor => {
    const t = net.weights.get(key);
    if (!t) throw new Error(`${net.name}: no tensor ${key}`);
    return t;
  };
  // PyTorch pads both sides explicitly; TF's 'same' pads stride-2 convolutions unevenly.
  const pad = (x: Tf.Tensor4D, p: number) =>
    p
      ? tf.pad(x, [
          [0, 0],
          [p, p],
          [p, p],
          [0, 0],
        ])
      : x;
  const block = (x: Tf.Tensor4D, prefix: string, stride: number, padding: number): Tf.Tensor4D => {
    const depthwise = net.weights.get(`${prefix}.depthwise`);
    let y = depthwise
      ? tf.depthwiseConv2d(pad(x, padding), depthwise as Tf.Tensor4D, stride, 'valid')
      : tf.conv2d(pad(x, padding), w(`${prefix}.filter`) as Tf.Tensor4D, stride, 'valid');
    y = tf.add(y, w(`${prefix}.bias`)) as Tf.Tensor4D;
    const alpha = net.weights.get(`${prefix}.alpha`);
    return alpha ? (tf.prelu(y, alpha) as Tf.Tensor4D) : y;
  };
  const squeezeExcite = (x: Tf.Tensor4D, prefix: string): Tf.Tensor4D => {
    const pooled = tf.mean(x, [1, 2]) as Tf.Tensor2D;
    const hidden = tf.relu(
      tf.add(tf.matMul(pooled, w(`${prefix}.fc1.matrix`) as Tf.Tensor2D), w(`${prefix}.fc1.bias`)),
    );
    const gate = tf.sigmoid(
      tf.add(tf.matMul(hidden as Tf.Tensor2D, w(`${prefix}.fc2.matrix`) as Tf.Tensor2D), w(`${prefix}.fc2.bias`)),
    );
    return tf.mul(x, tf.reshape(gate, [1, 1, 1, -1]));
  };
  const bottleneck = (x: Tf.Tensor4D, prefix: string, stride: number, residual: boolean): Tf.Tensor4D => {
    let y = block(x, `${prefix}.conv`, 1, 0);
    y = block(y, `${prefix}.conv_dw`, stride, 1);
    y = block(y, `${prefix}.project`, 1, 0);
    if (net.weights.has(`${prefix}.se_module.fc1.matrix`)) y = squeezeExcite(y, `${prefix}.se_module`);
    return residual ? tf.add(x, y) : y;
  };

  let x = block(input, 'conv1', 2, 1);
  x = block(x, 'conv2_dw', 1, 1);
  for (const [stage, blocks] of STAGES) {
    if (blocks === null) x = bottleneck(x, stage, 2, false);
    else for (let i = 0; i < blocks; i++) x = bottleneck(x, `${stage}.model.${i}`, 1, true);
  }
  x = block(x, 'conv_6_sep', 1, 0);
  x = block(x, 'conv_6_dw', 1, 0);
  const features = tf.reshape(x, [1, -1]) as Tf.Tensor2D;
  const embedding = tf.add(tf.matMul(features, w('linear.matrix') as Tf.Tensor2D), w('linear.bias')) as Tf.Tensor2D;
  return tf.matMul(embedding, w('prob.matrix') as Tf.Tensor2D);
}

/**
 * The crop the original makes: the face box scaled by `scale` about its centre, the scale
 * lowered so the crop fits the image, then shifted inside it. Pixels of `rgb`.
 */
export function miniFasNetCrop(rgb: { width: number; height: number }, box: Box, scale: number): Box {
  const s = Math.min((rgb.height - 1) / box.height, (rgb.width - 1) / box.width, scale);
  const width = box.width * s;
  const height = box.height * s;
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  let x0 = cx - width / 2,
    y0 = cy - height / 2,
    x1 = cx + width / 2,
    y1 = cy + height / 2;
  if (x0 < 0) {
    x1 -= x0;
    x0 = 0;
  }
  if (y0 < 0) {
    y1 -= y0;
    y0 = 0;
  }
  if (x1 > rgb.width - 1) {
    x0 -= x1 - rgb.width + 1;
    x1 = rgb.width - 1;
  }
  if (y1 > rgb.height - 1) {
    y0 -= y1 - rgb.height + 1;
    y1 = rgb.height - 1;
  }
  // Rounding (and a box reaching past the image) can leave a pixel outside: clamp.
  const left = Math.max(0, Math.floor(x0)),
    top = Math.max(0, Math.floor(y0));
  const right = Math.min(rgb.width - 1, Math.floor(x1)),
    bottom = Math.min(rgb.height - 1, Math.floor(y1));
  return { x: left, y: top, width: Math.max(1, right - left + 1), height: Math.max(1, bottom - top + 1) };
}

/** P(real face) from one network: its crop of `rgb` around `box`, resized to 80x80 BGR 0..255. */
export function miniFasNetReal(tf: TfModule, net: MiniFasNet, rgb: Rgb, box: Box): number {
  const crop = miniFasNetCrop(rgb, box, net.cropScale);
  const probabilities = tf.tidy(() => {
    const frame = tf.tensor3d(new Float32Array(rgbBytes(rgb)), [rgb.height, rgb.width, 3]);
    const region = tf.slice(frame, [crop.y, crop.x, 0], [crop.height, crop.width, 3]);
    const resized = tf.image.resizeBilinear(region as Tf.Tensor3D, [INPUT, INPUT], false, true);
    const bgr = tf.reverse(resized, -1).expandDims(0) as Tf.Tensor4D;
    return tf.softmax(miniFasNetLogits(tf, net, bgr));
  });
  const p = probabilities.dataSync();
  probabilities.dispose();
  return p[1]!;
}
