import sharp, { type Metadata } from 'sharp';

// Image intake shared by every check and model: validate the caller's bytes, read the EXIF
// orientation, and hand the ORIGINAL bytes on (no recompression before the models).

/** Larger uploads answer 413 image_too_large (spec: "under 20 MB"). */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;
/** Decompression-bomb guard: more pixels than this is refused before decoding. */
export const MAX_IMAGE_PIXELS = 60_000_000;

export type ImageProblem = 'too_large' | 'not_an_image' | 'corrupt' | 'too_many_pixels' | 'too_small';

export class ImageRejected extends Error {
  constructor(
    readonly problem: ImageProblem,
    message: string,
  ) {
    super(message);
    this.name = 'ImageRejected';
  }
}

export interface DecodedImage {
  /** The caller's bytes, untouched. */
  bytes: Buffer;
  format: string;
  /** Size as displayed, i.e. after applying the EXIF orientation. */
  width: number;
  height: number;
  /** EXIF orientation tag (1 = upright); `pixels()` applies it. */
  orientation: number;
  /** Whether the image has an alpha channel (sharp resizes such images premultiplied, then drops it). */
  alpha: boolean;
  /**
   * The working copy the face and liveness models read (`pixels(image, WORKING_COPY)`), decoded at
   * intake where the bytes are checked: it travels with the image to the face workers, which
   * would otherwise decode the bytes a second time. Absent on an image only inspected.
   */
  working?: Pixels;
}

/**
 * The copy of an image the detector, the liveness evidence and the face mesh read: upright RGB, at most 640 px on its
 * long side.
 */
export const WORKING_COPY = { maxSide: 640, channels: 3 } as const;

const FORMATS = new Set(['jpeg', 'png', 'webp', 'heif', 'avif', 'tiff', 'gif']);

/** Validates and inspects an image without decoding its pixels. */
export async function inspectImage(bytes: Buffer): Promise<DecodedImage> {
  if (bytes.length > MAX_IMAGE_BYTES)
    throw new ImageRejected('too_large', `image is ${(bytes.length / 1048576).toFixed(1)} MB; the limit is 20 MB`);
  if (bytes.length === 0) throw new ImageRejected('not_an_image', 'image is empty');
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: false, failOn: 'none' }).metadata();
  } catch {
    throw new ImageRejected('not_an_image', 'not an image (expected JPEG, PNG, WebP, HEIC or TIFF)');
  }
  if (!meta.format || !FORMATS.has(meta.format) || !meta.width || !meta.height) {
    throw new ImageRejected('not_an_image', 'not an image (expected JPEG, PNG, WebP, HEIC or TIFF)');
  }
  if (meta.width * meta.height > MAX_IMAGE_PIXELS) {
    throw new ImageRejected(
      'too_many_pixels',
      `image is ${meta.width}x${meta.height} pixels; at most ${MAX_IMAGE_PIXELS / 1e6} megapixels are accepted`,
    );
  }
  if (meta.width < 32 || meta.height < 32)
    throw new ImageRejected('too_small', `image is ${meta.width}x${meta.height} pixels; at least 32x32 is needed`);
  const orientation = meta.orientation ?? 1;
  const swap = orientation >= 5 && orientation <= 8;
  return {
    bytes,
    format: meta.format,
    width: swap ? meta.height : meta.width,
    height: swap ? meta.width : meta.height,
    orientation,
    alpha: meta.hasAlpha === true,
  };
}

/**
 * Validates and decodes every byte once, so a truncated or corrupt file is refused at intake. The
 * decode makes the working copy, kept with the image: every scan of a JPEG is read even when
 * it is shrunk while decoding, so a cut-off file fails here as it would at full size.
 */
export async function decodeImage(bytes: Buffer): Promise<DecodedImage> {
  const image = await inspectImage(bytes);
  try {
    return { ...image, working: await decode(image, WORKING_COPY, 'truncated') };
  } catch {
    throw new ImageRejected('corrupt', 'image data is corrupt or truncated');
  }
}

/** An image as posted to a worker thread: its Buffers arrive as plain Uint8Arrays, and sharp wants Buffers. */
export function receivedImage(image: DecodedImage): DecodedImage {
  const buffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    ...image,
    bytes: buffer(image.bytes),
    ...(image.working ? { working: { ...image.working, data: buffer(image.working.data) } } : {}),
  };
}

export interface Pixels {
  data: Buffer;
  width: number;
  height: number;
  channels: 1 | 3 | 4;
}

/**
 * Decodes already done for an image, by size and channels. The detector, the liveness evidence
 * and the face mesh all ask for the same 640-pixel RGB copy of a frame; it is decoded once per
 * image and freed with it. Callers only read the pixels (every transform writes a new buffer).
 */
const decoded = new WeakMap<DecodedImage, Map<string, Promise<Pixels>>>();

/**
 * Upright pixels (EXIF orientation applied), optionally scaled so the longer side is at most
 * `maxSide`. Models decode from the original bytes through this; nothing is re-encoded. Read-only:
 * the same pixels are shared by every caller that asks with the same options.
 */
export function pixels(image: DecodedImage, options: { maxSide?: number; channels?: 1 | 3 } = {}): Promise<Pixels> {
  const key = decodeKey(options);
  let byOptions = decoded.get(image);
  if (!byOptions) {
    // the working copy decoded at intake is the first decode done
    byOptions = new Map(image.working ? [[decodeKey(WORKING_COPY), Promise.resolve(image.working)]] : []);
    decoded.set(image, byOptions);
  }
  let result = byOptions.get(key);
  if (!result) {
    result = decode(image, options);
    result.catch(() => byOptions.delete(key)); // a failed decode is not kept
    byOptions.set(key, result);
  }
  return result;
}

const decodeKey = (options: { maxSide?: number; channels?: 1 | 3 }) =>
  `${options.maxSide ?? 0}:${options.channels ?? 0}`;

async function decode(
  image: DecodedImage,
  options: { maxSide?: number; channels?: 1 | 3 },
  failOn?: 'truncated',
): Promise<Pixels> {
  let pipeline = sharp(image.bytes, { limitInputPixels: MAX_IMAGE_PIXELS, ...(failOn ? { failOn } : {}) }).rotate();
  if (options.maxSide && Math.max(image.width, image.height) > options.maxSide) {
    pipeline = pipeline.resize({ width: options.maxSide, height: options.maxSide, fit: 'inside' });
  }
  pipeline = options.channels === 1 ? pipeline.grayscale() : pipeline.removeAlpha();
  const { data, info } = await pipeline.raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels as 1 | 3 | 4 };
}
