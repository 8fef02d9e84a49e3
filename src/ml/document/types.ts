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

/** A field's text as read and as changed. */
export interface FieldChange {
  field: string;
  from: string;
  to: string;
}

/**
 * A correction: by the field's type (a date holds digits only), by a check digit (the one repair
 * it allows), or by the printed zone (the one of the readings a check digit allows that is printed
 * on the page).
 */
export interface MrzCorrection extends FieldChange {
  by: 'field_type' | 'check_digit' | 'printed_zone';
}

/**
 * A check digit that several repairs satisfy equally well: none was applied, each is listed as the fields it would
 * change.
 */
export interface MrzAmbiguity {
  check: string;
  readings: FieldChange[][];
}

/**
 * Why a field is not verified: `unreadable` (its line was not read, or it holds characters its
 * type cannot), `check_digit_failed` (read, but its check digit does not hold), `ambiguous` (its
 * check digit holds for several readings of it, none taken).
 */
export type MrzFieldProblem = 'unreadable' | 'check_digit_failed' | 'ambiguous';

/**
 * The layout fields a problem may concern: documentCode, issuingState, documentNumber, nationality, names, birthDate,
 * sex, expirationDate.
 */
export type MrzProblemField =
  | 'documentCode'
  | 'issuingState'
  | 'documentNumber'
  | 'nationality'
  | 'names'
  | 'birthDate'
  | 'sex'
  | 'expirationDate';

export interface MrzReading {
  format: MrzFormat;
  /** Corrected MRZ lines as read (a line not read at all is fillers, and listed in `missingLines`). */
  lines: string[];
  /**
   * Per check digit present on this format and computable from the lines read (document_number, birth_date,
   * expiration_date, personal_number, composite): valid?
   */
  checkDigits: Record<string, boolean>;
  /** Every line read and every check digit of the format valid. */
  valid: boolean;
  /** Characters changed by field-type and check-digit-guided correction. */
  corrections: number;
  /** Fields whose text the correction changed: as read and as corrected, and by what. */
  correctedFields: MrzCorrection[];
  /** Check digits the correction could not settle: several readings hold. */
  ambiguities: MrzAmbiguity[];
  /** Lines of the layout (0-based) that were not read at all. */
  missingLines: number[];
  /** Part of the zone could not be read: a line missing, or the document number or a date illegible. */
  partial: boolean;
  /** A document number longer than nine characters (TD1, TD2): how many continue in the optional data; 0 otherwise. */
  numberContinues: number;
  /** Why a field is not verified, per field; absent for fields read and verified (or read without a check digit). */
  fieldProblems: Partial<Record<MrzProblemField, { problem: MrzFieldProblem; detail: string }>>;
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
  /**
   * Rotation that stands the front upright (the only image, when just one was sent): where its portrait is upright too.
   */
  frontRotation: Rotation;
  /** Small-angle deskew applied, if any. */
  skewDegrees: number;
  /** Which image the MRZ came from. */
  side: 'front' | 'back';
  /** Agreement between MRZ and visual-zone fields that both have: field -> agrees? */
  mrzVisualAgreement: Record<string, boolean>;
  /**
   * The printed number and the MRZ's are two readings of one number that cannot both be right
   * (printedNumberConflicts in visual-zone.ts).
   */
  printedNumberConflict: boolean;
  /** Agreement between the licence barcode and the printed front, for fields both have. */
  barcodeVisualAgreement: Record<string, boolean>;
  timings: { ocrMs: number; totalMs: number };
}

export interface DocumentReader {
  read(front: DecodedImage | undefined, back?: DecodedImage): Promise<DocumentReading>;
  close(): Promise<void>;
}
