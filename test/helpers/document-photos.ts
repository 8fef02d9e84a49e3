import sharp from 'sharp';
import {
  type DocumentSpec,
  documentPages,
  homography,
  type MrzFont,
  random,
  type RenderedTruth,
  type RenderLayout,
} from './documents.js';

// Hard document photos, generated (issue 47): documents in every ICAO 9303 format photographed as
// phones do. The page is rendered flat (documents.ts), a laminate's glare and a hologram laid over
// its zone, then placed in a cluttered scene at up to 30 degrees of tilt, its page bowed, in low
// light and noise, with motion blur, at 1 to 12 megapixels, as a JPEG of quality 40 to 80. Every
// choice comes from the seed, so a document and its truth are the same on every run and clone.

/** What makes a photo hard; each document has one at full strength, the others mild or absent. */
export const PHOTO_KINDS = [
  'perspective',
  'curved',
  'glare',
  'hologram',
  'low-light',
  'motion',
  'small',
  'large',
  'mixed',
] as const;
export type PhotoKind = (typeof PHOTO_KINDS)[number];
export const PHOTO_LAYOUTS: RenderLayout[] = ['TD1', 'TD2', 'TD3', 'MRVA', 'MRVB'];

/** Monospace faces standing in for OCR-B (none installed): two families, bold, and wider spacing. */
const MRZ_FONTS: MrzFont[] = [
  { family: 'DejaVu Sans Mono' },
  { family: 'Liberation Mono' },
  { family: 'DejaVu Sans Mono', bold: true },
  { family: 'Liberation Mono', spacing: 0.08 },
];

export interface PhotoSpec {
  name: string;
  kind: PhotoKind;
  layout: RenderLayout;
  seed: number;
  document: DocumentSpec;
  /** Frame size in pixels. */
  width: number;
  height: number;
  /** The document's width as a share of the frame's. */
  fill: number;
  /** Tilt about the page's horizontal and vertical axes, and turn in the image plane (degrees). */
  tiltX: number;
  tiltY: number;
  roll: number;
  /** The page's lines bowed by this share of its height (a curved booklet page). */
  bow: number;
  /** Laminate glare over the zone: peak whiteness 0..1 (0 = none). */
  glare: number;
  /** Hologram foil over the zone: opacity 0..1. */
  hologram: number;
  /** Light level (1 = good light) and sensor noise (standard deviation, 0-255). */
  light: number;
  noise: number;
  /** Motion blur length in pixels of the frame (0 = none). */
  motion: number;
  jpegQuality: number;
}

export interface DocumentPhoto {
  spec: PhotoSpec;
  /** The photo holding the portrait (and the MRZ, except on TD1 cards). */
  front: Buffer;
  /** TD1: the card's back, with the MRZ. */
  back?: Buffer;
  truth: RenderedTruth;
}

const between = (rnd: () => number, lo: number, hi: number) => lo + rnd() * (hi - lo);
const sign = (rnd: () => number) => (rnd() < 0.5 ? -1 : 1);
const ALNUM_ALL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/**
 * A document number mixing letters and digits (B, O, I, D among them: the letter/digit
 * look-alikes only a check digit can tell), longer than nine characters on some TD1 and TD2.
 */
function hardNumber(rnd: () => number, layout: RenderLayout): string {
  const long = (layout === 'TD1' || layout === 'TD2') && rnd() < 0.5;
  const length = long ? 10 + Math.floor(rnd() * 4) : 8 + Math.floor(rnd() * 2);
  let number = '';
  for (let i = 0; i < length; i++) {
    const letter = i < 2 ? rnd() < 0.7 : rnd() < 0.3;
    number += letter ? ALNUM_ALL[Math.floor(rnd() * 26)] : String(Math.floor(rnd() * 10));
  }
  return number;
}

