import { z } from 'zod';
import type { AccountService } from '../accounts/service.js';
import { DomainError } from '../errors.js';
import type { FaceEngine } from '../face-engine.js';
import type { Models } from '../models.js';
import type { DecodedImage } from '../../ml/image.js';
import type { DocumentReading, MrzReading, Rotation } from '../../ml/document/index.js';
import type { QuarterTurns } from '../../ml/faces/index.js';
import { compareDates, parseCalendarDate, utcDate } from './dates.js';
import { imageBytes, intakeImage, withinPixelBudget } from './images.js';
import type { StandaloneCheck } from './pipeline.js';
import type { CheckContext, CheckOutcome } from './types.js';

export const idVerificationInput = z.object({
  front_image: imageBytes.optional(),
  back_image: imageBytes.optional(),
  svc_access_token: z.string().min(1).max(200).optional(),
  svc_id: z.string().min(1).max(40).optional(),
});
export type IdVerificationInput = z.infer<typeof idVerificationInput>;

type Prepared =
  | { mode: 'fresh'; front?: DecodedImage; back?: DecodedImage }
  | { mode: 'account'; verifiedAt: string | null };

/** One piece of evidence behind the authenticity score, listed in the check's data. */
export interface Evidence {
  name: string;
  passed: boolean;
  weight: number;
  detail: string;
}

const DOCUMENT_TYPES: Record<string, string> = { P: 'passport', I: 'id_card', A: 'id_card', C: 'id_card', V: 'visa' };
const LICENCE_TYPES: Record<string, string> = { DL: 'driver_license', ID: 'id_card' };

/** Does the MRZ format fit the document code (passports on TD3, cards on TD1/TD2, visas on MRV)? */
function layoutConsistent(reading: DocumentReading): boolean {
  const mrz = reading.mrz!;
  const code = mrz.fields.documentCode?.[0] ?? '';
  if (mrz.format === 'TD3') return code === 'P';
  if (mrz.format === 'TD1') return ['I', 'A', 'C'].includes(code);
  if (mrz.format === 'TD2') return ['I', 'A', 'C', 'P'].includes(code);
  return code === 'V';
}

/**
 * The number printed on the page, read apart, is not the MRZ's, though every check digit holds:
 * look-alike misreadings can cancel in a check digit (three in 'B5OI32HQA' read 'B50432H0A', whose
 * printed number reads 'B50132HQA'), and a page whose printed number is not its zone's is not one
 * document either. The two readings cannot tell which is right, so a person looks.
 */
function printedNumberDisagrees(reading: DocumentReading): boolean {
  return reading.mrz?.valid === true && reading.printedNumberConflict;
}

/**
 * Part of the zone is not taken: a line or a key field not read (the reader's `partial`), or a
 * zone not valid though every check digit holds, for a field it could not take (a state code that
 * is no state's). What was read is answered with a reason per field, in review: nothing read is
 * proven wrong, so it is no `invalid_check_digits` failure.
 */
function readInPart(mrz: MrzReading): boolean {
  return (
    mrz.partial ||
    (!mrz.valid &&
      Object.values(mrz.checkDigits).every(Boolean) &&
      Object.values(mrz.fieldProblems).some((problem) => problem?.problem === 'unreadable'))
  );
}

/**
 * Authenticity from evidence we can explain: a machine-readable zone, its check digits, expiry,
 * agreement with the printed (visual) zone, a face on the document, and a layout that fits the
 * document code. The score is the weighted share of passed evidence.
 */
