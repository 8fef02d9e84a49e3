import { boundsOf, type Point } from './geometry.js';
import type { Rgb } from './raster.js';

// What a face chip says about how far its descriptor can be trusted, measured on the inner face
// (brows to chin, inside the jaw: skin, eyes, nose and mouth, never background or the black fill
// of a chip that ran past the image edge). The rules that act on these live in core
// (faceQualityProblem); the thresholds were chosen on one evaluation set and reported on another
// (docs/face-engine.md, "Quality gates").

export interface FaceQuality {
  /**
   * Detail of the inner face: variance of the Laplacian over the variance of the grey levels (blur lowers it; contrast
   * does not).
   */
  sharpness: number;
  /**
   * Share of the inner face's pixels on isolated peaks of its grey histogram: flat tones of a cartoon or posterised
   * picture raise it; a photograph's tones are continuous.
   */
  tonalPeaks: number;
  /**
   * Share of the face (landmark bounds, padded 10%) inside the image: a face cut by the frame holds less than all of
   * it.
   */
  visible: number;
}

/** The inner face of a chip: the bounds of the brow, eye, nose and mouth landmarks down to the chin. */
function innerFace(marks: Point[], width: number, height: number): { x0: number; y0: number; x1: number; y1: number } {
  const inner = boundsOf(marks.slice(17));
  const chin = Math.max(...marks.slice(5, 12).map((p) => p.y));
  const x0 = Math.max(1, Math.floor(inner.x));
  const y0 = Math.max(1, Math.floor(inner.y));
  const x1 = Math.min(width - 2, Math.ceil(inner.x + inner.width));
  const y1 = Math.min(height - 2, Math.ceil(Math.max(inner.y + inner.height, chin)));
  return { x0, y0, x1, y1 };
}

const grey = (rgb: Rgb, i: number) =>
  0.299 * rgb.data[i * 3]! + 0.587 * rgb.data[i * 3 + 1]! + 0.114 * rgb.data[i * 3 + 2]!;

/** Sharpness of the inner face of a chip whose 68 landmarks are `marks`. */
export function chipQuality(rgb: Rgb, marks: Point[]): Pick<FaceQuality, 'sharpness' | 'tonalPeaks'> {
  const { x0, y0, x1, y1 } = innerFace(marks, rgb.width, rgb.height);
  const w = rgb.width;
  let n = 0;
  let sum = 0;
  let sumSq = 0;
  let lapSum = 0;
  let lapSq = 0;
  const histogram = new Float64Array(256);
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const i = y * w + x;
      const g = grey(rgb, i);
      // pure black is the chip's fill where it ran past the image's edge, and pure white is
      // highlights the camera clipped: neither is a tone of the face
      if (g >= 1 && g < 254.5) histogram[Math.min(255, Math.round(g))]! += 1;
      const lap = grey(rgb, i - 1) + grey(rgb, i + 1) + grey(rgb, i - w) + grey(rgb, i + w) - 4 * g;
      n++;
      sum += g;
      sumSq += g * g;
      lapSum += lap;
      lapSq += lap * lap;
    }
  }
  if (n < 16) return { sharpness: 0, tonalPeaks: 0 };
  const variance = sumSq / n - (sum / n) ** 2;
  const lapVariance = lapSq / n - (lapSum / n) ** 2;
  return { sharpness: lapVariance / Math.max(variance, 1), tonalPeaks: histogramPeaks(histogram) };
}

/** Half-width of the window a histogram bin is compared with. */
const PEAK_WINDOW = 6;

/**
 * Mass standing above the local mean of a grey histogram (window of 2 * PEAK_WINDOW + 1 bins), as a share of all
 * pixels.
 */
function histogramPeaks(histogram: Float64Array): number {
  const n = histogram.reduce((a, b) => a + b, 0);
  if (n === 0) return 0;
  let excess = 0;
  for (let i = 0; i < 256; i++) {
    let sum = 0;
    let count = 0;
    for (let j = Math.max(0, i - PEAK_WINDOW); j <= Math.min(255, i + PEAK_WINDOW); j++) {
      sum += histogram[j]!;
      count++;
    }
    excess += Math.max(0, histogram[i]! - sum / count);
  }
  return excess / n;
}

/** Share of the padded landmark bounds (original pixels) that lies inside a width x height image. */
export function visibleShare(landmarks: Point[], width: number, height: number): number {
  const b = boundsOf(landmarks);
  const pad = 0;
  const x0 = b.x - pad;
  const y0 = b.y - pad;
  const x1 = b.x + b.width + pad;
  const y1 = b.y + b.height + pad;
  const inside =
    Math.max(0, Math.min(x1, width) - Math.max(x0, 0)) * Math.max(0, Math.min(y1, height) - Math.max(y0, 0));
  return inside / Math.max(1, (x1 - x0) * (y1 - y0));
}