/** The i-th document of the hard set: layouts and kinds in turn, so every pair appears. */
export function photoSpec(i: number): PhotoSpec {
  const layout = PHOTO_LAYOUTS[i % PHOTO_LAYOUTS.length]!;
  const kind = PHOTO_KINDS[Math.floor(i / PHOTO_LAYOUTS.length) % PHOTO_KINDS.length]!;
  const seed = 47_000 + i;
  const rnd = random(seed);
  const strong = (k: PhotoKind) => kind === k || kind === 'mixed';
  const megapixels = kind === 'large' ? between(rnd, 10, 12) : between(rnd, 1, 8);
  const portrait = rnd() < 0.3;
  const long = Math.round(Math.sqrt((megapixels * 1e6 * 4) / 3));
  const short = Math.round((long * 3) / 4);
  const document: DocumentSpec = {
    name: `hard-${i}`,
    layout,
    font: (['sans', 'serif', 'condensed'] as const)[Math.floor(rnd() * 3)]!,
    rotation: 0,
    skew: 0,
    blur: 0,
    jpegQuality: null,
    seed,
    documentNumber: hardNumber(rnd, layout),
    mrzFont: MRZ_FONTS[Math.floor(rnd() * MRZ_FONTS.length)]!,
    fathersName: rnd() < 0.2,
  };
  const spec: PhotoSpec = {
    name: `${kind}-${layout}-${i}`,
    kind,
    layout,
    seed,
    document,
    width: portrait ? short : long,
    height: portrait ? long : short,
    fill: kind === 'small' ? between(rnd, 0.35, 0.45) : between(rnd, 0.55, 0.85),
    tiltX: strong('perspective') ? sign(rnd) * between(rnd, 20, 30) : between(rnd, -10, 10),
    tiltY: strong('perspective') ? sign(rnd) * between(rnd, 10, 25) : between(rnd, -8, 8),
    roll: between(rnd, -12, 12) + (rnd() < 0.15 ? 180 : 0),
    bow: strong('curved') ? between(rnd, 0.03, 0.06) : between(rnd, 0, 0.01),
    glare: strong('glare') ? between(rnd, 0.55, 0.8) : rnd() < 0.3 ? between(rnd, 0.2, 0.4) : 0,
    hologram: strong('hologram') ? between(rnd, 0.25, 0.4) : rnd() < 0.3 ? between(rnd, 0.08, 0.15) : 0,
    light: strong('low-light') ? between(rnd, 0.3, 0.45) : between(rnd, 0.8, 1.05),
    noise: strong('low-light') ? between(rnd, 8, 14) : between(rnd, 1, 4),
    motion: strong('motion') ? Math.round(between(rnd, 0.004, 0.007) * long) : 0,
    jpegQuality: Math.round(between(rnd, 40, 80)),
  };
  return spec;
}

export function photoSpecs(count: number): PhotoSpec[] {
  return Array.from({ length: count }, (_, i) => photoSpec(i));
}

/** Glare and hologram foil over the zone (the page's bottom third), as SVG drawn on the page. */
function overlays(spec: PhotoSpec, width: number, height: number, rnd: () => number): string {
  const parts: string[] = [];
  if (spec.hologram > 0) {
    const top = height * 0.55;
    parts.push(
      `<defs><linearGradient id="holo" x1="0" y1="0" x2="1" y2="0.3">` +
        ['#ff4fd8', '#4fd8ff', '#c8ff4f', '#ffb84f', '#8a4fff', '#4fffb0']
          .map((c, k) => `<stop offset="${(k / 5).toFixed(2)}" stop-color="${c}"/>`)
          .join('') +
        `</linearGradient></defs>`,
    );
    parts.push(`<g opacity="${spec.hologram.toFixed(2)}">`);
    parts.push(`<rect x="0" y="${top}" width="${width}" height="${height - top}" fill="url(#holo)"/>`);
    // Guilloche rings and a repeated emblem, as a foil's pattern.
    for (let k = 0; k < 14; k++) {
      const cx = between(rnd, 0, width);
      const cy = between(rnd, top, height);
      const r = between(rnd, 20, 90);
      parts.push(
        `<circle cx="${cx.toFixed(1)}" cy="${cy.toFixed(1)}" r="${r.toFixed(1)}" fill="none" stroke="#fff" stroke-width="${between(rnd, 2, 5).toFixed(1)}"/>`,
      );
    }
    parts.push('</g>');
  }
  if (spec.glare > 0) {
    // A bright, soft ellipse over part of the zone: the laminate reflecting a lamp.
    const cx = between(rnd, 0.25, 0.75) * width;
    const cy = between(rnd, 0.75, 0.9) * height;
    parts.push(
      `<defs><radialGradient id="glare"><stop offset="0" stop-color="#fff" stop-opacity="${spec.glare.toFixed(2)}"/>` +
        `<stop offset="0.5" stop-color="#fff" stop-opacity="${(spec.glare * 0.6).toFixed(2)}"/><stop offset="1" stop-color="#fff" stop-opacity="0"/></radialGradient></defs>`,
    );
    parts.push(
      `<ellipse cx="${cx.toFixed(1)}" cy="${cy.toFixed(1)}" rx="${(width * between(rnd, 0.15, 0.3)).toFixed(1)}" ry="${(height * between(rnd, 0.08, 0.15)).toFixed(1)}" fill="url(#glare)"/>`,
    );
  }
  return parts.join('');
}

