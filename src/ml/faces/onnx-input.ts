import type { Tensor, Tensor3D } from '@tensorflow/tfjs';
import { convWeights } from '../onnx-writer.js';
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

/** A depthwise filter [kh, kw, c, 1] as ONNX Conv weights [c, 1, kh, kw] (group = c): the same memory read as a conv's [1, c, kh, kw]. */
export function depthwiseWeights(filter: Tensor): { dims: number[]; data: Float32Array } {
  const [kh, kw, channels] = filter.shape as [number, number, number];
  return { dims: [channels, 1, kh, kw], data: convWeights(filter).data };
}
