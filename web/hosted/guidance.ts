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
  /**
   * A burnt-out pixel is glare only when it is this much brighter than the document's paper (its
   * median): white paper photographed well is burnt out everywhere and hides nothing.
   */
  glareAbovePaper: 40,
  /** More than this share of the document's pixels burnt out by a reflection: glare over the text. */
  glare: 0.02,
  /** A pixel at or above this is part of the (light) card on a darker surface. */
  bright: 110,
  /** How far (a share of the frame's size) a document's edge may lie inside or outside the frame's border. */
  slack: 0.2,
  /** The band around the frame searched for the document's edges, as a share of the frame's size. */
  around: 0.35,
  /** Variance of the Laplacian below this: blurred. */
  sharp: 100,
  /** Mean absolute change between two frames above this: moving. */
  motion: 6,
  /**
   * The selfie's face region: the mean of its brightest pixels (this share of them) below `faceDark` is too dark for
   * the checks.
   */
  faceShare: 0.3,
  faceDark: 50,
} as const;

/** Consecutive ready frames before the page takes the photo by itself. */
export const READY_FRAMES = 3;

/**
 * How long a hint may stay before the page stops insisting: it still says what it sees, adds that
 * the person may take the photo with the button, and lets them (guidance is advice, not a gate).
 */
export const GIVE_UP_MS = 4000;

/** RGBA pixels (a canvas's ImageData) as luminance. */
export function toGray(rgba: Uint8ClampedArray | Uint8Array, width: number, height: number): Gray {
  const data = new Uint8Array(width * height);
  for (let i = 0; i < data.length; i++)
    data[i] = Math.round(0.299 * rgba[i * 4]! + 0.587 * rgba[i * 4 + 1]! + 0.114 * rgba[i * 4 + 2]!);
  return { width, height, data };
}

export function meanLuminance(frame: Gray): number {
  let sum = 0;
  for (const v of frame.data) sum += v;
  return sum / frame.data.length;
}

/** The median luminance: the document's paper level, whatever its print. */
export function median(frame: Gray): number {
  const counts = new Array<number>(256).fill(0);
  for (const v of frame.data) counts[v]!++;
  let seen = 0;
  for (let v = 0; v < 256; v++) {
    seen += counts[v]!;
    if (seen * 2 >= frame.data.length) return v;
  }
  return 255;
}

/**
 * Share of pixels burnt out by a reflection: at or above `saturated` and well above the paper's own
 * level, so a white page (burnt out everywhere, hiding nothing) is not mistaken for glare.
 */
export function glareFraction(frame: Gray): number {
  const floor = Math.max(LIMITS.saturated, median(frame) + LIMITS.glareAbovePaper);
  let n = 0;
  for (const v of frame.data) if (v >= floor) n++;
  return n / frame.data.length;
}

/**
 * How lit the face in the selfie's oval is: the mean of the brightest `faceShare` of the oval's
 * pixels. A lit face on a dark stage is bright there though the whole frame is dark; a dark room is
 * dark everywhere.
 */
export function faceLight(frame: Gray, oval: Box = WHOLE): number {
  const values = Array.from(crop(frame, oval).data).sort((a, b) => b - a);
  const n = Math.max(1, Math.round(values.length * LIMITS.faceShare));
  let sum = 0;
  for (let i = 0; i < n; i++) sum += values[i]!;
  return sum / n;
}

/** Whether the face region is too dark for the checks (judged before the countdown, not on the whole frame). */
export const faceTooDark = (frame: Gray, oval: Box = WHOLE): boolean => faceLight(frame, oval) < LIMITS.faceDark;

/** Variance of the 4-neighbour Laplacian: edges of text and card make it high, blur flattens it. */
export const sharpness = (frame: Gray): number => laplacianVariance(frame.data, frame.width, frame.height);

/** Mean absolute difference between two frames of one size: how much the picture moved. */
export function motion(previous: Gray, frame: Gray): number {
  let sum = 0;
  for (let i = 0; i < frame.data.length; i++) sum += Math.abs(frame.data[i]! - previous.data[i]!);
  return sum / frame.data.length;
}

/** A rectangle as shares of a picture (0 at its left or top edge, 1 at its right or bottom edge). */
export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** The whole picture: the frame to judge in when the page draws none. */
export const WHOLE: Box = { x0: 0, y0: 0, x1: 1, y1: 1 };

/** An element's box on screen (as getBoundingClientRect gives it). */
export interface ScreenRect {
  left: number;
  top: number;
  width: number;
  height: number;
}

/**
 * Where the overlay's document frame (`guide`, on screen) lies in the camera's picture, as shares of
 * it. The video fills its element (`view`) with object-fit: cover: scaled to cover, centred, the
 * overflow cut off, so the frame is mapped back through that scale and offset.
 */
export function frameInPicture(picture: { width: number; height: number }, view: ScreenRect, guide: ScreenRect): Box {
  const scale = Math.max(view.width / picture.width, view.height / picture.height);
  const offsetX = (view.width - picture.width * scale) / 2;
  const offsetY = (view.height - picture.height * scale) / 2;
  const x = (screenX: number) => clamp01((screenX - view.left - offsetX) / scale / picture.width);
  const y = (screenY: number) => clamp01((screenY - view.top - offsetY) / scale / picture.height);
  return { x0: x(guide.left), y0: y(guide.top), x1: x(guide.left + guide.width), y1: y(guide.top + guide.height) };
}