export function authenticityEvidence(
  reading: DocumentReading,
  facePresent: boolean,
  expired: boolean | null,
): Evidence[] {
  const mrz = reading.mrz;
  const agreement = Object.values(reading.mrzVisualAgreement);
  const agreeing = agreement.filter(Boolean).length;
  const failedDigits = mrz
    ? Object.entries(mrz.checkDigits)
        .filter(([, ok]) => !ok)
        .map(([name]) => name)
    : [];
  return [
    {
      name: 'mrz_present',
      passed: mrz !== null,
      weight: 0.15,
      detail: mrz
        ? `${mrz.format} machine-readable zone read${readInPart(mrz) ? ' in part' : ''}${missingLinesText(mrz)}`
        : 'no machine-readable zone found',
    },
    {
      name: 'check_digits_valid',
      passed: mrz?.valid ?? false,
      weight: 0.3,
      detail: !mrz
        ? 'nothing to check'
        : failedDigits.length
          ? `invalid: ${failedDigits.join(', ')}`
          : mrz.valid
            ? `all ${Object.keys(mrz.checkDigits).length} check digits valid`
            : `the ${Object.keys(mrz.checkDigits).length} check digits read hold; the others are on lines not read`,
    },
    {
      name: 'not_expired',
      passed: expired === false,
      weight: 0.15,
      detail:
        expired === null ? 'expiry date not read' : expired ? 'document is expired' : 'expiry date is in the future',
    },
    {
      name: 'mrz_matches_visual_zone',
      passed: agreement.length > 0 && agreeing === agreement.length,
      weight: 0.15,
      detail: agreement.length
        ? `${agreeing} of ${agreement.length} printed fields agree with the MRZ`
        : 'no printed field to compare',
    },
    {
      name: 'face_on_document',
      passed: facePresent,
      weight: 0.15,
      detail: facePresent ? 'a portrait was found' : 'no portrait found',
    },
    {
      name: 'layout_consistent',
      passed: mrz ? layoutConsistent(reading) : false,
      weight: 0.1,
      detail: mrz ? `format ${mrz.format} with document code ${mrz.fields.documentCode ?? '?'}` : 'no layout to check',
    },
    correctionEvidence(reading),
    ambiguityEvidence(reading),
  ];
}

/** ' (line 1 not read)' for a zone read in part, else ''. */
function missingLinesText(mrz: MrzReading): string {
  if (mrz.missingLines.length === 0) return '';
  return ` (line${mrz.missingLines.length > 1 ? 's' : ''} ${mrz.missingLines.map((l) => l + 1).join(' and ')} not read)`;
}

/**
 * Which MRZ fields were corrected, and by what: the field's type (a date holds digits only, a
 * name or a country code letters only), a check digit (the one repair that meets it) or the
 * printed number (the one of several readings a check digit allows printed on the page);
 * reported, weighs nothing.
 */
function correctionEvidence(reading: DocumentReading): Evidence {
  const corrected = reading.mrz?.correctedFields ?? [];
  const by = (kind: MrzReading['correctedFields'][number]['by'], label: string) => {
    const list = corrected.filter((c) => c.by === kind);
    return list.length ? [`${label}: ${list.map((c) => `${c.field} ${c.from} -> ${c.to}`).join('; ')}`] : [];
  };
  const parts = [
    ...by('field_type', 'by field type'),
    ...by('check_digit', 'by the check digit'),
    ...by('printed_zone', 'by the printed number, among the readings the check digit allows'),
  ];
  return {
    name: 'mrz_corrections',
    passed: true,
    weight: 0,
    detail: parts.length ? `corrected ${parts.join('; ')}` : 'no correction needed',
  };
}

/**
 * Check digits several readings meet equally well (letter/digit confusions in an alphanumeric
 * number: only the check digit decides, and here it cannot): none was taken, each is listed;
 * reported, weighs nothing (the failing check digit already does).
 */
function ambiguityEvidence(reading: DocumentReading): Evidence {
  const ambiguities = reading.mrz?.ambiguities ?? [];
  const readingText = (changes: MrzReading['ambiguities'][number]['readings'][number]) =>
    changes.map((c) => `${c.field} ${c.from} -> ${c.to}`).join(', ');
  return {
    name: 'mrz_ambiguities',
    passed: ambiguities.length === 0,
    weight: 0,
    detail: ambiguities.length
      ? ambiguities
          .map(
            (a) =>
              `${a.check}: its check digit holds for ${a.readings.length} readings, none taken: ${a.readings.map(readingText).join(' | ')}`,
          )
          .join('; ')
      : 'no ambiguous reading',
  };
}

