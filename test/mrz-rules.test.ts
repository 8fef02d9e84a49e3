import { describe, expect, it } from 'vitest';
import type { MrzReading } from '../src/ml/document/index.js';
import {
  buildReading,
  readMrzFromLines,
  readMrzFromOcr,
  settleByPrintedNumber,
  spanCells,
} from '../src/ml/document/mrz.js';
import { confusionsOf } from '../src/ml/document/mrz-correct.js';
import { checkDigit, LAYOUTS, type MrzFormat } from '../src/ml/document/mrz-format.js';
import { printedNumberConflicts } from '../src/ml/document/visual-zone.js';
import { mrzLinesFor, random } from './helpers/documents.js';

// The ICAO 9303 rules of the MRZ reader on synthetic lines, without OCR (milliseconds): every check
// digit of TD1, TD2, TD3, MRV-A and MRV-B with the composites, the long document number of TD1
// and TD2, correction by field type, ambiguities, and zones read in part. The real OCR on rendered
// documents: test/id-verification.test.ts.

const FORMATS: MrzFormat[] = ['TD1', 'TD2', 'TD3', 'MRVA', 'MRVB'];
const CHECKS: Record<MrzFormat, string[]> = {
  TD1: ['document_number', 'birth_date', 'expiration_date', 'composite'],
  TD2: ['document_number', 'birth_date', 'expiration_date', 'composite'],
  TD3: ['document_number', 'birth_date', 'expiration_date', 'personal_number', 'composite'],
  MRVA: ['document_number', 'birth_date', 'expiration_date'],
  MRVB: ['document_number', 'birth_date', 'expiration_date'],
};
const CODE: Record<MrzFormat, string> = { TD1: 'ID', TD2: 'I', TD3: 'P', MRVA: 'V', MRVB: 'V' };
const LETTERS = 'ABCDEFGHJKLMNPRSTUVWXYZ';
const STATES = ['UTO', 'NLD', 'FRA', 'D<<', 'GBR', 'ESP', 'SWE', 'POL'];
const SURNAMES = ['ERIKSSON', 'MUSTERMANN', 'NOVAK', 'VAN DER BERG', 'OKAFOR'];
const GIVEN = ['ANNA MARIA', 'LEE', 'JEAN PIERRE', 'KENJI'];

type Holder = Parameters<typeof mrzLinesFor>[1];

/** A reproducible holder: a number of one or two letters then digits (or letters and digits mixed), dates, names. */
function holder(seed: number, format: MrzFormat, number?: string): Holder {
  const rnd = random(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(rnd() * list.length)]!;
  const digit = () => String(Math.floor(rnd() * 10));
  const mixed = rnd() < 0.3;
  let generated = '';
  while (generated.length < 9)
    generated += generated.length < 1 + Math.floor(rnd() * 2) || (mixed && rnd() < 0.3) ? pick([...LETTERS]) : digit();
  const date = (from: number, span: number) =>
    `${from + Math.floor(rnd() * span)}-${String(1 + Math.floor(rnd() * 12)).padStart(2, '0')}-${String(1 + Math.floor(rnd() * 28)).padStart(2, '0')}`;
  const state = pick(STATES);
  return {
    documentCode: CODE[format],
    issuingState: state,
    documentNumber: number ?? generated,
    nationality: rnd() < 0.8 ? state : pick(STATES),
    surname: pick(SURNAMES),
    givenNames: pick(GIVEN),
    birthDate: date(1940, 60),
    expirationDate: date(2027, 10),
    sex: rnd() < 0.5 ? 'F' : 'M',
  };
}

const read = (format: MrzFormat, lines: string[]) => buildReading(lines, LAYOUTS[format]);
const failing = (reading: MrzReading) =>
  Object.entries(reading.checkDigits)
    .filter(([, ok]) => !ok)
    .map(([name]) => name)
    .sort();
const put = (line: string, index: number, text: string) =>
  line.slice(0, index) + text + line.slice(index + text.length);
