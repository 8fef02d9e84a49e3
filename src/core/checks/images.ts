import { z } from 'zod';
import { DomainError } from '../errors.js';
import { decodeImage, ImageRejected, inspectImage, type DecodedImage } from '../../ml/image.js';

/**
 * An image field in a check body: the caller's bytes (fronts decode base64, data URLs and files).
 * The document shows it as it travels: a string in JSON, or a file under the same name.
 */
export const imageBytes = z.instanceof(Buffer, { message: 'expected an image' }).meta({
  type: 'string',
  description: 'base64 or a data URL (or send multipart/form-data files under the same name)',
});

/** Validates an uploaded image: 413 image_too_large over 20 MB, 422 unprocessable when unusable. */
export async function intakeImage(field: string, bytes: Buffer): Promise<DecodedImage> {
  try {
    return await decodeImage(bytes);
  } catch (error) {
    if (!(error instanceof ImageRejected)) throw error;
    if (error.problem === 'too_large') throw new DomainError('image_too_large', `${field}: ${error.message}`);
    throw new DomainError('unprocessable', `${field}: ${error.message}`);
  }
}

/**
 * Pixels one request may bring to be decoded, all its images together. A 60 MP PNG of one colour
 * is a few hundred kilobytes on the wire and 180 MB decoded; eight of them, a gigabyte. Checked
 * on the headers, before anything is decoded. Two 25 MP phone photos of a document fit, and a
 * burst of camera frames many times over.
 */
export const MAX_REQUEST_PIXELS = 50_000_000;

/** Refuses images whose pixels add up past `budget`, from their headers alone: 413 image_too_large. */
export async function withinPixelBudget(
  images: [field: string, bytes: Buffer | undefined][],
  budget = MAX_REQUEST_PIXELS,
): Promise<DecodedImage[]> {
  const headers: DecodedImage[] = [];
  for (const [field, bytes] of images) if (bytes) headers.push(await intakeHeader(field, bytes));
  const total = headers.reduce((sum, h) => sum + h.width * h.height, 0);
  if (total > budget)
    throw new DomainError(
      'image_too_large',
      `the images hold ${(total / 1e6).toFixed(1)} MP together; one request may hold at most ${budget / 1e6} MP (send photos of at most about 12 MP)`,
    );
  return headers;
}

/** An image's header checked as intake would (size, format, pixel count), without decoding it. */
async function intakeHeader(field: string, bytes: Buffer): Promise<DecodedImage> {
  try {
    return await inspectImage(bytes);
  } catch {
    return intakeImage(field, bytes); // throws intake's answer for this image
  }
}
