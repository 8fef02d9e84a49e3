// ICAO 9303 machine-readable zone layouts: where each field sits, what characters it may hold,
// and which check digit covers it. Shared by the reader (correction, parsing) and the renderer.

export type MrzFormat = 'TD1' | 'TD2' | 'TD3' | 'MRVA' | 'MRVB';

/**
 * digits: 0-9 only; alpha: A-Z and filler; mixed: either; sex: M/F/X/<; check: digit (or < where
 * allowed); filler: '<' only (the check-digit position of a long document number).
 */
export type CharClass = 'digits' | 'alpha' | 'mixed' | 'sex' | 'check' | 'filler';

export interface FieldSlot {
  name: string;
  line: number;
  start: number;
  end: number; // exclusive
  kind: CharClass;
}

export interface CheckSlot {
  /** Key reported in `checkDigits`. */
  name: 'document_number' | 'birth_date' | 'expiration_date' | 'personal_number' | 'composite';
  /** Ranges the digit is computed over, in order. */
  covers: Array<{ line: number; start: number; end: number }>;
  at: { line: number; index: number };
  /** A filler '<' is acceptable when every covered character is filler (optional fields). */
  fillerAllowed: boolean;
}

export interface Layout {
  format: MrzFormat;
  lines: number;
  length: number;
  fields: FieldSlot[];
  checks: CheckSlot[];
  /** A long document number (TD1, TD2): how many of its characters continue in the optional data. */
  numberContinues?: number;
}

const r = (line: number, start: number, end: number) => ({ line, start, end });

// Line 2 of TD2/TD3/MRV share their first 28 positions.
function line2Head(line: number): FieldSlot[] {
  return [
    { name: 'documentNumber', line, start: 0, end: 9, kind: 'mixed' },
    { name: 'documentNumberCheck', line, start: 9, end: 10, kind: 'check' },
    { name: 'nationality', line, start: 10, end: 13, kind: 'alpha' },
    { name: 'birthDate', line, start: 13, end: 19, kind: 'digits' },
    { name: 'birthDateCheck', line, start: 19, end: 20, kind: 'check' },
    { name: 'sex', line, start: 20, end: 21, kind: 'sex' },
    { name: 'expirationDate', line, start: 21, end: 27, kind: 'digits' },
    { name: 'expirationDateCheck', line, start: 27, end: 28, kind: 'check' },
  ];
}

function line1Names(length: number): FieldSlot[] {
  return [
    { name: 'documentCode', line: 0, start: 0, end: 2, kind: 'alpha' },
    { name: 'issuingState', line: 0, start: 2, end: 5, kind: 'alpha' },
    { name: 'names', line: 0, start: 5, end: length, kind: 'alpha' },
  ];
}

const head2Checks: CheckSlot[] = [
  { name: 'document_number', covers: [r(1, 0, 9)], at: { line: 1, index: 9 }, fillerAllowed: false },
  { name: 'birth_date', covers: [r(1, 13, 19)], at: { line: 1, index: 19 }, fillerAllowed: false },
  { name: 'expiration_date', covers: [r(1, 21, 27)], at: { line: 1, index: 27 }, fillerAllowed: false },
];