/** Where the document number sits: line and first position. */
const NUMBER_AT: Record<MrzFormat, { line: number; start: number }> = {
  TD1: { line: 0, start: 5 },
  TD2: { line: 1, start: 0 },
  TD3: { line: 1, start: 0 },
  MRVA: { line: 1, start: 0 },
  MRVB: { line: 1, start: 0 },
};
/** Where the birth date sits: line and first position. */
const BIRTH_AT: Record<MrzFormat, { line: number; start: number }> = {
  TD1: { line: 1, start: 0 },
  TD2: { line: 1, start: 13 },
  TD3: { line: 1, start: 13 },
  MRVA: { line: 1, start: 13 },
  MRVB: { line: 1, start: 13 },
};

describe('every check digit of every ICAO 9303 format (no OCR)', () => {
  it('validates the ICAO specimens of TD1, TD2, TD3, MRV-A and MRV-B, composites included', () => {
    const specimens: Array<[MrzFormat, string[], string]> = [
      [
        'TD1',
        ['I<UTOD231458907<<<<<<<<<<<<<<<', '7408122F1204159UTO<<<<<<<<<<<6', 'ERIKSSON<<ANNA<MARIA<<<<<<<<<<'],
        'D23145890',
      ],
      ['TD2', ['I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<', 'D231458907UTO7408122F1204159<<<<<<<6'], 'D23145890'],
      [
        'TD3',
        ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10'],
        'L898902C3',
      ],
      [
        'MRVA',
        ['V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L8988901C4XXX4009078F96121096ZE184226B<<<<<<'],
        'L8988901C',
      ],
      ['MRVB', ['V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<', 'L8988901C4XXX4009078F9612109<<<<<<<<'], 'L8988901C'],
    ];
    for (const [format, lines, number] of specimens) {
      const reading = read(format, lines);
      expect(Object.keys(reading.checkDigits).sort(), format).toEqual([...CHECKS[format]].sort());
      expect(reading.valid, format).toBe(true);
      expect(reading.corrections, format).toBe(0);
      expect(reading.fields).toMatchObject({ documentNumber: number, surname: 'ERIKSSON', givenNames: 'ANNA MARIA' });
    }
  });

  it('reads 150 synthetic documents of each format valid, every field as written', () => {
    for (const format of FORMATS) {
      for (let seed = 1; seed <= 150; seed++) {
        const truth = holder(seed, format);
        const reading = read(format, mrzLinesFor(format, truth));
        expect(reading.valid, `${format} ${seed}`).toBe(true);
        expect(reading.corrections).toBe(0);
        expect(reading.fields).toMatchObject({
          documentNumber: truth.documentNumber,
          birthDate: truth.birthDate,
          expirationDate: truth.expirationDate,
          sex: truth.sex,
          surname: truth.surname,
        });
      }
    }
  });

  it('reports the check digit printed wrong and the composite over it, and no other', () => {
    for (const format of FORMATS) {
      const layout = LAYOUTS[format];
      for (let seed = 1; seed <= 20; seed++) {
        const lines = mrzLinesFor(format, holder(seed, format));
        for (const slot of layout.checks) {
          const compositeOver = layout.checks.find(
            (c) =>
              c.name === 'composite' &&
              c !== slot &&
              c.covers.some((r) => r.line === slot.at.line && slot.at.index >= r.start && slot.at.index < r.end),
          );
          const expected = [slot.name, ...(compositeOver ? ['composite'] : [])].sort();
          // Every wrong digit the correction leaves as printed (none looks like the right one, no single change
          // explains it).
          const left = [...'0123456789']
            .filter((d) => d !== lines[slot.at.line]![slot.at.index])
            .map((d) => lines.map((l, k) => (k === slot.at.line ? put(l, slot.at.index, d) : l)))
            .map((wrong) => read(format, wrong))
            .filter((r) => r.corrections === 0);
          expect(left.length, `${format} ${slot.name} ${seed}`).toBeGreaterThan(0);
          for (const reading of left) {
            expect(failing(reading), `${format} ${slot.name}`).toEqual(expected);
            expect(reading.valid).toBe(false);
          }
        }
      }
    }
  });
});

