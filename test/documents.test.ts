import { existsSync, readFileSync } from 'node:fs';
import sharp from 'sharp';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentReader, type DocumentReader, type MrzReading } from '../src/ml/document/index.js';
import { buildReading, mrzDate, readMrzFromLines } from '../src/ml/document/mrz.js';
import { checkDigit, LAYOUTS } from '../src/ml/document/mrz-format.js';
import { gridLines } from '../src/ml/document/mrz-grid.js';
import { readVisualZone } from '../src/ml/document/visual-zone.js';
import { decodeImage } from '../src/ml/image.js';
import {
  filledHole,
  holeCut,
  joinRowPieces,
  mrzAbove,
  mrzBands,
  mrzLikeBoxes,
  namesLineCut,
  orientationSettled,
  piecesOfShortLine,
  preferPieces,
  readingRepeated,
  shortLineCut,
} from '../src/ml/document/reader.js';
import { textSkew } from '../src/ml/document/paddle.js';
import { bandShear, unshear, type Gray } from '../src/ml/document/raster.js';
import type { OcrLine } from '../src/ml/document/ocr.js';
import { homography, renderDocument, renderNonDocument, renderSpecs, type DocumentSpec } from './helpers/documents.js';
import { labelledLines, readLabels } from './helpers/documents-labels.js';

// Real PaddleOCR on a handful of rendered documents and, when present, a few easy images of the
// shared labelled set. The full evaluation is scripts/eval-documents.ts.

const base: Omit<DocumentSpec, 'name' | 'layout' | 'seed'> = {
  font: 'sans',
  rotation: 0,
  skew: 0,
  blur: 0,
  jpegQuality: null,
};