/** The spec's fields each MRZ field fills. */
const SPEC_FIELD: Record<keyof MrzReading['fieldProblems'], keyof ReturnType<typeof fieldsOf>> = {
  documentNumber: 'document_number',
  birthDate: 'date_of_birth',
  expirationDate: 'date_of_expiry',
  names: 'full_name',
  sex: 'sex',
  issuingState: 'issuing_state',
  nationality: 'country',
  documentCode: 'document_type',
};

/** Why a field of the answer is not verified by the MRZ, and where its value came from. */
export interface FieldReason {
  /** `unreadable`, `check_digit_failed` or `ambiguous` (see MrzFieldProblem). */
  reason: string;
  detail: string;
  /** `mrz` (as read there, unverified), `printed_zone` (the visual zone only) or `none` (left empty). */
  source: 'mrz' | 'printed_zone' | 'none';
}

/**
 * Per field of the answer that the MRZ does not verify, why and where its value came from (a
 * field read and verified, or read from a line no check digit covers, has none). Empty without
 * an MRZ (the status reason says so) and for a licence read from its barcode.
 */
export function fieldReasons(
  reading: DocumentReading,
  fields: ReturnType<typeof fieldsOf>,
): Record<string, FieldReason> {
  const mrz = reading.mrz;
  if (!mrz || readFromLicence(reading)) return {};
  const out: Record<string, FieldReason> = {};
  for (const [name, problem] of Object.entries(mrz.fieldProblems) as Array<
    [keyof MrzReading['fieldProblems'], { problem: string; detail: string }]
  >) {
    const field = SPEC_FIELD[name];
    const value = fields[field];
    const fromMrz = problem.problem !== 'unreadable';
    out[field] = {
      reason: problem.problem,
      detail: problem.detail,
      source: value === '' ? 'none' : fromMrz ? 'mrz' : 'printed_zone',
    };
  }
  return out;
}

/**
 * Authenticity of a licence read from its AAMVA barcode: a valid AAMVA file, expiry, the printed
 * front agreeing with the barcode, a face on the front, and a North American issuer number.
 */
export function licenceEvidence(reading: DocumentReading, facePresent: boolean, expired: boolean | null): Evidence[] {
  const licence = reading.barcode!.licence!;
  const agreement = Object.entries(reading.barcodeVisualAgreement);
  const disagreeing = agreement.filter(([, ok]) => !ok).map(([field]) => field);
  return [
    {
      name: 'aamva_barcode_valid',
      passed: true,
      weight: 0.45,
      detail: `AAMVA version ${licence.version} ${licence.documentType} file read from the ${reading.barcode!.side} (IIN ${licence.iin})`,
    },
    {
      name: 'not_expired',
      passed: expired === false,
      weight: 0.15,
      detail:
        expired === null ? 'expiry date not read' : expired ? 'document is expired' : 'expiry date is in the future',
    },
    {
      name: 'barcode_matches_front',
      passed: agreement.length > 0 && disagreeing.length === 0,
      weight: 0.15,
      detail:
        agreement.length === 0
          ? 'no printed front field to compare'
          : disagreeing.length
            ? `the front disagrees with the barcode on: ${disagreeing.join(', ')}`
            : `${agreement.length} printed fields agree with the barcode`,
    },
    {
      name: 'face_on_document',
      passed: facePresent,
      weight: 0.15,
      detail: facePresent ? 'a portrait was found' : 'no portrait found',
    },
    {
      name: 'issuer_consistent',
      passed: licence.iin.startsWith('636') || licence.iin.startsWith('604'),
      weight: 0.1,
      detail: `issuer identification number ${licence.iin}`,
    },
  ];
}