const clamp01 = (v: number): number => Math.min(1, Math.max(0, v));

/** The pixels of `frame` inside `box` (shares of it), as a frame of their own. */
export function crop(frame: Gray, box: Box): Gray {
  const x0 = Math.floor(box.x0 * frame.width);
  const y0 = Math.floor(box.y0 * frame.height);
  const width = Math.max(1, Math.ceil(box.x1 * frame.width) - x0);
  const height = Math.max(1, Math.ceil(box.y1 * frame.height) - y0);
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++)
    data.set(frame.data.subarray((y0 + y) * frame.width + x0, (y0 + y) * frame.width + x0 + width), y * width);
  return { width, height, data };
}

/** `box` grown by `share` of its own size on every side, kept inside the picture. */
export function grow(box: Box, share: number): Box {
  const dx = (box.x1 - box.x0) * share;
  const dy = (box.y1 - box.y0) * share;
  return { x0: clamp01(box.x0 - dx), y0: clamp01(box.y0 - dy), x1: clamp01(box.x1 + dx), y1: clamp01(box.y1 + dy) };
}

/** The box of rows and columns that are mostly card (bright), as shares of the frame; null when there is none. */
export function cardBox(frame: Gray): Box | null {
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

/**
 * Where the document lies against the overlay's frame: its edges as shares of the frame (0 and 1 on
 * the frame's borders, below 0 or above 1 outside it), found in the frame and a band around it, so a
 * document sticking out of the frame is seen as such. Null when no document is found.
 */
export function documentInFrame(frame: Gray, guide: Box): Box | null {
  const around = grow(guide, LIMITS.around);
  const found = cardBox(crop(frame, around));
  if (!found) return null;
  const gw = guide.x1 - guide.x0;
  const gh = guide.y1 - guide.y0;
  const aw = around.x1 - around.x0;
  const ah = around.y1 - around.y0;
  // Edges on the border of what was looked at may run on past it: count them as far outside.
  const edge = 0.02;
  return {
    x0: found.x0 < edge ? -Infinity : (around.x0 + found.x0 * aw - guide.x0) / gw,
    y0: found.y0 < edge ? -Infinity : (around.y0 + found.y0 * ah - guide.y0) / gh,
    x1: found.x1 > 1 - edge ? Infinity : (around.x0 + found.x1 * aw - guide.x0) / gw,
    y1: found.y1 > 1 - edge ? Infinity : (around.y0 + found.y1 * ah - guide.y0) / gh,
  };
}

/**
 * The document's own pixels, as a box of the picture: where it was found (clipped to the picture),
 * so reflections are judged on the document and not on the table or the frame around it.
 */
export function documentRegion(guide: Box, doc: Box): Box {
  const gw = guide.x1 - guide.x0;
  const gh = guide.y1 - guide.y0;
  const x = (share: number) => clamp01(guide.x0 + share * gw);
  const y = (share: number) => clamp01(guide.y0 + share * gh);
  return { x0: x(doc.x0), y0: y(doc.y0), x1: x(doc.x1), y1: y(doc.y1) };
}

/** An edge of the document lies outside the frame by more than the slack: a corner may be cut off. */
const sticksOut = (doc: Box): boolean =>
  doc.x0 < -LIMITS.slack || doc.y0 < -LIMITS.slack || doc.x1 > 1 + LIMITS.slack || doc.y1 > 1 + LIMITS.slack;

/** An edge of the document lies inside the frame by more than the slack: it fills too little of it. */
const fallsShort = (doc: Box): boolean =>
  doc.x0 > LIMITS.slack || doc.y0 > LIMITS.slack || doc.x1 < 1 - LIMITS.slack || doc.y1 < 1 - LIMITS.slack;

/**
 * The one thing to fix first (light, then reflections, then framing, then steadiness), or null when
 * ready. Light and sharpness are judged on the frame's pixels (`guide`, shares of the picture),
 * reflections on the document's own pixels, and the document's four edges must lie near the
 * frame's borders.
 */
export function hintFor(frame: Gray, previous: Gray | null, guide: Box = WHOLE): Hint | null {
  const inside = crop(frame, guide);
  if (meanLuminance(inside) < LIMITS.dark) return 'too_dark';
  const doc = documentInFrame(frame, guide);
  if (!doc) return 'too_far';
  if (glareFraction(crop(frame, documentRegion(guide, doc))) > LIMITS.glare) return 'glare';
  if (sticksOut(doc)) return 'too_close';
  if (fallsShort(doc)) return 'too_far';
  if (sharpness(inside) < LIMITS.sharp || (previous && motion(crop(previous, guide), inside) > LIMITS.motion))
    return 'hold_still';
  return null;
}

/** How many ready frames in a row: any hint starts the count again. */
export const nextStreak = (streak: number, hint: Hint | null): number => (hint === null ? streak + 1 : 0);
