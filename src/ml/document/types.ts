import type { DecodedImage } from '../image.js';
import type { AamvaLicence, AamvaProblem } from './aamva.js';
import type { MrzFormat } from './mrz-format.js';

export interface MrzFields {
  documentCode: string | null;
  issuingState: string | null;
  documentNumber: string | null;
  nationality: string | null;
  surname: string | null;
  givenNames: string | null;
  /** YYYY-MM-DD; birth dates resolved into the past, expiry dates within about 50 years of today. */
  birthDate: string | null;
  expirationDate: string | null;
  sex: 'M' | 'F' | 'X' | null;
  optional: string | null;
}

export interface MrzReading {
  format: MrzFormat;
  /** Corrected MRZ lines as read. */
  lines: string[];
  /** Per check digit present on this format (document_number, birth_date, expiration_date, personal_number, composite): valid? */
  checkDigits: Record<string, boolean>;
  /** Every check digit present on this format is valid. */
  valid: boolean;
  /** Characters changed by check-digit-guided correction. */
  corrections: number;
  /** Fields whose text the correction changed: as read and as corrected. */
  correctedFields: Array<{ field: string; from: string; to: string }>;
  fields: MrzFields;
}

export interface VisualZoneFields {
  fullName?: string;
  fathersName?: string;
  documentNumber?: string;
  dateOfBirth?: string;
  dateOfIssue?: string;
  dateOfExpiry?: string;
  sex?: string;
  country?: string;
}

export interface VisualZoneReading {
  /** OCR text of the page; callers never store it. */
  text: string;
  fields: VisualZoneFields;
}

export type Rotation = 0 | 90 | 180 | 270;

/** A 2D barcode found on the document, and what its AAMVA DL/ID reading gave. */
export interface DocumentBarcode {
  format: string;
  side: 'front' | 'back';
  /** The licence, when the barcode holds a valid AAMVA DL/ID file. */
  licence: AamvaLicence | null;
  /** Why it is not a licence (not AAMVA, broken header ...), else null. */
  problem: AamvaProblem | null;
  message: string | null;
}

export interface DocumentReading {
  mrz: MrzReading | null;
  barcode: DocumentBarcode | null;
  visualZone: VisualZoneReading;
  /** Rotation applied to read it upright. */
  rotation: Rotation;
  /** Rotation that stands the front upright (the only image, when just one was sent): where its portrait is upright too. */
  frontRotation: Rotation;
  /** Small-angle deskew applied, if any. */
  skewDegrees: number;
  /** Which image the MRZ came from. */
  side: 'front' | 'back';
  /** Agreement between MRZ and visual-zone fields that both have: field -> agrees? */
  mrzVisualAgreement: Record<string, boolean>;
  /** Agreement between the licence barcode and the printed front, for fields both have. */
  barcodeVisualAgreement: Record<string, boolean>;
  timings: { ocrMs: number; totalMs: number };
}

export interface DocumentReader {
  read(front: DecodedImage | undefined, back?: DecodedImage): Promise<DocumentReading>;
  close(): Promise<void>;
}
