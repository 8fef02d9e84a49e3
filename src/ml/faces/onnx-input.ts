import type { Tensor } from '@tensorflow/tfjs';
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
