import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { decodeImage, type DecodedImage } from '../../src/ml/image.js';

// The shared evaluation images live OUTSIDE the repository (../shared/data) and are never copied
// in; face tests read them in place and skip when they are absent.
export const SHARED_DATA = fileURLToPath(new URL('../../../shared/data/', import.meta.url));
export const hasSharedData = existsSync(`${SHARED_DATA}faceapi-bbt-identities/PAIRS.csv`) && existsSync(`${SHARED_DATA}face_recognition-obama-biden/PAIRS.csv`);

if (!hasSharedData) console.warn(`face data tests skipped: no evaluation images at ${SHARED_DATA}`);

export function sharedImage(path: string): Promise<DecodedImage> {
  return decodeImage(readFileSync(`${SHARED_DATA}${path}`));
}

/** A copy turned by 90 degrees clockwise, in memory only (EXIF applied first, then dropped). */
export function turned90(path: string): Promise<DecodedImage> {
  return turned(path, 90);
}

/** A copy turned clockwise by a multiple of 90 degrees, in memory only (EXIF applied first, then dropped). */
export async function turned(path: string, degrees: 90 | 180 | 270): Promise<DecodedImage> {
  const bytes = await sharp(readFileSync(`${SHARED_DATA}${path}`))
    .autoOrient()
    .rotate(degrees)
    .jpeg({ quality: 92 })
    .toBuffer();
  return decodeImage(bytes);
}

/** A smooth synthetic image with no face in it. */
export async function syntheticNoFace(): Promise<DecodedImage> {
  const width = 320;
  const height = 240;
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 3;
      data[o] = Math.round((255 * x) / width);
      data[o + 1] = Math.round((255 * y) / height);
      data[o + 2] = (x >> 4) % 2 === (y >> 4) % 2 ? 200 : 60; // checkerboard: edges but no face
    }
  }
  return decodeImage(
    await sharp(data, { raw: { width, height, channels: 3 } })
      .png()
      .toBuffer(),
  );
}