describe('long document numbers, ICAO 9303 parts 5 and 6 (no OCR)', () => {
  it("reads the ICAO TD1 specimen's 12-character number whole, its check digit over all of it", () => {
    const reading = read('TD1', [
      'I<UTOD23145890<7349<<<<<<<<<<<',
      '3407127M9507122UTO<<<<<<<<<<<2',
      'STEVENSON<<PETER<JOHN<<<<<<<<<',
    ]);
    expect(reading.valid).toBe(true);
    expect(reading.numberContinues).toBe(3);
    expect(reading.fields.documentNumber).toBe('D23145890734');
    expect(reading.fields.optional).toBeNull();
    expect(checkDigit('D23145890734')).toBe('9');
  });

  it('reads TD1 numbers of 10 to 20 characters and TD2 numbers of 10 to 14, each verified', () => {
    for (const [format, longest] of [
      ['TD1', 20],
      ['TD2', 14],
    ] as const) {
      for (let length = 10; length <= longest; length++) {
        for (let seed = 1; seed <= 10; seed++) {
          const rnd = random(seed * 100 + length);
          const number = Array.from({ length }, (_, i) =>
            i < 2 ? LETTERS[Math.floor(rnd() * LETTERS.length)] : String(Math.floor(rnd() * 10)),
          ).join('');
          const reading = read(format, mrzLinesFor(format, holder(seed, format, number)));
          expect(reading.valid, `${format} ${number}`).toBe(true);
          expect(reading.fields.documentNumber).toBe(number);
          expect(reading.numberContinues).toBe(length - 9);
        }
      }
    }
  });

  it('fails a long number whose check digit is wrong, and corrects a misread continuation only where its digit and the composite agree on one reading', () => {
    const lines = mrzLinesFor('TD1', holder(3, 'TD1', 'XA98765432105'));
    expect(lines[0]!.slice(14, 20)).toBe(`<2105${checkDigit('XA98765432105')}`);
    const wrongDigit = read('TD1', [
      put(lines[0]!, 19, String((Number(lines[0]![19]) + 5) % 10)),
      lines[1]!,
      lines[2]!,
    ]);
    expect(wrongDigit.checkDigits.document_number).toBe(false);
    expect(wrongDigit.valid).toBe(false);
    // The continuation's '0' read as 'O': the composite weighs it differently from the number's digit, so both must
    // hold.
    const misread = read('TD1', [put(lines[0]!, 17, 'O'), lines[1]!, lines[2]!]);
    expect(misread.fields.documentNumber).toBe('XA98765432105');
    expect(misread.valid).toBe(true);
    expect(misread.correctedFields).toEqual([
      { field: 'documentNumberMore', from: '21O5', to: '2105', by: 'check_digit' },
    ]);
  });

  it("reads a K at the number's check-digit position as the filler it was, and no passport or visa number as long", () => {
    const lines = mrzLinesFor('TD2', holder(4, 'TD2', 'AB12345678901'));
    const k = read('TD2', [lines[0]!, put(lines[1]!, 9, 'K')]);
    expect(k.valid).toBe(true);
    expect(k.fields.documentNumber).toBe('AB12345678901');
    // TD3 and the visas have no long numbers: a filler there is a failing check digit, whatever follows.
    for (const format of ['TD3', 'MRVA', 'MRVB'] as const) {
      const truth = mrzLinesFor(format, holder(5, format, 'AB1234567'));
      const filler = read(format, [truth[0]!, put(truth[1]!, 9, '<')]);
      expect(filler.numberContinues, format).toBe(0);
      expect(filler.checkDigits.document_number, format).toBe(false);
    }
  });
});

/** Each letter/digit confusion a check digit can see (L/1 and G/6 share a value mod 10: none can). */
const VISIBLE_CONFUSIONS: Record<string, string> = {
  B: '8',
  '8': 'B',
  O: '0DQ',
  '0': 'ODQ',
  D: '0OQ',
  Q: '0OD',
  I: '1L',
  '1': 'I',
  L: 'I',
  S: '5',
  '5': 'S',
  Z: '2',
  '2': 'Z',
};

