import type { DecodedImage } from '../image.js';
import { combineReadings, mrzLikeLines, readMrzFromOcr as readAnyMrz, scoreOf, settleByPrintedNumber } from './mrz.js';
import { MRZ_WHITELIST, type OcrLine, type OcrResult } from './ocr.js';
import { mergeRows, type PaddleOcr, textSkew, type DetectedBox } from './paddle.js';
import {
  bandShear,
  cropGray,
  lineGeometry,
  resizeGray,
  rotateGray,
  unshear,
  uprightGray,
  type Gray,
  type LineGeometry,
} from './raster.js';
import type { DocumentBarcode, DocumentReader, DocumentReading, MrzReading, Rotation } from './types.js';
import { AamvaError, looksLikeAamva, parseAamva } from './aamva.js';
import { readDocumentBarcodes } from './barcode.js';
import {
  compareLicenceWithVisualZone,
  compareMrzWithVisualZone,
  printedNumberConflicts,
  readVisualZone,
} from './visual-zone.js';
import { longLines, rectifyZone, warped, zoneBounds, zoneStacks } from './zone-warp.js';

// The reading pipeline for one document with PaddleOCR: per side, try orientations (the likeliest
// first, never one where the text runs down the page), deskew, detect the text lines, read the
// long lines with the MRZ alphabet, and stop at the first orientation that gives a valid MRZ.
// The other lines (the printed zone) are read once, at the orientation chosen.

/**
 * Pages are kept at most this large for recognition: a document a third of the frame wide still has MRZ characters
 * about 20 px tall.
 */
const PAGE_MAX_SIDE = 3200;
/** Small scans are upscaled to this long side first: the detector misses characters under about 8 px. */
const PAGE_MIN_SIDE = 1200;
/** MRZ lines are long and thin: 30 to 44 characters on one line. Shorter boxes are printed-zone text. */
const MRZ_MIN_ASPECT = 10;
/**
 * Reads again of MRZ lines that did not validate: cut with wider margins (in line heights), then
 * stretched wider (a font spaced wider than OCR-B: 'SI<' read 'S14' at its own width).
 */
const RETRIES = [
  { margin: 0.35, stretch: 1 },
  { margin: 0.7, stretch: 1 },
  { margin: 0, stretch: 1.3 },
];
/** Pieces of one MRZ line may lie this many line heights apart (a long filler run read as background). */
const MRZ_MAX_GAP = 1.2;
/** A long line and a piece exactly in its row may lie this many line heights apart (see joinRowPieces). */
const MRZ_PIECE_MAX_GAP = 10;
/** No MRZ line is longer than this (width over height): 44 characters. */
const MRZ_MAX_ASPECT = 40;
/**
 * Strokes whose slant changes by this much (dx/dy) from the MRZ band's centre to its ends were photographed at an
 * angle.
 */
const SHEAR_MIN_CHANGE = 0.05;
/** The largest skew corrected (degrees), as the projection profile searches it. */
const SKEW_MAX = 20;
/** Boxes found on an upside-down page, turned upright, are grown by this many line heights at each end. */
const TURNED_BOX_GROWTH = 0.3;
/** Text lines still this many degrees off level after deskewing: the page is deskewed again by their direction. */
const SKEW_RESIDUAL_MAX = 1.5;
/**
 * A names line is re-read in pieces of at most this many characters: PP-OCRv4 drops letters of long, filler-padded
 * crops.
 */
const NAMES_PIECE_MAX = 24;
/** Letters read in a piece below this confidence (percent) are noise, not a letter the whole line dropped. */
const PIECE_MIN_CONFIDENCE = 30;
/** Neighbouring characters of an MRZ line this many pitches apart have one dropped between them. */
const HOLE_MIN_PITCHES = 1.6;

type Box = { x0: number; y0: number; x1: number; y1: number; score: number };

/** A page at one orientation: deskewed (by `skew` degrees), cut to the document, its text boxes found. */
interface Located {
  skew: number;
  page: Gray;
  boxes: Box[];
  /** The detector's regions as found (unmerged), with their centrelines. */
  detected: DetectedBox[];
}

interface Attempt extends Located {
  rotation: Rotation;
  /** The long lines, read with the MRZ alphabet (or the longest lines when none is long enough). */
  probe: OcrResult;
  probeBoxes: Rect[];
  mrz: MrzReading | null;
}

class Stopwatch {
  ocrMs = 0;
  add(result: OcrResult): OcrResult {
    this.ocrMs += result.ms;
    return result;
  }
}

function rotationOrder(geometry: { horizontalScore: number; verticalScore: number }, preferred?: Rotation): Rotation[] {
  const across: Rotation[] = [0, 180];
  const down: Rotation[] = [90, 270];
  const order = geometry.verticalScore > geometry.horizontalScore * 1.15 ? [...down, ...across] : [...across, ...down];
  if (preferred !== undefined) return [preferred, ...order.filter((r) => r !== preferred)];
  return order;
}

/** Small scans and crops are enlarged (at most 4 times) so their long side reaches `side`. */
async function atLeast(page: Gray, side: number): Promise<Gray> {
  const long = Math.max(page.width, page.height);
  return long < side ? resizeGray(page, Math.min(4, side / long)) : page;
}

/**
 * Where the document is, from its text boxes: their union with a margin, when that covers less
 * than this share of the page (else the page is the document and nothing is cut).
 */
const REGION_MAX_SHARE = 0.4;

export function documentRegion(
  boxes: Rect[],
  page: Gray,
): { left: number; top: number; width: number; height: number } | null {
  if (boxes.length < 3) return null;
  const h = boxes.map((b) => b.y1 - b.y0).sort((a, b) => a - b)[Math.floor(boxes.length / 2)]!;
  const x0 = Math.max(0, Math.min(...boxes.map((b) => b.x0)) - 3 * h);
  const y0 = Math.max(0, Math.min(...boxes.map((b) => b.y0)) - 3 * h);
  const x1 = Math.min(page.width, Math.max(...boxes.map((b) => b.x1)) + 3 * h);
  const y1 = Math.min(page.height, Math.max(...boxes.map((b) => b.y1)) + 3 * h);
  if ((x1 - x0) * (y1 - y0) > REGION_MAX_SHARE * page.width * page.height) return null;
  return { left: x0, top: y0, width: x1 - x0, height: y1 - y0 };
}

