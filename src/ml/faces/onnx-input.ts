import type { Tensor, Tensor3D } from '@tensorflow/tfjs';
import { convWeights, type OnnxGraph } from '../onnx-writer.js';
import type { TfModule } from '../tf.js';
import * as ort from 'onnxruntime-node';

/** Runs an NHWC graph on one prepared TF.js image (side x side x 3, float), disposing it. */
export async function runOnImage(session: ort.InferenceSession, image: Tensor, side: number): Promise<ort.InferenceSession.OnnxValueMapType> {
  let pixels: Float32Array;
  try {
    pixels = (await image.data()) as Float32Array;
  } finally {
    image.dispose();
  }
  return session.run({ input: new ort.Tensor('float32', pixels, [1, side, side, 3]) });
}

/**
 * face-api's NetInput.toBatchTensor(side, centred) for one image, as float: zeros to a square
 * (appended, or split either side when centred, the larger share after), then bilinear to side.
 * Call inside tf.tidy.
 */
export function squared(tf: TfModule, image: Tensor3D, side: number, centred: boolean): Tensor3D {
  const [height, width] = image.shape;
  let img = tf.cast(image, 'float32') as Tensor3D;
  if (height !== width) {
    const diff = Math.abs(height - width);
    const after = centred ? Math.round(diff * 0.5) : diff;
    const before = diff - after;
    const axis = height > width ? 1 : 0;
    const zeros = (k: number) => tf.zeros(axis === 1 ? [height, k, 3] : [k, width, 3], 'float32');
    img = tf.concat(before ? [zeros(before), img, zeros(after)] : [img, zeros(after)], axis) as Tensor3D;
  }
  return img.shape[0] === side ? img : tf.image.resizeBilinear(img, [side, side], false, false);
}

/** face-api's per-channel mean for its face-crop nets (landmarks, recognition, age). */
export const FACE_MEAN_RGB = [122.782, 117.001, 104.298];

/** face-api's normalize(x, mean).div(255) on a squared input, for the nets that take it (all but the SSD). Call inside tf.tidy. */
export function meanPixels(tf: TfModule, image: Tensor3D, side: number, centred: boolean, mean: number[]): Tensor3D {
  return tf.div(tf.sub(squared(tf, image, side, centred), tf.tensor1d(mean)), 255);
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
    return g.node('Conv', [x, g.weight(`w${id}`, dims, data), g.weight(`b${id}`, [dims[0]!], Float32Array.from(p.bias.dataSync()))], { auto_pad: padding, strides: [stride, stride] });
  };
  const separable = (x: string, p: SeparableParams, stride = 1): string => {
    const id = n++;
    // [kh, kw, c, 1] read as a conv's [1, c, kh, kw] is, in memory, the depthwise [c, 1, kh, kw]
    const [kh, kw, channels] = p.depthwise_filter.shape as [number, number, number];
    const depthwise = g.node('Conv', [x, g.weight(`d${id}`, [channels, 1, kh, kw], convWeights(p.depthwise_filter).data)], { auto_pad: 'SAME_UPPER', strides: [stride, stride], group: channels });
    return conv(depthwise, { filters: p.pointwise_filter, bias: p.bias });
  };
  const dense = (x: string, p: { weights: Tensor; bias: Tensor }, output?: string): string => {
    const id = n++;
    const w = g.weight(`fc${id}`, p.weights.shape, Float32Array.from(p.weights.dataSync()));
    return g.node('Add', [g.node('MatMul', [x, w]), g.weight(`fcb${id}`, [p.bias.shape[0]!], Float32Array.from(p.bias.dataSync()))], {}, output);
  };
  return { conv, separable, dense };
}