describe('MRZ check digits and correction (no OCR)', () => {
  it('computes ICAO 9303 check digits', () => {
    expect(checkDigit('L898902C3')).toBe('6');
    expect(checkDigit('740812')).toBe('2');
    expect(checkDigit('<<<<<<<<<<<<<<')).toBe('0');
  });

  it('repairs look-alikes guided by the check digits and counts the changes', () => {
    const misread = ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UT0740B122F12O4159ZE184226B<<<<<1O'];
    const reading = buildReading(misread, LAYOUTS.TD3);
    expect(reading.lines[1]).toBe('L898902C36UTO7408122F1204159ZE184226B<<<<<10');
    expect(reading.valid).toBe(true);
    expect(reading.corrections).toBe(4);
    expect(reading.fields).toMatchObject({
      surname: 'ERIKSSON',
      givenNames: 'ANNA MARIA',
      birthDate: '1974-08-12',
      expirationDate: '2012-04-15',
      sex: 'F',
    });
  });

  it('leaves a check digit failing when two single look-alikes would each make it hold', () => {
    const names = 'P<POLKOWALSKA<<ANNA<<<<<<<<<<<<<<<<<<<<<<<<<';
    // 'ZS0000177' read with Z as 2: '2' to 'Z' and 'S' to '5' (the tail read as digits) both pass.
    const reading = buildReading([names, '2S00001774POL7203305F1607130<<<<<<<<<<<<<<08'], LAYOUTS.TD3);
    expect(reading.checkDigits.document_number).toBe(false);
    expect(reading.valid).toBe(false);
    expect(reading.fields.documentNumber).toBe('2S0000177');
    // One look-alike alone passes: it is taken ('ZSOOOO177' has digits in its tail read as letters).
    expect(buildReading([names, 'ZSOOOO1774POL7203305F1607130<<<<<<<<<<<<<<08'], LAYOUTS.TD3).lines[1]).toBe(
      'ZS00001774POL7203305F1607130<<<<<<<<<<<<<<08',
    );
  });

  it('fails the number check when a filler sits inside the number (a filler counts as a 0 would)', () => {
    const lines = [
      'IDSWEN83757<3<8<<<<<<<<<<<<<<<',
      '5906255M3102097SWE<<<<<<<<<<<4',
      'TANAKA<<LEE<<<<<<<<<<<<<<<<<<<',
    ];
    expect(checkDigit('N83757<3<')).toBe(checkDigit('N8375703<'));
    const reading = buildReading(lines, LAYOUTS.TD1);
    expect(reading.checkDigits.document_number).toBe(false);
    expect(reading.valid).toBe(false);
    expect(buildReading([lines[0]!.replace('N83757<3<8', 'N8375703<8'), lines[1]!, lines[2]!], LAYOUTS.TD1).valid).toBe(
      true,
    );
  });

  it('leaves a card with a misprinted number digit as printed: no repair that only moves the failure', () => {
    // The number's digit fails as printed. L to '<' meets it (a filler inside a number: none);
    // L to I meets the composite while the number's own digit still fails.
    const lines = [
      'IDGBRL4453373<1<<<<<<<<<<<<<<<',
      '6108193M3302130ESP<<<<<<<<<<<2',
      'MARTIN<<JEAN<PIERRE<<<<<<<<<<<',
    ];
    const reading = buildReading(lines, LAYOUTS.TD1);
    expect(reading.lines).toEqual(lines);
    expect(reading.valid).toBe(false);
  });

  it('places symbols on the character grid by their spacing, and keeps a line read at its full length as read', () => {
    const symbolsOf = (text: string, x: number, pitch: number) =>
      text.split('').map((ch, i) => ({
        text: ch,
        confidence: 90,
        bbox: { x0: x + i * pitch - 8, x1: x + i * pitch + 8, y0: 0, y1: 20 },
      }));
    const line = (symbols: OcrLine['symbols']) => ({
      text: symbols.map((s) => s.text).join(''),
      symbols,
      confidence: 90,
      bbox: { x0: 0, y0: 0, x1: 1000, y1: 20 },
      baseline: { x0: 0, y0: 20, x1: 1000, y1: 20 },
    });
    // At an angle: the top line starts 18 px further right and its pitch is 29, the others' 31.5.
    const top = symbolsOf('IDSWEN072912934<<<<<<<<<<<<<<<', 174, 29);
    const middle = symbolsOf('7305081F3010046GBR<<<<<<<<<<<4', 160, 31.5);
    const bottom = symbolsOf('NOVAK<<AMINA<<<<<<<<<<<<<<<<<<', 156, 31.5);
    expect(gridLines([line(top), line(middle), line(bottom)], 30)).toEqual([
      'IDSWEN072912934<<<<<<<<<<<<<<<',
      '7305081F3010046GBR<<<<<<<<<<<4',
      'NOVAK<<AMINA<<<<<<<<<<<<<<<<<<',
    ]);
    // Its 'E' and '0' dropped: the others stay in their cells, counted by spacing, not from the origin.
    const dropped = top.filter((_, i) => i !== 4 && i !== 6);
    expect(gridLines([line(dropped), line(middle), line(bottom)], 30)![0]).toBe('IDSW<N<72912934<<<<<<<<<<<<<<<');
  });

  it("uses the recogniser's own alternatives: by field type first, and for repairs no look-alike table holds", () => {
    const names = 'P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<';
    const truth = 'L898902C36UTO7408122F1204159ZE184226B<<<<<10';
    const at = (index: number, alternatives: string) => [
      null,
      Array.from({ length: 44 }, (_, i) => (i === index ? alternatives : '')),
    ];
    // A letter in the birth date (index 14) that no look-alike maps: its second reading of the right kind, a digit.
    const letter = truth.slice(0, 14) + 'H' + truth.slice(15);
    expect(buildReading([names, letter], LAYOUTS.TD3, at(14, 'N4')).lines[1]).toBe(truth);
    // 8 read as 9 (index 16): the tables do not pair them, the recogniser's alternative does.
    const nine = truth.slice(0, 16) + '9' + truth.slice(17);
    expect(buildReading([names, nine], LAYOUTS.TD3).valid).toBe(false);
    const repaired = buildReading([names, nine], LAYOUTS.TD3, at(16, '8'));
    expect(repaired.lines[1]).toBe(truth);
    expect(repaired.correctedFields).toEqual([{ field: 'birthDate', from: '740912', to: '740812', by: 'check_digit' }]);
  });

  it('reads labelled visual-zone fields, side by side or on the next line', () => {
    const zone = readVisualZone([
      'PASSPORT',
      'Surname',
      'NOVAK',
      'Given names',
      'ANNA MARIA',
      "Father's name: JOSEF",
      'Date of birth Sex',
      '07 JUN 1984 F',
      'Date of issue / Date de délivrance',
      '01.03.2014',
    ]);
    expect(zone.fields).toEqual({
      fullName: 'ANNA MARIA NOVAK',
      fathersName: 'JOSEF',
      dateOfBirth: '1984-06-07',
      sex: 'F',
      dateOfIssue: '2014-03-01',
    });
    // A visa labels its number so; the number is what settles an O/0 the MRZ check digit cannot.
    expect(readVisualZone(['VISA', 'Visa No.', '4PQ9VOXC6']).fields).toEqual({ documentNumber: '4PQ9VOXC6' });
  });

  it('resolves the century: births in the past, expiry within about 50 years', () => {
    const today = new Date('2026-01-01T00:00:00Z');
    expect(mrzDate('300101', 'birth', today)).toBe('1930-01-01');
    expect(mrzDate('050101', 'birth', today)).toBe('2005-01-01');
    expect(mrzDate('350101', 'expiry', today)).toBe('2035-01-01');
    expect(mrzDate('991231', 'expiry', today)).toBe('1999-12-31');
    expect(mrzDate('991331', 'expiry', today)).toBeNull();
  });
});

