import type { AamvaLicence } from './aamva.js';
import { SHAPE_DIGIT } from './mrz-correct.js';
import type { MrzReading, VisualZoneFields, VisualZoneReading } from './types.js';

// Labelled fields of the printed (visual inspection) zone, read heuristically from page OCR:
// a label such as "Date of issue" followed by its value on the same line or the next one.
// Only what a label vouches for is returned; nothing is guessed from position.

type LabelKey =
  | 'surname'
  | 'givenNames'
  | 'name'
  | 'fathersName'
  | 'documentNumber'
  | 'dateOfBirth'
  | 'dateOfIssue'
  | 'dateOfExpiry'
  | 'sex'
  | 'country';

const LABELS: Array<{ key: LabelKey; pattern: RegExp }> = [
  { key: 'fathersName', pattern: /father'?s?\s*name/i },
  // LN, FN, DL(N), ISS, EXP: the abbreviations North American licences print.
  { key: 'surname', pattern: /\b(surname|last\s*name|family\s*name|LN)\b/i },
  { key: 'givenNames', pattern: /\b(given\s*names?|first\s*names?|forenames?|FN)\b/i },
  {
    key: 'documentNumber',
    pattern: /\b(document|passport|card|id|visa)\s*(no\b|no\.|number|nr\b|#)|\b(DLN?|lic\.?\s*no\.?)(?=[\s:#]|$)/i,
  },
  { key: 'dateOfBirth', pattern: /\b(date\s*of\s*birth|birth\s*date|born|dob)\b/i },
  { key: 'dateOfIssue', pattern: /\b(date\s*of\s*issue|issue\s*date|issued\s*on|date\s*issued|ISS)\b/i },
  {
    key: 'dateOfExpiry',
    pattern:
      /\b(date\s*of\s*expiry|expiry\s*date|date\s*of\s*expiration|expiration\s*date|expires|valid\s*until|EXP)\b/i,
  },
  { key: 'sex', pattern: /\b(sex|gender)\b/i },
  { key: 'country', pattern: /\b(nationality|citizenship|country)\b/i },
  { key: 'name', pattern: /^\s*(full\s*)?name\b/i },
];

const MONTHS: Record<string, number> = {
  JAN: 1,
  FEB: 2,
  MAR: 3,
  APR: 4,
  MAY: 5,
  JUN: 6,
  JUL: 7,
  AUG: 8,
  SEP: 9,
  OCT: 10,
  NOV: 11,
  DEC: 12,
};

const iso = (y: number, m: number, d: number): string | undefined => {
  if (y < 1900 || y > 2100 || m < 1 || m > 12 || d < 1 || d > 31) return undefined;
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCMonth() !== m - 1) return undefined;
  return `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
};

/** A printed date in a common layout (07 JUN 1984, 07.06.1984, 07/06/1984, 1984-06-07) as YYYY-MM-DD. */
export function parsePrintedDate(text: string, options: { monthFirst?: boolean } = {}): string | undefined {
  const t = text
    .toUpperCase()
    .replace(/[O]/g, (c, i, s) => (/\d/.test(s[i - 1] ?? '') || /\d/.test(s[i + 1] ?? '') ? '0' : c));
  let m = /(\d{4})[-./ ](\d{1,2})[-./ ](\d{1,2})/.exec(t);
  if (m) return iso(Number(m[1]), Number(m[2]), Number(m[3]));
  m = /(\d{1,2})\s*[-./ ]?\s*([A-Z]{3})[A-Z]*(?:\s*\/\s*[A-Z]{3,})?\s*[-./ ]?\s*(\d{4})/.exec(t);
  if (m && MONTHS[m[2]!]) return iso(Number(m[3]), MONTHS[m[2]!]!, Number(m[1]));
  m = /(\d{1,2})\s*[-./ ]\s*(\d{1,2})\s*[-./ ]\s*(\d{4})/.exec(t);
  if (m)
    return options.monthFirst
      ? iso(Number(m[3]), Number(m[1]), Number(m[2]))
      : iso(Number(m[3]), Number(m[2]), Number(m[1]));
  return undefined;
}

function labelsIn(line: string): Array<{ key: LabelKey; end: number; start: number }> {
  const found: Array<{ key: LabelKey; end: number; start: number }> = [];
  for (const { key, pattern } of LABELS) {
    const m = pattern.exec(line);
    if (!m) continue;
    // "Date of birth" also matches "birth": a longer, overlapping label wins.
    if (found.some((f) => m.index < f.end && m.index + m[0].length > f.start)) continue;
    found.push({ key, start: m.index, end: m.index + m[0].length });
  }
  return found;
}

/** The value after a label: drop bilingual label translations ("/ Nom") and separators. */
function valueAfter(line: string, end: number): string {
  let rest = line.slice(end);
  rest = rest.replace(/^\s*\/[^:]*?(:|$)/, '').replace(/^[\s:./|-]+/, '');
  return rest.trim();
}

const DATE_KEYS = new Set<LabelKey>(['dateOfBirth', 'dateOfIssue', 'dateOfExpiry']);
const DATE_TEXT =
  /\d{1,2}\s*[-./ ]?\s*[A-Za-z]{3}[A-Za-z]*\s*[-./ ]?\s*\d{4}|\d{1,2}\s*[-./]\s*\d{1,2}\s*[-./]\s*\d{4}|\d{4}-\d{1,2}-\d{1,2}/g;

function assignColumns(
  labels: Array<{ key: LabelKey }>,
  valueLine: string,
  values: Partial<Record<LabelKey, string>>,
): void {
  const dates = valueLine.match(DATE_TEXT) ?? [];
  let rest = valueLine;
  for (const d of dates) rest = rest.replace(d, ' ');
  const dateLabels = labels.filter((l) => DATE_KEYS.has(l.key));
  dateLabels.forEach((l, k) => {
    if (dates[k] && values[l.key] === undefined) values[l.key] = dates[k];
  });
  const others = labels.filter((l) => !DATE_KEYS.has(l.key));
  if (others.length === 1 && values[others[0]!.key] === undefined && rest.trim()) values[others[0]!.key] = rest.trim();
}

const cleanName = (s: string) =>
  s
    .replace(/[^\p{L}\s'-]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();

export function readVisualZone(lines: string[], options: { monthFirst?: boolean } = {}): VisualZoneReading {
  const values: Partial<Record<LabelKey, string>> = {};
  const trimmed = lines.map((l) => l.trim()).filter((l) => l.length > 0);
  for (let i = 0; i < trimmed.length; i++) {
    const line = trimmed[i]!;
    const labels = labelsIn(line);
    if (labels.length === 0) continue;
    if (labels.length > 1) {
      // Labels side by side ("Date of issue   Nationality"): the next line holds their values in
      // the same order; dates are recognisable, and one remaining label takes what is left.
      const next = trimmed[i + 1];
      if (next && labelsIn(next).length === 0)
        assignColumns(
          labels.sort((a, b) => a.start - b.start),
          next,
          values,
        );
      continue;
    }
    const { key, end } = labels[0]!;
    if (values[key] !== undefined) continue;
    let value = valueAfter(line, end);
    if (value.length < 1 || !/[\p{L}\d]/u.test(value)) {
      const next = trimmed[i + 1];
      if (next && labelsIn(next).length === 0) value = next;
    }
    if (value) values[key] = value;
  }
  const fields: VisualZoneFields = {};
  const surname = values.surname ? cleanName(values.surname) : '';
  const given = values.givenNames ? cleanName(values.givenNames) : '';
  const fullName = surname || given ? `${given} ${surname}`.trim() : values.name ? cleanName(values.name) : '';
  if (fullName) fields.fullName = fullName;
  if (values.fathersName && cleanName(values.fathersName)) fields.fathersName = cleanName(values.fathersName);
  if (values.documentNumber) {
    const number = /[A-Z0-9][A-Z0-9 -]{3,}[A-Z0-9]/i.exec(values.documentNumber.toUpperCase());
    if (number) fields.documentNumber = number[0].replace(/[\s-]/g, '');
  }
  for (const key of ['dateOfBirth', 'dateOfIssue', 'dateOfExpiry'] as const) {
    const date = values[key] ? parsePrintedDate(values[key]!, options) : undefined;
    if (date) fields[key] = date;
  }
  if (values.sex) {
    const sex = /\b(M|F|X|MALE|FEMALE)\b/i.exec(values.sex);
    if (sex) fields.sex = sex[1]!.toUpperCase()[0]!;
  }
  if (values.country && cleanName(values.country)) fields.country = cleanName(values.country);
  return { text: lines.join('\n'), fields };
}

const fold = (s: string) =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase();
const alnum = (s: string) =>
  fold(s)
    .replace(/[^A-Z0-9]/g, '')
    .replace(/O/g, '0');

interface ComparableFields {
  documentNumber: string | null;
  birthDate: string | null;
  expiryDate: string | null;
  sex: string | null;
  names: string;
}

/** Fields both sources carry, compared after normalising case, accents and O/0; every read name must be printed. */
function compareWithVisualZone(f: ComparableFields, zone: VisualZoneReading): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  const v = zone.fields;
  if (f.documentNumber && v.documentNumber) out.documentNumber = alnum(f.documentNumber) === alnum(v.documentNumber);
  if (f.birthDate && v.dateOfBirth) out.dateOfBirth = f.birthDate === v.dateOfBirth;
  if (f.expiryDate && v.dateOfExpiry) out.dateOfExpiry = f.expiryDate === v.dateOfExpiry;
  if (f.sex && v.sex) out.sex = f.sex === v.sex;
  if (f.names.trim() && v.fullName) {
    const printed = new Set(
      fold(v.fullName)
        .split(/[^A-Z]+/)
        .filter(Boolean),
    );
    const machine = fold(f.names)
      .split(/[^A-Z]+/)
      .filter(Boolean);
    out.fullName = machine.length > 0 && machine.every((t) => printed.has(t));
  }
  return out;
}

export function compareMrzWithVisualZone(mrz: MrzReading, zone: VisualZoneReading): Record<string, boolean> {
  const f = mrz.fields;
  return compareWithVisualZone(
    {
      documentNumber: f.documentNumber,
      birthDate: f.birthDate,
      expiryDate: f.expirationDate,
      sex: f.sex,
      names: `${f.givenNames ?? ''} ${f.surname ?? ''}`,
    },
    zone,
  );
}

/**
 * Whether the number printed on the page and the MRZ's are two readings of one number that cannot
 * both be right: as long as each other, and different at a place where the two characters are
 * not one shape (a '1' against a '4'; an 'I' against a '1' is the recogniser's doubt, which the
 * check digit settles). A printed reading of another length is a label or a neighbour read with
 * it, not a rival reading.
 */
export function printedNumberConflicts(mrzNumber: string | null, printedNumber: string | undefined): boolean {
  const shape = (s: string) => [...fold(s).replace(/[^A-Z0-9]/g, '')].map((c) => SHAPE_DIGIT[c] ?? c).join('');
  const machine = shape(mrzNumber ?? '');
  const printed = shape(printedNumber ?? '');
  return machine.length > 0 && machine.length === printed.length && machine !== printed;
}

/** The licence barcode against the printed front: a forged front or a swapped back disagree. */
export function compareLicenceWithVisualZone(licence: AamvaLicence, zone: VisualZoneReading): Record<string, boolean> {
  return compareWithVisualZone(
    {
      documentNumber: licence.number,
      birthDate: licence.birthDate,
      expiryDate: licence.expiryDate,
      sex: licence.sex,
      names: `${licence.givenNames} ${licence.familyName}`,
    },
    zone,
  );
}