/** The box grown by `margin` line heights left and right (a third of that up and down), inside the page. */
function widen<T extends Rect>(b: T, margin: number, page: Gray): T {
  const h = b.y1 - b.y0;
  return {
    ...b,
    x0: Math.max(0, b.x0 - margin * h),
    x1: Math.min(page.width, b.x1 + margin * h),
    y0: Math.max(0, b.y0 - (margin * h) / 3),
    y1: Math.min(page.height, b.y1 + (margin * h) / 3),
  };
}

const overlaps = (a: Rect, b: Rect) =>
  Math.min(a.x1, b.x1) > Math.max(a.x0, b.x0) && Math.min(a.y1, b.y1) > Math.max(a.y0, b.y0);
const aspect = (b: { x0: number; y0: number; x1: number; y1: number }) => (b.x1 - b.x0) / Math.max(1, b.y1 - b.y0);

/** The first 2D barcode on one side, read as an AAMVA licence when it claims to be one (an AAMVA one first). */
async function barcodeOn(
  image: DecodedImage,
  side: 'front' | 'back',
  thorough: boolean,
): Promise<DocumentBarcode | null> {
  const found = await readDocumentBarcodes(await uprightGray(image, PAGE_MAX_SIDE), { thorough });
  if (found.length === 0) return null;
  const first = found.find((b) => looksLikeAamva(b.text)) ?? found[0]!;
  try {
    return { format: first.format, side, licence: parseAamva(first.text), problem: null, message: null };
  } catch (error) {
    if (!(error instanceof AamvaError)) throw error;
    return { format: first.format, side, licence: null, problem: error.problem, message: error.message };
  }
}

/**
 * Lines side by side on one row joined left to right with a space: a label and its value are
 * separate boxes (often of different heights) but one line of text to the printed-zone reader.
 */
export function textRows(lines: OcrLine[]): string[] {
  const rows: OcrLine[][] = [];
  const centre = (l: OcrLine) => (l.bbox.y0 + l.bbox.y1) / 2;
  for (const line of [...lines].sort((a, b) => centre(a) - centre(b))) {
    const h = line.bbox.y1 - line.bbox.y0;
    const row = rows.find((r) =>
      r.some((o) => Math.abs(centre(o) - centre(line)) < 0.35 * Math.max(h, o.bbox.y1 - o.bbox.y0)),
    );
    if (row) row.push(line);
    else rows.push([line]);
  }
  return rows.map((r) =>
    r
      .sort((a, b) => a.bbox.x0 - b.bbox.x0)
      .map((l) => l.text)
      .join(' '),
  );
}

type Rect = { x0: number; y0: number; x1: number; y1: number };

/** Where a recognised character sits along its line (page x). */
const symbolCentre = (s: OcrLine['symbols'][number]) => (s.bbox.x0 + s.bbox.x1) / 2;

/**
 * Rows with each long line joined to the pieces exactly in its row further away (same top and
 * bottom within a quarter of a line), while the whole stays no longer than an MRZ line: on a small
 * document the detector can leave out a whole run of fillers ('…M1806058<' and '<<<<<<06').
 * Printed labels and values can line up as well, so this is only a second reading's candidates.
 */
export function joinRowPieces<T extends Rect>(rows: T[]): T[] {
  const inRow = (a: Rect, b: Rect) => {
    const h = Math.max(a.y1 - a.y0, b.y1 - b.y0);
    const gap = Math.max(a.x0, b.x0) - Math.min(a.x1, b.x1);
    const joined = {
      x0: Math.min(a.x0, b.x0),
      y0: Math.min(a.y0, b.y0),
      x1: Math.max(a.x1, b.x1),
      y1: Math.max(a.y1, b.y1),
    };
    return (
      Math.abs(a.y0 - b.y0) < 0.25 * h &&
      Math.abs(a.y1 - b.y1) < 0.25 * h &&
      gap < MRZ_PIECE_MAX_GAP * h &&
      aspect(joined) <= MRZ_MAX_ASPECT
    );
  };
  const joined: T[] = [];
  for (const box of [...rows].sort((a, b) => a.x0 - b.x0)) {
    const line = joined.find((j) => (aspect(j) >= MRZ_MIN_ASPECT || aspect(box) >= MRZ_MIN_ASPECT) && inRow(j, box));
    if (!line) {
      joined.push({ ...box });
      continue;
    }
    line.x1 = Math.max(line.x1, box.x1);
    line.y0 = Math.min(line.y0, box.y0);
    line.y1 = Math.max(line.y1, box.y1);
  }
  return joined.sort((a, b) => a.y0 - b.y0 || a.x0 - b.x0);
}

const sameBoxes = (a: Rect[], b: Rect[]) =>
  a.length === b.length &&
  a.every((r, i) => r.x0 === b[i]!.x0 && r.y0 === b[i]!.y0 && r.x1 === b[i]!.x1 && r.y1 === b[i]!.y1);

/**
 * Boxes to read as MRZ lines: the long ones, plus the lines stacked right against them and
 * starting at the same x (a names line whose filler run the detector left out is short). Each
 * box of a stack spans the stack's full width, so trailing fillers are read too.
 */
export function mrzCandidates<T extends Rect>(boxes: T[]): T[] {
  const long = boxes.filter((b) => aspect(b) >= MRZ_MIN_ASPECT);
  const stacked = (a: Rect, b: Rect) => {
    const h = Math.max(a.y1 - a.y0, b.y1 - b.y0);
    return (
      Math.abs(a.x0 - b.x0) < 2 * h &&
      Math.max(a.y0, b.y0) - Math.min(a.y1, b.y1) < 1.2 * h &&
      Math.abs(a.y0 - b.y0) > 0.5 * h
    );
  };
  const picked = new Set<T>(long);
  for (const b of boxes) if (!picked.has(b) && aspect(b) >= 4 && long.some((l) => stacked(l, b))) picked.add(b);
  return [...picked]
    .map((b) => {
      const stack = [...picked].filter((o) => o === b || stacked(o, b));
      return { ...b, x0: Math.min(...stack.map((o) => o.x0)), x1: Math.max(...stack.map((o) => o.x1)) };
    })
    .sort((a, b) => a.y0 - b.y0);
}

