import type { Tensor } from '@tensorflow/tfjs';
import { convWeights, type OnnxGraph } from '../onnx-writer.js';
import type { Box } from './geometry.js';
import type { Rgb } from './raster.js';
import * as ort from 'onnxruntime-node';

/** Runs an NHWC graph on one image's pixels (side x side x 3, float; `netInput`). */
export function runOnImage(
  session: ort.InferenceSession,
  pixels: Float32Array,
  side: number,
): Promise<ort.InferenceSession.OnnxValueMapType> {
  return session.run({ input: new ort.Tensor('float32', pixels, [1, side, side, 3]) });
}

/**
 * What a face net reads: an area of an RGB image (whole pixels inside it; all of it when absent), mirrored left to
 * right when asked.
 */
export interface ImageArea {
  rgb: Rgb;
  box?: Box;
  mirrored?: boolean;
}

/** face-api's per-channel mean for its face-crop nets (landmarks, recognition, age). */
export const FACE_MEAN_RGB = [122.782, 117.001, 104.298];

/**
 * face-api's NetInput.toBatchTensor(side, centred) for one area, then (value - mean) / divisor per
 * channel: zeros to a square (appended, or split either side when centred, the larger share
 * after), then bilinear to side as TF.js's resizeBilinear (corners not aligned, no half-pixel
 * centres), NHWC. In plain JS on the RGB bytes: the same through TF.js WASM (an int32 tensor of
 * the image, slice, reverse, cast, concat, resize) took 30 of the 40 ms of the quick way's
 * detector and three landmark runs.
 */
export function netInput(
  area: ImageArea,
  side: number,
  centred: boolean,
  mean: readonly number[],
  divisor: number,
): Float32Array {
  const { rgb, box = { x: 0, y: 0, width: rgb.width, height: rgb.height }, mirrored = false } = area;
  const { width, height } = box;
  const square = Math.max(width, height);
  const diff = square - Math.min(width, height);
  const before = diff - (centred ? Math.round(diff * 0.5) : diff);
  // Each square row or column: its pixels' offset in rgb.data, or -1 in the zero padding.
  const rows = new Int32Array(square).fill(-1);
  const columns = new Int32Array(square).fill(-1);
  const top = height < width ? before : 0;
  const left = width < height ? before : 0;
  for (let y = 0; y < height; y++) rows[top + y] = (box.y + y) * rgb.width * 3;
  for (let x = 0; x < width; x++) columns[left + x] = (box.x + (mirrored ? width - 1 - x : x)) * 3;
  // The two source columns of each output column and the weight of the second, once.
  const ratio = square / side;
  const left0 = new Int32Array(side);
  const left1 = new Int32Array(side);
  const dxs = new Float64Array(side);
  for (let c = 0; c < side; c++) {
    const fx = ratio * c;
    const x0 = Math.floor(fx);
    left0[c] = columns[x0]!;
    left1[c] = columns[Math.min(square - 1, Math.ceil(fx))]!;
    dxs[c] = fx - x0;
  }
  const data = rgb.data;
  const out = new Float32Array(side * side * 3);
  let o = 0;
  for (let r = 0; r < side; r++) {
    const fy = ratio * r;
    const y0 = Math.floor(fy);
    const top0 = rows[y0]!;
    const top1 = rows[Math.min(square - 1, Math.ceil(fy))]!;
    const dy = fy - y0;
    for (let c = 0; c < side; c++) {
      const c0 = left0[c]!;
      const c1 = left1[c]!;
      const dx = dxs[c]!;
      for (let k = 0; k < 3; k++) {
        const p00 = top0 < 0 || c0 < 0 ? 0 : data[top0 + c0 + k]!;
        const p01 = top0 < 0 || c1 < 0 ? 0 : data[top0 + c1 + k]!;
        const p10 = top1 < 0 || c0 < 0 ? 0 : data[top1 + c0 + k]!;
        const p11 = top1 < 0 || c1 < 0 ? 0 : data[top1 + c1 + k]!;
        const upper = p00 + (p01 - p00) * dx;
        const lower = p10 + (p11 - p10) * dx;
        out[o++] = (upper + (lower - upper) * dy - mean[k]!) / divisor;
      }
    }
  }
  return out;
}

/** face-api's convolution parameters (common/types.ts ConvParams). */
export interface ConvParams {
  filters: Tensor;
  bias: Tensor;
}

/** face-api's depthwise-separable convolution parameters (common/types.ts SeparableConvParams). */
export interface SeparableParams {
  depthwise_filter: Tensor;
  pointwise_filter: Tensor;
  bias: Tensor;
}

/**
 * face-api's common layers as ONNX nodes on `g` (NCHW): conv + bias ('same' or 'valid', with a
 * stride; common/convLayer.ts), the depthwise-separable conv + bias with no activation
 * (common/depthwiseSeparableConv.ts: depthwise 3x3 'same', pointwise 1x1), and a dense layer
 * (common/fullyConnectedLayer.ts).
 */
export function faceApiLayers(g: OnnxGraph) {
  let n = 0;
  const conv = (x: string, p: ConvParams, stride = 1, padding: 'SAME_UPPER' | 'VALID' = 'SAME_UPPER'): string => {
    const id = n++;
    const { dims, data } = convWeights(p.filters);
    return g.node(
      'Conv',
      [x, g.weight(`w${id}`, dims, data), g.weight(`b${id}`, [dims[0]!], Float32Array.from(p.bias.dataSync()))],
      { auto_pad: padding, strides: [stride, stride] },
    );
  };
  const separable = (x: string, p: SeparableParams, stride = 1): string => {
    const id = n++;
    // [kh, kw, c, 1] read as a conv's [1, c, kh, kw] is, in memory, the depthwise [c, 1, kh, kw]
    const [kh, kw, channels] = p.depthwise_filter.shape as [number, number, number];
    const depthwise = g.node(
      'Conv',
      [x, g.weight(`d${id}`, [channels, 1, kh, kw], convWeights(p.depthwise_filter).data)],
      { auto_pad: 'SAME_UPPER', strides: [stride, stride], group: channels },
    );
    return conv(depthwise, { filters: p.pointwise_filter, bias: p.bias });
  };
  const dense = (x: string, p: { weights: Tensor; bias: Tensor }, output?: string): string => {
    const id = n++;
    const w = g.weight(`fc${id}`, p.weights.shape, Float32Array.from(p.weights.dataSync()));
    return g.node(
      'Add',
      [g.node('MatMul', [x, w]), g.weight(`fcb${id}`, [p.bias.shape[0]!], Float32Array.from(p.bias.dataSync()))],
      {},
      output,
    );
  };
  return { conv, separable, dense };
}
