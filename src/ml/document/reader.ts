import type { DecodedImage } from '../image.js';
import { combineReadings, readMrzFromOcr, scoreOf } from './mrz.js';
import { MRZ_WHITELIST, type OcrLine, type OcrResult } from './ocr.js';
import { mergeRows, PaddleOcr } from './paddle.js';
import { cropGray, lineGeometry, resizeGray, rotateGray, uprightGray, type Gray } from './raster.js';
import type { DocumentBarcode, DocumentReader, DocumentReading, MrzReading, Rotation } from './types.js';
import { AamvaError, looksLikeAamva, parseAamva } from './aamva.js';
import { readDocumentBarcodes } from './barcode.js';
import { compareLicenceWithVisualZone, compareMrzWithVisualZone, readVisualZone } from './visual-zone.js';

// The reading pipeline for one document with PaddleOCR: per side, try orientations (the likeliest
// first, never one where the text runs down the page), deskew, detect the text lines, read the
// long lines with the MRZ alphabet, and stop at the first orientation that gives a valid MRZ.
// The other lines (the printed zone) are read once, at the orientation chosen.

/** Pages are kept at most this large for recognition: a document a third of the frame wide still has MRZ characters about 20 px tall. */
const PAGE_MAX_SIDE = 3200;
/** Small scans are upscaled to this long side first: the detector misses characters under about 8 px. */
const PAGE_MIN_SIDE = 1200;
/** MRZ lines are long and thin: 30 to 44 characters on one line. Shorter boxes are printed-zone text. */
const MRZ_MIN_ASPECT = 10;
/** Margins (in line heights) of the second and third reads of MRZ lines that did not validate. */
const RETRY_MARGINS = [0.35, 0.7];
/** Pieces of one MRZ line may lie this many line heights apart (a long filler run read as background). */
const MRZ_MAX_GAP = 1.2;

interface Attempt {
  rotation: Rotation;
  skew: number;
  page: Gray;
  boxes: Array<{ x0: number; y0: number; x1: number; y1: number; score: number }>;
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

export function documentRegion(boxes: Rect[], page: Gray): { left: number; top: number; width: number; height: number } | null {
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
  return { ...b, x0: Math.max(0, b.x0 - margin * h), x1: Math.min(page.width, b.x1 + margin * h), y0: Math.max(0, b.y0 - (margin * h) / 3), y1: Math.min(page.height, b.y1 + (margin * h) / 3) };
}

const overlaps = (a: Rect, b: Rect) => Math.min(a.x1, b.x1) > Math.max(a.x0, b.x0) && Math.min(a.y1, b.y1) > Math.max(a.y0, b.y0);
const aspect = (b: { x0: number; y0: number; x1: number; y1: number }) => (b.x1 - b.x0) / Math.max(1, b.y1 - b.y0);

/** The first 2D barcode on one side, read as an AAMVA licence when it claims to be one (an AAMVA one first). */
async function barcodeOn(image: DecodedImage, side: 'front' | 'back', thorough: boolean): Promise<DocumentBarcode | null> {
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
    const row = rows.find((r) => r.some((o) => Math.abs(centre(o) - centre(line)) < 0.35 * Math.max(h, o.bbox.y1 - o.bbox.y0)));
    if (row) row.push(line);
    else rows.push([line]);
  }
  return rows.map((r) => r.sort((a, b) => a.bbox.x0 - b.bbox.x0).map((l) => l.text).join(' '));
}

type Rect = { x0: number; y0: number; x1: number; y1: number };

/**
 * Boxes to read as MRZ lines: the long ones, plus the lines stacked right against them and
 * starting at the same x (a names line whose filler run the detector left out is short). Each
 * box of a stack spans the stack's full width, so trailing fillers are read too.
 */