/** An MRZ has at most 3 lines. */
const MRZ_MAX_LINES = 3;

/**
 * Stacks of MRZ candidates that may be the MRZ, to read before the other long lines: consecutive
 * boxes stacked at the same x (2 or more lines), each cut to its last 3 lines, lowest stack first.
 * ICAO 9303 puts the MRZ at the bottom edge of the page or card, below all other text: at the
 * right orientation it is the bottom of the lowest stack. Empty when no candidates are stacked.
 */
export function mrzBands<T extends Rect>(candidates: T[]): T[][] {
  const sorted = [...candidates].sort((a, b) => a.y0 - b.y0);
  const stacks: T[][] = [];
  for (const box of sorted) {
    const last = stacks[stacks.length - 1]?.at(-1);
    const h = last ? Math.max(last.y1 - last.y0, box.y1 - box.y0) : 0;
    if (last && Math.abs(last.x0 - box.x0) < 2 * h && box.y0 - last.y1 < 1.2 * h) stacks[stacks.length - 1]!.push(box);
    else stacks.push([box]);
  }
  return stacks
    .filter((stack) => stack.length >= 2)
    .map((stack) => stack.slice(-MRZ_MAX_LINES))
    .sort((a, b) => b.at(-1)!.y1 - a.at(-1)!.y1);
}

/** Letters before the trailing filler run of an MRZ line read as text. */
const lettersOf = (text: string) => text.replace(/<+$/, '');

/**
 * Where to cut a names line in two (page x between two characters near its middle, after a '<'
 * when one is near), or null when the line is not a names line: at least a few letters with at
 * most two digits among them, then at least three trailing fillers.
 */
export function namesLineCut(line: Pick<OcrLine, 'text' | 'symbols'>): number | null {
  const text = line.symbols.map((s) => s.text).join('');
  const letters = lettersOf(text);
  if (text !== line.text || letters.length < 2 || text.length - letters.length < 3) return null;
  if ((letters.match(/\d/g) ?? []).length > 2) return null;
  const n = line.symbols.length;
  if (n < 8) return null;
  const centre = (i: number) => (line.symbols[i]!.bbox.x0 + line.symbols[i]!.bbox.x1) / 2;
  // The gap between characters i and i+1: a piece must not exceed NAMES_PIECE_MAX characters.
  const lo = Math.max(0, n - NAMES_PIECE_MAX - 1);
  const hi = Math.min(n - 2, NAMES_PIECE_MAX - 1);
  const middle = Math.floor(n / 2) - 1;
  let best = Math.min(hi, Math.max(lo, middle));
  for (let i = lo; i <= hi; i++) {
    // Prefer a cut right after a filler (never through a name), then near the middle.
    const after = line.symbols[i]!.text === '<' ? 0 : 100;
    const bestAfter = line.symbols[best]!.text === '<' ? 0 : 100;
    if (after + Math.abs(i - middle) < bestAfter + Math.abs(best - middle)) best = i;
  }
  return (centre(best) + centre(best + 1)) / 2;
}

/** Character pitch of a read MRZ line: its symbols' centres from first to last, over their count. */
export function pitchOf(line: Pick<OcrLine, 'symbols'>): number | null {
  const n = line.symbols.length;
  if (n < 8) return null;
  return (symbolCentre(line.symbols[n - 1]!) - symbolCentre(line.symbols[0]!)) / (n - 1);
}

/**
 * The names line from its two pieces when they hold at least the letters of the whole reading
 * (a dropped letter is what the pieces recover) and add few beyond those. The fillers after the
 * letters are counted by position, not as read (a run of '<' reads too short or too long): the
 * line runs from its first character to the whole reading's last, on the pitch of another MRZ
 * line of the same zone (`pitch`), else on the pitch of the letters.
 */
export function preferPieces(whole: OcrLine, pieces: OcrLine[], cut: number, pitch: number | null): OcrLine {
  const ordered = [...pieces].sort((a, b) => a.bbox.x0 - b.bbox.x0);
  // A piece of fillers alone can read a stray, unlikely letter ('<<<<<' as 'A' at 11%): dropped.
  const symbols = ordered.flatMap((p, k) =>
    p.symbols.filter(
      (s) =>
        (k === 0 ? symbolCentre(s) < cut : symbolCentre(s) >= cut) &&
        (s.text === '<' || s.confidence >= PIECE_MIN_CONFIDENCE),
    ),
  );
  const letters = lettersOf(symbols.map((s) => s.text).join(''));
  const wholeLetters = lettersOf(whole.text);
  if (letters.length < wholeLetters.length || letters.length > wholeLetters.length + 6) return whole;
  if (letters.length > wholeLetters.length + 2 && !isSubsequence(wholeLetters, letters)) return whole;
  // The first piece must start the line as the whole reading does (the document code's letter).
  if (!ordered[0] || ordered[0].bbox.x0 >= cut || letters[0] !== wholeLetters[0]) return whole;
  const kept = symbols.slice(0, letters.length);
  const step = pitch ?? (letters.length >= 8 ? pitchOf({ symbols: kept }) : null);
  const last = whole.symbols[whole.symbols.length - 1]!;
  const byPitch = step ? Math.round((symbolCentre(last) - symbolCentre(kept[0]!)) / step) + 1 : 0;
  // No MRZ line is longer than 44 characters: past that the pitch was not this zone's.
  const cells =
    byPitch > letters.length && byPitch <= 44 ? byPitch : whole.symbols.length - wholeLetters.length + letters.length;
  // Each filler in its own cell (the grid reading places characters by position).
  const end = kept[kept.length - 1]!;
  const fillers = step
    ? Array.from({ length: Math.max(0, cells - letters.length) }, (_, k) => {
        const x = symbolCentre(end) + (k + 1) * step;
        return { ...last, text: '<', alternatives: [], bbox: { ...last.bbox, x0: x - step / 2, x1: x + step / 2 } };
      })
    : whole.symbols.slice(wholeLetters.length);
  const all = [...kept, ...fillers];
  const confidence = kept.reduce((s, k) => s + k.confidence, 0) / kept.length;
  return { ...whole, text: all.map((s) => s.text).join(''), symbols: all, confidence };
}