export function authenticityScore(evidence: Evidence[]): number {
  const total = evidence.reduce((sum, item) => sum + item.weight, 0);
  return Math.round((evidence.reduce((sum, item) => sum + (item.passed ? item.weight : 0), 0) / total) * 100) / 100;
}

/** Below this the document is readable but the evidence is weak: a person should look. */
export const REVIEW_BELOW = 0.75;

const name = (value: string | null | undefined) => (value ?? '').replace(/</g, ' ').replace(/\s+/g, ' ').trim();

/** The spec's fields from a licence barcode; the printed front only fills what the barcode lacks. */
function licenceFields(reading: DocumentReading) {
  const licence = reading.barcode!.licence!;
  const visual = reading.visualZone.fields;
  return {
    full_name: [licence.givenNames, licence.familyName].filter(Boolean).join(' '),
    fathers_name: '',
    document_number: licence.number,
    date_of_birth: licence.birthDate ?? visual.dateOfBirth ?? '',
    date_of_issue: licence.issueDate ?? visual.dateOfIssue ?? '',
    date_of_expiry: licence.expiryDate ?? visual.dateOfExpiry ?? '',
    sex: licence.sex ?? visual.sex ?? '',
    issuing_state: licence.address.jurisdiction,
    country: licence.country ?? '',
    document_type: LICENCE_TYPES[licence.documentType] ?? 'other',
  };
}

/** The MRZ's expiry, held by its check digit, lies before today. */
function verifiedExpired(mrz: MrzReading, today: Date): boolean {
  const expiry = mrz.checkDigits.expiration_date ? parseCalendarDate(mrz.fields.expirationDate ?? '') : null;
  return !!expiry && compareDates(expiry, utcDate(today)) < 0;
}

/** A licence barcode decides when no valid MRZ was read. */
const readFromLicence = (reading: DocumentReading) => !!reading.barcode?.licence && !reading.mrz?.valid;

function fieldsOf(reading: DocumentReading) {
  if (readFromLicence(reading)) return licenceFields(reading);
  const mrz = legibleMrzFields(reading.mrz);
  const visual = reading.visualZone.fields;
  const fullName = visual.fullName ?? [name(mrz?.givenNames), name(mrz?.surname)].filter(Boolean).join(' ');
  return {
    full_name: fullName,
    fathers_name: visual.fathersName ?? '',
    document_number: mrz?.documentNumber ?? visual.documentNumber ?? '',
    date_of_birth: mrz?.birthDate ?? visual.dateOfBirth ?? '',
    date_of_issue: visual.dateOfIssue ?? '',
    date_of_expiry: mrz?.expirationDate ?? visual.dateOfExpiry ?? '',
    sex: mrz?.sex ?? visual.sex ?? '',
    issuing_state: mrz?.issuingState ?? '',
    country: mrz?.nationality ?? visual.country ?? mrz?.issuingState ?? '',
    document_type: DOCUMENT_TYPES[mrz?.documentCode?.[0] ?? ''] ?? (mrz?.documentCode ? 'other' : ''),
  };
}

/** The MRZ's fields without those it could not read (a half-read number is no number): the printed zone fills them. */
function legibleMrzFields(mrz: MrzReading | null): MrzReading['fields'] | undefined {
  if (!mrz) return undefined;
  const unreadable = (name: keyof MrzReading['fieldProblems']) => mrz.fieldProblems[name]?.problem === 'unreadable';
  const f = mrz.fields;
  return {
    ...f,
    documentCode: unreadable('documentCode') ? null : f.documentCode,
    issuingState: unreadable('issuingState') ? null : f.issuingState,
    documentNumber: unreadable('documentNumber') ? null : f.documentNumber,
    nationality: unreadable('nationality') ? null : f.nationality,
    surname: unreadable('names') ? null : f.surname,
    givenNames: unreadable('names') ? null : f.givenNames,
    birthDate: unreadable('birthDate') ? null : f.birthDate,
    sex: unreadable('sex') ? null : f.sex,
    expirationDate: unreadable('expirationDate') ? null : f.expirationDate,
  };
}

