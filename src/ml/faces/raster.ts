import type { Pixels } from '../image.js';
import type { Point } from './geometry.js';

// Small pixel operations on raw RGB buffers: cheaper and more exact than round trips through an
// encoder, and they keep the caller's bytes out of the picture (we only ever see decoded pixels).

export interface Rgb {
  data: Uint8Array;
  width: number;
  height: number;
}

/** Interleaved RGB, whatever the channel count sharp handed back (grey PNGs can stay 1-channel). */
export function toRgb(p: Pixels): Rgb {
  if (p.channels === 3) return { data: p.data, width: p.width, height: p.height };
  const n = p.width * p.height;
  const out = new Uint8Array(n * 3);
  for (let i = 0; i < n; i++) {
    const s = i * p.channels;
    const g = p.data[s]!;
    out[i * 3] = g;
    out[i * 3 + 1] = p.channels === 1 ? g : p.data[s + 1]!;
    out[i * 3 + 2] = p.channels === 1 ? g : p.data[s + 2]!;
  }
  return { data: out, width: p.width, height: p.height };
}

/** Quarter turns clockwise, 0..3. */
export type QuarterTurns = 0 | 1 | 2 | 3;

/** Maps a point of the image turned by `turns` back onto the unturned image of size w x h. */
export function unturnPoint(p: Point, turns: QuarterTurns, w: number, h: number): Point {
  switch (turns) {
    case 0:
      return p;
    case 1:
      return { x: p.y, y: h - p.x };
    case 2:
      return { x: w - p.x, y: h - p.y };
    case 3:
      return { x: w - p.y, y: p.x };
  }
}

/** The image turned clockwise by `turns` quarter turns. */
export function turn(src: Rgb, turns: QuarterTurns): Rgb {
  if (turns === 0) return src;
  const { width: w, height: h } = src;
  const ow = turns === 2 ? w : h;
  const oh = turns === 2 ? h : w;
  const out = new Uint8Array(ow * oh * 3);
  for (let y = 0; y < oh; y++) {
    for (let x = 0; x < ow; x++) {
      // source pixel of output pixel (x, y): the discrete form of unturnPoint
      const sx = turns === 1 ? y : turns === 2 ? w - 1 - x : w - 1 - y;
      const sy = turns === 1 ? h - 1 - x : turns === 2 ? h - 1 - y : x;
      const s = (sy * w + sx) * 3;
      const o = (y * ow + x) * 3;
      out[o] = src.data[s]!;
      out[o + 1] = src.data[s + 1]!;
      out[o + 2] = src.data[s + 2]!;
    }
  }
  return { data: out, width: ow, height: oh };
}

/** The image centred on a larger canvas of `fill` grey, `border` pixels on every side. */
export function padded(src: Rgb, border: number, fill: number): Rgb {
  const ow = src.width + 2 * border;
  const oh = src.height + 2 * border;
  const out = new Uint8Array(ow * oh * 3).fill(fill);
  for (let y = 0; y < src.height; y++) {
    const from = y * src.width * 3;
    out.set(src.data.subarray(from, from + src.width * 3), ((y + border) * ow + border) * 3);
  }
  return { data: out, width: ow, height: oh };
}

/** Affine map from output pixel coordinates to source coordinates: sx = a*u + b*v + c, sy = d*u + e*v + f. */
export interface Affine {
  a: number;
  b: number;
  c: number;
  d: number;
  e: number;
  f: number;
}

/** Resamples `src` through `map` into a width x height image (bilinear; black outside the source). */
export function warp(src: Rgb, map: Affine, width: number, height: number): Rgb {
  const out = new Uint8Array(width * height * 3);
  const { width: w, height: h, data } = src;
  for (let v = 0; v < height; v++) {
    for (let u = 0; u < width; u++) {
      // pixel centres: (u + 0.5, v + 0.5) in the output, minus 0.5 to index source pixels
      const cu = u + 0.5;
      const cv = v + 0.5;
      const sx = map.a * cu + map.b * cv + map.c - 0.5;
      const sy = map.d * cu + map.e * cv + map.f - 0.5;
      if (sx < -1 || sy < -1 || sx > w || sy > h) continue;
      const x0 = Math.floor(sx);
      const y0 = Math.floor(sy);
      const fx = sx - x0;
      const fy = sy - y0;
      const o = (v * width + u) * 3;
      for (let ch = 0; ch < 3; ch++) {
        const p00 = sample(data, w, h, x0, y0, ch);
        const p10 = sample(data, w, h, x0 + 1, y0, ch);
        const p01 = sample(data, w, h, x0, y0 + 1, ch);
        const p11 = sample(data, w, h, x0 + 1, y0 + 1, ch);
        out[o + ch] = Math.round(p00 * (1 - fx) * (1 - fy) + p10 * fx * (1 - fy) + p01 * (1 - fx) * fy + p11 * fx * fy);
      }
    }
  }
  return { data: out, width, height };
}

function sample(data: Uint8Array, w: number, h: number, x: number, y: number, ch: number): number {
  if (x < 0 || y < 0 || x >= w || y >= h) return 0;
  return data[(y * w + x) * 3 + ch]!;
}

/** The image mirrored left to right. */
export function mirrored(src: Rgb): Rgb {
  const { width, height, data } = src;
  const out = new Uint8Array(data.length);
  for (let y = 0; y < height; y++) {
    const row = y * width * 3;
    for (let x = 0; x < width; x++) {
      const from = row + x * 3;
      const to = row + (width - 1 - x) * 3;
      out[to] = data[from]!;
      out[to + 1] = data[from + 1]!;
      out[to + 2] = data[from + 2]!;
    }
  }
  return { data: out, width, height };
}
