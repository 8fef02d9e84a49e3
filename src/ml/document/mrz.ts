import { parse as parseMrz } from 'mrz';
import { changedFields, correctMrz, mapFields, STATE_FIELDS } from './mrz-correct.js';
import { knownStateCode } from './country-codes.js';
import { gridLines } from './mrz-grid.js';
import type { OcrLine } from './ocr.js';
import {
  type CheckSlot,
  checkPasses,
  coveredText,
  fieldText,
  formatFor,
  LAYOUTS,
  type Layout,
  layoutVariants,
  type MrzFormat,
  numberWellFormed,
} from './mrz-format.js';
import type { MrzCorrection, MrzFieldProblem, MrzFields, MrzProblemField, MrzReading } from './types.js';

// From OCR lines to an MrzReading: pick the lines that look like an MRZ, fit them to a layout,
// correct them with the check digits, and parse the fields.

/** Uppercase, filler look-alikes to '<', and nothing outside the MRZ alphabet. */
export function cleanMrzLine(text: string): string {
  return text
    .toUpperCase()
    .replace(/[«‹<≤([{]/g, '<')
    .replace(/\$/g, 'S')
    .replace(/\s+/g, '')
    .replace(/[^A-Z0-9<]/g, '');
}

/** Lines of OCR text that could be MRZ lines: long, and either with fillers or almost all MRZ characters. */
export function mrzLikeLines(ocrLines: string[]): string[] {
  const out: string[] = [];
  for (const line of ocrLines) {
    const compact = line.replace(/\s+/g, '');
    const clean = cleanMrzLine(line);
    if (clean.length < 24) continue;
    const fillers = (clean.match(/</g) ?? []).length;
    const purity = clean.length / Math.max(1, compact.length);
    if ((fillers >= 2 && purity >= 0.75) || (purity >= 0.92 && /\d{5,}/.test(clean))) out.push(clean);
  }
  return out;
}

/** Variants of a line fitted to `length`: through the longest filler run, or by trimming/padding an end. */
function fitted(line: string, length: number): string[] {
  const d = line.length - length;
  if (d === 0) return [line];
  const variants = new Set<string>();
  let runStart = -1;
  let runLength = 0;
  for (let i = 0; i < line.length; ) {
    if (line[i] !== '<') {
      i++;
      continue;
    }
    let j = i;
    while (j < line.length && line[j] === '<') j++;
    if (j - i > runLength) {
      runLength = j - i;
      runStart = i;
    }
    i = j;
  }
  if (d > 0) {
    if (runLength > d) variants.add(line.slice(0, runStart) + line.slice(runStart + d));
    variants.add(line.slice(d));
    variants.add(line.slice(0, length));
  } else {
    const pad = '<'.repeat(-d);
    if (runLength >= 2) variants.add(line.slice(0, runStart) + pad + line.slice(runStart));
    variants.add(line + pad);
  }
  return [...variants].filter((v) => v.length === length);
}

/** Length of the lines as read, not counting the K/L look-alikes OCR adds next to chevrons. */
function readLength(texts: string[]): number {
  const lengths = texts.map((t) => t.length - (t.match(/(?<=<)[KLC]|[KLC](?=<)/g) ?? []).length * 0.5);
  return lengths.reduce((a, b) => a + b, 0) / lengths.length;
}

function cartesian<T>(lists: T[][]): T[][] {
  return lists.reduce<T[][]>((acc, list) => acc.flatMap((a) => list.map((x) => [...a, x])), [[]]);
}

export function scoreOf(reading: MrzReading): number {
  const passing = Object.values(reading.checkDigits).filter(Boolean).length;
  // Valid first, then share of the format's digits passing (one a missing line hides counts as
  // failing), then fewer corrections.
  return (
    (reading.valid ? 100 : 0) + (10 * passing) / LAYOUTS[reading.format].checks.length - reading.corrections * 0.01
  );
}

/** The best MRZ reading that OCR lines support, or null when no group of lines fits a layout. */
export function readMrzFromLines(ocrLines: string[]): MrzReading | null {
  return readMrzFromOcr(ocrLines.map((text) => ({ text, symbols: [] })));
}

/**
 * The best MRZ reading OCR lines support: every run of 2 or 3 MRZ-like lines is fitted to each
 * plausible layout, from the text and (when symbol boxes are known) from the character grid.
 */
export function readMrzFromOcr(ocrLines: Array<Pick<OcrLine, 'text' | 'symbols'>>): MrzReading | null {
  const flagged = ocrLines.map((l) => ({ line: l, clean: mrzLikeLines([l.text])[0] }));
  // A names line whose fillers all read as K/L/C has no '<' to be recognised by: take the long,
  // clean line that follows an MRZ line too.
  const seeds = flagged.map((f) => !!f.clean);
  for (let i = 0; i < flagged.length; i++) {
    if (flagged[i]!.clean || !(seeds[i - 1] || seeds[i + 1])) continue;
    const text = flagged[i]!.line.text.replace(/\s+/g, '');
    const clean = cleanMrzLine(text);
    if (clean.length >= 24 && clean.length / Math.max(1, text.length) >= 0.85) flagged[i]!.clean = clean;
  }
  const lines = flagged.filter((l): l is { line: Pick<OcrLine, 'text' | 'symbols'>; clean: string } => !!l.clean);
  let best: MrzReading | null = null;
  let bestScore = -Infinity;
  const keep = (candidate: string[], length: number, bonus: number, alternatives?: Alternatives) => {
    const format = formatFor(candidate.length, length, candidate[0]![0]!);
    const reading = buildReading(candidate, LAYOUTS[format], alternatives);
    const score = scoreOf(reading) + bonus;
    if (score > bestScore) {
      best = reading;
      bestScore = score;
    }
  };
  const consider = (group: typeof lines, length: number) => {
    const texts = group.map((g) => g.clean);
    // Two-line layouts differ in length only: the length nearest to what was read wins over a
    // chance-valid composite of the other one.
    const nearest =
      group.length === 3 ||
      Math.abs(readLength(texts) - length) <= Math.abs(readLength(texts) - (length === 44 ? 36 : 44));
    const lengthBonus = nearest ? 0 : -150;
    const recognised = group.map((g) => recognisedAlternatives(g.line, g.clean));
    for (const candidate of cartesian(texts.map((l) => fitted(l, length))).slice(0, 27)) {
      // The recogniser's alternatives still sit at their positions only on lines kept as read.
      keep(
        candidate,
        length,
        lengthBonus,
        candidate.map((line, k) => (line === texts[k] ? recognised[k]! : null)),
      );
    }
    if (group.every((g) => g.line.symbols.length > 0)) {
      // The grid places characters by position, so it wins ties on lines without check digits.
      const grid = gridLines(
        group.map((g) => g.line as OcrLine),
        length,
      );
      if (grid) keep(grid, length, lengthBonus + 0.05);
    }
  };
  const plausible = (l: string, length: number) => l.length >= length - 4 && l.length <= length + 16;
  for (let i = 0; i < lines.length; i++) {
    const three = lines.slice(i, i + 3);
    if (three.length === 3 && three.every((l) => plausible(l.clean, 30))) consider(three, 30);
    const two = lines.slice(i, i + 2);
    if (two.length === 2) {
      for (const length of [36, 44]) if (two.every((l) => plausible(l.clean, length))) consider(two, length);
    }
  }
  const found: MrzReading | null = best;
  if (found && plausibleReading(found)) return found;
  return partialReading(lines, found);
}

type MrzLikeLine = { line: Pick<OcrLine, 'text' | 'symbols'>; clean: string };

/**
 * Where the lines of a zone read in part may sit: every line read, placed by the character grid
 * (a patch over part of a line leaves a gap the grid keeps, while the text alone closes it up);
 * one line read of a two-line zone is its second (the first, names only, has no check digit to
 * place it), one line of a TD1 its second, two lines of a TD1 its first two or its last two.
 * Passports and cards before visas: the same second line fits both, and a visa's check digits are
 * a passport's too.
 */
const PARTIAL_PLACES: Array<{ count: number; length: number; format: MrzFormat; at: number[] }> = [
  { count: 2, length: 44, format: 'TD3', at: [0, 1] },
  { count: 2, length: 44, format: 'MRVA', at: [0, 1] },
  { count: 2, length: 36, format: 'TD2', at: [0, 1] },
  { count: 2, length: 36, format: 'MRVB', at: [0, 1] },
  { count: 3, length: 30, format: 'TD1', at: [0, 1, 2] },
  { count: 2, length: 30, format: 'TD1', at: [0, 1] },
  { count: 2, length: 30, format: 'TD1', at: [1, 2] },
  { count: 1, length: 44, format: 'TD3', at: [1] },
  { count: 1, length: 44, format: 'MRVA', at: [1] },
  { count: 1, length: 36, format: 'TD2', at: [1] },
  { count: 1, length: 36, format: 'MRVB', at: [1] },
  { count: 1, length: 30, format: 'TD1', at: [1] },
];

/**
 * How many character cells a line read spans, from its first to its last character on the
 * typical spacing of its neighbours; null without character positions. A patch inside a line
 * takes characters away, not cells: the span still says how long the line is.
 */
export function spanCells(line: Pick<OcrLine, 'symbols'>): number | null {
  const centres = line.symbols.map((s) => (s.bbox.x0 + s.bbox.x1) / 2).sort((a, b) => a - b);
  if (centres.length < 8) return null;
  const gaps = centres
    .slice(1)
    .map((c, i) => c - centres[i]!)
    .sort((a, b) => a - b);
  const pitch = gaps[Math.floor(gaps.length / 2)]!;
  return pitch > 0 ? Math.round((centres.at(-1)! - centres[0]!) / pitch) + 1 : null;
}

/**
 * No whole zone reads (a line or part of one damaged, covered or cut off): the best reading of
 * the part that does, or null. The whole zone as read is a candidate too (a date it could not
 * read), then every line or pair of lines placed in a layout with the others missing. A part
 * must prove it is an MRZ: see partialPlausible.
 */
function partialReading(lines: MrzLikeLine[], whole: MrzReading | null): MrzReading | null {
  const candidates: Array<{ reading: MrzReading; place: number }> = whole ? [{ reading: whole, place: -1 }] : [];
  // A line read in part has fewer characters than the layout's (a patched span reads as nothing),
  // but spans as many cells. A names line (no check digit covers it) often reads without the end
  // of its fill, and is padded at its end.
  const plausible = (g: MrzLikeLine, length: number, names: boolean) => {
    const cells = spanCells(g.line);
    if (g.clean.length > length + 16) return false;
    return g.clean.length >= (names ? 0.6 * length : length - 4) || (cells !== null && Math.abs(cells - length) <= 3);
  };
  for (let i = 0; i < lines.length; i++) {
    for (const [p, place] of PARTIAL_PLACES.entries()) {
      const group = lines.slice(i, i + place.count);
      const layout = LAYOUTS[place.format];
      const namesLine = (k: number) =>
        layout.checks.every((c) => c.at.line !== k && c.covers.every((r) => r.line !== k));
      if (group.length !== place.count || !group.every((g, k) => plausible(g, place.length, namesLine(place.at[k]!))))
        continue;
      // With its first line read, the document code says passport, card or visa.
      if (place.at[0] === 0 && formatFor(layout.lines, place.length, group[0]!.clean[0]!) !== place.format) continue;
      const missing = Array.from({ length: layout.lines }, (_, k) => k).filter((k) => !place.at.includes(k));
      const complete = (read: string[]) =>
        Array.from({ length: layout.lines }, (_, k) =>
          place.at.includes(k) ? read[place.at.indexOf(k)]! : '<'.repeat(place.length),
        );
      const texts = group.map((g) => g.clean);
      const recognised = group.map((g) => recognisedAlternatives(g.line, g.clean));
      const consider = (read: string[], alternatives?: Alternatives) => {
        // Only lines whose own check digits hold as read (mapped to their types, never repaired) can prove a part: the
        // rest is not worth correcting.
        const mapped = mapFields(complete(read), layout, alternatives);
        if (
          layout.checks.filter(
            (c) =>
              c.covers.every((r) => !missing.includes(r.line)) &&
              checkPasses(mapped, c) &&
              !/^<*$/.test(coveredText(mapped, c)),
          ).length < 2
        )
          return;
        candidates.push({ reading: buildReading(complete(read), layout, alternatives, missing), place: p });
      };
      for (const read of cartesian(texts.map((t) => fitted(t, place.length))).slice(0, 9)) {
        consider(
          read,
          complete(read).map((line, k) =>
            place.at.includes(k) && line === texts[place.at.indexOf(k)] ? recognised[place.at.indexOf(k)]! : null,
          ),
        );
      }
      if (group.every((g) => g.line.symbols.length > 0)) {
        const grid = gridLines(
          group.map((g) => g.line as OcrLine),
          place.length,
        );
        if (grid) consider(grid);
      }
    }
  }
  // Most check digits proving something, then the likeliest place (most lines read first), then
  // the best reading there.
  const rank = (c: { reading: MrzReading; place: number }) => [
    provenChecks(c.reading).length,
    -c.place,
    scoreOf(c.reading),
  ];
  const better = (a: number[], b: number[]) =>
    a[0]! > b[0]! || (a[0] === b[0] && (a[1]! > b[1]! || (a[1] === b[1] && a[2]! > b[2]!)));
  let best: { reading: MrzReading; place: number } | null = null;
  for (const candidate of candidates) {
    if (partialPlausible(candidate.reading) && (!best || better(rank(candidate), rank(best)))) best = candidate;
  }
  return best?.reading ?? null;
}

/**
 * The check digits of a reading that prove something: holding over text that is not all fillers
 * (fillers hold a digit of 0 trivially), over a well-formed number, over a real date.
 */
function provenChecks(reading: MrzReading): CheckSlot[] {
  const layout = layoutOf(reading);
  // A check digit met by a repair proves the repair, not the reading.
  const repaired = (slot: CheckSlot) =>
    reading.correctedFields.some((c) => {
      if (c.by !== 'check_digit') return false;
      const field = layout.fields.find((f) => f.name === c.field)!;
      return (
        (slot.at.line === field.line && slot.at.index >= field.start && slot.at.index < field.end) ||
        slot.covers.some((r) => r.line === field.line && r.start < field.end && field.start < r.end)
      );
    });
  const fine = (slot: CheckSlot) => {
    if (repaired(slot)) return false;
    if (slot.name === 'document_number') return numberWellFormed(reading.lines, layout);
    if (slot.name === 'birth_date') return reading.fields.birthDate !== null;
    if (slot.name === 'expiration_date') return reading.fields.expirationDate !== null;
    return true;
  };
  return layout.checks.filter(
    (slot) => reading.checkDigits[slot.name] === true && !/^<*$/.test(coveredText(reading.lines, slot)) && fine(slot),
  );
}

/** A reading of part of a zone that needed more corrections than this is text made to fit. */
const PARTIAL_MAX_CORRECTIONS = 3;

/**
 * A reading of part of a zone is an MRZ when two of its check digits prove something as read (one
 * holds by chance one time in ten; any text can be repaired to meet one), it needed few
 * corrections, and the cells of fixed type it read hold what they must: a sex M, F, X or filler,
 * a nationality of letters.
 */
function partialPlausible(reading: MrzReading): boolean {
  if (!reading.partial || reading.corrections > PARTIAL_MAX_CORRECTIONS || provenChecks(reading).length < 2)
    return false;
  const layout = layoutOf(reading);
  const read = (name: string) => {
    const field = layout.fields.find((f) => f.name === name)!;
    return reading.missingLines.includes(field.line) ? null : fieldText(reading.lines, layout, name);
  };
  const sex = read('sex');
  const nationality = read('nationality');
  return (sex === null || /^[MFX<]$/.test(sex)) && (nationality === null || /^[A-Z][A-Z<]{2}$/.test(nationality));
}

/** Text that merely fits the line lengths is not an MRZ: some check digit must hold. */
function plausibleReading(reading: MrzReading): boolean {
  const passing = Object.values(reading.checkDigits).filter(Boolean).length;
  const datesRead = reading.fields.birthDate !== null && reading.fields.expirationDate !== null;
  return datesRead && (passing >= 2 || (passing >= 1 && 'PIACV'.includes(reading.lines[0]![0]!)));
}

/**
 * Readings of the same MRZ (page pass, band at several sizes) vote per character when at least
 * three agree on the layout; the vote is kept unless it validates worse than the best reading.
 */
export function combineReadings(readings: MrzReading[]): MrzReading | null {
  if (readings.length === 0) return null;
  const primary = readings.reduce((a, b) => (scoreOf(b) > scoreOf(a) ? b : a));
  // Only readings of the same lines vote: a line one of them did not read is fillers there.
  const sameLines = (r: MrzReading) =>
    r.format === primary.format && r.missingLines.join() === primary.missingLines.join();
  const peers = [primary, ...readings.filter((r) => r !== primary && sameLines(r))];
  if (peers.length < 3) return primary;
  const voted = primary.lines.map((line, l) =>
    [...line]
      .map((ch, i) => {
        const counts = new Map<string, number>();
        for (const peer of peers) {
          const c = peer.lines[l]![i]!;
          counts.set(c, (counts.get(c) ?? 0) + 1);
        }
        let best = ch;
        for (const [c, n] of counts) if (n > counts.get(best)!) best = c;
        return best;
      })
      .join(''),
  );
  const reading = buildReading(voted, LAYOUTS[primary.format], undefined, primary.missingLines);
  if (scoreOf(reading) + 0.5 < scoreOf(primary)) return primary;
  return { ...reading, corrections: primary.corrections + reading.corrections };
}

/** Per line, per character: the recogniser's other readings (MRZ characters only); null when unknown. */
export type Alternatives = Array<string[] | null>;

/** The alternatives of a line whose symbols are exactly its cleaned text, else null. */
function recognisedAlternatives(line: Pick<OcrLine, 'text' | 'symbols'>, clean: string): string[] | null {
  const symbols = line.symbols;
  if (symbols.length !== clean.length || symbols.some((s, i) => s.text.toUpperCase() !== clean[i])) return null;
  return symbols.map((s) =>
    (s.alternatives ?? [])
      .map((a) => a.text.toUpperCase())
      .filter((c) => /^[A-Z0-9<]$/.test(c))
      .join(''),
  );
}

/**
 * The reading of MRZ lines in a layout, corrected. On a TD1 or TD2 whose number's check-digit
 * position holds a filler the long-number layouts are tried too, and taken when they read better.
 * `missing` lines were not read at all (they are fillers in `rawLines`): their fields are
 * unreadable and the check digits that cover them are not computed.
 */
export function buildReading(
  rawLines: string[],
  layout: Layout,
  alternatives?: Alternatives,
  missing: number[] = [],
): MrzReading {
  const readings = layoutVariants(rawLines, layout).map((variant) =>
    readingIn(rawLines, variant, alternatives, missing),
  );
  return readings.reduce((best, r) => (scoreOf(r) > scoreOf(best) ? r : best));
}

/** The layout a reading was built in (the long-number one when its number runs on). */
function layoutOf(reading: MrzReading): Layout {
  const base = LAYOUTS[reading.format];
  return layoutVariants(reading.lines, base).find((v) => (v.numberContinues ?? 0) === reading.numberContinues) ?? base;
}

/** Every state code of the zone read is one a document may carry (no check digit covers them). */
function stateCodesKnown(lines: string[], layout: Layout): boolean {
  return layout.fields.every((f) => !STATE_FIELDS.has(f.name) || knownStateCode(fieldText(lines, layout, f.name)));
}

function readingIn(
  rawLines: string[],
  layout: Layout,
  alternatives: Alternatives | undefined,
  missing: number[],
): MrzReading {
  // A check digit over a line not read cannot be computed: it is left out, not failed.
  const computable: Layout = {
    ...layout,
    checks: layout.checks.filter(
      (c) => !missing.includes(c.at.line) && c.covers.every((r) => !missing.includes(r.line)),
    ),
  };
  const { lines, mapped, corrections, ambiguities } = correctMrz(rawLines, computable, alternatives);
  const checkDigits: Record<string, boolean> = {};
  for (const slot of computable.checks) checkDigits[slot.name] = checkPasses(lines, slot);
  if ('document_number' in checkDigits && !numberWellFormed(lines, layout)) checkDigits.document_number = false;
  const fields = parseFields(lines, layout);
  const fieldProblems = problemsOf(lines, layout, checkDigits, ambiguities, fields, missing);
  const partial =
    missing.length > 0 ||
    (['documentNumber', 'birthDate', 'expirationDate'] as const).some(
      (f) => fieldProblems[f]?.problem === 'unreadable',
    );
  return {
    format: layout.format,
    lines,
    checkDigits,
    valid: missing.length === 0 && Object.values(checkDigits).every(Boolean) && stateCodesKnown(lines, layout),
    corrections,
    correctedFields: [
      ...changedFields(rawLines, mapped, layout).map((c): MrzCorrection => ({ ...c, by: 'field_type' })),
      ...changedFields(mapped, lines, layout).map((c): MrzCorrection => ({ ...c, by: 'check_digit' })),
    ],
    ambiguities,
    missingLines: missing,
    partial,
    fieldProblems,
    numberContinues: layout.numberContinues ?? 0,
    fields,
  };
}

/**
 * The reading with its document-number ambiguity settled by the printed zone: when exactly one of
 * the readings the check digit allows is the number printed on the page (read apart, in the
 * visual zone), it is taken. The check digit still decides which readings are possible; the
 * printed number only picks among them. Unchanged otherwise (no ambiguity, no printed number, or
 * it matches none or several).
 */
export function settleByPrintedNumber(reading: MrzReading, printed: string | undefined): MrzReading {
  const ambiguity = reading.ambiguities.find((a) => a.check === 'document_number');
  const wanted = (printed ?? '').toUpperCase().replace(/[^A-Z0-9]/g, '');
  if (!ambiguity || !wanted) return reading;
  const layout = layoutOf(reading);
  const applied = ambiguity.readings.map((changes) => {
    const lines = reading.lines.slice();
    for (const change of changes) {
      const field = layout.fields.find((f) => f.name === change.field);
      if (!field || lines[field.line]!.slice(field.start, field.end) !== change.from) return null;
      lines[field.line] = lines[field.line]!.slice(0, field.start) + change.to + lines[field.line]!.slice(field.end);
    }
    return { lines, changes };
  });
  const matching = applied.filter(
    (a): a is NonNullable<typeof a> =>
      a !== null &&
      (fieldText(a.lines, layout, 'documentNumber') + fieldText(a.lines, layout, 'documentNumberMore')).replace(
        /<+$/,
        '',
      ) === wanted,
  );
  if (matching.length !== 1) return reading;
  const settled = buildReading(matching[0]!.lines, LAYOUTS[reading.format], undefined, reading.missingLines);
  return {
    ...settled,
    corrections:
      reading.corrections +
      matching[0]!.changes.reduce((n, c) => n + [...c.from].filter((ch, i) => ch !== c.to[i]).length, 0),
    correctedFields: [
      ...reading.correctedFields,
      ...matching[0]!.changes.map((c): MrzCorrection => ({ ...c, by: 'printed_zone' })),
      ...settled.correctedFields,
    ],
  };
}

/** Each field's check digit (the composite covers several, and decides none alone). */
const FIELD_CHECKS: Partial<Record<MrzProblemField, CheckSlot['name']>> = {
  documentNumber: 'document_number',
  birthDate: 'birth_date',
  expirationDate: 'expiration_date',
};

/**
 * Why each field is not verified. A field on a line not read, or holding what its type cannot (a
 * date that is no date, a number with a filler inside, a code or a name of fillers only), is
 * unreadable; a field read whose check digit fails has that reason, or an ambiguity when several
 * readings of it would hold.
 */
function problemsOf(
  lines: string[],
  layout: Layout,
  checkDigits: Record<string, boolean>,
  ambiguities: MrzReading['ambiguities'],
  fields: MrzFields,
  missing: number[],
): MrzReading['fieldProblems'] {
  const out: MrzReading['fieldProblems'] = {};
  const legible: Record<MrzProblemField, boolean> = {
    documentCode: fields.documentCode !== null,
    issuingState: fields.issuingState !== null,
    documentNumber: fields.documentNumber !== null && numberWellFormed(lines, layout),
    nationality: fields.nationality !== null,
    names: fields.surname !== null,
    birthDate: fields.birthDate !== null,
    sex: fields.sex !== null,
    expirationDate: fields.expirationDate !== null,
  };
  for (const name of Object.keys(legible) as MrzProblemField[]) {
    const field = layout.fields.find((f) => f.name === name)!;
    const check = FIELD_CHECKS[name];
    const put = (problem: MrzFieldProblem, detail: string) => {
      out[name] = { problem, detail };
    };
    if (missing.includes(field.line)) put('unreadable', `MRZ line ${field.line + 1} was not read`);
    else if (STATE_FIELDS.has(name) && legible[name] && !knownStateCode(fieldText(lines, layout, name)))
      put('unreadable', `'${fieldText(lines, layout, name)}' is no state's code: misread`);
    else if (check && checkDigits[check] !== false) continue;
    else if (!legible[name]) put('unreadable', `not legible in the MRZ ('${fieldText(lines, layout, name)}')`);
    else if (check && ambiguities.some((a) => a.check === check))
      put('ambiguous', 'its check digit holds for several readings; none was taken');
    else if (check) put('check_digit_failed', 'read, but its check digit does not hold');
  }
  return out;
}

const blankToNull = (s: string | null | undefined): string | null => {
  const t = (s ?? '').replace(/</g, ' ').replace(/\s+/g, ' ').trim();
  return t === '' ? null : t;
};

/** Own slicing, used wherever the `mrz` package rejects the lines or a field. */
function sliceFields(lines: string[], layout: Layout): Record<string, string | null> {
  const raw: Record<string, string> = {};
  for (const f of layout.fields) raw[f.name] = lines[f.line]!.slice(f.start, f.end);
  const names = raw.names ?? '';
  const split = names.indexOf('<<');
  const surname = split >= 0 ? names.slice(0, split) : names;
  const given = split >= 0 ? names.slice(split + 2) : '';
  // A long document number continues in the optional data (see longNumberLayout).
  const documentNumber = (raw.documentNumber ?? '') + (raw.documentNumberMore ?? '');
  return {
    documentCode: blankToNull(raw.documentCode),
    issuingState: blankToNull(raw.issuingState),
    documentNumber: blankToNull(documentNumber),
    nationality: blankToNull(raw.nationality),
    surname: blankToNull(surname),
    givenNames: blankToNull(given),
    birthDate: raw.birthDate ?? null,
    expirationDate: raw.expirationDate ?? null,
    sex: raw.sex ?? null,
    optional: blankToNull([raw.optional, raw.optional2].filter(Boolean).join('<')),
  };
}

type ParsedByPackage = Partial<Record<string, string | null>>;

function parseWithPackage(lines: string[]): ParsedByPackage {
  try {
    return parseMrz(lines).fields as ParsedByPackage;
  } catch {
    return {};
  }
}

export function parseFields(lines: string[], layout: Layout): MrzFields {
  const own = sliceFields(lines, layout);
  // The package knows neither visas nor long numbers.
  const pkg =
    layout.format === 'MRVA' || layout.format === 'MRVB' || layout.numberContinues ? {} : parseWithPackage(lines);
  const pick = (pkgValue: string | null | undefined, ownValue: string | null): string | null =>
    blankToNull(pkgValue) ?? ownValue;
  const sexRaw = own.sex;
  return {
    documentCode: own.documentCode,
    issuingState: own.issuingState,
    documentNumber: pick(pkg.documentNumber, own.documentNumber),
    nationality: own.nationality,
    surname: pick(pkg.lastName, own.surname),
    givenNames: pick(pkg.firstName, own.givenNames),
    birthDate: mrzDate(own.birthDate, 'birth'),
    expirationDate: mrzDate(own.expirationDate, 'expiry'),
    sex: sexRaw === 'M' || sexRaw === 'F' ? sexRaw : sexRaw === 'X' || sexRaw === '<' ? 'X' : null,
    optional: own.optional,
  };
}

/** YYMMDD to YYYY-MM-DD: birth dates lie in the past, expiry dates within about 50 years of today. */
export function mrzDate(yymmdd: string | null, kind: 'birth' | 'expiry', today = new Date()): string | null {
  if (!yymmdd || !/^\d{6}$/.test(yymmdd)) return null;
  const yy = Number(yymmdd.slice(0, 2));
  const mm = Number(yymmdd.slice(2, 4));
  const dd = Number(yymmdd.slice(4, 6));
  if (mm < 1 || mm > 12 || dd < 1 || dd > 31) return null;
  const thisYear = today.getUTCFullYear();
  let year = 2000 + yy;
  if (kind === 'birth') {
    const iso = `${year}-${yymmdd.slice(2, 4)}-${yymmdd.slice(4, 6)}`;
    if (iso > today.toISOString().slice(0, 10)) year -= 100;
  } else if (year - thisYear > 50) {
    year -= 100;
  }
  const date = new Date(Date.UTC(year, mm - 1, dd));
  if (date.getUTCMonth() !== mm - 1) return null;
  return `${year}-${yymmdd.slice(2, 4)}-${yymmdd.slice(4, 6)}`;
}