/** What the barcode was, and for a licence its AAMVA version and the holder's address (fresh mode returns raw data). */
function barcodeView(reading: DocumentReading) {
  const barcode = reading.barcode;
  if (!barcode) return null;
  const licence = barcode.licence;
  return {
    format: barcode.format,
    side: barcode.side,
    aamva: licence
      ? {
          version: licence.version,
          iin: licence.iin,
          address: {
            street: licence.address.street,
            city: licence.address.city,
            jurisdiction: licence.address.jurisdiction,
            postal_code: licence.address.postalCode,
          },
        }
      : null,
    problem: barcode.problem,
  };
}

/**
 * The spec: `front_image` is required, `back_image` optional. Neither image is the catalog's
 * `no_images_provided`; a back alone is a missing field, refused before any charge.
 */
function requireFrontImage(input: IdVerificationInput): void {
  if (!input.front_image && !input.back_image) throw new DomainError('no_images_provided');
  if (!input.front_image) {
    throw new DomainError('validation_error', 'front_image is required (back_image is optional and comes with it)', {
      data: { errors: { front_image: 'required' } },
    });
  }
}

/** A document's rotation as the face detector's clockwise quarter turns (both turn the image clockwise). */
const quarterTurns = (rotation: Rotation) => (rotation / 90) as QuarterTurns;