export const LAYOUTS: Record<MrzFormat, Layout> = {
  TD1: {
    format: 'TD1',
    lines: 3,
    length: 30,
    fields: [
      { name: 'documentCode', line: 0, start: 0, end: 2, kind: 'alpha' },
      { name: 'issuingState', line: 0, start: 2, end: 5, kind: 'alpha' },
      { name: 'documentNumber', line: 0, start: 5, end: 14, kind: 'mixed' },
      { name: 'documentNumberCheck', line: 0, start: 14, end: 15, kind: 'check' },
      { name: 'optional', line: 0, start: 15, end: 30, kind: 'mixed' },
      { name: 'birthDate', line: 1, start: 0, end: 6, kind: 'digits' },
      { name: 'birthDateCheck', line: 1, start: 6, end: 7, kind: 'check' },
      { name: 'sex', line: 1, start: 7, end: 8, kind: 'sex' },
      { name: 'expirationDate', line: 1, start: 8, end: 14, kind: 'digits' },
      { name: 'expirationDateCheck', line: 1, start: 14, end: 15, kind: 'check' },
      { name: 'nationality', line: 1, start: 15, end: 18, kind: 'alpha' },
      { name: 'optional2', line: 1, start: 18, end: 29, kind: 'mixed' },
      { name: 'compositeCheck', line: 1, start: 29, end: 30, kind: 'check' },
      { name: 'names', line: 2, start: 0, end: 30, kind: 'alpha' },
    ],
    checks: [
      { name: 'document_number', covers: [r(0, 5, 14)], at: { line: 0, index: 14 }, fillerAllowed: false },
      { name: 'birth_date', covers: [r(1, 0, 6)], at: { line: 1, index: 6 }, fillerAllowed: false },
      { name: 'expiration_date', covers: [r(1, 8, 14)], at: { line: 1, index: 14 }, fillerAllowed: false },
      {
        name: 'composite',
        covers: [r(0, 5, 30), r(1, 0, 7), r(1, 8, 15), r(1, 18, 29)],
        at: { line: 1, index: 29 },
        fillerAllowed: false,
      },
    ],
  },
  TD2: {
    format: 'TD2',
    lines: 2,
    length: 36,
    fields: [
      ...line1Names(36),
      ...line2Head(1),
      { name: 'optional', line: 1, start: 28, end: 35, kind: 'mixed' },
      { name: 'compositeCheck', line: 1, start: 35, end: 36, kind: 'check' },
    ],
    checks: [
      ...head2Checks,
      {
        name: 'composite',
        covers: [r(1, 0, 10), r(1, 13, 20), r(1, 21, 35)],
        at: { line: 1, index: 35 },
        fillerAllowed: false,
      },
    ],
  },
  TD3: {
    format: 'TD3',
    lines: 2,
    length: 44,
    fields: [
      ...line1Names(44),
      ...line2Head(1),
      { name: 'optional', line: 1, start: 28, end: 42, kind: 'mixed' },
      { name: 'personalNumberCheck', line: 1, start: 42, end: 43, kind: 'check' },
      { name: 'compositeCheck', line: 1, start: 43, end: 44, kind: 'check' },
    ],
    checks: [
      ...head2Checks,
      { name: 'personal_number', covers: [r(1, 28, 42)], at: { line: 1, index: 42 }, fillerAllowed: true },
      {
        name: 'composite',
        covers: [r(1, 0, 10), r(1, 13, 20), r(1, 21, 43)],
        at: { line: 1, index: 43 },
        fillerAllowed: false,
      },
    ],
  },
  MRVA: {
    format: 'MRVA',
    lines: 2,
    length: 44,
    fields: [...line1Names(44), ...line2Head(1), { name: 'optional', line: 1, start: 28, end: 44, kind: 'mixed' }],
    checks: head2Checks,
  },
  MRVB: {
    format: 'MRVB',
    lines: 2,
    length: 36,
    fields: [...line1Names(36), ...line2Head(1), { name: 'optional', line: 1, start: 28, end: 36, kind: 'mixed' }],
    checks: head2Checks,
  },
};

/** Formats for a given line count and length; the document code's first letter picks visa vs not. */
export function formatFor(lineCount: number, length: number, firstChar: string): MrzFormat {
  if (lineCount === 3) return 'TD1';
  const visa = firstChar === 'V';
  if (length === 36) return visa ? 'MRVB' : 'TD2';
  return visa ? 'MRVA' : 'TD3';
}

const WEIGHTS = [7, 3, 1];

/** ICAO 9303 character value: digits as is, A=10..Z=35, filler 0. */
export function charValue(ch: string): number {
  if (ch >= '0' && ch <= '9') return ch.charCodeAt(0) - 48;
  if (ch >= 'A' && ch <= 'Z') return ch.charCodeAt(0) - 55;
  return 0;
}

export function checkDigit(text: string): string {
  let sum = 0;
  for (let i = 0; i < text.length; i++) sum += charValue(text[i]!) * WEIGHTS[i % 3]!;
  return String(sum % 10);
}

export function coveredText(lines: string[], slot: CheckSlot): string {
  return slot.covers.map((c) => lines[c.line]!.slice(c.start, c.end)).join('');
}

