import { z } from 'zod';
import { DomainError } from '../errors.js';
import { decodeImage, ImageRejected, type DecodedImage } from '../../ml/image.js';

/** An image field in a check body: the caller's bytes (fronts decode base64, data URLs and files). */
export const imageBytes = z.instanceof(Buffer, { message: 'expected an image' });

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