/** The flat page as RGBA pixels, `width` wide, with its overlays. */
async function pageRaster(
  svg: Buffer,
  spec: PhotoSpec,
  width: number,
  rnd: () => number,
): Promise<{ data: Buffer; width: number; height: number }> {
  const source = svg.toString();
  const w = Number(/width="(\d+)"/.exec(source)![1]);
  const h = Number(/height="(\d+)"/.exec(source)![1]);
  const withOverlays = Buffer.from(source.replace(/<\/svg>$/, `${overlays(spec, w, h, rnd)}</svg>`));
  const { data, info } = await sharp(withOverlays, { density: Math.max(36, (72 * width) / w) })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** Clutter around the document: a textured table, papers with text, coins, a pen, a phone. */
async function scene(spec: PhotoSpec, rnd: () => number): Promise<Buffer> {
  const { width: w, height: h } = spec;
  const tones = [
    [120, 88, 60],
    [70, 70, 78],
    [180, 170, 150],
    [40, 44, 40],
    [150, 120, 100],
  ];
  const [r, g, b] = tones[Math.floor(rnd() * tones.length)]!;
  const parts = [`<rect width="${w}" height="${h}" fill="rgb(${r},${g},${b})"/>`];
  // Wood or fabric grain.
  for (let k = 0; k < 60; k++) {
    const y = between(rnd, 0, h);
    const shade = Math.round(between(rnd, -30, 30));
    parts.push(
      `<path d="M0 ${y.toFixed(0)} Q ${(w / 2).toFixed(0)} ${(y + between(rnd, -40, 40)).toFixed(0)} ${w} ${(y + between(rnd, -20, 20)).toFixed(0)}" stroke="rgb(${r + shade},${g + shade},${b + shade})" stroke-width="${between(rnd, 2, 12).toFixed(0)}" fill="none" opacity="0.6"/>`,
    );
  }
  const unit = Math.min(w, h);
  const words = [
    'RECEIPT',
    'TOTAL 12.40',
    'THANK YOU',
    'CASH',
    'VAT 20%',
    'No. 004512',
    'MILK 1.20',
    'BREAD 2.10',
    'CARD **** 4411',
  ];
  for (let k = 0; k < 3 + Math.floor(rnd() * 4); k++) {
    const x = between(rnd, -0.1, 0.95) * w;
    const y = between(rnd, -0.1, 0.95) * h;
    const angle = between(rnd, -40, 40);
    const what = rnd();
    if (what < 0.35) {
      // A paper with a few printed lines.
      const pw = unit * between(rnd, 0.2, 0.35);
      const lines = Array.from(
        { length: 5 },
        (_, j) =>
          `<text x="${pw * 0.08}" y="${(j + 1.5) * pw * 0.12}" font-family="DejaVu Sans Mono" font-size="${(pw * 0.07).toFixed(1)}" fill="#333">${words[Math.floor(rnd() * words.length)]}</text>`,
      );
      parts.push(
        `<g transform="translate(${x.toFixed(0)} ${y.toFixed(0)}) rotate(${angle.toFixed(1)})"><rect width="${pw.toFixed(0)}" height="${(pw * 0.9).toFixed(0)}" fill="#f4f2ea"/>${lines.join('')}</g>`,
      );
    } else if (what < 0.6) {
      parts.push(
        `<circle cx="${x.toFixed(0)}" cy="${y.toFixed(0)}" r="${(unit * between(rnd, 0.02, 0.04)).toFixed(0)}" fill="#b8a060" stroke="#7a6a30" stroke-width="3"/>`,
      );
    } else if (what < 0.8) {
      parts.push(
        `<g transform="translate(${x.toFixed(0)} ${y.toFixed(0)}) rotate(${angle.toFixed(1)})"><rect width="${(unit * 0.4).toFixed(0)}" height="${(unit * 0.02).toFixed(0)}" rx="6" fill="#1d3c8a"/></g>`,
      );
    } else {
      parts.push(
        `<g transform="translate(${x.toFixed(0)} ${y.toFixed(0)}) rotate(${angle.toFixed(1)})"><rect width="${(unit * 0.2).toFixed(0)}" height="${(unit * 0.4).toFixed(0)}" rx="20" fill="#111"/><rect x="8" y="8" width="${(unit * 0.2 - 16).toFixed(0)}" height="${(unit * 0.4 - 16).toFixed(0)}" rx="14" fill="#27313f"/></g>`,
      );
    }
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">${parts.join('')}</svg>`;
  return sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer();
}

type Point = [number, number];

/**
 * Where the page's corners land in the frame: the page tilted in 3D (tiltX, tiltY), turned
 * (roll), seen through a pinhole camera, scaled to `fill` of the frame's width and centred with a
 * random offset.
 */
function pageCorners(spec: PhotoSpec, pageW: number, pageH: number, rnd: () => number): Point[] {
  const rad = Math.PI / 180;
  const [ax, ay, az] = [spec.tiltX * rad, spec.tiltY * rad, spec.roll * rad];
  const f = 1.6 * Math.max(pageW, pageH);
  const corners: Point[] = [
    [-pageW / 2, -pageH / 2],
    [pageW / 2, -pageH / 2],
    [pageW / 2, pageH / 2],
    [-pageW / 2, pageH / 2],
  ];
  const projected = corners.map(([x, y]): Point => {
    // Tilt about x, then y, then turn about the camera's axis.
    let y1 = y * Math.cos(ax);
    let z1 = y * Math.sin(ax);
    const x2 = x * Math.cos(ay) + z1 * Math.sin(ay);
    z1 = -x * Math.sin(ay) + z1 * Math.cos(ay);
    const x3 = x2 * Math.cos(az) - y1 * Math.sin(az);
    y1 = x2 * Math.sin(az) + y1 * Math.cos(az);
    const s = f / (f + z1);
    return [x3 * s, y1 * s];
  });
  const xs = projected.map((p) => p[0]);
  const ys = projected.map((p) => p[1]);
  const bw = Math.max(...xs) - Math.min(...xs);
  const bh = Math.max(...ys) - Math.min(...ys);
  const scale = Math.min((spec.fill * spec.width) / bw, (0.92 * spec.height) / bh, (0.92 * spec.width) / bw);
  const cx = spec.width / 2 + between(rnd, -0.5, 0.5) * Math.max(0, spec.width - bw * scale) * 0.8;
  const cy = spec.height / 2 + between(rnd, -0.5, 0.5) * Math.max(0, spec.height - bh * scale) * 0.8;
  const mx = (Math.max(...xs) + Math.min(...xs)) / 2;
  const my = (Math.max(...ys) + Math.min(...ys)) / 2;
  return projected.map(([x, y]): Point => [cx + (x - mx) * scale, cy + (y - my) * scale]);
}

/** Gaussian noise from a seeded uniform source (sum of uniforms). */
const gauss = (rnd: () => number) => rnd() + rnd() + rnd() - 1.5;

/**
 * The page composed into the scene: each frame pixel inside the page's quadrilateral samples the
 * page (bilinear) where the inverse homography puts it, its lines bowed by `bow`; then light and
 * noise over the whole frame.
 */
function compose(
  spec: PhotoSpec,
  sceneRgb: Buffer,
  page: { data: Buffer; width: number; height: number },
  corners: Point[],
  rnd: () => number,
): Buffer {
  const { width: W, height: H } = spec;
  const { width: pw, height: ph, data: pd } = page;
  const m = homography(corners, [
    [0, 0],
    [pw, 0],
    [pw, ph],
    [0, ph],
  ]);
  const out = sceneRgb;
  const x0 = Math.max(0, Math.floor(Math.min(...corners.map((c) => c[0]))));
  const x1 = Math.min(W - 1, Math.ceil(Math.max(...corners.map((c) => c[0]))));
  const y0 = Math.max(0, Math.floor(Math.min(...corners.map((c) => c[1]))));
  const y1 = Math.min(H - 1, Math.ceil(Math.max(...corners.map((c) => c[1]))));
  const bow = spec.bow * ph;
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const z = m[6]! * x + m[7]! * y + 1;
      let u = (m[0]! * x + m[1]! * y + m[2]!) / z;
      let v = (m[3]! * x + m[4]! * y + m[5]!) / z;
      if (u < 0 || v < 0 || u >= pw - 1 || v >= ph - 1) continue;
      // Bowed page: lines arc (most in the middle) and the page's ends are foreshortened.
      const t = u / pw;
      v -= bow * 4 * t * (1 - t);
      u += bow * 0.5 * Math.sin(2 * Math.PI * t);
      if (u < 0 || v < 0 || u >= pw - 1 || v >= ph - 1) continue;
      const ix = Math.floor(u);
      const iy = Math.floor(v);
      const fx = u - ix;
      const fy = v - iy;
      const o = (y * W + x) * 3;
      const p = (iy * pw + ix) * 4;
      const at = (k: number, c: number) => pd[p + k + c]!;
      const row = pw * 4;
      const sample = (c: number) =>
        at(0, c) * (1 - fx) * (1 - fy) +
        at(4, c) * fx * (1 - fy) +
        at(row, c) * (1 - fx) * fy +
        at(row + 4, c) * fx * fy;
      const alpha = sample(3) / 255;
      for (let c = 0; c < 3; c++) out[o + c] = Math.round(sample(c) * alpha + out[o + c]! * (1 - alpha));
    }
  }
  // Light falling off from one side, a vignette, and sensor noise.
  const gx = between(rnd, -0.25, 0.25);
  const gy = between(rnd, -0.25, 0.25);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const dx = x / W - 0.5;
      const dy = y / H - 0.5;
      const gain = spec.light * (1 + gx * dx * 2 + gy * dy * 2) * (1 - 0.35 * (dx * dx + dy * dy));
      const o = (y * W + x) * 3;
      const n = gauss(rnd) * 2 * spec.noise;
      for (let c = 0; c < 3; c++)
        out[o + c] = Math.max(0, Math.min(255, out[o + c]! * gain + n + gauss(rnd) * spec.noise * 0.6));
    }
  }
  return out;
}