/** An OCR line of one character per cell (`pitch` px, first centred at `from`). */
function ocrLine(text: string, from = 10, pitch = 20): OcrLine {
  const symbols = [...text].map((ch, i) => ({
    text: ch,
    confidence: 90,
    bbox: { x0: from + i * pitch - pitch / 2, y0: 0, x1: from + i * pitch + pitch / 2, y1: 30 },
  }));
  const bbox = { x0: symbols[0]!.bbox.x0, y0: 0, x1: symbols[symbols.length - 1]!.bbox.x1, y1: 30 };
  return { text, symbols, confidence: 90, bbox, baseline: bbox };
}

describe('MRZ names line read in pieces (no OCR)', () => {
  it('cuts names lines only, between characters and after a filler', () => {
    expect(namesLineCut(ocrLine('C2504M0548UTO7611083M2705217<<<<<<<<<<<<<<06'))).toBeNull();
    const names = ocrLine('P<UTOHANSEN<<OMAR<<<<<<<<<<<<<<<<<<<<<<<<<<<');
    const cut = namesLineCut(names)!;
    // Between two characters (centres every 20 px from 10), right after a '<'.
    expect((cut - 10) % 20).toBe(10);
    expect(names.text[(cut - 20) / 20]).toBe('<');
  });

  it('takes the letters the pieces recovered, fillers counted on the zone pitch; keeps the whole line when the pieces lose letters', () => {
    // The whole line dropped the U and the O and read its fillers short.
    const whole = ocrLine('P<TOHANSEN<<MAR' + '<'.repeat(20));
    // Its last filler still sits in cell 43 of a 44-character line.
    whole.symbols[whole.symbols.length - 1]!.bbox = { x0: 10 + 43 * 20 - 10, y0: 0, x1: 10 + 43 * 20 + 10, y1: 30 };
    const first = ocrLine('P<UTOHANSEN<<OMAR<<<<<');
    const second = ocrLine('<<<<<', 10 + 22 * 20);
    expect(preferPieces(whole, [first, second], 10 + 21.5 * 20, 20).text).toBe('P<UTOHANSEN<<OMAR' + '<'.repeat(27));
    const worse = ocrLine('P<TOHNSEN<<MAR<<<<<<');
    expect(preferPieces(whole, [worse], 10 + 21.5 * 20, 20)).toBe(whole);
  });
});