/**
 * The MRZ line nearest to a names line, above or below it (the line with check digits: its
 * characters, all of them in place, give the zone's pitch and line length): MRZ-like, at least 28
 * characters, of about the same height and starting about where the names line starts.
 */
export function zoneLine(names: Pick<OcrLine, 'bbox'>, lines: OcrLine[]): OcrLine | null {
  const h = names.bbox.y1 - names.bbox.y0;
  const near = lines
    .filter(
      (l) => l !== names && l.symbols.length >= 28 && mrzLikeLines([l.text]).length === 1 && namesLineCut(l) === null,
    )
    .filter(
      (l) =>
        Math.abs(l.bbox.y1 - l.bbox.y0 - h) < 0.35 * h &&
        Math.abs(l.bbox.x0 - names.bbox.x0) < 2 * h &&
        Math.abs(l.bbox.y0 - names.bbox.y0) < 3.5 * h,
    )
    .sort((a, b) => Math.abs(a.bbox.y0 - names.bbox.y0) - Math.abs(b.bbox.y0 - names.bbox.y0));
  return near[0] ?? null;
}

/** The pitch of the zone's line with check digits beside a names line (see zoneLine). */
export function zonePitch(names: OcrLine, lines: OcrLine[]): number | null {
  const line = zoneLine(names, lines);
  return line ? pitchOf(line) : null;
}

/**
 * A line read with fewer than this share of the characters its width holds at the zone's pitch was given up on by the
 * recogniser.
 */
const SHORT_READ_MAX = 0.5;

/**
 * Where to cut a line of the MRZ zone that read far too short ('P<AUSCITIZEN<<JANE<<<…' read
 * 'P22': on some long filler-padded lines the recogniser gives up): its middle, when the zone's
 * line with check digits beside it, as wide, shows it holds at least twice the characters read.
 */
export function shortLineCut(line: OcrLine, lines: OcrLine[]): number | null {
  const zone = zoneLine(line, lines);
  const pitch = zone ? pitchOf(zone) : null;
  if (!zone || !pitch || line.bbox.x1 - line.bbox.x0 < 0.8 * (zone.bbox.x1 - zone.bbox.x0)) return null;
  const fits = (line.bbox.x1 - line.bbox.x0) / pitch;
  return line.symbols.length < SHORT_READ_MAX * fits ? (line.bbox.x0 + line.bbox.x1) / 2 : null;
}

/**
 * A line read far too short, from its pieces: kept when they read as a names line (a document
 * code letter first, letters, then fillers), its fillers counted on to the length of the zone's
 * line beside it (every line of an MRZ has the same length).
 */
export function piecesOfShortLine(whole: OcrLine, pieces: OcrLine[], cut: number, zone: OcrLine): OcrLine {
  const ordered = [...pieces].sort((a, b) => a.bbox.x0 - b.bbox.x0);
  const symbols = ordered.flatMap((p, k) =>
    p.symbols.filter(
      (s) =>
        (k === 0 ? symbolCentre(s) < cut : symbolCentre(s) >= cut) &&
        (s.text === '<' || s.confidence >= PIECE_MIN_CONFIDENCE),
    ),
  );
  const text = symbols.map((s) => s.text).join('');
  const letters = lettersOf(text);
  if (
    !/^[A-Z]/.test(text) ||
    letters.length < 5 ||
    (letters.match(/\d/g) ?? []).length > 2 ||
    symbols.length > zone.symbols.length
  )
    return whole;
  // Each filler in its own cell on the zone's pitch (the grid reading places characters by position).
  const last = symbols[symbols.length - 1]!;
  const step = pitchOf(zone) ?? last.bbox.x1 - last.bbox.x0;
  const fillers = Array.from({ length: zone.symbols.length - symbols.length }, (_, k) => {
    const x = symbolCentre(last) + (k + 1) * step;
    return { ...last, text: '<', alternatives: [], bbox: { ...last.bbox, x0: x - step / 2, x1: x + step / 2 } };
  });
  const all = [...symbols, ...fillers];
  const confidence = symbols.reduce((s, k) => s + k.confidence, 0) / symbols.length;
  return { ...whole, text: all.map((s) => s.text).join(''), symbols: all, confidence };
}

/**
 * Where an MRZ line dropped a character: the middle of its first gap between two characters other
 * than fillers at least HOLE_MIN_PITCHES wide (its own median spacing), or null. At an angle the
 * recogniser drops characters of a TD1's first line ('IDSWEN8375703<8' read 'IDSWEN837573<8'),
 * and a 0 dropped inside a number counts as the filler the grid leaves in its cell.
 */
export function holeCut(line: Pick<OcrLine, 'text' | 'symbols'>): number | null {
  const symbols = line.symbols;
  if (symbols.length < 8 || mrzLikeLines([line.text]).length !== 1) return null;
  const gaps = symbols.slice(1).map((s, i) => symbolCentre(s) - symbolCentre(symbols[i]!));
  const pitch = [...gaps].sort((a, b) => a - b)[Math.floor(gaps.length / 2)]!;
  const at = gaps.findIndex(
    (gap, i) => gap >= HOLE_MIN_PITCHES * pitch && symbols[i]!.text !== '<' && symbols[i + 1]!.text !== '<',
  );
  return at < 0 ? null : (symbolCentre(symbols[at]!) + symbolCentre(symbols[at + 1]!)) / 2;
}

/**
 * The line with the piece up to just past its hole read again: taken when the piece reads exactly
 * one character more there than the whole line, every one of the line's among them in order (the
 * one it dropped), the rest of the line as read. Else the whole line. Only the piece before the
 * hole is read: a crop that starts in a long filler run is given up on.
 */
export function filledHole(whole: OcrLine, piece: OcrLine | undefined, hole: number, pitch: number): OcrLine {
  if (!piece) return whole;
  const boundary = hole + pitch / 2;
  const before = piece.symbols.filter((s) => symbolCentre(s) < boundary);
  const wholeBefore = whole.symbols.filter((s) => symbolCentre(s) < boundary);
  const text = (symbols: OcrLine['symbols']) => symbols.map((s) => s.text).join('');
  if (before.length !== wholeBefore.length + 1 || !isSubsequence(text(wholeBefore), text(before))) return whole;
  const symbols = [...before, ...whole.symbols.filter((s) => symbolCentre(s) >= boundary)];
  const confidence = symbols.reduce((sum, s) => sum + s.confidence, 0) / symbols.length;
  return { ...whole, text: text(symbols), symbols, confidence };
}

