import { PaddleOcr } from './paddle.js';
import { PaddleDocumentReader } from './reader.js';
import type { DocumentReader } from './types.js';

// ID-document reading: MRZ (ICAO 9303, check-digit corrected), the labelled visual zone, and the
// AAMVA PDF417 of North American licences, with PaddleOCR on onnxruntime-node and zxing-wasm,
// all offline from node_modules.

export type { DocumentBarcode, DocumentReader, DocumentReading, MrzFields, MrzReading, Rotation, VisualZoneFields, VisualZoneReading } from './types.js';
export type { AamvaLicence, AamvaProblem } from './aamva.js';
export type { MrzFormat } from './mrz-format.js';
export { checkDigit } from './mrz-format.js';

/** Loads PaddleOCR PP-OCRv4 detection and recognition on onnxruntime-node (models from node_modules). */
export async function createDocumentReader(): Promise<DocumentReader> {
  return new PaddleDocumentReader(await PaddleOcr.load());
}