describe('correction by field type (no OCR)', () => {
  it('reads the letters found in dates and check digits as the digits they look like, in every format', () => {
    const asLetter: Record<string, string> = { '0': 'O', '1': 'I', '2': 'Z', '5': 'S', '6': 'G', '8': 'B' };
    for (const format of FORMATS) {
      let tried = 0;
      for (let seed = 1; seed <= 40; seed++) {
        const truth = mrzLinesFor(format, holder(seed, format));
        const { line, start } = BIRTH_AT[format];
        const birth = truth[line]!.slice(start, start + 7);
        const misread = [...birth].map((c) => asLetter[c] ?? c).join('');
        if (misread === birth) continue;
        tried++;
        const reading = read(
          format,
          truth.map((l, k) => (k === line ? put(l, start, misread) : l)),
        );
        expect(reading.lines, `${format} ${birth} read ${misread}`).toEqual(truth);
        expect(reading.valid).toBe(true);
        expect(reading.correctedFields.every((c) => c.by === 'field_type')).toBe(true);
        expect(reading.correctedFields.map((c) => c.field)).toContain('birthDate');
      }
      expect(tried, format).toBeGreaterThan(20);
    }
  });

  it('reads the digits found in names, country codes and document codes as the letters they look like', () => {
    const asDigit: Record<string, string> = { O: '0', I: '1', Z: '2', S: '5', G: '6', B: '8' };
    for (const format of FORMATS) {
      const truth = mrzLinesFor(format, {
        ...holder(7, format),
        issuingState: 'BOS',
        nationality: 'GBR',
        surname: 'SILVA',
        givenNames: 'ZOE',
      });
      const namesLine = format === 'TD1' ? 2 : 0;
      const misread = truth.slice();
      misread[0] = put(misread[0]!, 2, '805');
      misread[namesLine] = misread[namesLine]!.replace(
        'SILVA<<ZOE',
        [...'SILVA'].map((c) => asDigit[c] ?? c).join('') + '<<Z0E',
      );
      const reading = read(format, misread);
      expect(reading.lines, format).toEqual(truth);
      expect(reading.fields).toMatchObject({ issuingState: 'BOS', surname: 'SILVA', givenNames: 'ZOE' });
      expect(reading.correctedFields.filter((c) => c.by === 'field_type').map((c) => c.field)).toEqual(
        expect.arrayContaining(['issuingState', 'names']),
      );
    }
  });

  it('takes no state code outside ICAO 9303 part 3: one look-alike from exactly one code is repaired, else the field is unreadable and the zone not valid', () => {
    for (const format of FORMATS) {
      const truth = mrzLinesFor(format, { ...holder(11, format), issuingState: 'CHE', nationality: 'CAN' });
      const nationalityAt = format === 'TD1' ? { line: 1, start: 15 } : { line: 1, start: 10 };
      // 'CHF': only CHE is one look-alike away (F for E); the zone is whole and valid.
      const repaired = truth.slice();
      repaired[0] = put(repaired[0]!, 2, 'CHF');
      const fixed = read(format, repaired);
      expect(fixed.lines, format).toEqual(truth);
      expect(fixed.valid, format).toBe(true);
      expect(fixed.correctedFields).toContainEqual({ field: 'issuingState', from: 'CHF', to: 'CHE', by: 'field_type' });
      // 'OAZ' for CAN: every check digit holds (none covers it), yet it is no code: not taken.
      const misread = truth.slice();
      misread[nationalityAt.line] = put(misread[nationalityAt.line]!, nationalityAt.start, 'OAZ');
      const reading = read(format, misread);
      expect(Object.values(reading.checkDigits).every(Boolean), format).toBe(true);
      expect(reading.valid, format).toBe(false);
      expect(reading.fieldProblems.nationality, format).toEqual({
        problem: 'unreadable',
        detail: "'OAZ' is no state's code: misread",
      });
    }
    // Germany's one letter, ICAO's own codes and Utopia's specimens are codes; all fillers is none stated.
    for (const state of ['D<<', 'XXA', 'UTO', 'GBD', 'EUE', '<<<']) {
      const reading = read(
        'TD3',
        mrzLinesFor('TD3', { ...holder(12, 'TD3'), issuingState: state, nationality: state }),
      );
      expect(reading.valid, state).toBe(true);
    }
  });

  it('never maps a document number: letters and digits stay as read when its check digit holds with them', () => {
    for (const number of ['OB0I8S5Z2', 'D0Q0O0D0Q', '8B8B8B8B8', 'I1I1I1I1I']) {
      for (const format of FORMATS) {
        const reading = read(format, mrzLinesFor(format, holder(9, format, number)));
        expect(reading.fields.documentNumber, `${format} ${number}`).toBe(number);
        expect(reading.valid).toBe(true);
        expect(reading.corrections).toBe(0);
      }
    }
  });

  it('corrects one letter/digit confusion in a number only when exactly one reading meets its check digit: else lists every reading, never a wrong one', () => {
    let fixed = 0;
    let ambiguous = 0;
    for (const format of ['TD1', 'TD3'] as const) {
      for (let seed = 1; seed <= 300; seed++) {
        const truth = holder(seed, format);
        const lines = mrzLinesFor(format, truth);
        const positions = [...truth.documentNumber].flatMap((c, i) => (VISIBLE_CONFUSIONS[c] ? [i] : []));
        if (positions.length === 0) continue;
        const rnd = random(seed);
        const at = positions[Math.floor(rnd() * positions.length)]!;
        const options = VISIBLE_CONFUSIONS[truth.documentNumber[at]!]!;
        const wrong = options[Math.floor(rnd() * options.length)]!;
        const { line, start } = NUMBER_AT[format];
        const reading = read(
          format,
          lines.map((l, k) => (k === line ? put(l, start + at, wrong) : l)),
        );
        if (reading.valid) {
          expect(reading.fields.documentNumber, `${format} ${truth.documentNumber} read with ${wrong} at ${at}`).toBe(
            truth.documentNumber,
          );
          expect(reading.correctedFields).toEqual([
            { field: 'documentNumber', from: expect.any(String), to: truth.documentNumber, by: 'check_digit' },
          ]);
          fixed++;
          continue;
        }
        // Not taken: the readings its digit allows are listed, the right one among them.
        const listed = reading.ambiguities.find((a) => a.check === 'document_number');
        expect(listed, `${format} ${truth.documentNumber} read with ${wrong} at ${at}`).toBeDefined();
        expect(listed!.readings.map((r) => r.find((c) => c.field === 'documentNumber')?.to)).toContain(
          truth.documentNumber,
        );
        expect(reading.fieldProblems.documentNumber?.problem).toBe('ambiguous');
        ambiguous++;
      }
    }
    expect(fixed).toBeGreaterThan(40);
    expect(ambiguous).toBeGreaterThan(40);
  });

  it('knows the confusions, and that L/1 and G/6 weigh the same in every check digit', () => {
    expect(confusionsOf('0')).toBe('ODQ');
    expect(confusionsOf('B')).toBe('8');
    expect(confusionsOf('I')).toBe('1L');
    expect(confusionsOf('X')).toBe('');
    expect(checkDigit('L23456789')).toBe(checkDigit('123456789'));
    expect(checkDigit('G23456789')).toBe(checkDigit('623456789'));
  });
});

