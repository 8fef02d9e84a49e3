import { type Centreline, centreAt, type DetectedBox } from './paddle.js';
import type { Gray } from './raster.js';

// The MRZ of a page photographed at an angle or bowed: its lines are slanted, converge and curve,
// so the axis-aligned box of one holds parts of its neighbours. Each line's centre is fitted from
// the detector's map (paddle.ts); the zone between the lines is then resampled so that every line
// runs straight and level at one height and one character width: a perspective and a bow are
// both undone from the text itself, with no page edge needed (clutter has edges too).

/** Pieces of one line lie within this share of its height of each other's centreline. */
const SAME_LINE = 0.5;
/** Pieces of one line (split at a filler run) lie at most this many heights apart. */
const PIECE_MAX_GAP = 10;
/** A line of the zone is at least this many times as long as it is high (30 to 44 characters). */
const ZONE_LINE_MIN_ASPECT = 10;
/** MRZ lines follow each other at 0.9 to 2.5 line heights (centre to centre). */
const SPACING = { min: 0.9, max: 2.5 };
/** A line whose ends stand this share of its height off the level through its middle is warped. */
const WARP_MIN = 0.2;
/** No MRZ has more lines. */
const ZONE_MAX_LINES = 3;

/** Solves a 3x3 linear system given as an augmented matrix (Gaussian elimination); null when singular. */
export function solve3(m: number[][]): [number, number, number] | null {
  for (let c = 0; c < 3; c++) {
    let pivot = c;
    for (let r = c + 1; r < 3; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[pivot]![c]!)) pivot = r;
    if (Math.abs(m[pivot]![c]!) < 1e-9) return null;
    [m[c], m[pivot]] = [m[pivot]!, m[c]!];
    for (let r = 0; r < 3; r++) {
      if (r === c) continue;
      const f = m[r]![c]! / m[c]![c]!;
      for (let k = c; k < 4; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  return [m[0]![3]! / m[0]![0]!, m[1]![3]! / m[1]![1]!, m[2]![3]! / m[2]![2]!];
}

/** One quadratic through points sampled along pieces of a line (a straight line when they are few). */
function fitPieces(pieces: Centreline[]): Centreline {
  const x0 = Math.min(...pieces.map((p) => p.x0));
  const x1 = Math.max(...pieces.map((p) => p.x1));
  const xm = (x0 + x1) / 2;
  const scale = Math.max(1, (x1 - x0) / 2);
  const s = new Float64Array(5);
  const t = new Float64Array(3);
  for (const p of pieces) {
    // Weighted by length: 16 samples over each piece.
    for (let k = 0; k < 16; k++) {
      const x = p.x0 + ((k + 0.5) / 16) * (p.x1 - p.x0);
      const w = (p.x1 - p.x0) / 16;
      const u = (x - xm) / scale;
      const y = centreAt(p, x);
      s[0]! += w;
      s[1]! += w * u;
      s[2]! += w * u * u;
      s[3]! += w * u * u * u;
      s[4]! += w * u * u * u * u;
      t[0]! += w * y;
      t[1]! += w * u * y;
      t[2]! += w * u * u * y;
    }
  }
  const height =
    pieces.reduce((sum, p) => sum + p.height * (p.x1 - p.x0), 0) / pieces.reduce((sum, p) => sum + (p.x1 - p.x0), 0);
  const solved = solve3([
    [s[0]!, s[1]!, s[2]!, t[0]!],
    [s[1]!, s[2]!, s[3]!, t[1]!],
    [s[2]!, s[3]!, s[4]!, t[2]!],
  ]);
  if (!solved) return { ...pieces[0]!, x0, x1 };
  return { xm, c: [solved[0], solved[1] / scale, solved[2] / (scale * scale)], x0, x1, height };
}

/** The detected lines with their pieces joined: each piece goes to the line whose centreline it continues. */
export function joinedLines(detected: Array<Pick<DetectedBox, 'centre'>>): Centreline[] {
  const pieces = detected
    .map((d) => d.centre)
    .filter((c): c is Centreline => c !== null && c.height > 0)
    .sort((a, b) => b.x1 - b.x0 - (a.x1 - a.x0));
  const lines: Centreline[][] = [];
  for (const piece of pieces) {
    const line = lines.find((group) => {
      const fit = fitPieces(group);
      const gap = Math.max(fit.x0, piece.x0) - Math.min(fit.x1, piece.x1);
      const mid = (piece.x0 + piece.x1) / 2;
      const ratio = piece.height / fit.height;
      return (
        ratio > 0.6 &&
        ratio < 1.6 &&
        gap < PIECE_MAX_GAP * fit.height &&
        Math.abs(centreAt(fit, mid) - centreAt(piece, mid)) < SAME_LINE * fit.height
      );
    });
    if (line) line.push(piece);
    else lines.push([piece]);
  }
  return lines.map(fitPieces);
}

/** The joined lines long enough to be MRZ lines (at least ZONE_LINE_MIN_ASPECT times their height). */
export function longLines(detected: Array<Pick<DetectedBox, 'centre'>>): Centreline[] {
  return joinedLines(detected).filter((l) => l.x1 - l.x0 >= ZONE_LINE_MIN_ASPECT * l.height);
}

/**
 * Stacks of long lines that may be the MRZ: consecutive lines of about the same height, starting
 * about where each other starts, a line height or two apart; each cut to its last 3 lines, the
 * lowest stack first (ICAO 9303 puts the MRZ at the bottom edge).
 */
export function zoneStacks(lines: Centreline[]): Centreline[][] {
  const long = [...lines].sort((a, b) => centreAt(a, a.xm) - centreAt(b, b.xm));
  const stacks: Centreline[][] = [];
  for (const line of long) {
    const last = stacks.at(-1)?.at(-1);
    if (last && follows(last, line)) stacks.at(-1)!.push(line);
    else stacks.push([line]);
  }
  return stacks
    .filter((s) => s.length >= 2)
    .map((s) => s.slice(-ZONE_MAX_LINES))
    .sort((a, b) => centreAt(b.at(-1)!, b.at(-1)!.xm) - centreAt(a.at(-1)!, a.at(-1)!.xm));
}

/**
 * Where to look for the zone again at a finer scale: around the longest lines (at least half as
 * long as the longest, the MRZ's lines and any line they merged with), grown by 1.5 line heights.
 */
export function zoneBounds(
  lines: Centreline[],
  page: Pick<Gray, 'width' | 'height'>,
): { left: number; top: number; width: number; height: number } | null {
  if (lines.length === 0) return null;
  const longest = Math.max(...lines.map((l) => l.x1 - l.x0));
  const kept = lines.filter((l) => l.x1 - l.x0 >= 0.5 * longest);
  const h = Math.max(...kept.map((l) => l.height));
  const ys = kept.flatMap((l) => [l.x0, l.xm, l.x1].map((x) => centreAt(l, x)));
  const left = Math.max(0, Math.min(...kept.map((l) => l.x0)) - 1.5 * h);
  const top = Math.max(0, Math.min(...ys) - 2 * h);
  const right = Math.min(page.width, Math.max(...kept.map((l) => l.x1)) + 1.5 * h);
  const bottom = Math.min(page.height, Math.max(...ys) + 2 * h);
  if (right - left < 16 || bottom - top < 16) return null;
  return { left, top, width: right - left, height: bottom - top };
}

/** `next` is the MRZ line after `line`: overlapping along x, starting near it, a line height or two below. */
function follows(line: Centreline, next: Centreline): boolean {
  const h = (line.height + next.height) / 2;
  const overlap = Math.min(line.x1, next.x1) - Math.max(line.x0, next.x0);
  if (overlap < 0.5 * Math.min(line.x1 - line.x0, next.x1 - next.x0) || Math.abs(line.x0 - next.x0) > 4 * h)
    return false;
  const x = (Math.max(line.x0, next.x0) + Math.min(line.x1, next.x1)) / 2;
  const spacing = centreAt(next, x) - centreAt(line, x);
  return (
    spacing >= SPACING.min * h &&
    spacing <= SPACING.max * h &&
    next.height / line.height > 0.6 &&
    next.height / line.height < 1.6
  );
}

/** Whether a line of the stack is slanted or curved: its ends off the level through its middle. */
export function warped(stack: Centreline[]): boolean {
  return stack.some((l) => {
    const mid = centreAt(l, (l.x0 + l.x1) / 2);
    return Math.max(Math.abs(centreAt(l, l.x0) - mid), Math.abs(centreAt(l, l.x1) - mid)) > WARP_MIN * l.height;
  });
}

/** The zone resampled straight and level, and where its lines lie on the page (their bounding boxes). */
export interface RectifiedZone {
  zone: Gray;
  pageBoxes: Array<{ x0: number; y0: number; x1: number; y1: number }>;
}

/**
 * The stack's zone resampled so that each line runs level at one spacing: a source column x is
 * stretched vertically so its lines' spacing becomes the median one, and horizontally by the
 * same factor (characters keep their shape along a line that shrinks with distance); rows
 * between and beyond the lines follow the nearest two lines' centres.
 */
export function rectifyZone(page: Gray, stack: Centreline[]): RectifiedZone {
  const n = stack.length;
  const height = stack.reduce((s, l) => s + l.height, 0) / n;
  const margin = 1.5 * height;
  const left = Math.max(0, Math.floor(Math.min(...stack.map((l) => l.x0)) - margin));
  const right = Math.min(page.width - 1, Math.ceil(Math.max(...stack.map((l) => l.x1)) + margin));
  const spacingAt = (x: number) => (centreAt(stack[n - 1]!, x) - centreAt(stack[0]!, x)) / (n - 1);
  const spacings: number[] = [];
  for (let x = left; x <= right; x++) spacings.push(Math.max(1, spacingAt(x)));
  const pitch = [...spacings].sort((a, b) => a - b)[Math.floor(spacings.length / 2)]!;
  // Output column -> source column: the cumulated horizontal scale.
  const cumulated: number[] = [0];
  for (const s of spacings) cumulated.push(cumulated.at(-1)! + pitch / s);
  const width = Math.max(1, Math.floor(cumulated.at(-1)!));
  const top = 1.6 * pitch;
  const outHeight = Math.max(1, Math.round(2 * top + pitch * (n - 1)));
  const out = Buffer.alloc(width * outHeight);
  let k = 0;
  for (let X = 0; X < width; X++) {
    while (k < spacings.length - 1 && cumulated[k + 1]! < X) k++;
    const x = left + k + (X - cumulated[k]!) / Math.max(1e-6, cumulated[k + 1]! - cumulated[k]!);
    const ys = stack.map((l) => centreAt(l, x));
    for (let Y = 0; Y < outHeight; Y++) {
      const t = (Y - top) / pitch;
      const i = Math.max(0, Math.min(n - 2, Math.floor(t)));
      const y = ys[i]! + (t - i) * (ys[i + 1]! - ys[i]!);
      out[Y * width + X] = sample(page, x, y);
    }
  }
  const pageBoxes = stack.map((l) => {
    const ys = [l.x0, (l.x0 + l.x1) / 2, l.x1].map((x) => centreAt(l, x));
    return { x0: l.x0, x1: l.x1, y0: Math.min(...ys) - l.height / 2, y1: Math.max(...ys) + l.height / 2 };
  });
  return { zone: { data: out, width, height: outHeight }, pageBoxes };
}

/** Bilinear sample of a gray page; the nearest edge pixel outside it. */
function sample(g: Gray, x: number, y: number): number {
  const cx = Math.max(0, Math.min(g.width - 1.001, x));
  const cy = Math.max(0, Math.min(g.height - 1.001, y));
  const x0 = Math.floor(cx);
  const y0 = Math.floor(cy);
  const fx = cx - x0;
  const fy = cy - y0;
  const i = y0 * g.width + x0;
  const d = g.data;
  const x1 = x0 + 1 < g.width ? 1 : 0;
  const y1 = y0 + 1 < g.height ? g.width : 0;
  return Math.round(
    d[i]! * (1 - fx) * (1 - fy) + d[i + x1]! * fx * (1 - fy) + d[i + y1]! * (1 - fx) * fy + d[i + x1 + y1]! * fx * fy,
  );
}
