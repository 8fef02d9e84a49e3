import sharp from 'sharp';
import { type DecodedImage, MAX_IMAGE_PIXELS } from '../image.js';
import { boundsOf, LEFT_EYE, mean, type Point, RIGHT_EYE } from './geometry.js';
import { type Affine, type Rgb, warp } from './raster.js';

// Face chips for a descriptor net, cut from the FULL-resolution upright image:
// - 'similarity': the least-squares similarity transform (rotation, scale, shift) taking five
//   points (eye centres, nose tip, mouth corners, from the 68 landmarks) onto the ArcFace 112 px
//   template, scaled to the net's side and loosened by `zoom` (< 1 shows more of the head);
// - 'box': no alignment, the landmark bounds padded by `pad` per side, axis-aligned (what a
//   detector crop gives a net that was never shown aligned faces).

/** ArcFace's five-point template for a 112 x 112 chip (insightface, widely reused). */
const ARCFACE_112: readonly Point[] = [
  { x: 38.2946, y: 51.6963 },
  { x: 73.5318, y: 51.5014 },
  { x: 56.0252, y: 71.7366 },
  { x: 41.5493, y: 92.3655 },
  { x: 70.7299, y: 92.2041 },
];

export type ChipMode = { kind: 'similarity'; zoom: number } | { kind: 'box'; pad: number };

/** Eye centres, nose tip and mouth corners of a 68-point face, in template order. */
export function fivePoints(landmarks: readonly Point[]): Point[] {
  return [mean(landmarks, LEFT_EYE), mean(landmarks, RIGHT_EYE), landmarks[30]!, landmarks[48]!, landmarks[54]!];
}

/** Least-squares similarity (Umeyama without reflection) mapping `from` onto `to`: to ~ s R from + t. */
export function similarity(
  from: readonly Point[],
  to: readonly Point[],
): { a: number; b: number; tx: number; ty: number } {
  const n = from.length;
  let fx = 0,
    fy = 0,
    gx = 0,
    gy = 0;
  for (let i = 0; i < n; i++) {
    fx += from[i]!.x;
    fy += from[i]!.y;
    gx += to[i]!.x;
    gy += to[i]!.y;
  }
  fx /= n;
  fy /= n;
  gx /= n;
  gy /= n;
  let sxx = 0,
    sxy = 0,
    var0 = 0;
  for (let i = 0; i < n; i++) {
    const ux = from[i]!.x - fx,
      uy = from[i]!.y - fy,
      vx = to[i]!.x - gx,
      vy = to[i]!.y - gy;
    sxx += ux * vx + uy * vy; // cos part
    sxy += ux * vy - uy * vx; // sin part
    var0 += ux * ux + uy * uy;
  }
  // to = [a -b; b a] from + t
  const a = sxx / Math.max(var0, 1e-9);
  const b = sxy / Math.max(var0, 1e-9);
  return { a, b, tx: gx - (a * fx - b * fy), ty: gy - (b * fx + a * fy) };
}

/** Upright full-resolution pixels of an image, shrunk by `k` (<= 1) with a proper filter. */
export async function uprightRgb(image: DecodedImage, k = 1): Promise<Rgb> {
  let pipe = sharp(image.bytes, { limitInputPixels: MAX_IMAGE_PIXELS }).rotate();
  if (k < 1)
    pipe = pipe.resize({
      width: Math.max(1, Math.round(image.width * k)),
      height: Math.max(1, Math.round(image.height * k)),
      fit: 'fill',
    });
  const { data, info } = await pipe.removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/**
 * A side x side chip. `rgb` is the upright image scaled by `k` from the original pixels the
 * landmarks are in. The caller shrinks large images first (k ~ 1.5 * chip face / face) so the
 * bilinear warp does not alias.
 */
export function faceChip(rgb: Rgb, k: number, landmarks: readonly Point[], side: number, mode: ChipMode): Rgb {
  const pts = landmarks.map((p) => ({ x: p.x * k, y: p.y * k }));
  let map: Affine;
  if (mode.kind === 'similarity') {
    const c = side / 2;
    const template = ARCFACE_112.map((p) => ({
      x: c + ((p.x - 56) * mode.zoom * side) / 112,
      y: c + ((p.y - 56) * mode.zoom * side) / 112,
    }));
    // chip -> source: the similarity from template points onto the face's points
    const m = similarity(template, fivePoints(pts));
    map = { a: m.a, b: -m.b, c: m.tx, d: m.b, e: m.a, f: m.ty };
  } else {
    const lb = boundsOf(pts);
    const size = Math.max(lb.width, lb.height) * (1 + 2 * mode.pad);
    const s = size / side;
    map = { a: s, b: 0, c: lb.x + lb.width / 2 - size / 2, d: 0, e: s, f: lb.y + lb.height / 2 - size / 2 };
  }
  return warp(rgb, map, side, side);
}

/** The shrink factor for `uprightRgb` so the face lands at no less than ~1.5x its chip size. */
export function shrinkFor(landmarks: readonly Point[], side: number): number {
  const lb = boundsOf(landmarks);
  return Math.min(1, (1.5 * side) / Math.max(1, Math.max(lb.width, lb.height)));
}