describe('ambiguities (no OCR)', () => {
  /** The first synthetic TD3 whose number, with one confusion, several single changes meet. */
  function ambiguousCase() {
    for (let seed = 1; ; seed++) {
      const truth = holder(seed, 'TD3');
      const lines = mrzLinesFor('TD3', truth);
      const at = [...truth.documentNumber].findIndex((c) => c === '8' || c === '0');
      if (at < 0) continue;
      const misread = [lines[0]!, put(lines[1]!, at, truth.documentNumber[at] === '8' ? 'B' : 'O')];
      const reading = read('TD3', misread);
      if (reading.ambiguities.length > 0) return { truth, misread, reading };
    }
  }

  it('lists every reading a failing check digit allows, applies none, and fails the digit', () => {
    const { truth, misread, reading } = ambiguousCase();
    expect(reading.lines).toEqual(misread);
    expect(reading.checkDigits.document_number).toBe(false);
    const [ambiguity] = reading.ambiguities;
    expect(ambiguity!.check).toBe('document_number');
    expect(ambiguity!.readings.length).toBeGreaterThan(1);
    for (const changes of ambiguity!.readings) {
      const number = changes.find((c) => c.field === 'documentNumber')!.to;
      expect(checkDigit(number)).toBe(misread[1]![9]);
    }
    expect(ambiguity!.readings.map((r) => r[0]!.to)).toContain(truth.documentNumber);
  });

  it('takes the one reading printed on the page, and none when the printed number is another', () => {
    const { truth, reading } = ambiguousCase();
    const settled = settleByPrintedNumber(reading, ` ${truth.documentNumber} `);
    expect(settled.valid).toBe(true);
    expect(settled.fields.documentNumber).toBe(truth.documentNumber);
    expect(settled.correctedFields.filter((c) => c.by === 'printed_zone')).toEqual([
      { field: 'documentNumber', from: reading.fields.documentNumber, to: truth.documentNumber, by: 'printed_zone' },
    ]);
    expect(settleByPrintedNumber(reading, 'ZZ0000000')).toBe(reading);
    expect(settleByPrintedNumber(reading, undefined)).toBe(reading);
  });
});