/** POST /api/v2/id-verification: real OCR and MRZ, a portrait, explained authenticity. */
export function idVerificationCheck(
  models: Models,
  faces: FaceEngine,
  accounts: AccountService,
): StandaloneCheck<IdVerificationInput, Prepared> {
  return {
    type: 'id_verification',
    input: idVerificationInput,
    async prepare(input, context): Promise<Prepared> {
      if (context.mode === 'account') {
        // None on file: no_reusable_record; a document expired since: reuse_not_available.
        const identity = await accounts.stateFor(context).reusableIdentity(context.svcId!, context.today);
        return { mode: 'account', verifiedAt: identity.verifiedAt };
      }
      requireFrontImage(input);
      await withinPixelBudget([
        ['front_image', input.front_image],
        ['back_image', input.back_image],
      ]);
      const front = input.front_image ? await intakeImage('front_image', input.front_image) : undefined;
      const back = input.back_image ? await intakeImage('back_image', input.back_image) : undefined;
      return { mode: 'fresh', front, back };
    },
    async execute(prepared, context: CheckContext): Promise<CheckOutcome> {
      if (prepared.mode === 'account') {
        // Proofs only: that a verified identity is on file, never its contents.
        return {
          check: {
            type: 'id_verification',
            status: 'passed',
            data: { id_verified: true, reused: true, verified_at: prepared.verifiedAt },
            error: null,
          },
        };
      }
      const reading = await (await models.documents()).read(prepared.front, prepared.back);
      const fields = fieldsOf(reading);
      const reasons = fieldReasons(reading, fields);
      const fromLicence = readFromLicence(reading);
      const barcodeProblem =
        reading.barcode && !reading.barcode.licence && !reading.mrz?.valid ? reading.barcode : null;
      const readable =
        reading.mrz !== null ||
        fromLicence ||
        barcodeProblem !== null ||
        [fields.full_name, fields.document_number, fields.date_of_birth].filter(Boolean).length >= 2;
      if (!readable)
        throw new DomainError(
          'unprocessable',
          'no document could be read: send a sharp, well-lit photo of the whole document',
        );

      // The portrait is on the front of every layout (cards carry their MRZ on the back).
      const portraitSource = prepared.front ?? prepared.back;
      // Upright with the document: a face at any other turn is not its portrait, and skipping them saves three detector
      // runs.
      const [face] = portraitSource
        ? await faces.detectFaces(portraitSource, { upright: quarterTurns(reading.frontRotation) })
        : [];
      const portrait =
        face && portraitSource
          ? (await faces.cropFace(portraitSource, face.box, { margin: 0.25, maxSide: 480 })).toString('base64')
          : '';

      const expiry = parseCalendarDate(fields.date_of_expiry);
      const expired = expiry ? compareDates(expiry, utcDate(context.today)) < 0 : null;
      const evidence = fromLicence
        ? licenceEvidence(reading, Boolean(face), expired)
        : authenticityEvidence(reading, Boolean(face), expired);
      const score = authenticityScore(evidence);

      let status: 'passed' | 'failed' | 'review' = 'passed';
      let reason: string | undefined;
      let error: string | null = null;
      if (barcodeProblem) {
        // A barcode we cannot trust as a licence: a person decides, never a pass.
        status = 'review';
        reason = barcodeProblem.problem === 'not_aamva' ? 'barcode_not_aamva' : 'barcode_invalid';
        error = `${reason}: ${barcodeProblem.format} ${barcodeProblem.message}`;
      } else if (fromLicence && expired) {
        status = 'failed';
        reason = 'expired';
        error = `document expired on ${fields.date_of_expiry}`;
      } else if (fromLicence && Object.values(reading.barcodeVisualAgreement).includes(false)) {
        status = 'review';
        reason = 'barcode_front_mismatch';
        error = `barcode_front_mismatch: ${evidence.find((e) => e.name === 'barcode_matches_front')!.detail}`;
      } else if (fromLicence) {
        // A licence's last rule is the evidence score, below.
      } else if (reading.mrz && readInPart(reading.mrz) && verifiedExpired(reading.mrz, context.today)) {
        status = 'failed';
        reason = 'expired';
        error = `document expired on ${reading.mrz.fields.expirationDate}`;
      } else if (reading.mrz && readInPart(reading.mrz)) {
        // Part of the zone read: what was read is given with a reason per field it could not
        // verify. Neither a pass (a field is unverified) nor a failure (nothing read is wrong):
        // a person looks at the document, or the integrator asks for a better photo.
        status = 'review';
        reason = 'partial_read';
        error = `partial read of the machine-readable zone: ${Object.entries(reasons)
          .map(([field, r]) => `${field} ${r.reason.replace(/_/g, ' ')}`)
          .join(', ')}`;
      } else if (reading.mrz && !reading.mrz.valid) {
        status = 'failed';
        reason = 'invalid_check_digits';
        error = `invalid check digits: ${Object.entries(reading.mrz.checkDigits)
          .filter(([, ok]) => !ok)
          .map(([field]) => field)
          .join(', ')}`;
      } else if (expired) {
        status = 'failed';
        reason = 'expired';
        error = `document expired on ${fields.date_of_expiry}`;
      } else if (printedNumberDisagrees(reading)) {
        status = 'review';
        reason = 'number_mismatch';
        error =
          "number_mismatch: the document number printed on the page differs from the machine-readable zone's, whose check digits hold";
      } else if (!reading.mrz) {
        status = 'review';
        reason = 'no_mrz';
        error = 'no machine-readable zone found; fields were read from the printed zone only';
      }
      // Nothing decided above, and too little evidence for a pass: a person looks (licence or MRZ).
      if (status === 'passed' && score < REVIEW_BELOW) {
        status = 'review';
        reason = 'weak_evidence';
        error = `weak evidence: ${evidence
          .filter((item) => !item.passed)
          .map((item) => item.name)
          .join(', ')}`;
      }
      return {
        check: {
          type: 'id_verification',
          status,
          score,
          data: {
            fields,
            portrait,
            dob: fields.date_of_birth,
            authenticity: { score, evidence },
            mrz: reading.mrz
              ? {
                  format: reading.mrz.format,
                  valid: reading.mrz.valid,
                  partial: readInPart(reading.mrz),
                  long_number: reading.mrz.numberContinues > 0,
                  check_digits: reading.mrz.checkDigits,
                  corrections: reading.mrz.corrections,
                }
              : null,
            field_reasons: reasons,
            barcode: barcodeView(reading),
            rotation: reading.rotation,
          },
          error,
        },
        reason,
      };
    },
  };
}
