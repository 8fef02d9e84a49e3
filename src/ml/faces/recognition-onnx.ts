import * as ort from 'onnxruntime-node';
import type { Tensor } from '@tensorflow/tfjs';
import { OnnxGraph, convWeights } from '../onnx-writer.js';
import { type ImageArea, netInput, runOnImage, FACE_MEAN_RGB } from './onnx-input.js';
import type { FaceRuntime } from './runtime.js';

// The OLD descriptor kind (face-api-128), kept for npm run eval:faces only: face-api's face
// recognition net (a ResNet-34-like, dlib's 128-d descriptor) on onnxruntime-node instead of TF.js WASM: the same
// weights (read from face-api's loaded net), layers and input as
// face-api's FaceRecognitionNet.computeFaceDescriptor, so the descriptors are the same to float
// rounding. Layers follow face-api's src/faceRecognitionNet (FaceRecognitionNet.ts, convLayer.ts,
// residualLayer.ts, scaleLayer.ts).

const INPUT_SIZE = 150;

interface ConvLayerParams {
  conv: { filters: Tensor; bias: Tensor };
  scale: { weights: Tensor; biases: Tensor };
}
interface ResidualParams {
  conv1: ConvLayerParams;
  conv2: ConvLayerParams;
}

function buildGraph(params: Record<string, unknown>): Uint8Array {
  const g = new OnnxGraph();
  let n = 0;
  /** convLayer.ts: conv + bias, then the scale layer (x * w + b), folded into the conv; relu optional. */
  const conv = (
    x: { name: string; side: number },
    p: ConvLayerParams,
    stride: number,
    relu: boolean,
    padding: 'SAME_UPPER' | 'VALID',
  ) => {
    const id = n++;
    const { dims, data } = convWeights(p.conv.filters);
    const w = p.scale.weights.dataSync();
    const b = p.scale.biases.dataSync();
    const bias = p.conv.bias.dataSync();
    const [out, , kh] = dims as [number, number, number];
    const per = data.length / out;
    const folded = new Float32Array(out);
    for (let o = 0; o < out; o++) {
      for (let j = 0; j < per; j++) data[o * per + j] = data[o * per + j]! * w[o]!;
      folded[o] = bias[o]! * w[o]! + b[o]!;
    }
    let name = g.node('Conv', [x.name, g.weight(`w${id}`, dims, data), g.weight(`b${id}`, [out], folded)], {
      auto_pad: padding,
      strides: [stride, stride],
    });
    if (relu) name = g.node('Relu', [name]);
    const side = padding === 'VALID' ? Math.floor((x.side - kh) / stride) + 1 : Math.ceil(x.side / stride);
    return { name, side, channels: out };
  };
  /** residualLayer.ts residual: two 3x3 convs and the identity. */
  const residual = (x: { name: string; side: number }, p: ResidualParams) => {
    const a = conv(x, p.conv1, 1, true, 'SAME_UPPER');
    const b = conv(a, p.conv2, 1, false, 'SAME_UPPER');
    return { name: g.node('Relu', [g.node('Add', [b.name, x.name])]), side: x.side };
  };
  /** residualLayer.ts residualDown: stride-2 convs beside a 2x2 average pool, zero-padded to the convs' shape. */
  const residualDown = (x: { name: string; side: number; channels: number }, p: ResidualParams) => {
    const a = conv(x, p.conv1, 2, true, 'VALID');
    let b = conv(a, p.conv2, 1, false, 'SAME_UPPER');
    const poolSide = Math.floor((x.side - 2) / 2) + 1;
    let pooled = g.node('AveragePool', [x.name], { kernel_shape: [2, 2], strides: [2, 2] });
    if (poolSide !== b.side)
      b = { ...b, name: g.node('Pad', [b.name, g.int64s([0, 0, 0, 0, 0, 0, poolSide - b.side, poolSide - b.side])]) };
    if (b.channels !== x.channels)
      pooled = g.node('Pad', [pooled, g.int64s([0, 0, 0, 0, 0, b.channels - x.channels, 0, 0])]);
    return { name: g.node('Relu', [g.node('Add', [pooled, b.name])]), side: poolSide, channels: b.channels };
  };
  const p = params as Record<string, ResidualParams> & { conv32_down: ConvLayerParams; fc: Tensor };
  const input = { name: g.node('Transpose', ['input'], { perm: [0, 3, 1, 2] }), side: INPUT_SIZE, channels: 3 };
  const first = conv(input, p.conv32_down, 2, true, 'VALID');
  let x = {
    name: g.node('MaxPool', [first.name], { kernel_shape: [3, 3], strides: [2, 2] }),
    side: Math.floor((first.side - 3) / 2) + 1,
    channels: first.channels,
  };
  for (const layer of ['conv32_1', 'conv32_2', 'conv32_3']) x = { ...residual(x, p[layer]!), channels: x.channels };
  for (const [down, rest] of [
    ['conv64_down', ['conv64_1', 'conv64_2', 'conv64_3']],
    ['conv128_down', ['conv128_1', 'conv128_2']],
    ['conv256_down', ['conv256_1', 'conv256_2']],
  ] as const) {
    x = residualDown(x, p[down]!);
    for (const layer of rest) x = { ...residual(x, p[layer]!), channels: x.channels };
  }
  x = residualDown(x, p.conv256_down_out!);
  const pooled = g.node('ReduceMean', [x.name], { axes: [2, 3], keepdims: 0 });
  g.node('MatMul', [pooled, g.weight('fc', p.fc.shape, Float32Array.from(p.fc.dataSync()))], {}, 'descriptor');
  return g.toModel({ name: 'input', dims: [1, INPUT_SIZE, INPUT_SIZE, 3] }, ['descriptor']);
}

export interface OnnxRecognition {
  /** face-api's `faceRecognitionNet.computeFaceDescriptor(crop)` for one RGB crop, natively. */
  describe(crop: ImageArea): Promise<Float32Array>;
}

/** Builds the recognition net's ONNX graph from face-api's loaded weights and opens a session on it. */
export async function onnxRecognition(rt: Pick<FaceRuntime, 'faceapi'>, threads: number): Promise<OnnxRecognition> {
  const { faceapi } = rt;
  const params = (faceapi.nets.faceRecognitionNet as unknown as { params: Record<string, unknown> }).params;
  const session = await ort.InferenceSession.create(buildGraph(params), {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
  });
  return {
    async describe(crop) {
      // face-api's NetInput.toBatchTensor(150, true), minus the mean, / 255
      const out = await runOnImage(session, netInput(crop, INPUT_SIZE, true, FACE_MEAN_RGB, 255), INPUT_SIZE);
      return Float32Array.from(out.descriptor!.data as Float32Array);
    },
  };
}
