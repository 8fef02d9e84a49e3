import sharp, { type Sharp } from 'sharp';
import { pixels, type DecodedImage } from '../image.js';

// Grayscale rasters held in memory for OCR: rotation, deskew estimation, crops and scaling.
// Only intermediate renders for OCR; the caller's bytes are never re-encoded or kept.

export interface Gray {
  data: Buffer;
  width: number;
  height: number;
}

const raw = (g: Gray) => sharp(g.data, { raw: { width: g.width, height: g.height, channels: 1 } });

async function toGray(pipeline: Sharp): Promise<Gray> {
  const { data, info } = await pipeline.grayscale().raw().toBuffer({ resolveWithObject: true });
  if (info.channels === 1) return { data, width: info.width, height: info.height };
  // sharp keeps 3 channels after some operations; take the first.
  const out = Buffer.alloc(info.width * info.height);
  for (let i = 0; i < out.length; i++) out[i] = data[i * info.channels]!;
  return { data: out, width: info.width, height: info.height };
}

export async function uprightGray(image: DecodedImage, maxSide: number): Promise<Gray> {
  const p = await pixels(image, { maxSide, channels: 1 });
  // Grayscale with alpha comes back as two channels: keep the gray one.
  const channels = Math.round(p.data.length / (p.width * p.height));
  if (channels === 1) return { data: p.data, width: p.width, height: p.height };
  const out = Buffer.alloc(p.width * p.height);
  for (let i = 0; i < out.length; i++) out[i] = p.data[i * channels]!;
  return { data: out, width: p.width, height: p.height };
}

/**
 * Rotates by any angle (clockwise degrees). The corners are filled with the image's mean gray:
 * white corners around a darker photo read as a page edge full of false text lines.
 */
export async function rotateGray(g: Gray, degrees: number): Promise<Gray> {
  if (degrees === 0) return g;
  let sum = 0;
  const step = Math.max(1, Math.floor(g.data.length / 50_000));
  let n = 0;
  for (let i = 0; i < g.data.length; i += step, n++) sum += g.data[i]!;
  const mean = Math.round(sum / Math.max(1, n));
  return toGray(raw(g).rotate(degrees, { background: { r: mean, g: mean, b: mean } }));
}

export async function resizeGray(g: Gray, scale: number): Promise<Gray> {
  if (Math.abs(scale - 1) < 0.02) return g;
  const width = Math.max(1, Math.round(g.width * scale));
  const height = Math.max(1, Math.round(g.height * scale));
  return toGray(raw(g).resize(width, height, { kernel: scale > 1 ? 'cubic' : 'lanczos3' }));
}

/** Resizes to an exact size (models want fixed heights or multiples of 32). */
export async function resizeGrayTo(g: Gray, width: number, height: number): Promise<Gray> {
  if (width === g.width && height === g.height) return g;
  return toGray(raw(g).resize(width, height, { fit: 'fill', kernel: width > g.width ? 'cubic' : 'lanczos3' }));
}

export async function cropGray(
  g: Gray,
  box: { left: number; top: number; width: number; height: number },
): Promise<Gray> {
  const left = Math.max(0, Math.floor(box.left));
  const top = Math.max(0, Math.floor(box.top));
  const width = Math.min(g.width - left, Math.ceil(box.width));
  const height = Math.min(g.height - top, Math.ceil(box.height));
  return toGray(raw(g).extract({ left, top, width, height }));
}

export interface LineGeometry {
  /** Skew of text lines in degrees (rotate by the negative to level them). */
  skew: number;
  /** How strongly rows are organised into lines, horizontally and vertically (projection-profile energy). */
  horizontalScore: number;
  verticalScore: number;
}

/**
 * Projection-profile analysis on a small binarised copy: text lines give a spiky row profile at
 * the angle they run at. Tells the skew, and whether lines run across (0/180) or down (90/270).
 */
