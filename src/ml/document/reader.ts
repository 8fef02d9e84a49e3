import type { DecodedImage } from '../image.js';
import { combineReadings, readMrzFromOcr, scoreOf } from './mrz.js';
import { MRZ_WHITELIST, OcrPool, type OcrResult } from './ocr.js';
import { lowerBand, mrzBand, type Band } from './mrz-band.js';
import { cropGray, lineGeometry, resizeGray, rotateGray, toPng, uprightGray, type Gray } from './raster.js';
import type { DocumentReader, DocumentReading, MrzReading, Rotation } from './types.js';
import { compareMrzWithVisualZone, readVisualZone } from './visual-zone.js';

// The reading pipeline for one document: per side, try orientations (the likeliest first, and
// never one where the text runs down the page), deskew, OCR the page, locate the MRZ lines in
// it, re-read that band with the MRZ alphabet at a few sizes, let the readings vote per
// character, and stop at the first orientation that gives a valid MRZ.

/** Pages are OCR'd with their long side in this range: small scans are upscaled, photos reduced. */
const PAGE_MIN_SIDE = 1200;
const PAGE_MAX_SIDE = 1600;
/** Cap heights the MRZ band is read at, in pixels: tesseract's errors differ between sizes. */
const MRZ_CHAR_HEIGHTS = [34, 26, 44];

interface Attempt {
  rotation: Rotation;
  skew: number;
  page: OcrResult;
  mrz: MrzReading | null;
}

interface SideResult {
  best: Attempt | null;
  /** The attempt whose page reads best as text, for the visual zone when no MRZ settles the orientation. */
  clearest: Attempt | null;
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

export class TesseractDocumentReader implements DocumentReader {
  constructor(private readonly pool: OcrPool) {}

  async read(front: DecodedImage | undefined, back?: DecodedImage): Promise<DocumentReading> {
    const started = performance.now();
    const clock = new Stopwatch();
    if (!front && !back) throw new Error('no document image given');
    // Two images are a card: its MRZ is on the back, so read that first; the front then only
    // needs its visual zone unless the back had no valid MRZ.
    const backResult = back ? await this.readSide(back, clock, { needMrz: true }) : null;
    const backValid = !!backResult?.best?.mrz?.valid;
    const frontResult = front
      ? await this.readSide(front, clock, { needMrz: !backValid, preferred: backResult?.best?.rotation ?? backResult?.clearest?.rotation })
      : null;
    const frontMrz = frontResult?.best?.mrz ?? null;
    const backMrz = backResult?.best?.mrz ?? null;
    let side: 'front' | 'back' = 'front';
    let chosen = frontResult?.best ?? null;
    if (backMrz && (!frontMrz || scoreOf(backMrz) >= scoreOf(frontMrz))) {
      chosen = backResult!.best;
      side = 'back';
    }
    // The visual zone is the front page, upright; without a front, whatever side we have.
    const zoneAttempt = frontResult ? (frontResult.best?.mrz ? frontResult.best : frontResult.clearest) : (backResult?.best ?? backResult?.clearest ?? null);
    const visualZone = readVisualZone(zoneAttempt?.page.lines.map((l) => l.text) ?? []);
    const mrz = chosen?.mrz ?? null;
    return {
      mrz,
      visualZone,
      rotation: chosen?.rotation ?? zoneAttempt?.rotation ?? 0,
      skewDegrees: chosen?.skew ?? zoneAttempt?.skew ?? 0,
      side: mrz ? side : front ? 'front' : 'back',
      mrzVisualAgreement: mrz ? compareMrzWithVisualZone(mrz, visualZone) : {},
      timings: { ocrMs: Math.round(clock.ocrMs), totalMs: Math.round(performance.now() - started) },
    };
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  private async readSide(image: DecodedImage, clock: Stopwatch, options: { needMrz: boolean; preferred?: Rotation | undefined }): Promise<SideResult> {
    const upright = await uprightGray(image, PAGE_MAX_SIDE);
    const geometry = await lineGeometry(upright);
    let best: Attempt | null = null;
    let clearest: Attempt | null = null;
    for (const rotation of rotationOrder(geometry, options.preferred)) {
      const attempt = await this.attempt(upright, rotation, clock, options.needMrz);
      if (!attempt) continue;
      if (!clearest || attempt.page.confidence > clearest.page.confidence) clearest = attempt;
      if (attempt.mrz && (!best?.mrz || scoreOf(attempt.mrz) > scoreOf(best.mrz))) best = attempt;
      if (best?.mrz?.valid) break;
      // Only the visual zone wanted: a page that reads as confident text is upright.
      if (!options.needMrz && attempt.page.confidence >= 70) break;
    }
    return { best, clearest };
  }

  /** One orientation: null when the text clearly runs down the page at this rotation. */
  private async attempt(upright: Gray, rotation: Rotation, clock: Stopwatch, wantMrz: boolean): Promise<Attempt | null> {
    let page = await rotateGray(upright, rotation);
    const geometry = await lineGeometry(page);
    if (geometry.verticalScore > geometry.horizontalScore * 1.3) return null;
    const skewApplied = Math.abs(geometry.skew) >= 0.75 ? geometry.skew : 0;
    if (skewApplied) page = await rotateGray(page, -skewApplied);
    const long = Math.max(page.width, page.height);
    const scale = long < PAGE_MIN_SIDE ? Math.min(4, PAGE_MIN_SIDE / long) : long > PAGE_MAX_SIDE ? PAGE_MAX_SIDE / long : 1;
    page = await resizeGray(page, scale);
    const pageOcr = clock.add(await this.pool.recognize({ image: await toPng(page), psm: '3' }));
    if (!wantMrz) return { rotation, skew: skewApplied, page: pageOcr, mrz: null };
    const readings: MrzReading[] = [];
    const fromPage = readMrzFromOcr(pageOcr.lines);
    if (fromPage) readings.push(fromPage);
    // MRZ lines seen on the page: re-read that band with the MRZ alphabet at a few sizes and let
    // the readings vote per character. None seen: the MRZ sits at the bottom of every ICAO
    // layout, so read the lower part once.
    const seen = mrzBand(pageOcr.lines, page);
    if (seen || !fromPage) {
      const band = seen ?? lowerBand(page);
      for (const height of MRZ_CHAR_HEIGHTS) {
        const fromBand = await this.readBand(page, band, height, clock);
        if (fromBand) readings.push(fromBand);
        if (!seen && !fromBand) break;
        // Two independent passes agreeing on a valid MRZ leave nothing for a vote to settle.
        if (fromBand?.valid && readings.some((r) => r !== fromBand && r.lines.join() === fromBand.lines.join())) break;
      }
    }
    const mrz = combineReadings(readings);
    return { rotation, skew: skewApplied, page: pageOcr, mrz };
  }

  private async readBand(page: Gray, band: Band, charHeight: number, clock: Stopwatch): Promise<MrzReading | null> {
    const crop = await cropGray(page, band.box);
    const scaled = await resizeGray(crop, Math.max(0.5, Math.min(5, charHeight / band.lineHeight)));
    const result = clock.add(await this.pool.recognize({ image: await toPng(scaled, { border: 20 }), psm: '6', whitelist: MRZ_WHITELIST }));
    return readMrzFromOcr(result.lines);
  }
}
