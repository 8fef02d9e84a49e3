// Pixel measurements for passive liveness. Each works on upright RGB pixels and a face box in
// the same pixel space, and returns a plain number; index.ts turns them into pass/fail evidence.
// The idea behind each: a recaptured face (a print held up, a phone or tablet replaying a photo
// or video) passes through a second imaging step, which leaves traces a live face does not have:
// lost fine detail (blur), periodic screen-pixel / halftone structure (moire), specular glare
// from glossy paper or glass, and the straight edges of the medium around the face.

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}
export interface Rgb {
  data: Buffer;
  width: number;
  height: number;
  channels: number;
}

/**
 * Samples a square region (side `side` px centred on the box) to n x n grey (0..255), bilinear; outside the frame reads
 * as edge-clamped.
 */
export function greySquare(img: Rgb, box: Box, scale: number, n: number): Float32Array {
  const side = Math.max(box.width, box.height) * scale;
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  const x0 = cx - side / 2;
  const y0 = cy - side / 2;
  const out = new Float32Array(n * n);
  const { data, width, height, channels } = img;
  const at = (x: number, y: number): number => {
    const xi = Math.min(width - 1, Math.max(0, x));
    const yi = Math.min(height - 1, Math.max(0, y));
    const o = (yi * width + xi) * channels;
    return 0.299 * data[o]! + 0.587 * data[o + 1]! + 0.114 * data[o + 2]!;
  };
  for (let j = 0; j < n; j++) {
    const fy = y0 + ((j + 0.5) * side) / n - 0.5;
    const y = Math.floor(fy);
    const wy = fy - y;
    for (let i = 0; i < n; i++) {
      const fx = x0 + ((i + 0.5) * side) / n - 0.5;
      const x = Math.floor(fx);
      const wx = fx - x;
      out[j * n + i] =
        (1 - wy) * ((1 - wx) * at(x, y) + wx * at(x + 1, y)) + wy * ((1 - wx) * at(x, y + 1) + wx * at(x + 1, y + 1));
    }
  }
  return out;
}

/**
 * Sharpness: variance of the 4-neighbour Laplacian over the tight face region resampled to n x n
 * (so the figure does not depend on how many pixels the face has). Recaptures are usually softer.
 * Also any width x height grey image (the hosted page's document camera judges blur with it).
 */
export function laplacianVariance(grey: ArrayLike<number>, n: number, height = n): number {
  let sum = 0;
  let sum2 = 0;
  let count = 0;
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < n - 1; x++) {
      const i = y * n + x;
      const l = grey[i - 1]! + grey[i + 1]! + grey[i - n]! + grey[i + n]! - 4 * grey[i]!;
      sum += l;
      sum2 += l * l;
      count++;
    }
  }
  if (!count) return 0;
  const mean = sum / count;
  return sum2 / count - mean * mean;
}

/**
 * Specular glare: fraction of face pixels that are clipped near-white in every channel (glossy print, screen glass).
 */
export function glareFraction(img: Rgb, box: Box): number {
  const { data, width, height, channels } = img;
  const x0 = Math.max(0, Math.floor(box.x));
  const y0 = Math.max(0, Math.floor(box.y));
  const x1 = Math.min(width, Math.ceil(box.x + box.width));
  const y1 = Math.min(height, Math.ceil(box.y + box.height));
  let clipped = 0;
  let total = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const o = (y * width + x) * channels;
      if (Math.min(data[o]!, data[o + 1]!, data[o + 2]!) >= 245) clipped++;
      total++;
    }
  }
  return total ? clipped / total : 0;
}

/** In-place radix-2 complex FFT of length n (power of two). */
function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j]!, re[i]!];
      [im[i], im[j]] = [im[j]!, im[i]!];
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const ang = (-2 * Math.PI) / len;
    for (let i = 0; i < n; i += len) {
      for (let k = 0; k < len / 2; k++) {
        const wr = Math.cos(ang * k);
        const wi = Math.sin(ang * k);
        const a = i + k;
        const b = a + len / 2;
        const tr = re[b]! * wr - im[b]! * wi;
        const ti = re[b]! * wi + im[b]! * wr;
        re[b] = re[a]! - tr;
        im[b] = im[a]! - ti;
        re[a] = re[a]! + tr;
        im[a] = im[a]! + ti;
      }
    }
  }
}