/** Whether every character of `short` appears in `long` in order. */
function isSubsequence(short: string, long: string): boolean {
  let i = 0;
  for (const c of long) if (c === short[i]) i++;
  return i === short.length;
}

/** The located page turned upside down: the same text boxes, their corners swapped. */
async function turned({ skew, page, boxes, detected }: Located): Promise<Located> {
  const { width: w, height: h } = page;
  // Found upside down, a line's box can end tight on its last character, which then starts it:
  // grown by a share of the line height at both ends.
  const flipped = boxes.map((b) => {
    const grow = TURNED_BOX_GROWTH * (b.y1 - b.y0);
    return { ...b, x0: Math.max(0, w - b.x1 - grow), x1: Math.min(w, w - b.x0 + grow), y0: h - b.y1, y1: h - b.y0 };
  });
  // A centreline y = c0 + c1 u + c2 u^2 (u = x - xm) turned: u -> -u, y -> h - y.
  const lines = detected.map((d) => ({
    ...d,
    x0: w - d.x1,
    x1: w - d.x0,
    y0: h - d.y1,
    y1: h - d.y0,
    centre: d.centre && {
      ...d.centre,
      xm: w - d.centre.xm,
      x0: w - d.centre.x1,
      x1: w - d.centre.x0,
      c: [h - d.centre.c[0], d.centre.c[1], -d.centre.c[2]] as [number, number, number],
    },
  }));
  return {
    skew,
    page: await rotateGray(page, 180),
    boxes: flipped.sort((a, b) => a.y0 - b.y0 || a.x0 - b.x0),
    detected: lines,
  };
}

/**
 * Every stack of long lines that may be the MRZ lies in the page's top half. ICAO 9303 puts the
 * MRZ at the bottom edge of its page or card, so such a page is likely upside down. Only the order
 * of the orientations tried depends on it.
 */
export function mrzAbove({ page, boxes }: Pick<Located, 'page' | 'boxes'>): boolean {
  const bands = mrzBands(mrzCandidates(mergeRows(boxes, MRZ_MAX_GAP)));
  return bands.length > 0 && bands.every((band) => band.at(-1)!.y1 < page.height / 2);
}

/**
 * Two check digits holding mean the orientation is right (by chance 1 in 100): another
 * orientation cannot read better, only the characters are in doubt. Not for a zone read in part:
 * the rest of it may be in lines not read yet (a band of the second line alone), so the search for
 * the whole zone goes on, and the part is what is left when it finds none.
 */
export function orientationSettled(reading: MrzReading): boolean {
  return reading.valid || (!reading.partial && Object.values(reading.checkDigits).filter(Boolean).length >= 2);
}

/**
 * The MRZ is placed at this orientation: settled (see orientationSettled), or a part of it that
 * proves itself after every line of the orientation was read (the reader returns no other part).
 * Another orientation cannot read it better, and the document has an MRZ.
 */
export function mrzPlaced(reading: MrzReading): boolean {
  return orientationSettled(reading) || reading.partial;
}

/**
 * A retry read the MRZ exactly as the read before it, with its orientation settled: the print
 * says what it says (a check digit that fails on the document itself), and more crops of the same
 * lines cannot change it, so the retries stop there. Every line is compared, the names line too:
 * while it still reads differently from crop to crop, the retries' votes can still mend it. A
 * zone read in part is retried in full: a wider crop can bring in the line it missed.
 */
export function readingRepeated(previous: MrzReading | null, next: MrzReading | null): boolean {
  return !!previous && !!next && orientationSettled(next) && previous.lines.join('\n') === next.lines.join('\n');
}

/**
 * An MRZ was found on this side: valid, with enough check digits holding to place it (one
 * failing on the document itself), or read in part. Such a document is read from its MRZ; the
 * slow, thorough search for a licence barcode is for documents without one (a licence whose
 * quick look missed its PDF417).
 */
function mrzFound(attempt: { mrz: MrzReading | null } | null): boolean {
  return !!attempt?.mrz && mrzPlaced(attempt.mrz);
}

/** A whole MRZ was found on this side (see orientationSettled): no part of one. */
function wholeMrzFound(attempt: { mrz: MrzReading | null }): boolean {
  return !!attempt.mrz && orientationSettled(attempt.mrz);
}

/**
 * Fillers read as characters: a run of five or more of one letter (no name, code or number holds
 * one; a long filler run misread on a blurred, noisy zone reads 'AAAAAAAAAAAA'), or a whole zone
 * with no filler at all (every names line has one). Such a reading can meet its check digits by
 * chance after corrections (seen on the generated hard set: 'IDPOLNWUQ25QKX<128<<<…' read
 * 'HDPOLNWUO0SOKX4LDOAAAAAAAAAAAA', valid with a wrong number), so it is no reading. No
 * document of the shared set, the rendered set or 450 generated hard photos has either.
 */
export function fillersMisread(reading: Pick<MrzReading, 'lines' | 'missingLines'>): boolean {
  if (reading.lines.some((l) => /([A-Z])\1{4,}/.test(l))) return true;
  return reading.missingLines.length === 0 && !reading.lines.some((l) => l.includes('<'));
}

const plausible = (reading: MrzReading | null): MrzReading | null =>
  reading && !fillersMisread(reading) ? reading : null;

/** The MRZ read from OCR lines, when it is plausible (see fillersMisread). */
const readMrzFromOcr = (lines: OcrLine[]): MrzReading | null => plausible(readAnyMrz(lines));

/** Lines as one OCR result (their mean confidence tells the orientation). */
function resultOf(lines: OcrLine[]): OcrResult {
  const confidence = lines.length ? lines.reduce((s, l) => s + l.confidence, 0) / lines.length : 0;
  return { text: lines.map((l) => l.text).join('\n'), confidence, lines, ms: 0 };
}

/**
 * The boxes of the lines that read like MRZ lines, and of the lines right above and below them
 * (a names line whose fillers read as letters), top to bottom: the lines worth reading again.
 */