describe('zones read in part (no OCR)', () => {
  it('reads the second line of a passport, ID card or visa alone: its check digits prove it, the names line is unreadable', () => {
    for (const format of ['TD3', 'TD2'] as const) {
      for (let seed = 1; seed <= 10; seed++) {
        const truth = holder(seed, format);
        const lines = mrzLinesFor(format, truth);
        const reading = readMrzFromLines(['PHOTO PAGE', lines[1]!])!;
        expect(reading, `${format} ${seed}`).not.toBeNull();
        expect(reading).toMatchObject({ format, partial: true, valid: false, missingLines: [0] });
        expect(reading.fields).toMatchObject({
          documentNumber: truth.documentNumber,
          birthDate: truth.birthDate,
          expirationDate: truth.expirationDate,
          surname: null,
        });
        expect(Object.keys(reading.fieldProblems).sort()).toEqual(['documentCode', 'issuingState', 'names']);
        expect(reading.fieldProblems.names).toEqual({ problem: 'unreadable', detail: 'MRZ line 1 was not read' });
      }
    }
  });

  it('reads a TD1 without its first line (number unreadable, dates verified) and without its names line (all checks but none over names)', () => {
    const truth = holder(11, 'TD1');
    const [l1, l2, l3] = mrzLinesFor('TD1', truth);
    const noNumber = readMrzFromLines([l2!, l3!])!;
    expect(noNumber).toMatchObject({
      format: 'TD1',
      partial: true,
      missingLines: [0],
      checkDigits: { birth_date: true, expiration_date: true },
    });
    expect(noNumber.fieldProblems.documentNumber?.problem).toBe('unreadable');
    expect(noNumber.fields).toMatchObject({ documentNumber: null, birthDate: truth.birthDate, surname: truth.surname });
    const noNames = readMrzFromLines([l1!, l2!])!;
    expect(noNames).toMatchObject({
      format: 'TD1',
      partial: true,
      missingLines: [2],
      checkDigits: { document_number: true, birth_date: true, expiration_date: true, composite: true },
    });
    expect(noNames.fields.documentNumber).toBe(truth.documentNumber);
  });

  it('reads a zone with a patched date: the date unreadable, the other fields verified', () => {
    for (const format of ['TD3', 'TD2', 'TD1'] as const) {
      const truth = holder(12, format);
      const lines = mrzLinesFor(format, truth);
      const { line, start } = BIRTH_AT[format];
      const reading = readMrzFromLines(lines.map((l, k) => (k === line ? put(l, start, '<<<<<<<') : l)))!;
      expect(reading, format).not.toBeNull();
      expect(reading).toMatchObject({
        partial: true,
        valid: false,
        missingLines: [],
        checkDigits: { document_number: true, birth_date: false, expiration_date: true },
      });
      expect(reading.fieldProblems).toEqual({
        birthDate: { problem: 'unreadable', detail: "not legible in the MRZ ('<<<<<<')" },
      });
      expect(reading.fields).toMatchObject({
        documentNumber: truth.documentNumber,
        birthDate: null,
        expirationDate: truth.expirationDate,
      });
    }
  });

  it('never reads lines of MRZ characters that are no MRZ as part of one', () => {
    const rnd = random(5);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<<<<<<';
    const line = (n: number) => Array.from({ length: n }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join('');
    for (let k = 0; k < 300; k++) {
      const lines = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => line([30, 36, 44][Math.floor(rnd() * 3)]!));
      expect(readMrzFromLines(lines), lines.join(' | ')).toBeNull();
    }
  });

  it("counts the cells a line spans by its characters' spacing, a patched gap included", () => {
    const symbols = (text: string, skip: number[]) =>
      [...text].flatMap((ch, i) =>
        skip.includes(i)
          ? []
          : [{ text: ch, confidence: 90, bbox: { x0: 10 + 20 * i, x1: 28 + 20 * i, y0: 0, y1: 30 } }],
      );
    const line = 'PA02662948FRA7407239F3207095<<<<<<<<<<<<<<06';
    const patched = symbols(line, [13, 14, 15, 16, 17, 18, 19]);
    expect(spanCells({ symbols: patched })).toBe(44);
    const text = patched.map((s) => s.text).join('');
    const names = 'P<FRAVAN<DER<BERG<<SARAH<<<<<<<<<<<<<<<<<<<<';
    const reading = readMrzFromOcr([
      { text: names, symbols: symbols(names, []) },
      { text, symbols: patched },
    ])!;
    expect(reading.lines).toEqual([names, 'PA02662948FRA<<<<<<<F3207095<<<<<<<<<<<<<<06']);
    expect(reading).toMatchObject({
      format: 'TD3',
      partial: true,
      fields: { documentNumber: 'PA0266294', birthDate: null, expirationDate: '2032-07-09' },
    });
  });

  it('reads a whole, valid zone as never partial', () => {
    for (const format of FORMATS) {
      const reading = readMrzFromLines(mrzLinesFor(format, holder(13, format)))!;
      expect(reading).toMatchObject({ valid: true, partial: false, missingLines: [], fieldProblems: {} });
    }
  });
});

describe('the printed number against the MRZ number', () => {
  it('conflicts only where two readings of one length differ by characters of different shapes', () => {
    // A '1' printed where the zone reads '4': three look-alikes had cancelled in the check digit.
    expect(printedNumberConflicts('B50432H0A', 'B50132HQA')).toBe(true);
    expect(printedNumberConflicts('K12R45678', 'R12K45678')).toBe(true);
    // I against 1, O against 0 or Q: the recogniser's doubt, which the check digit settles.
    expect(printedNumberConflicts('8XV3975I', '8XV39751')).toBe(false);
    expect(printedNumberConflicts('608I7387', '60817387')).toBe(false);
    expect(printedNumberConflicts('B5OI32HQA', 'B50132H0A')).toBe(false);
    // Another length: a label or the document code read with the number, not a rival reading.
    expect(printedNumberConflicts('M00000426', 'PTWNMO0000426')).toBe(false);
    expect(printedNumberConflicts('D23145890', 'NUMERODEDOCUMENTVALIDEJUSQU')).toBe(false);
    expect(printedNumberConflicts(null, 'X12345678')).toBe(false);
    expect(printedNumberConflicts('X12345678', undefined)).toBe(false);
  });
});
