import { pixels, WORKING_COPY, type DecodedImage } from '../image.js';
import { greySquare, laplacianVariance, type Box } from './evidence.js';

// What a frame of a burst shows around and on the face, reduced to the few numbers that say
// whether two frames come from one camera stream: one camera in one place sees the same
// background (perhaps shifted a little as the hand moves), the same light on the face, and the
// same sensor noise from frame to frame. Different photos of a person, even resized to one size,
// differ in all three. Pure pixels: no models, so any engine's frames are measured the same way.

/** Long side of the thumbnail the background is compared on. */
const THUMB = 64;
/** The camera may move this share of the frame between neighbouring frames (searched both ways). */
const MAX_SHIFT = 0.1;
/** Below this share of the thumbnail left as background, the background says nothing. */
const MIN_BACKGROUND = 0.1;

export interface FrameScene {
  width: number;
  height: number;
  /** Luma thumbnail (THUMB on the long side) and which of its pixels are background (not head or body). */
  thumb: Float32Array;
  thumbWidth: number;
  thumbHeight: number;
  background: Uint8Array;
  /** Mean luma of the inner face box, 0..255, and its chroma (r-g, b-g) over luma. */
  faceLuma: number;
  faceChroma: [number, number];
  /** Sensor noise of the whole frame (Immerkaer's estimate, grey levels). */
  noise: number;
  /** Laplacian variance of the face at 128x128. */
  sharpness: number;
}

export interface SceneChange {
  /**
   * Mean absolute luma difference of the background at the best camera shift, grey levels; null when too little
   * background shows.
   */
  background: number | null;
  /** Ratio (>= 1) of the brighter to the darker face. */
  faceLight: number;
  /** Distance between the faces' chroma. */
  faceColour: number;
  /** Ratio (>= 1) of the noisier to the cleaner frame's noise. */
  noise: number;
  /** Ratio (>= 1) of the sharper to the softer face. */
  sharpness: number;
}

/** The scene of `image` around `box` (upright original pixels). */
export async function sceneOf(image: DecodedImage, box: Box): Promise<FrameScene> {
  const rgb = await pixels(image, WORKING_COPY);
  const k = rgb.width / image.width;
  const face: Box = { x: box.x * k, y: box.y * k, width: box.width * k, height: box.height * k };
  const { data, width, height, channels } = rgb;
  const luma = (o: number) => 0.299 * data[o]! + 0.587 * data[o + 1]! + 0.114 * data[o + 2]!;

  // Thumbnail by box averaging; background excludes the head (the box widened by a quarter of a
  // face on each side and 0.4 of it above, for hair and ears) and everything below it (the body
  // moves with the person).
  const t = THUMB / Math.max(width, height);
  const tw = Math.max(1, Math.round(width * t));
  const th = Math.max(1, Math.round(height * t));
  const thumb = new Float32Array(tw * th);
  const background = new Uint8Array(tw * th);
  const head = { x0: face.x - 0.25 * face.width, x1: face.x + 1.25 * face.width, y0: face.y - 0.4 * face.height };
  for (let j = 0; j < th; j++) {
    const ya = Math.floor((j * height) / th);
    const yb = Math.max(ya + 1, Math.floor(((j + 1) * height) / th));
    for (let i = 0; i < tw; i++) {
      const xa = Math.floor((i * width) / tw);
      const xb = Math.max(xa + 1, Math.floor(((i + 1) * width) / tw));
      let sum = 0;
      for (let y = ya; y < yb; y++) for (let x = xa; x < xb; x++) sum += luma((y * width + x) * channels);
      thumb[j * tw + i] = sum / ((yb - ya) * (xb - xa));
      const inHead = xb > head.x0 && xa < head.x1 && yb > head.y0;
      background[j * tw + i] = inHead ? 0 : 1;
    }
  }

  // Light on the inner face (the middle 60% of the box, clear of hair and background).
  let l = 0,
    rg = 0,
    bg = 0,
    n = 0;
  const fx0 = Math.max(0, Math.floor(face.x + 0.2 * face.width)),
    fx1 = Math.min(width, Math.ceil(face.x + 0.8 * face.width));
  const fy0 = Math.max(0, Math.floor(face.y + 0.2 * face.height)),
    fy1 = Math.min(height, Math.ceil(face.y + 0.8 * face.height));
  for (let y = fy0; y < fy1; y++) {
    for (let x = fx0; x < fx1; x++) {
      const o = (y * width + x) * channels;
      l += luma(o);
      rg += data[o]! - data[o + 1]!;
      bg += data[o + 2]! - data[o + 1]!;
      n++;
    }
  }
  const faceLuma = n ? l / n : 0;
  const faceChroma: [number, number] = n && faceLuma > 1 ? [rg / n / faceLuma, bg / n / faceLuma] : [0, 0];

  return {
    width: image.width,
    height: image.height,
    thumb,
    thumbWidth: tw,
    thumbHeight: th,
    background,
    faceLuma,
    faceChroma,
    noise: noiseSigma(data, width, height, channels),
    sharpness: laplacianVariance(greySquare(rgb, face, 1, 128), 128),
  };
}