/** A line kernel `length` pixels long at `angle` degrees: motion blur. */
function motionKernel(length: number, angle: number): { width: number; height: number; kernel: number[] } {
  const size = length % 2 === 0 ? length + 1 : length;
  const kernel = new Array<number>(size * size).fill(0);
  const c = (size - 1) / 2;
  const rad = (angle * Math.PI) / 180;
  for (let k = -c; k <= c; k += 0.25) {
    const x = Math.round(c + k * Math.cos(rad));
    const y = Math.round(c + k * Math.sin(rad));
    kernel[y * size + x] = 1;
  }
  return { width: size, height: size, kernel };
}

async function photographPage(svg: Buffer, spec: PhotoSpec, salt: number): Promise<Buffer> {
  const rnd = random(spec.seed * 7 + salt);
  const target = spec.fill * spec.width;
  const page = await pageRaster(svg, spec, target * 1.2, rnd);
  const corners = pageCorners(spec, page.width, page.height, rnd);
  const rgb = compose(spec, await scene(spec, rnd), page, corners, rnd);
  let image = sharp(rgb, { raw: { width: spec.width, height: spec.height, channels: 3 } });
  if (spec.motion > 1)
    image = sharp(
      await image
        .convolve(motionKernel(spec.motion, between(rnd, 0, 180)))
        .raw()
        .toBuffer(),
      { raw: { width: spec.width, height: spec.height, channels: 3 } },
    );
  return image.jpeg({ quality: spec.jpegQuality }).toBuffer();
}

