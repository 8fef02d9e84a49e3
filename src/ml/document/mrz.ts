import { parse as parseMrz } from 'mrz';
import { correctMrz } from './mrz-correct.js';
import { gridLines } from './mrz-grid.js';
import type { OcrLine } from './ocr.js';
import { checkPasses, formatFor, LAYOUTS, type Layout, type MrzFormat, numberWellFormed } from './mrz-format.js';
import type { MrzFields, MrzReading } from './types.js';

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
  const checks = Object.values(reading.checkDigits);
  const passing = checks.filter(Boolean).length;
  // Valid first, then share of passing digits, then fewer corrections.
  return (reading.valid ? 100 : 0) + (10 * passing) / Math.max(1, checks.length) - reading.corrections * 0.01;
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
    const nearest = group.length === 3 || Math.abs(readLength(texts) - length) <= Math.abs(readLength(texts) - (length === 44 ? 36 : 44));
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
  return found && plausibleReading(found) ? found : null;
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
  const peers = [primary, ...readings.filter((r) => r !== primary && r.format === primary.format)];
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
  const reading = buildReading(voted, LAYOUTS[primary.format]);
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

export function buildReading(rawLines: string[], layout: Layout, alternatives?: Alternatives): MrzReading {
  const { lines, corrections } = correctMrz(rawLines, layout, alternatives);
  const checkDigits: Record<string, boolean> = {};
  for (const slot of layout.checks) checkDigits[slot.name] = checkPasses(lines, slot);
  if (!numberWellFormed(lines, layout)) checkDigits.document_number = false;
  return {
    format: layout.format,
    lines,
    checkDigits,
    valid: Object.values(checkDigits).every(Boolean),
    corrections,
    correctedFields: correctedFields(rawLines, lines, layout),
    fields: parseFields(lines, layout.format),
  };
}

/** The layout's fields that differ between the lines as read and as corrected. */
function correctedFields(raw: string[], corrected: string[], layout: Layout): Array<{ field: string; from: string; to: string }> {
  const out: Array<{ field: string; from: string; to: string }> = [];
  for (const f of layout.fields) {
    const from = (raw[f.line] ?? '').slice(f.start, f.end);
    const to = corrected[f.line]!.slice(f.start, f.end);
    if (from !== to) out.push({ field: f.name, from, to });
  }
  return out;
}

const blankToNull = (s: string | null | undefined): string | null => {
  const t = (s ?? '').replace(/</g, ' ').replace(/\s+/g, ' ').trim();
  return t === '' ? null : t;
};

/** Own slicing, used wherever the `mrz` package rejects the lines or a field. */
function sliceFields(lines: string[], format: MrzFormat): Record<string, string | null> {
  const layout = LAYOUTS[format];
  const raw: Record<string, string> = {};
  for (const f of layout.fields) raw[f.name] = lines[f.line]!.slice(f.start, f.end);
  const names = raw.names ?? '';
  const split = names.indexOf('<<');
  const surname = split >= 0 ? names.slice(0, split) : names;
  const given = split >= 0 ? names.slice(split + 2) : '';
  let documentNumber = raw.documentNumber ?? '';
  // TD1 long document numbers: a filler check digit means the number continues in the optional field.
  if (format === 'TD1' && raw.documentNumberCheck === '<') documentNumber += (raw.optional ?? '').replace(/<.*$/, '').slice(0, -1);
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

export function parseFields(lines: string[], format: MrzFormat): MrzFields {
  const own = sliceFields(lines, format);
  const pkg = format === 'MRVA' || format === 'MRVB' ? {} : parseWithPackage(lines);
  const pick = (pkgValue: string | null | undefined, ownValue: string | null): string | null => blankToNull(pkgValue) ?? ownValue;
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
