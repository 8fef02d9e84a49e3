import type * as Tf from '@tensorflow/tfjs';
import type { Box, Rgb } from './evidence.js';
import type { TfModule } from '../tf.js';

/**
 * human's face tensor: a square `scale` x the detector box around its centre, bilinearly cut to
 * size x size and divided by 255. Outside the frame cropAndResize pads with 0, as in human.
 * Call inside tf.tidy.
 */
export function faceCrop(tf: TfModule, rgb: Rgb, box: Box, scale: number, size: number): Tf.Tensor4D {
  const side = Math.max(box.width, box.height) * scale;
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  // normalised [y1, x1, y2, x2]
  const norm: [number, number, number, number] = [
    (cy - side / 2) / rgb.height,
    (cx - side / 2) / rgb.width,
    (cy + side / 2) / rgb.height,
    (cx + side / 2) / rgb.width,
  ];
  const frame = tf.tensor4d(new Float32Array(rgbBytes(rgb)), [1, rgb.height, rgb.width, 3]);
  return tf.image.cropAndResize(frame, [norm], [0], [size, size]).div(255) as Tf.Tensor4D;
}

/** The pixels as packed RGB (dropping any alpha), the layout TF.js tensors take. */
export function rgbBytes(img: Rgb): Uint8Array {
  if (img.channels === 3) return img.data;
  const out = new Uint8Array(img.width * img.height * 3);
  for (let i = 0; i < img.width * img.height; i++) {
    out[i * 3] = img.data[i * img.channels]!;
    out[i * 3 + 1] = img.data[i * img.channels + 1]!;
    out[i * 3 + 2] = img.data[i * img.channels + 2]!;
  }
  return out;
}