export interface Spectrum {
  /** share of (windowed, mean-removed) spectral energy above half the Nyquist radius */
  highFrequencyShare: number;
  /**
   * strongest isolated peak in the mid/high band over the local median: periodic (moire / screen-pixel / halftone)
   * structure
   */
  peakRatio: number;
}

/** 2-D power spectrum of an n x n grey patch (n a power of two), Hann-windowed. */
export function spectrum(grey: Float32Array, n: number): Spectrum {
  let mean = 0;
  for (const v of grey) mean += v;
  mean /= grey.length;
  const re = new Float64Array(n * n);
  const im = new Float64Array(n * n);
  const hann = (i: number): number => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (n - 1));
  for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) re[y * n + x] = (grey[y * n + x]! - mean) * hann(x) * hann(y);
  const rowR = new Float64Array(n);
  const rowI = new Float64Array(n);
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) {
      rowR[x] = re[y * n + x]!;
      rowI[x] = im[y * n + x]!;
    }
    fft(rowR, rowI);
    for (let x = 0; x < n; x++) {
      re[y * n + x] = rowR[x]!;
      im[y * n + x] = rowI[x]!;
    }
  }
  for (let x = 0; x < n; x++) {
    for (let y = 0; y < n; y++) {
      rowR[y] = re[y * n + x]!;
      rowI[y] = im[y * n + x]!;
    }
    fft(rowR, rowI);
    for (let y = 0; y < n; y++) {
      re[y * n + x] = rowR[y]!;
      im[y * n + x] = rowI[y]!;
    }
  }
  const half = n / 2;
  const power = new Float64Array(n * n);
  let total = 0;
  let high = 0;
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) {
      const p = re[y * n + x]! ** 2 + im[y * n + x]! ** 2;
      power[y * n + x] = p;
      const fy = y < half ? y : y - n;
      const fx = x < half ? x : x - n;
      const r = Math.hypot(fx, fy);
      if (r < 1) continue;
      total += p;
      if (r >= half / 2) high += p;
    }
  }
  // Periodic structure: a frequency whose power stands far above the median power of its ring
  // (a natural face's spectrum falls off smoothly with radius; a pixel grid or halftone is a spike).
  const rings = new Map<number, number[]>();
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) {
      const fy = y < half ? y : y - n;
      const fx = x < half ? x : x - n;
      const r = Math.round(Math.hypot(fx, fy));
      if (r < n / 8 || r > half) continue;
      (rings.get(r) ?? rings.set(r, []).get(r)!).push(power[y * n + x]!);
    }
  }
  let peakRatio = 0;
  for (const values of rings.values()) {
    const sorted = [...values].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    const max = sorted[sorted.length - 1]!;
    if (median > 0) peakRatio = Math.max(peakRatio, max / median);
  }
  return { highFrequencyShare: total ? high / total : 0, peakRatio };
}

/**
 * Straight edges of a medium (phone/tablet bezel, paper edge) around the face. Works on a grey
 * copy of the whole frame. For each side of the face (above, below, left, right) it looks for
 * the longest straight, near-axis-aligned edge segment lying entirely on that side, and
 * measures its length relative to the face size; a held print or screen puts long
 * high-contrast lines close around the face on several sides.
 * Returns the per-side longest segment length in face widths/heights and the count of sides
 * with a segment longer than `minFaceLengths`.
 */