export function mrzLikeBoxes<T extends Rect>(lines: Array<Pick<OcrLine, 'text' | 'bbox'>>, boxes: T[]): T[] {
  const like = lines.map((l) => mrzLikeLines([l.text]).length === 1);
  const wanted = lines.filter((_, i) => like[i] || like[i - 1] || like[i + 1]);
  // A line's box is the one it was cut from: the nearest top-left corner.
  const boxOf = (l: Pick<OcrLine, 'bbox'>) =>
    boxes.reduce((best, b) => (corner(b, l.bbox) < corner(best, l.bbox) ? b : best));
  return boxes.length === 0 ? [] : [...new Set(wanted.map(boxOf))].sort((a, b) => a.y0 - b.y0);
}

const corner = (a: Rect, b: Rect) => Math.abs(a.x0 - b.x0) + Math.abs(a.y0 - b.y0);

export class PaddleDocumentReader implements DocumentReader {
  private readonly mrzAlphabet: Set<number>;

  constructor(private readonly ocr: PaddleOcr) {
    this.mrzAlphabet = ocr.alphabet(MRZ_WHITELIST);
  }

  async read(front: DecodedImage | undefined, back?: DecodedImage): Promise<DocumentReading> {
    const started = performance.now();
    const clock = new Stopwatch();
    if (!front && !back) throw new Error('no document image given');
    // A licence carries its data in the PDF417 on the back: look there first, quickly. A back
    // with a licence barcode needs no MRZ; a back with neither is searched for a barcode in earnest.
    let barcode = back ? await barcodeOn(back, 'back', false) : null;
    const backResult = back && !barcode?.licence ? await this.readSide(back, clock, { needMrz: true }) : null;
    if (back && !barcode && !mrzFound(backResult)) barcode = await barcodeOn(back, 'back', true);
    // Two images are a card: the front then only needs its visual zone unless the back had no
    // valid MRZ or licence.
    const backValid = !!backResult?.mrz?.valid || !!barcode?.licence;
    const frontResult = front
      ? await this.readSide(front, clock, { needMrz: !backValid, preferred: backResult?.rotation })
      : null;
    // Nothing valid anywhere: the barcode may be on the image sent as the front.
    if (front && !barcode && !mrzFound(frontResult) && !mrzFound(backResult))
      barcode = await barcodeOn(front, 'front', true);
    const frontMrz = frontResult?.mrz ?? null;
    const backMrz = backResult?.mrz ?? null;
    let side: 'front' | 'back' = 'front';
    let chosen = frontResult?.mrz ? frontResult : null;
    if (backMrz && (!frontMrz || scoreOf(backMrz) >= scoreOf(frontMrz))) {
      chosen = backResult;
      side = 'back';
    }
    // The visual zone is the front page, upright; without a front, whatever side we have.
    const zoneAttempt = frontResult ?? backResult;
    const zoneLines = zoneAttempt ? await this.printedLines(zoneAttempt, clock) : [];
    const licence = barcode?.licence ?? null;
    // US licences print dates month first.
    const visualZone = readVisualZone(zoneLines, { monthFirst: licence?.country === 'USA' });
    const mrz = chosen?.mrz ? settleByPrintedNumber(chosen.mrz, visualZone.fields.documentNumber) : null;
    return {
      mrz,
      barcode,
      barcodeVisualAgreement:
        licence && barcode?.side === 'back' && front ? compareLicenceWithVisualZone(licence, visualZone) : {},
      visualZone,
      rotation: chosen?.rotation ?? zoneAttempt?.rotation ?? 0,
      frontRotation: zoneAttempt?.rotation ?? 0,
      skewDegrees: chosen?.skew ?? zoneAttempt?.skew ?? 0,
      side: mrz ? side : front ? 'front' : 'back',
      mrzVisualAgreement: mrz ? compareMrzWithVisualZone(mrz, visualZone) : {},
      printedNumberConflict: printedNumberConflicts(
        mrz?.fields.documentNumber ?? null,
        visualZone.fields.documentNumber,
      ),
      timings: { ocrMs: Math.round(clock.ocrMs), totalMs: Math.round(performance.now() - started) },
    };
  }

  close(): Promise<void> {
    return this.ocr.close();
  }

  /** The orientation with a valid MRZ, else the best MRZ, else the one whose long lines read most confidently. */
  private async readSide(
    image: DecodedImage,
    clock: Stopwatch,
    options: { needMrz: boolean; preferred?: Rotation | undefined },
  ): Promise<Attempt | null> {
    const upright = await uprightGray(image, PAGE_MAX_SIDE);
    const geometry = await lineGeometry(upright);
    let best: Attempt | null = null;
    let clearest: Attempt | null = null;
    const done = new Map<Rotation, Attempt>();
    /** Reads the page at one orientation; true when no other orientation can do better. */
    const settles = async (rotation: Rotation, located: Located): Promise<boolean> => {
      const attempt = await this.readAt(rotation, located, clock, options.needMrz);
      done.set(rotation, attempt);
      if (!clearest || attempt.probe.confidence > clearest.probe.confidence) clearest = attempt;
      if (attempt.mrz && (!best?.mrz || scoreOf(attempt.mrz) > scoreOf(best.mrz))) best = attempt;
      if (best?.mrz && mrzPlaced(best.mrz)) return true;
      // Only the visual zone wanted: lines that read as confident text are upright.
      return !options.needMrz && attempt.probe.confidence >= 85;
    };
    for (const rotation of rotationOrder(geometry, options.preferred)) {
      if (done.has(rotation)) continue;
      const oppositeRotation = ((rotation + 180) % 360) as Rotation;
      // Upside down from an orientation already tried: its page and text boxes turned, not found again.
      const opposite = done.get(oppositeRotation);
      const located = opposite
        ? await turned(opposite)
        : await this.locate(upright, rotation, rotation === 0 ? geometry : undefined);
      if (!located) continue;
      // The MRZ stack above the middle of the page: the page is likely upside down, so it is read
      // turned first (a wrong orientation costs a read and its retries).
      if (!opposite && options.needMrz && mrzAbove(located) && (await settles(oppositeRotation, await turned(located))))
        break;
      if (await settles(rotation, located)) break;
    }
    const chosen: Attempt | null = best ?? clearest;
    // A zone read in part may be whole with its lines' pieces joined.
    if (options.needMrz && chosen && !wholeMrzFound(chosen)) return this.readJoined(chosen, clock);
    return chosen;
  }