export function checkPasses(lines: string[], slot: CheckSlot): boolean {
  const text = coveredText(lines, slot);
  const digit = lines[slot.at.line]![slot.at.index];
  if (digit === '<') return slot.fillerAllowed && /^<*$/.test(text);
  return digit === checkDigit(text);
}

/** The text of the layout's field `name` on these lines ('' when the layout has no such field). */
export function fieldText(lines: string[], layout: Layout, name: string): string {
  const field = layout.fields.find((f) => f.name === name);
  return field ? (lines[field.line] ?? '').slice(field.start, field.end) : '';
}

/**
 * A document number is letters and digits, then fillers only to its end (ICAO 9303). A filler
 * counts 0 in the check digit, as a 0 does, so a 0 read as a filler (or a character dropped and
 * left as one) would still hold: such a number fails its check. A long number has no filler in
 * its first nine characters, and its continuation none at all.
 */
export function numberWellFormed(lines: string[], layout: Layout): boolean {
  const principal = fieldText(lines, layout, 'documentNumber');
  if (!layout.numberContinues) return /^[A-Z0-9]+<*$/.test(principal);
  return /^[A-Z0-9]+$/.test(principal + fieldText(lines, layout, 'documentNumberMore'));
}

/** The formats whose document number may run on into the optional data (ICAO 9303 parts 5 and 6). */
const LONG_NUMBER_FORMATS: ReadonlySet<MrzFormat> = new Set(['TD1', 'TD2']);

/**
 * The layout of a TD1 or TD2 whose document number is longer than nine characters (ICAO 9303
 * part 5 and 6, note j): the number's check-digit position holds a filler, the number's other
 * `more` characters open the optional data, then comes its check digit (over the whole number),
 * then a filler. The composite is unchanged: it covers those positions either way.
 */
export function longNumberLayout(layout: Layout, more: number): Layout {
  const optional = layout.fields.find((f) => f.name === 'optional')!;
  const check = layout.fields.find((f) => f.name === 'documentNumberCheck')!;
  const number = layout.fields.find((f) => f.name === 'documentNumber')!;
  const digitAt = optional.start + more;
  const fields = layout.fields.flatMap((f): FieldSlot[] => {
    if (f === check) return [{ ...f, name: 'documentNumberTruncation', kind: 'filler' }];
    if (f !== optional) return [f];
    const rest: FieldSlot[] = digitAt + 1 < f.end ? [{ ...f, start: digitAt + 1 }] : [];
    return [
      { name: 'documentNumberMore', line: f.line, start: f.start, end: digitAt, kind: 'mixed' },
      { name: 'documentNumberCheck', line: f.line, start: digitAt, end: digitAt + 1, kind: 'check' },
      ...rest,
    ];
  });
  const checks = layout.checks.map(
    (c): CheckSlot =>
      c.name === 'document_number'
        ? {
            ...c,
            covers: [r(number.line, number.start, number.end), r(optional.line, optional.start, digitAt)],
            at: { line: optional.line, index: digitAt },
          }
        : c,
  );
  return { ...layout, fields, checks, numberContinues: more };
}

/** Characters a filler is read as, at a position that holds a filler or a digit. */
const FILLER_READ_AS = '<K';

/**
 * The layouts these lines may follow: the format's own, and on a TD1 or TD2 whose number's
 * check-digit position holds a filler, the long-number layouts: the number continues up to the
 * optional data's first filler (or a K, a filler misread), the character before it being the
 * check digit.
 */
export function layoutVariants(lines: string[], layout: Layout): Layout[] {
  if (!LONG_NUMBER_FORMATS.has(layout.format)) return [layout];
  const check = layout.fields.find((f) => f.name === 'documentNumberCheck')!;
  if (!FILLER_READ_AS.includes(lines[check.line]?.[check.start] ?? '')) return [layout];
  const optional = fieldText(lines, layout, 'optional');
  const variants = [layout];
  // `more` number characters, then the check digit at `more`, then a filler (or the field's end).
  for (let more = 1; more < optional.length && optional[more - 1] !== '<' && optional[more] !== '<'; more++) {
    const next = optional[more + 1];
    if (next === undefined || FILLER_READ_AS.includes(next)) variants.push(longNumberLayout(layout, more));
  }
  return variants;
}