export function mrzCandidates<T extends Rect>(boxes: T[]): T[] {
  const long = boxes.filter((b) => aspect(b) >= MRZ_MIN_ASPECT);
  const stacked = (a: Rect, b: Rect) => {
    const h = Math.max(a.y1 - a.y0, b.y1 - b.y0);
    return Math.abs(a.x0 - b.x0) < 2 * h && Math.max(a.y0, b.y0) - Math.min(a.y1, b.y1) < 1.2 * h && Math.abs(a.y0 - b.y0) > 0.5 * h;
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
    if (back && !barcode && !backResult?.mrz?.valid) barcode = await barcodeOn(back, 'back', true);
    // Two images are a card: the front then only needs its visual zone unless the back had no
    // valid MRZ or licence.
    const backValid = !!backResult?.mrz?.valid || !!barcode?.licence;
    const frontResult = front ? await this.readSide(front, clock, { needMrz: !backValid, preferred: backResult?.rotation }) : null;
    // Nothing valid anywhere: the barcode may be on the image sent as the front.
    if (front && !barcode && !frontResult?.mrz?.valid && !backResult?.mrz?.valid) barcode = await barcodeOn(front, 'front', true);
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
    const mrz = chosen?.mrz ?? null;
    return {
      mrz,
      barcode,
      barcodeVisualAgreement: licence && barcode?.side === 'back' && front ? compareLicenceWithVisualZone(licence, visualZone) : {},
      visualZone,
      rotation: chosen?.rotation ?? zoneAttempt?.rotation ?? 0,
      skewDegrees: chosen?.skew ?? zoneAttempt?.skew ?? 0,
      side: mrz ? side : front ? 'front' : 'back',
      mrzVisualAgreement: mrz ? compareMrzWithVisualZone(mrz, visualZone) : {},
      timings: { ocrMs: Math.round(clock.ocrMs), totalMs: Math.round(performance.now() - started) },
    };
  }

  close(): Promise<void> {
    return this.ocr.close();
  }

  /** The orientation with a valid MRZ, else the best MRZ, else the one whose long lines read most confidently. */
  private async readSide(image: DecodedImage, clock: Stopwatch, options: { needMrz: boolean; preferred?: Rotation | undefined }): Promise<Attempt | null> {
    const upright = await uprightGray(image, PAGE_MAX_SIDE);
    const geometry = await lineGeometry(upright);
    let best: Attempt | null = null;
    let clearest: Attempt | null = null;
    for (const rotation of rotationOrder(geometry, options.preferred)) {
      const attempt = await this.attempt(upright, rotation, clock);
      if (!attempt) continue;
      if (!clearest || attempt.probe.confidence > clearest.probe.confidence) clearest = attempt;
      if (attempt.mrz && (!best?.mrz || scoreOf(attempt.mrz) > scoreOf(best.mrz))) best = attempt;
      if (best?.mrz?.valid) break;
      // Only the visual zone wanted: lines that read as confident text are upright.
      if (!options.needMrz && attempt.probe.confidence >= 85) break;
    }
    return best ?? clearest;
  }

  /** One orientation: null when the text clearly runs down the page at this rotation. */
  private async attempt(upright: Gray, rotation: Rotation, clock: Stopwatch): Promise<Attempt | null> {
    let page = await rotateGray(upright, rotation);
    const geometry = await lineGeometry(page);
    if (geometry.verticalScore > geometry.horizontalScore * 1.3) return null;
    const skew = Math.abs(geometry.skew) >= 0.75 ? geometry.skew : 0;
    if (skew) page = await rotateGray(page, -skew);
    page = await atLeast(page, PAGE_MIN_SIDE);
    let boxes = mergeRows(await this.ocr.detect(page));
    // A document small in the frame: its text is where the document is. Cut it out and detect
    // again, so its lines reach the detector at a size it reads.
    const region = documentRegion(boxes, page);
    if (region) {
      page = await atLeast(await cropGray(page, region), PAGE_MIN_SIDE);
      boxes = mergeRows(await this.ocr.detect(page));
    }
    let long = mrzCandidates(mergeRows(boxes, MRZ_MAX_GAP));
    // No long line: the longest few tell the orientation by how confidently they read.
    if (long.length === 0) long = [...boxes].sort((a, b) => b.x1 - b.x0 - (a.x1 - a.x0)).slice(0, 3).sort((a, b) => a.y0 - b.y0);
    const probe = clock.add(await this.ocr.lines(page, long, this.mrzAlphabet));
    const readings = [readMrzFromOcr(probe.lines)];
    // No valid MRZ on the first read: read the same lines cut with wider margins (the recogniser
    // drops characters that touch the crop's edge), and let the readings vote per character.
    if (!readings[0]?.valid && long.length >= 2) {
      for (const margin of RETRY_MARGINS) {
        const wider = long.map((b) => widen(b, margin, page));
        readings.push(readMrzFromOcr(clock.add(await this.ocr.lines(page, wider, this.mrzAlphabet)).lines));
        if (readings[readings.length - 1]?.valid) break;
      }
    }
    const mrz = combineReadings(readings.filter((r): r is MrzReading => r !== null));
    return { rotation, skew, page, boxes, probe, probeBoxes: long, mrz };
  }

  /** Every line of the chosen orientation read without restriction, for the printed zone. */
  private async printedLines(attempt: Attempt, clock: Stopwatch): Promise<string[]> {
    // The MRZ lines are already read, and printed-zone labels never sit on them.
    const printed = attempt.mrz ? attempt.boxes.filter((b) => !attempt.probeBoxes.some((m) => overlaps(m, b))) : attempt.boxes;
    const result = clock.add(await this.ocr.lines(attempt.page, printed));
    return textRows(result.lines);
  }
}