  /**
   * The page at one orientation, deskewed and cut to the document, with its text boxes: null when
   * the text clearly runs down the page at this rotation.
   */
  private async locate(upright: Gray, rotation: Rotation, known?: LineGeometry): Promise<Located | null> {
    const turnedPage = await rotateGray(upright, rotation);
    const geometry = known ?? (await lineGeometry(turnedPage));
    if (geometry.verticalScore > geometry.horizontalScore * 1.3) return null;
    let skew = Math.abs(geometry.skew) >= 0.75 ? geometry.skew : 0;
    let found = await this.detectDocument(turnedPage, skew);
    // The profile's skew can follow a table's grain or a page edge instead of the text: the
    // detected lines' own direction corrects it.
    // A residual past the profile's own range is text running down the page, not skew.
    const residual = textSkew(found.detected) ?? 0;
    if (Math.abs(residual) >= SKEW_RESIDUAL_MAX && Math.abs(residual) <= SKEW_MAX) {
      skew = Math.round((skew + residual) * 2) / 2;
      found = await this.detectDocument(turnedPage, skew);
    }
    return { skew, page: found.page, boxes: mergeRows(found.detected), detected: found.detected };
  }

  /**
   * The page deskewed by `skew` degrees, enlarged when small, its text lines detected. A document
   * small in the frame: its text is where the document is. Cut out and detected again, so its
   * lines reach the detector at a size it reads.
   */
  private async detectDocument(turnedPage: Gray, skew: number): Promise<{ page: Gray; detected: DetectedBox[] }> {
    let page = await atLeast(await rotateGray(turnedPage, -skew), PAGE_MIN_SIDE);
    let detected = await this.ocr.detect(page);
    const region = documentRegion(mergeRows(detected), page);
    if (region) {
      page = await atLeast(await cropGray(page, region), PAGE_MIN_SIDE);
      detected = await this.ocr.detect(page);
    }
    return { page, detected };
  }

  /** The MRZ candidates of a located page read at one orientation. */
  private async readAt(rotation: Rotation, located: Located, clock: Stopwatch, needMrz: boolean): Promise<Attempt> {
    const { skew, page, boxes } = located;
    // A slanted or bowed zone is read straightened first; when it settles, the page's own crops need not be read.
    const straight = needMrz ? await this.readWarpedZone(located, clock) : null;
    if (straight?.mrz && orientationSettled(straight.mrz))
      return { rotation, skew, page, boxes, detected: located.detected, ...straight };
    let long = mrzCandidates(mergeRows(boxes, MRZ_MAX_GAP));
    // No long line: the longest few tell the orientation by how confidently they read.
    if (long.length === 0)
      long = [...boxes]
        .sort((a, b) => b.x1 - b.x0 - (a.x1 - a.x0))
        .slice(0, 3)
        .sort((a, b) => a.y0 - b.y0);
    const { probe, mrz } = await this.readMrz(page, long, clock, needMrz);
    if (straight?.mrz && (!mrz || scoreOf(straight.mrz) > scoreOf(mrz)))
      return { rotation, skew, page, boxes, detected: located.detected, ...straight };
    return { rotation, skew, page, boxes, detected: located.detected, probe, probeBoxes: long, mrz };
  }

  /**
   * A slanted or bowed MRZ read straightened (see zone-warp.ts): null when the page's long lines
   * stack level (the page's own crops read them) or there are none. The zone is found again at a
   * finer scale around the long lines first (on the whole page, slanted lines a line apart can
   * merge into one region), then its lowest stack is resampled straight and its lines read there.
   * The probe boxes are where the lines lie on the page (the printed zone is read around them).
   */
  private async readWarpedZone(
    located: Located,
    clock: Stopwatch,
  ): Promise<{ probe: OcrResult; probeBoxes: Rect[]; mrz: MrzReading | null } | null> {
    const { page } = located;
    const lines = longLines(located.detected);
    const stacks = zoneStacks(lines);
    if (lines.length === 0 || (stacks.length > 0 && !stacks.some(warped))) return null;
    const bounds = zoneBounds(lines, page);
    if (!bounds) return null;
    const crop = await cropGray(page, bounds);
    const left = Math.max(0, Math.floor(bounds.left));
    const top = Math.max(0, Math.floor(bounds.top));
    const found = (await this.ocr.detect(crop)).map((d) => ({
      ...d,
      centre: d.centre && {
        ...d.centre,
        xm: d.centre.xm + left,
        x0: d.centre.x0 + left,
        x1: d.centre.x1 + left,
        c: [d.centre.c[0] + top, d.centre.c[1], d.centre.c[2]] as [number, number, number],
      },
    }));
    const stack = zoneStacks(longLines(found))[0];
    if (!stack) return null;
    const { zone, pageBoxes } = rectifyZone(page, stack);
    const long = mrzCandidates(mergeRows(mergeRows(await this.ocr.detect(zone)), MRZ_MAX_GAP));
    if (long.length === 0) return null;
    const { probe, mrz } = await this.readMrz(zone, long, clock, true);
    return { probe, probeBoxes: pageBoxes, mrz };
  }

  /**
   * No orientation placed an MRZ: its lines may be in pieces further apart than MRZ_MAX_GAP (see
   * joinRowPieces). Read again with them joined, at the orientation chosen; kept when better.
   */
  private async readJoined(attempt: Attempt, clock: Stopwatch): Promise<Attempt> {
    const joined = mrzCandidates(joinRowPieces(mergeRows(attempt.boxes, MRZ_MAX_GAP)));
    if (joined.length === 0 || sameBoxes(joined, attempt.probeBoxes)) return attempt;
    const { probe, mrz } = await this.readMrz(attempt.page, joined, clock, true);
    return mrz && (!attempt.mrz || scoreOf(mrz) > scoreOf(attempt.mrz))
      ? { ...attempt, probe, probeBoxes: joined, mrz }
      : attempt;
  }