export async function lineGeometry(g: Gray, maxAngle = 20): Promise<LineGeometry> {
  const scale = Math.min(1, 500 / Math.max(g.width, g.height));
  const small = await resizeGray(g, scale);
  // Ink is what is darker than its surroundings: strokes count, a dark table around the page does not.
  const local = await toGray(raw(small).blur(4));
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = 0; i < small.data.length; i++) {
    if (small.data[i]! < local.data[i]! - 18) {
      xs.push(i % small.width);
      ys.push(Math.floor(i / small.width));
    }
  }
  const diag = Math.ceil(Math.hypot(small.width, small.height));
  const bins = new Float64Array(2 * diag + 2);
  const energy = (degrees: number, vertical: boolean): number => {
    const a = (degrees * Math.PI) / 180;
    const sin = Math.sin(a);
    const cos = Math.cos(a);
    bins.fill(0);
    for (let k = 0; k < xs.length; k++) {
      const x = xs[k]!;
      const y = ys[k]!;
      const p = vertical ? x * cos + y * sin : y * cos - x * sin;
      bins[Math.round(p) + diag]!++;
    }
    let sumSq = 0;
    for (const b of bins) sumSq += b * b;
    return sumSq / Math.max(1, xs.length);
  };
  let skew = 0;
  let horizontalScore = -1;
  for (let d = -maxAngle; d <= maxAngle; d += 0.5) {
    const e = energy(d, false);
    if (e > horizontalScore) {
      horizontalScore = e;
      skew = d;
    }
  }
  let verticalScore = -1;
  for (let d = -maxAngle; d <= maxAngle; d += 1) verticalScore = Math.max(verticalScore, energy(d, true));
  return { skew, horizontalScore, verticalScore };
}

/**
 * The slant of vertical strokes across a band of text, as a linear function of x: t(x) = at +
 * slope * (x - centre), where x + (y - band middle) * t(x) is constant along a stroke.
 */
export interface Shear {
  centre: number;
  at: number;
  slope: number;
}

/** Slants tried, as dx/dy (about ±17 degrees). */
const SHEAR_RANGE = 0.3;
const SHEAR_STEP = 0.02;

/**
 * The strokes' slant across a band (photographed at an angle, the verticals of a line of text
 * lean one way at its left end and the other way at its right): per third of the band, the slant
 * whose projection of the ink onto x is the spikiest, fitted by a line over x.
 */
export function bandShear(g: Gray, band: { x0: number; y0: number; x1: number; y1: number }): Shear {
  const y0 = Math.max(0, Math.floor(band.y0));
  const y1 = Math.min(g.height, Math.ceil(band.y1));
  const yc = (y0 + y1) / 2;
  const pad = Math.ceil(SHEAR_RANGE * (y1 - y0));
  const samples: Array<{ x: number; t: number }> = [];
  for (let k = 0; k < 3; k++) {
    const wx0 = Math.max(0, Math.round(band.x0 + (k * (band.x1 - band.x0)) / 3));
    const wx1 = Math.min(g.width, Math.round(band.x0 + ((k + 1) * (band.x1 - band.x0)) / 3));
    const bins = new Float64Array(wx1 - wx0 + 2 * pad + 2);
    let best = 0;
    let bestEnergy = -1;
    for (let t = -SHEAR_RANGE; t <= SHEAR_RANGE + 1e-9; t += SHEAR_STEP) {
      bins.fill(0);
      for (let y = y0; y < y1; y++) {
        for (let x = wx0; x < wx1; x++) {
          const ink = 255 - g.data[y * g.width + x]!;
          if (ink >= 100) bins[Math.round(x - wx0 + pad + (y - yc) * t)]! += ink;
        }
      }
      let energy = 0;
      for (const b of bins) energy += b * b;
      if (energy > bestEnergy) {
        bestEnergy = energy;
        best = t;
      }
    }
    samples.push({ x: (wx0 + wx1) / 2, t: best });
  }
  const centre = samples.reduce((s, p) => s + p.x, 0) / samples.length;
  const at = samples.reduce((s, p) => s + p.t, 0) / samples.length;
  const spread = samples.reduce((s, p) => s + (p.x - centre) ** 2, 0);
  const slope = spread > 0 ? samples.reduce((s, p) => s + (p.x - centre) * (p.t - at), 0) / spread : 0;
  return { centre, at, slope };
}

/**
 * The page with the band's strokes stood upright: each row of the band shifted by its slant at each x (linear
 * interpolation).
 */
export function unshear(g: Gray, band: { x0: number; y0: number; x1: number; y1: number }, shear: Shear): Gray {
  const out = Buffer.from(g.data);
  const y0 = Math.max(0, Math.floor(band.y0));
  const y1 = Math.min(g.height, Math.ceil(band.y1));
  const yc = (y0 + y1) / 2;
  for (let y = y0; y < y1; y++) {
    for (let x = Math.max(0, Math.floor(band.x0)); x < Math.min(g.width, band.x1); x++) {
      const source = x - (y - yc) * (shear.at + shear.slope * (x - shear.centre));
      const left = Math.floor(source);
      if (left < 0 || left + 1 >= g.width) continue;
      const f = source - left;
      out[y * g.width + x] = Math.round(g.data[y * g.width + left]! * (1 - f) + g.data[y * g.width + left + 1]! * f);
    }
  }
  return { data: out, width: g.width, height: g.height };
}