describe('MRZ line the recogniser gave up on (no OCR)', () => {
  const zone = ocrLine('PA09404097AUS8406077F1903212<17331334P<<<<08', 10, 20);
  // 'P<AUSCITIZEN<<JANE<<<…' read 'P22' over a box as wide as the zone's other line.
  const givenUp = { ...ocrLine('P22', 10, 20), bbox: { ...zone.bbox, y0: -40, y1: -10 } };
  for (const s of givenUp.symbols) s.bbox = { ...s.bbox, y0: -40, y1: -10 };
  it('is cut in its middle when it read under half the characters its width holds at the zone pitch', () => {
    expect(shortLineCut(givenUp, [givenUp, zone])).toBe((zone.bbox.x0 + zone.bbox.x1) / 2);
    const full = { ...ocrLine('P<AUSCITIZEN<<JANE<<<<<<<<<<<<<<<<<<<<<<<<<<', 10, 20), bbox: givenUp.bbox };
    expect(shortLineCut(full, [full, zone])).toBeNull();
    // No line with check digits beside it: nothing to measure against.
    expect(shortLineCut(givenUp, [givenUp])).toBeNull();
  });
  it('takes its pieces when they read as a names line, filled to the zone line length', () => {
    const cut = (zone.bbox.x0 + zone.bbox.x1) / 2;
    const first = ocrLine('P<AUSCITIZEN<<JANE<<<<', 10, 20);
    expect(piecesOfShortLine(givenUp, [first], cut, zone).text).toBe('P<AUSCITIZEN<<JANE' + '<'.repeat(26));
    expect(piecesOfShortLine(givenUp, [ocrLine('12345678<<<', 10, 20)], cut, zone)).toBe(givenUp);
  });
});

describe('MRZ line that dropped a character (no OCR)', () => {
  // 'IDSWEN8375703<8<<…' read with its 0 (cell 11) dropped: the next characters keep their place.
  const truth = ocrLine('IDSWEN8375703<8<<<<<<<<<<<<<<<', 10, 20);
  const dropped = {
    ...truth,
    text: 'IDSWEN837573<8<<<<<<<<<<<<<<<<',
    symbols: truth.symbols.filter((_, i) => i !== 11),
  };
  dropped.text = dropped.symbols.map((s) => s.text).join('');
  it('finds the hole between two characters other than fillers, on MRZ-like lines only', () => {
    expect(holeCut(dropped)).toBe(10 + 11 * 20);
    expect(holeCut(truth)).toBeNull();
    // Fillers around a gap are a filler run read short, not a dropped character.
    const fillers = { ...truth, symbols: truth.symbols.filter((_, i) => i !== 20) };
    expect(holeCut({ ...fillers, text: fillers.symbols.map((s) => s.text).join('') })).toBeNull();
    expect(holeCut(ocrLine('REPUBLIC OF TESTING', 10, 20))).toBeNull();
  });
  it('takes the piece before the hole when it reads exactly the one character more', () => {
    const hole = holeCut(dropped)!;
    const piece = ocrLine('IDSWEN8375703', 10, 20);
    expect(filledHole(dropped, piece, hole, 20).text).toBe(truth.text);
    // What fills the hole is the check digits' to judge; a character of the line read otherwise
    // before it, nothing more read, or nothing read at all, leaves the line as read.
    expect(filledHole(dropped, ocrLine('IDSWEN8375783', 10, 20), hole, 20).text).toBe(
      truth.text.replace('8375703', '8375783'),
    );
    expect(filledHole(dropped, ocrLine('IDSWEM8375703', 10, 20), hole, 20)).toBe(dropped);
    expect(filledHole(dropped, ocrLine('IDSWEN83757', 10, 20), hole, 20)).toBe(dropped);
    expect(filledHole(dropped, undefined, hole, 20)).toBe(dropped);
  });
});