  /**
   * The MRZ among the long lines. The stacks that may be the MRZ are read first, one at a time:
   * when one's check digits all hold, the other long lines (printed-zone text, read with the MRZ
   * alphabet only to find the MRZ) need not be read. Not on a side read for its printed zone only
   * (a licence or card front): it seldom has an MRZ, and its bands would be read twice.
   */
  private async readMrz(
    page: Gray,
    long: Rect[],
    clock: Stopwatch,
    needMrz: boolean,
  ): Promise<{ probe: OcrResult; mrz: MrzReading | null }> {
    const lines: OcrLine[] = [];
    const done = new Set<Rect>();
    let found = false;
    for (const band of needMrz ? mrzBands(long) : []) {
      if (band.length === long.length) break;
      const read = clock.add(await this.mrzLines(page, band)).lines;
      const reading = readMrzFromOcr(read);
      if (reading?.valid) return { probe: resultOf(read), mrz: reading };
      lines.push(...read);
      for (const b of band) done.add(b);
      // Check digits holding place the MRZ in this band: the other long lines are printed-zone
      // text, and reading them with the MRZ alphabet (then again in every retry) cannot help.
      found = !!reading && orientationSettled(reading);
      if (found) break;
    }
    const rest = found ? [] : long.filter((b) => !done.has(b));
    if (rest.length > 0) lines.push(...clock.add(await this.mrzLines(page, rest)).lines);
    lines.sort((a, b) => a.bbox.y0 - b.bbox.y0);
    const readings = [readMrzFromOcr(lines)];
    // No valid MRZ on the first read: read the MRZ-like lines again cut with wider margins (the
    // recogniser drops characters that touch the crop's edge), and let the readings vote per character.
    const again = mrzLikeBoxes(lines, long);
    let repeated = false;
    if (!readings[0]?.valid && again.length >= 2) {
      for (const { margin, stretch } of RETRIES) {
        const wider = again.map((b) => widen(b, margin, page));
        const reading = readMrzFromOcr(clock.add(await this.mrzLines(page, wider, stretch)).lines);
        repeated = readingRepeated(readings.at(-1) ?? null, reading);
        readings.push(reading);
        if (reading?.valid || repeated) break;
      }
    }
    if (!repeated && !readings.some((r) => r?.valid) && again.length >= 2)
      readings.push(await this.readUnsheared(page, again, clock));
    return {
      probe: resultOf(lines),
      mrz: plausible(combineReadings(readings.filter((r): r is MrzReading => r !== null))),
    };
  }

  /**
   * The MRZ lines read again with their strokes stood upright, when their slant changes along the
   * band (a document photographed at an angle: the verticals lean out at both ends). Null when
   * the slant is even.
   */
  private async readUnsheared(page: Gray, lines: Rect[], clock: Stopwatch): Promise<MrzReading | null> {
    const band = {
      x0: Math.min(...lines.map((b) => b.x0)),
      y0: Math.min(...lines.map((b) => b.y0)),
      x1: Math.max(...lines.map((b) => b.x1)),
      y1: Math.max(...lines.map((b) => b.y1)),
    };
    const shear = bandShear(page, band);
    // The slant's change from the band's centre to its ends, as dx/dy.
    if (Math.abs(shear.slope * (band.x1 - band.x0)) / 2 < SHEAR_MIN_CHANGE) return null;
    return readMrzFromOcr(clock.add(await this.mrzLines(unshear(page, band, shear), lines)).lines);
  }

  /**
   * MRZ candidate lines read with the MRZ alphabet. A names line (letters, then a long filler run;
   * it has no check digit) is read again in pieces cut between characters: on the whole line the
   * recogniser drops letters next to a '<' ('P<UTOHANSEN<<OMAR' read 'P<TOHANSEN<<MAR'), on
   * pieces of about 20 characters it does not.
   */
  private async mrzLines(page: Gray, boxes: Rect[], stretch = 1): Promise<OcrResult> {
    const whole = await this.ocr.lines(page, boxes, this.mrzAlphabet, stretch);
    let ms = whole.ms;
    const lines: OcrLine[] = [];
    for (const line of whole.lines) {
      const cut = namesLineCut(line);
      const shortCut = cut === null ? shortLineCut(line, whole.lines) : null;
      if (cut === null && shortCut === null) {
        // Neither a names line nor a short one: read again only where it dropped a character.
        const hole = holeCut(line);
        if (hole === null) {
          lines.push(line);
          continue;
        }
        const pitch = pitchOf(line)!;
        const piece = await this.ocr.lines(page, [{ ...line.bbox, x1: hole + pitch }], this.mrzAlphabet, stretch);
        ms += piece.ms;
        lines.push(filledHole(line, piece.lines[0], hole, pitch));
        continue;
      }
      // The pitch of the MRZ line beside it (one with check digits) counts the names line's fillers.
      const pitch = zonePitch(line, whole.lines);
      // The pieces overlap by most of a character each side of the cut (a character cut at a
      // crop's edge misreads: '<' as 'K'); each keeps only the characters centred on its side.
      const at = (cut ?? shortCut)!;
      const { y0, y1 } = line.bbox;
      const overlap = 0.7 * (pitch ?? pitchOf(line)!);
      const pieces = await this.ocr.lines(
        page,
        [
          { x0: line.bbox.x0, x1: at + overlap, y0, y1 },
          { x0: at - overlap, x1: line.bbox.x1, y0, y1 },
        ],
        this.mrzAlphabet,
        stretch,
      );
      ms += pieces.ms;
      lines.push(
        cut !== null
          ? preferPieces(line, pieces.lines, cut, pitch)
          : piecesOfShortLine(line, pieces.lines, at, zoneLine(line, whole.lines)!),
      );
    }
    const confidence = lines.length ? lines.reduce((s, l) => s + l.confidence, 0) / lines.length : 0;
    return { text: lines.map((l) => l.text).join('\n'), confidence, lines, ms };
  }

  /** Every line of the chosen orientation read without restriction, for the printed zone. */
  private async printedLines(attempt: Attempt, clock: Stopwatch): Promise<string[]> {
    // The MRZ lines are already read, and printed-zone labels never sit on them.
    const printed = attempt.mrz
      ? attempt.boxes.filter((b) => !attempt.probeBoxes.some((m) => overlaps(m, b)))
      : attempt.boxes;
    const result = clock.add(await this.ocr.lines(attempt.page, printed));
    return textRows(result.lines);
  }
}
