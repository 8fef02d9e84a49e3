import sharp from 'sharp';
import { type DecodedImage, MAX_IMAGE_PIXELS } from '../image.js';
import { type Box, clipBox, padBox } from './geometry.js';

/** A JPEG of the face area plus `margin` (fraction of the box on each side), long side <= maxSide. */
export async function cropFaceJpeg(
  image: DecodedImage,
  box: Box,
  options: { margin?: number; maxSide?: number } = {},
): Promise<Buffer> {
  const margin = options.margin ?? 0.3;
  const maxSide = options.maxSide ?? 480;
  const area = clipBox(padBox(box, margin), image.width, image.height);
  const left = Math.floor(area.x);
  const top = Math.floor(area.y);
  const width = Math.min(image.width - left, Math.max(1, Math.round(area.width)));
  const height = Math.min(image.height - top, Math.max(1, Math.round(area.height)));
  if (width < 1 || height < 1) throw new RangeError('face box lies outside the image');
  return sharp(image.bytes, { limitInputPixels: MAX_IMAGE_PIXELS })
    .rotate() // boxes are in upright coordinates
    .extract({ left, top, width, height })
    .resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true })
    .toColourspace('srgb')
    .jpeg({ quality: 90 })
    .toBuffer();
}
