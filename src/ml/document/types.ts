import type { DecodedImage } from '../image.js';
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

export interface DocumentReading {
  mrz: MrzReading | null;
  visualZone: VisualZoneReading;
  /** Rotation applied to read it upright. */
  rotation: Rotation;
  /** Small-angle deskew applied, if any. */
  skewDegrees: number;
  /** Which image the MRZ came from. */
  side: 'front' | 'back';
  /** Agreement between MRZ and visual-zone fields that both have: field -> agrees? */
  mrzVisualAgreement: Record<string, boolean>;
  timings: { ocrMs: number; totalMs: number };
}

export interface DocumentReader {
  read(front: DecodedImage | undefined, back?: DecodedImage): Promise<DocumentReading>;
  close(): Promise<void>;
}
