import { PaddleOcr } from './paddle.js';
import { PaddleDocumentReader } from './reader.js';
import type { DocumentReader, DocumentReading } from './types.js';
import { type Unnumbered, WorkerPool } from '../worker-pool.js';
import type { DocumentRequest } from './worker.js';

// ID-document reading: MRZ (ICAO 9303, check-digit corrected), the labelled visual zone, and the
// AAMVA PDF417 of North American licences, with PaddleOCR on onnxruntime-node and zxing-wasm,
// all offline from node_modules.

export type {
  DocumentBarcode,
  DocumentReader,
  DocumentReading,
  MrzFields,
  MrzReading,
  Rotation,
  VisualZoneFields,
  VisualZoneReading,
} from './types.js';
export type { AamvaLicence, AamvaProblem } from './aamva.js';
export type { MrzFormat } from './mrz-format.js';
export { checkDigit } from './mrz-format.js';

/** Loads PaddleOCR PP-OCRv4 detection and recognition on onnxruntime-node (models from node_modules). */
export async function createDocumentReader(): Promise<DocumentReader> {
  return new PaddleDocumentReader(await PaddleOcr.load());
}

/**
 * The same reader on a worker thread, as the service runs it. onnxruntime-node's `run` holds its
 * calling thread for the whole inference (a detection takes 150-400 ms here): read on the main
 * thread, a document would stall every other request of the instance for about a second. One
 * worker: OCR already runs one document at a time on every core.
 */
export async function startDocumentWorker(): Promise<DocumentReader> {
  const pool = await WorkerPool.start<Unnumbered<DocumentRequest>>({
    name: 'document',
    script: { from: import.meta.url, name: 'worker' },
    count: 1,
  });
  return {
    read: (front, back) => pool.send({ front, back }) as Promise<DocumentReading>,
    close: () => pool.close(),
  };
}