describe('skew from the detected text lines (no OCR)', () => {
  it('is the length-weighted median direction of the elongated regions', () => {
    const lines = [
      { angle: 9, length: 900 },
      { angle: 8.5, length: 300 },
      { angle: -20, length: 200 },
      { angle: null, length: 2000 },
    ];
    expect(textSkew(lines)).toBe(9);
    expect(textSkew([{ angle: null, length: 50 }])).toBeNull();
  });
});

describe('photographed at an angle (rendering, no OCR)', () => {
  it('maps the four corners as asked', () => {
    const m = homography(
      [
        [10, 5],
        [90, 5],
        [100, 50],
        [0, 50],
      ],
      [
        [0, 0],
        [100, 0],
        [100, 50],
        [0, 50],
      ],
    );
    const apply = ([x, y]: [number, number]) => {
      const z = m[6]! * x + m[7]! * y + 1;
      return [(m[0]! * x + m[1]! * y + m[2]!) / z, (m[3]! * x + m[4]! * y + m[5]!) / z].map(
        (v) => Math.round(v * 1000) / 1000,
      );
    };
    expect(apply([10, 5])).toEqual([0, 0]);
    expect(apply([90, 5])).toEqual([100, 0]);
    expect(apply([100, 50])).toEqual([100, 50]);
  });
});

describe('strokes slanting along a band, as photographed at an angle (no OCR)', () => {
  // Dark bars 3 px wide every 12 px on white; each bar leans by `lean(x)` (dx/dy), +0.12 at the
  // left end, 0 in the middle, -0.12 at the right end.
  const width = 360;
  const height = 40;
  const lean = (x: number) => (0.12 * (width / 2 - x)) / (width / 2);
  const bars = (): Gray => {
    const data = Buffer.alloc(width * height, 255);
    for (let xb = 12; xb < width - 12; xb += 12) {
      for (let y = 0; y < height; y++) {
        const x = Math.round(xb + (y - height / 2) * lean(xb));
        for (let k = 0; k < 3; k++) data[y * width + x + k] = 0;
      }
    }
    return { data, width, height };
  };
  const band = { x0: 0, y0: 0, x1: width, y1: height };
  it('measures the lean at each end', () => {
    const shear = bandShear(bars(), band);
    expect(Math.abs(shear.at)).toBeLessThan(0.03);
    // Measured as the shift that stands a stroke upright: the lean's opposite.
    expect(shear.slope * (width / 2)).toBeCloseTo(0.12, 1);
  });
  it('stands the strokes upright', () => {
    const page = bars();
    const upright = unshear(page, band, bandShear(page, band));
    expect(Math.abs(bandShear(upright, band).slope * (width / 2))).toBeLessThan(0.03);
  });
});

