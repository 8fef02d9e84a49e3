import sharp from 'sharp';
import { DomainError } from '../errors.js';

/** The largest logo an admin may upload (decoded bytes). */
export const LOGO_MAX_BYTES = 512 * 1024;
/** Formats told by the bytes themselves; never SVG, which can carry script and outside links. */
const LOGO_FORMATS = ['png', 'jpeg', 'webp'];
/** The logo's longer side after re-encoding (px). */
const LOGO_MAX_SIDE = 512;

const refuse = (why: string) =>
  new DomainError('validation_error', `logo: ${why}`, { data: { errors: { logo: why } } });

/**
 * An admin's logo (base64 or a data URL) as a fresh PNG: only PNG, JPEG or WebP by their bytes,
 * at most LOGO_MAX_BYTES, decoded and re-encoded so that nothing but pixels (no metadata, no
 * trailing data) reaches the hosted page.
 */
export async function safeLogo(encoded: string): Promise<Buffer> {
  const bytes = Buffer.from(encoded.replace(/^data:[\w/+.-]+;base64,/, ''), 'base64');
  if (!bytes.length) throw refuse('empty or not base64');
  if (bytes.length > LOGO_MAX_BYTES) throw refuse(`at most ${LOGO_MAX_BYTES / 1024} KB`);
  const format = await sharp(bytes)
    .metadata()
    .then(
      (meta) => meta.format as string,
      () => null,
    );
  if (!format || !LOGO_FORMATS.includes(format)) throw refuse('PNG, JPEG or WebP only');
  return sharp(bytes, { limitInputPixels: 4096 * 4096 })
    .rotate()
    .resize({ width: LOGO_MAX_SIDE, height: LOGO_MAX_SIDE, fit: 'inside', withoutEnlargement: true })
    .png()
    .toBuffer()
    .catch(() => {
      throw refuse('not a readable image');
    });
}
