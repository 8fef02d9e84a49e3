import { OcrPool } from './ocr.js';
import { TesseractDocumentReader } from './reader.js';
import type { DocumentReader } from './types.js';

// ID-document reading: MRZ (ICAO 9303, check-digit corrected) and the labelled visual zone,
// with tesseract.js running offline from node_modules.

export type { DocumentReader, DocumentReading, MrzFields, MrzReading, Rotation, VisualZoneFields, VisualZoneReading } from './types.js';
export type { MrzFormat } from './mrz-format.js';
export { checkDigit } from './mrz-format.js';

/** Starts a warm pool of tesseract workers (default 1; each takes about 0.3 s to start). */
export async function createTesseractDocumentReader(options: { workers?: number } = {}): Promise<DocumentReader> {
  const pool = await OcrPool.start(options.workers ?? 1);
  return new TesseractDocumentReader(pool);
}