describe('MRZ bands read first (no OCR)', () => {
  const box = (x0: number, y0: number, x1: number, h = 30) => ({ x0, y0, x1, y1: y0 + h });
  it('reads the lowest stack first, each stack cut to its last 3 lines, in any order given', () => {
    // A 4-line header stack above a 2-line MRZ at the page's bottom, and a lone long line.
    const header = [box(100, 100, 1100), box(100, 140, 1100), box(105, 180, 1000), box(105, 220, 1000)];
    const mrz = [box(50, 600, 950), box(52, 640, 950)];
    const lone = box(50, 400, 1000);
    expect(mrzBands([mrz[1]!, lone, ...header, mrz[0]!])).toEqual([mrz, header.slice(1)]);
  });
  it('is empty when no lines are stacked', () => {
    expect(mrzBands([box(0, 0, 900), box(0, 300, 900)])).toEqual([]);
  });
  it('calls a page upside down when every stack that may be the MRZ lies in its top half', () => {
    const page = { width: 1200, height: 700 } as Gray;
    const scored = (b: ReturnType<typeof box>) => ({ ...b, score: 1 });
    // printed-zone lines are short: not MRZ candidates
    const header = [box(100, 100, 350), box(100, 140, 350)].map(scored);
    const mrz = [box(50, 600, 950), box(52, 640, 950)].map(scored);
    const turned = (b: ReturnType<typeof scored>) => ({
      ...b,
      x0: 1200 - b.x1,
      x1: 1200 - b.x0,
      y0: 700 - b.y1,
      y1: 700 - b.y0,
    });
    expect(mrzAbove({ page, boxes: [...header, ...mrz] })).toBe(false);
    expect(mrzAbove({ page, boxes: [...header, ...mrz].map(turned) })).toBe(true);
    // no stack at all: nothing tells the orientation
    expect(mrzAbove({ page, boxes: [scored(box(0, 10, 900)), scored(box(0, 300, 900))] })).toBe(false);
  });
  it('joins a long line with a piece exactly in its row, never past the length of an MRZ line', () => {
    const line = box(100, 500, 700, 30);
    // The filler run between them left out by the detector: 7 line heights.
    const tail = box(910, 502, 1100, 28);
    expect(joinRowPieces([tail, line])).toEqual([{ ...line, x1: 1100 }]);
    // Half a line lower: the next row, not this one.
    expect(joinRowPieces([line, box(910, 515, 1100, 30)])).toHaveLength(2);
    // Two short pieces are not an MRZ line.
    expect(joinRowPieces([box(100, 500, 300), box(500, 500, 700)])).toHaveLength(2);
    // Longer than 44 characters would be.
    expect(joinRowPieces([line, box(950, 500, 1400)])).toHaveLength(2);
  });
  it('reads again only the lines that look like MRZ lines and their neighbours', () => {
    const boxes = [box(0, 0, 900), box(0, 100, 900), box(0, 140, 900), box(0, 180, 900), box(0, 400, 900)];
    const line = (b: (typeof boxes)[number], text: string) => ({
      text,
      bbox: { x0: Math.floor(b.x0), y0: Math.floor(b.y0), x1: b.x1, y1: b.y1 },
    });
    const lines = [
      line(boxes[0]!, 'REPUBLIKAHRVATSKA'),
      line(boxes[1]!, 'PASSPORT'),
      line(boxes[2]!, 'P<HRVSPECIMEN<<SPECIMEN<<<<<<<<<<<<<<<<<<<<<'),
      line(boxes[3]!, '0070070071HRV8212258F1407019<<<<<<<<<<<<<<06'),
      line(boxes[4]!, 'SPECIMEN'),
    ];
    expect(mrzLikeBoxes(lines, boxes)).toEqual(boxes.slice(1, 5));
    expect(mrzLikeBoxes([lines[0]!, lines[1]!], boxes)).toEqual([]);
  });
  it('settles the orientation on two holding check digits', () => {
    const reading = (checks: boolean[]) =>
      ({ valid: false, checkDigits: Object.fromEntries(checks.map((c, i) => [`d${i}`, c])) }) as unknown as MrzReading;
    expect(orientationSettled(reading([true, true, false, false]))).toBe(true);
    expect(orientationSettled(reading([true, false, false, false]))).toBe(false);
    // A zone read in part (a band of its second line alone) leaves the rest to be looked for.
    expect(orientationSettled({ ...reading([true, true, true]), partial: true })).toBe(false);
  });
  it('stops retrying a settled MRZ that a retry read exactly as before, names line included', () => {
    const td3 = ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10'];
    const wrongDigit = [td3[0]!, td3[1]!.replace('L898902C36', 'L898902C37')];
    const read = (lines: string[]) => readMrzFromLines(lines)!;
    expect(read(wrongDigit).valid).toBe(false);
    expect(readingRepeated(read(wrongDigit), read(wrongDigit))).toBe(true);
    // The names line read otherwise: a further crop's vote may still mend it.
    expect(readingRepeated(read(wrongDigit), read([td3[0]!.replace('ANNA', 'ANMA'), wrongDigit[1]!]))).toBe(false);
    // Not settled (one check digit or none holds): another crop may still place it.
    const unsettled = {
      ...read(wrongDigit),
      checkDigits: {
        document_number: false,
        birth_date: true,
        expiration_date: false,
        personal_number: false,
        composite: false,
      },
    };
    expect(readingRepeated(unsettled, unsettled)).toBe(false);
    expect(readingRepeated(null, read(wrongDigit))).toBe(false);
    // Its second line alone, read twice alike: a wider crop may still bring in the first.
    const part = read([td3[1]!]);
    expect(part.partial).toBe(true);
    expect(readingRepeated(part, part)).toBe(false);
  });
});