/**
 * Immerkaer (1996): the mean absolute response to a kernel that cancels smooth image content
 * leaves the noise. Measured on luma over the whole frame, so it is the camera's, not the face's.
 */
function noiseSigma(data: Buffer, width: number, height: number, channels: number): number {
  if (width < 3 || height < 3) return 0;
  const at = (x: number, y: number) => {
    const o = (y * width + x) * channels;
    return 0.299 * data[o]! + 0.587 * data[o + 1]! + 0.114 * data[o + 2]!;
  };
  let sum = 0;
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const v =
        at(x - 1, y - 1) -
        2 * at(x, y - 1) +
        at(x + 1, y - 1) -
        2 * at(x - 1, y) +
        4 * at(x, y) -
        2 * at(x + 1, y) +
        at(x - 1, y + 1) -
        2 * at(x, y + 1) +
        at(x + 1, y + 1);
      sum += Math.abs(v);
    }
  }
  return (Math.sqrt(Math.PI / 2) * sum) / (6 * (width - 2) * (height - 2));
}

/** max/min of two positive measures (>= 1), each held at least at `floor` so near-zero values do not explode. */
const ratio = (a: number, b: number, floor: number) => Math.max(a, b, floor) / Math.max(Math.min(a, b), floor);

/** How much the scene changed from `a` to `b`. */
export function sceneChange(a: FrameScene, b: FrameScene): SceneChange {
  return {
    background: backgroundDifference(a, b),
    faceLight: ratio(a.faceLuma, b.faceLuma, 8),
    faceColour: Math.hypot(a.faceChroma[0] - b.faceChroma[0], a.faceChroma[1] - b.faceChroma[1]),
    noise: ratio(a.noise, b.noise, 0.5),
    sharpness: ratio(a.sharpness, b.sharpness, 5),
  };
}

/**
 * The smallest mean absolute difference between the two backgrounds over camera shifts of up to
 * MAX_SHIFT of the frame, each thumbnail taken relative to its own mean (an exposure change is
 * not a new scene). Null when the frames differ in size or too little background shows.
 */
function backgroundDifference(a: FrameScene, b: FrameScene): number | null {
  if (a.thumbWidth !== b.thumbWidth || a.thumbHeight !== b.thumbHeight) return null;
  const w = a.thumbWidth,
    h = a.thumbHeight;
  const meanOf = (s: FrameScene) => {
    let sum = 0,
      count = 0;
    for (let i = 0; i < w * h; i++)
      if (s.background[i]) {
        sum += s.thumb[i]!;
        count++;
      }
    return { mean: count ? sum / count : 0, count };
  };
  const ma = meanOf(a),
    mb = meanOf(b);
  if (Math.min(ma.count, mb.count) < MIN_BACKGROUND * w * h) return null;
  const reach = Math.max(1, Math.round(MAX_SHIFT * Math.max(w, h)));
  let best = Infinity;
  for (let sy = -reach; sy <= reach; sy++) {
    for (let sx = -reach; sx <= reach; sx++) {
      let sum = 0,
        count = 0;
      for (let y = Math.max(0, -sy); y < Math.min(h, h - sy); y++) {
        for (let x = Math.max(0, -sx); x < Math.min(w, w - sx); x++) {
          const i = y * w + x,
            j = (y + sy) * w + x + sx;
          if (!a.background[i] || !b.background[j]) continue;
          sum += Math.abs(a.thumb[i]! - ma.mean - (b.thumb[j]! - mb.mean));
          count++;
        }
      }
      if (count >= MIN_BACKGROUND * w * h) best = Math.min(best, sum / count);
    }
  }
  return Number.isFinite(best) ? best : null;
}
