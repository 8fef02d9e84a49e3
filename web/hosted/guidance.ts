// Live guidance for the document camera: pure functions over a small grey frame (one byte a pixel),
// so they run on every video frame in the browser and are tested without one.
import { laplacianVariance } from '../../src/ml/liveness/evidence.js';
import { TOO_DARK } from './capture.js';

/** A frame as luminance, row by row (values 0-255). */
export interface Gray {
  width: number;
  height: number;
  data: Uint8Array;
}

/** What the page tells the person; null when the document is ready to be taken. */
export type Hint = 'too_dark' | 'glare' | 'too_far' | 'too_close' | 'hold_still';

export const LIMITS = {
  /** Mean luminance below this: too dark to read (the same bar as a chosen photo's). */
  dark: TOO_DARK,
  /** A pixel at or above this is burnt out. */
  saturated: 250,
  /** More than this share of burnt-out pixels: glare over the text. */
  glare: 0.02,
  /** A pixel at or above this is part of the (light) card on a darker surface. */
  bright: 110,
  /** The card's box smaller than this share of the frame: too far. */
  nearest: 0.3,
  /** Variance of the Laplacian below this: blurred. */
  sharp: 100,
  /** Mean absolute change between two frames above this: moving. */
  motion: 6,
} as const;

/** Consecutive ready frames before the page takes the photo by itself. */
export const READY_FRAMES = 3;

/** RGBA pixels (a canvas's ImageData) as luminance. */
export function toGray(rgba: Uint8ClampedArray | Uint8Array, width: number, height: number): Gray {
  const data = new Uint8Array(width * height);
  for (let i = 0; i < data.length; i++) data[i] = Math.round(0.299 * rgba[i * 4]! + 0.587 * rgba[i * 4 + 1]! + 0.114 * rgba[i * 4 + 2]!);
  return { width, height, data };
}

export function meanLuminance(frame: Gray): number {
  let sum = 0;
  for (const v of frame.data) sum += v;
  return sum / frame.data.length;
}

/** Share of burnt-out pixels: a reflection hides what is under it. */
export function glareFraction(frame: Gray): number {
  let n = 0;
  for (const v of frame.data) if (v >= LIMITS.saturated) n++;
  return n / frame.data.length;
}

/** Variance of the 4-neighbour Laplacian: edges of text and card make it high, blur flattens it. */
export const sharpness = (frame: Gray): number => laplacianVariance(frame.data, frame.width, frame.height);

/** Mean absolute difference between two frames of one size: how much the picture moved. */
export function motion(previous: Gray, frame: Gray): number {
  let sum = 0;
  for (let i = 0; i < frame.data.length; i++) sum += Math.abs(frame.data[i]! - previous.data[i]!);
  return sum / frame.data.length;
}

/** The box of rows and columns that are mostly card (bright), as shares of the frame; null when there is none. */
export function cardBox(frame: Gray): { x0: number; y0: number; x1: number; y1: number } | null {
  const { width: w, height: h, data } = frame;
  const rows = new Array<number>(h).fill(0);
  const cols = new Array<number>(w).fill(0);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++)
      if (data[y * w + x]! >= LIMITS.bright) {
        rows[y]!++;
        cols[x]!++;
      }
  // A row belongs to the card when a third of it is bright (the card need not fill the width).
  const rowHits = rows.map((n) => n >= w / 3);
  const colHits = cols.map((n) => n >= h / 3);
  const y0 = rowHits.indexOf(true);
  const x0 = colHits.indexOf(true);
  if (y0 < 0 || x0 < 0) return null;
  return { x0: x0 / w, y0: y0 / h, x1: (colHits.lastIndexOf(true) + 1) / w, y1: (rowHits.lastIndexOf(true) + 1) / h };
}

/** The card touches the frame's edge: a corner is probably cut off. */
function touchesEdge(box: { x0: number; y0: number; x1: number; y1: number }): boolean {
  const margin = 0.02;
  return box.x0 < margin || box.y0 < margin || box.x1 > 1 - margin || box.y1 > 1 - margin;
}

/** The one thing to fix first (light, then reflections, then framing, then steadiness), or null when ready. */
export function hintFor(frame: Gray, previous: Gray | null): Hint | null {
  if (meanLuminance(frame) < LIMITS.dark) return 'too_dark';
  if (glareFraction(frame) > LIMITS.glare) return 'glare';
  const box = cardBox(frame);
  if (!box || (box.x1 - box.x0) * (box.y1 - box.y0) < LIMITS.nearest) return 'too_far';
  if (touchesEdge(box)) return 'too_close';
  if (sharpness(frame) < LIMITS.sharp || (previous && motion(previous, frame) > LIMITS.motion)) return 'hold_still';
  return null;
}

/** How many ready frames in a row: any hint starts the count again. */
export const nextStreak = (streak: number, hint: Hint | null): number => (hint === null ? streak + 1 : 0);
