import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { decodeImage, type DecodedImage } from '../../src/ml/image.js';

// The shared evaluation images live OUTSIDE the repository (../shared/data) and are never copied
// in; face tests read them in place and skip when they are absent.
export const SHARED_DATA = fileURLToPath(new URL('../../../shared/data/', import.meta.url));
export const hasSharedData =
  existsSync(`${SHARED_DATA}faceapi-bbt-identities/PAIRS.csv`) &&
  existsSync(`${SHARED_DATA}face_recognition-obama-biden/PAIRS.csv`);

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

/**
 * face-api's demo photos (group photos of several people, 1920 px wide), installed with the
 * @vladmandic/face-api dependency: real faces that every clone has, for the face tests the suite
 * cannot do without. Read in place from node_modules, never copied.
 */
export const DEMO_PHOTOS = join(
  dirname(createRequire(import.meta.url).resolve('@vladmandic/face-api/package.json')),
  'demo',
);

export function demoPhoto(n: 1 | 2 | 3 | 4 | 5 | 6): Promise<DecodedImage> {
  return decodeImage(readFileSync(join(DEMO_PHOTOS, `sample${n}.jpg`)));
}

/**
 * The single-person photos of a shared face set with their person, from its LABELS.csv (unlabelled, multi-face and
 * unknown photos left out).
 */
export function labelledPhotos(set: string, root = SHARED_DATA): { file: string; person: string }[] {
  return csvRows(`${root}/${set}/LABELS.csv`)
    .map(([file, label]) => ({ file: file!, person: (label ?? '').trim().split(/\s+/)[0] ?? '' }))
    .filter((row) => /^[a-z][a-z0-9_]*$/.test(row.person) && row.person !== 'same');
}

/**
 * Every pair of a set's labelled photos, same person or not: PAIRS.csv's label where it gives one, else the photos'
 * people.
 */
export function labelledPairs(set: string, root = SHARED_DATA): { a: string; b: string; same: boolean }[] {
  const stated = new Map(csvRows(`${root}/${set}/PAIRS.csv`).map(([a, b, same]) => [`${a}|${b}`, same === 'Yes']));
  const photos = labelledPhotos(set, root);
  const pairs: { a: string; b: string; same: boolean }[] = [];
  for (let i = 0; i < photos.length; i++)
    for (let j = i + 1; j < photos.length; j++) {
      const [a, b] = [photos[i]!, photos[j]!];
      pairs.push({
        a: a.file,
        b: b.file,
        same: stated.get(`${a.file}|${b.file}`) ?? stated.get(`${b.file}|${a.file}`) ?? a.person === b.person,
      });
    }
  return pairs;
}

/** The rows of a CSV file after its header, quoted cells unquoted. */
function csvRows(path: string): string[][] {
  return readFileSync(path, 'utf8')
    .trim()
    .split(/\r?\n/)
    .slice(1)
    .map((line) =>
      (line.match(/("(?:[^"]|"")*"|[^,]*)(,|$)/g) ?? []).map((cell) => cell.replace(/,$/, '').replace(/^"|"$/g, '')),
    );
}