/** The document of `spec` photographed: its front (and a TD1 card's back, photographed the same way). */
export async function photographDocument(spec: PhotoSpec): Promise<DocumentPhoto> {
  const pages = documentPages(spec.document);
  const front = await photographPage(pages.front, spec, 1);
  const back = pages.back ? await photographPage(pages.back, spec, 2) : undefined;
  return { spec, front, ...(back ? { back } : {}), truth: pages.truth };
}

// Run alone to write the set and its truth to a folder:
//   node --import @swc-node/register/esm-register test/helpers/document-photos.ts OUT_DIR [COUNT]
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\/test\//, '/test/'))) {
  const { mkdir, writeFile } = await import('node:fs/promises');
  const dir = process.argv[2] ?? 'document-photos';
  const count = Number(process.argv[3] ?? PHOTO_KINDS.length * PHOTO_LAYOUTS.length);
  await mkdir(dir, { recursive: true });
  for (const spec of photoSpecs(count)) {
    const photo = await photographDocument(spec);
    await writeFile(`${dir}/${spec.name}.jpg`, photo.front);
    if (photo.back) await writeFile(`${dir}/${spec.name}-back.jpg`, photo.back);
    await writeFile(`${dir}/${spec.name}.json`, JSON.stringify({ spec, truth: photo.truth }, null, 2));
    console.log(`${spec.name}: ${spec.width}x${spec.height}, ${Math.round(photo.front.length / 1024)} KB`);
  }
}