describe('document reader (PaddleOCR)', () => {
  let reader: DocumentReader;
  beforeAll(async () => {
    reader = await createDocumentReader();
  });
  afterAll(async () => {
    await reader?.close();
  });

  async function read(spec: DocumentSpec) {
    const doc = await renderDocument(spec);
    const reading = await reader.read(await decodeImage(doc.bytes), doc.back ? await decodeImage(doc.back) : undefined);
    return { reading, truth: doc.truth };
  }

  it('reads a TD3 passport page: MRZ fields, check digits and the visual zone', async () => {
    const { reading, truth } = await read({ ...base, name: 'td3', layout: 'TD3', seed: 11, fathersName: true });
    expect(reading.mrz).not.toBeNull();
    const mrz = reading.mrz!;
    expect(mrz.format).toBe('TD3');
    expect(mrz.lines).toEqual(truth.mrzLines);
    expect(mrz.valid).toBe(true);
    expect(mrz.checkDigits).toEqual({
      document_number: true,
      birth_date: true,
      expiration_date: true,
      personal_number: true,
      composite: true,
    });
    expect(mrz.fields).toMatchObject({
      documentCode: 'P',
      issuingState: truth.issuingState,
      documentNumber: truth.documentNumber,
      nationality: truth.nationality,
      surname: truth.surname,
      givenNames: truth.givenNames,
      birthDate: truth.birthDate,
      expirationDate: truth.expirationDate,
      sex: truth.sex,
    });
    expect(reading.rotation).toBe(0);
    expect(reading.side).toBe('front');
    expect(reading.visualZone.fields.dateOfIssue).toBe(truth.issueDate);
    expect(reading.visualZone.fields.fathersName).toBe(truth.fathersName);
    expect(reading.mrzVisualAgreement.dateOfBirth).toBe(true);
    expect(reading.timings.totalMs).toBeGreaterThan(0);
  });

  it("reads names lines whose letters follow a '<' (the whole line read at once drops them)", async () => {
    // The first specs' names: HANSEN<<OMAR of UTO, TANAKA<<LEE, PETROV<<SOFIA.
    for (const spec of renderSpecs(3)) {
      const { reading, truth } = await read({
        ...spec,
        layout: 'TD3',
        rotation: 0,
        skew: 0,
        blur: 0,
        jpegQuality: null,
      });
      expect(reading.mrz?.lines, spec.name).toEqual(truth.mrzLines);
    }
  });

  it('reads a TD1 card from its back and the visual zone from its front, rotated 90 degrees', async () => {
    const { reading, truth } = await read({
      ...base,
      name: 'td1',
      layout: 'TD1',
      seed: 12,
      rotation: 90,
      jpegQuality: 80,
    });
    expect(reading.mrz?.format).toBe('TD1');
    expect(reading.mrz?.lines).toEqual(truth.mrzLines);
    expect(reading.mrz?.valid).toBe(true);
    expect(reading.side).toBe('back');
    expect(reading.rotation).toBe(270);
    expect(reading.mrz?.fields.documentNumber).toBe(truth.documentNumber);
    expect(reading.visualZone.fields.dateOfExpiry).toBe(truth.expirationDate);
  });

  it('reads an upside-down, skewed TD2 card', async () => {
    const { reading, truth } = await read({
      ...base,
      name: 'td2',
      layout: 'TD2',
      seed: 13,
      rotation: 180,
      skew: 5,
      font: 'serif',
    });
    expect(reading.mrz?.format).toBe('TD2');
    expect(reading.mrz?.lines).toEqual(truth.mrzLines);
    expect(reading.rotation).toBe(180);
    expect(Math.abs(reading.skewDegrees)).toBeGreaterThan(3);
  });

  it('reads a passport photographed at an angle (its far edge 15% narrower), upside down', async () => {
    const { reading, truth } = await read({
      ...base,
      name: 'tilted',
      layout: 'TD3',
      seed: 21,
      rotation: 180,
      perspective: 0.15,
    });
    expect(reading.mrz?.valid).toBe(true);
    expect(reading.mrz?.lines).toEqual(truth.mrzLines);
  });

  it('reports a wrongly printed check digit as invalid, and reads an expired date as printed', async () => {
    const { reading, truth } = await read({
      ...base,
      name: 'bad',
      layout: 'TD3',
      seed: 14,
      wrongCheckDigit: true,
      expired: true,
      jpegQuality: 70,
    });
    expect(reading.mrz?.lines).toEqual(truth.mrzLines);
    expect(reading.mrz?.valid).toBe(false);
    expect(reading.mrz?.checkDigits.document_number).toBe(false);
    expect(reading.mrz?.checkDigits.birth_date).toBe(true);
    expect(reading.mrz?.fields.expirationDate).toBe(truth.expirationDate);
    expect(truth.expirationDate < new Date().toISOString().slice(0, 10)).toBe(true);
  });

  it('honours the EXIF orientation: pixels stored on their side, tagged to be turned upright', async () => {
    const doc = await renderDocument({ ...base, name: 'exif', layout: 'TD3', seed: 15, jpegQuality: 85 });
    // Orientation 6: the viewer turns the stored pixels 90 degrees clockwise, so store them turned the other way.
    const sideways = await sharp(doc.bytes)
      .rotate(270)
      .withMetadata({ orientation: 6 })
      .jpeg({ quality: 85 })
      .toBuffer();
    const reading = await reader.read(await decodeImage(sideways));
    expect(reading.mrz?.lines).toEqual(doc.truth.mrzLines);
    expect(reading.rotation).toBe(0);
  });

  it('returns mrz null for an image without a document', async () => {
    const reading = await reader.read(await decodeImage(await renderNonDocument()));
    expect(reading.mrz).toBeNull();
    expect(reading.mrzVisualAgreement).toEqual({});
  });

  it('queues concurrent reads on the one engine', async () => {
    const [a, b] = await Promise.all([
      read({ ...base, name: 'c1', layout: 'TD2', seed: 21 }),
      read({ ...base, name: 'c2', layout: 'TD2', seed: 22 }),
    ]);
    expect(a.reading.mrz?.fields.documentNumber).toBe(a.truth.documentNumber);
    expect(b.reading.mrz?.fields.documentNumber).toBe(b.truth.documentNumber);
  });

  const sharedDir = fileURLToPath(new URL('../../shared/data/passporteye-mrz/', import.meta.url));
  const sharedPresent = existsSync(`${sharedDir}LABELS.csv`);
  if (!sharedPresent) console.log(`skipping shared MRZ images: ${sharedDir} is absent`);

  // Easy images of the shared set: upright scans and photos of TD3 and TD2 pages.
  const easy = ['tests_passport-td3.png', 'tests_passport-td2.png', '100_pass-ltu.jpg', '100_pass-uto.jpg'];
  it.skipIf(!sharedPresent).each(easy)('reads the MRZ of shared image %s as labelled', async (file) => {
    const row = readLabels(sharedDir).get(file);
    expect(row?.kind).toBe('document_with_mrz');
    const reading = await reader.read(await decodeImage(readFileSync(`${sharedDir}${file}`)));
    expect(reading.mrz?.lines).toEqual(labelledLines(row!));
    expect(reading.mrz?.valid).toBe(true);
  });
});