export function frameEdges(
  img: Rgb,
  box: Box,
  minFaceLengths = 1.2,
): { sides: number; lengths: [number, number, number, number] } {
  const { data, width: w, height: h, channels } = img;
  const grey = new Float32Array(w * h);
  for (let i = 0; i < w * h; i++)
    grey[i] = 0.299 * data[i * channels]! + 0.587 * data[i * channels + 1]! + 0.114 * data[i * channels + 2]!;
  const strong = 40; // Sobel magnitude (0..~1020) for a clear, high-contrast step
  const gx = (x: number, y: number): number =>
    grey[(y - 1) * w + x + 1]! +
    2 * grey[y * w + x + 1]! +
    grey[(y + 1) * w + x + 1]! -
    grey[(y - 1) * w + x - 1]! -
    2 * grey[y * w + x - 1]! -
    grey[(y + 1) * w + x - 1]!;
  const gy = (x: number, y: number): number =>
    grey[(y + 1) * w + x - 1]! +
    2 * grey[(y + 1) * w + x]! +
    grey[(y + 1) * w + x + 1]! -
    grey[(y - 1) * w + x - 1]! -
    2 * grey[(y - 1) * w + x]! -
    grey[(y - 1) * w + x + 1]!;
  // Horizontal edge pixels (|gy| dominant) and vertical ones (|gx| dominant).
  const hEdge = new Uint8Array(w * h);
  const vEdge = new Uint8Array(w * h);
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const a = gx(x, y);
      const b = gy(x, y);
      if (Math.abs(b) > strong && Math.abs(b) > 2 * Math.abs(a)) hEdge[y * w + x] = 1;
      if (Math.abs(a) > strong && Math.abs(a) > 2 * Math.abs(b)) vEdge[y * w + x] = 1;
    }
  }
  // Longest run along a row (or column), tolerating a 1-px wobble (a line tilted a few degrees)
  // and gaps of up to 3 px.
  const runH = (y0: number, y1: number, x0: number, x1: number): number => {
    let best = 0;
    for (let y = Math.max(2, y0); y < Math.min(h - 2, y1); y++) {
      let run = 0;
      let gap = 0;
      let cy = y;
      for (let x = Math.max(1, x0); x < Math.min(w - 1, x1); x++) {
        const hit = [cy, cy - 1, cy + 1].find((yy) => yy > 0 && yy < h - 1 && hEdge[yy * w + x]);
        if (hit !== undefined) {
          cy = hit;
          run += 1 + gap;
          gap = 0;
          best = Math.max(best, run);
        } else if (++gap > 3) {
          run = 0;
          gap = 0;
          cy = y;
        }
      }
    }
    return best;
  };
  const runV = (x0: number, x1: number, y0: number, y1: number): number => {
    let best = 0;
    for (let x = Math.max(2, x0); x < Math.min(w - 2, x1); x++) {
      let run = 0;
      let gap = 0;
      let cx = x;
      for (let y = Math.max(1, y0); y < Math.min(h - 1, y1); y++) {
        const hit = [cx, cx - 1, cx + 1].find((xx) => xx > 0 && xx < w - 1 && vEdge[y * w + xx]);
        if (hit !== undefined) {
          cx = hit;
          run += 1 + gap;
          gap = 0;
          best = Math.max(best, run);
        } else if (++gap > 3) {
          run = 0;
          gap = 0;
          cx = x;
        }
      }
    }
    return best;
  };
  const { x, y, width: bw, height: bh } = box;
  // Search band per side: from the face box out to 1.5 face sizes away (a handheld medium frames the face closely).
  const above = runH(Math.floor(y - 1.5 * bh), Math.floor(y - 0.05 * bh), 0, w) / bw;
  const below = runH(Math.ceil(y + 1.05 * bh), Math.ceil(y + 2.5 * bh), 0, w) / bw;
  const left = runV(Math.floor(x - 1.5 * bw), Math.floor(x - 0.05 * bw), 0, h) / bh;
  const right = runV(Math.ceil(x + 1.05 * bw), Math.ceil(x + 2.5 * bw), 0, h) / bh;
  const lengths: [number, number, number, number] = [above, below, left, right];
  return { sides: lengths.filter((l) => l >= minFaceLengths).length, lengths };
}

/**
 * Black level: the darkest channel value reached by the darkest `share` of pixels around the face
 * (the box widened `scale` times about its centre, clamped to the frame: hair, eyes, nostrils,
 * clothes and some background). A real scene nearly always holds deep shadows (pupils, nostrils,
 * hair) near 0; a photo of a print or a screen cannot: ink on paper reflects a few per cent of
 * the light and a lit screen glows, so the camera sees their black lifted well above 0.
 */
export function blackLevel(img: Rgb, box: Box, scale = 2, share = 0.001): number {
  const { data, width, height, channels } = img;
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  const x0 = Math.max(0, Math.floor(cx - (box.width * scale) / 2));
  const x1 = Math.min(width, Math.ceil(cx + (box.width * scale) / 2));
  const y0 = Math.max(0, Math.floor(cy - (box.height * scale) / 2));
  const y1 = Math.min(height, Math.ceil(cy + (box.height * scale) / 2));
  const histogram = new Uint32Array(256);
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const o = (y * width + x) * channels;
      histogram[Math.min(data[o]!, data[o + 1]!, data[o + 2]!)]!++;
    }
  }
  const wanted = Math.max(1, share * (x1 - x0) * (y1 - y0));
  let seen = 0;
  for (let level = 0; level < 256; level++) {
    seen += histogram[level]!;
    if (seen >= wanted) return level;
  }
  return 255;
}
