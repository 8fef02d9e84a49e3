import { mrzLikeLines } from './mrz.js';
import type { OcrLine } from './ocr.js';
import type { Gray } from './raster.js';

// Where to re-read the MRZ on an OCR'd page: around the lines that look like MRZ lines, or,
// when none did, the bottom of the page where every ICAO layout puts it.

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

/** The lower 40% of the page, scaled as if a 44-character MRZ spanned the page width. */
export function lowerBand(page: Gray): Band {
  const top = Math.round(page.height * 0.6);
  return { box: { left: 0, top, width: page.width, height: page.height - top }, lineHeight: Math.max(8, page.width / 44 / 0.75) };
}

export interface Band {
  box: { left: number; top: number; width: number; height: number };
  lineHeight: number;
}

/** The region around the page lines that look like MRZ lines, padded so no character is clipped. */
export function mrzBand(lines: OcrLine[], page: Gray): Band | null {
  const candidates = lines.filter((l) => mrzLikeLines([l.text]).length > 0 || /<<|«/.test(l.text));
  if (candidates.length === 0) return null;
  const heights = candidates.map((l) => l.bbox.y1 - l.bbox.y0).filter((h) => h > 2);
  const lineHeight = Math.max(4, median(heights));
  // Keep the lowest cluster: MRZ lines are stacked tightly at the bottom of the document.
  candidates.sort((a, b) => a.bbox.y0 - b.bbox.y0);
  const cluster = [candidates[candidates.length - 1]!];
  for (let i = candidates.length - 2; i >= 0 && cluster.length < 3; i--) {
    if (cluster[0]!.bbox.y0 - candidates[i]!.bbox.y1 < lineHeight * 2.5) cluster.unshift(candidates[i]!);
    else break;
  }
  let x0 = Math.min(...cluster.map((l) => l.bbox.x0));
  let x1 = Math.max(...cluster.map((l) => l.bbox.x1));
  let y0 = Math.min(...cluster.map((l) => l.bbox.y0));
  let y1 = Math.max(...cluster.map((l) => l.bbox.y1));
  // A lone candidate may be one of two or three lines: reach for its neighbours.
  const reach = cluster.length === 1 ? 2.6 : 0.8;
  y0 -= lineHeight * reach;
  y1 += lineHeight * reach;
  x0 -= lineHeight * 2;
  x1 += lineHeight * 2;
  x0 = Math.max(0, x0);
  y0 = Math.max(0, y0);
  x1 = Math.min(page.width, x1);
  y1 = Math.min(page.height, y1);
  if (x1 - x0 < 10 || y1 - y0 < 4) return null;
  return { box: { left: x0, top: y0, width: x1 - x0, height: y1 - y0 }, lineHeight };
}
