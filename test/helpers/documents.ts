import sharp from 'sharp';
import { checkDigit } from '../../src/ml/document/mrz-format.js';
import { buildReading } from '../../src/ml/document/mrz.js';
import { LAYOUTS } from '../../src/ml/document/mrz-format.js';

// Synthetic ID documents rendered in memory (SVG through librsvg, DejaVu fonts): TD3 passport
// page, TD1 card front + back, TD2 card; with rotation, skew, blur and JPEG noise. The MRZ is
// built from the field values with ICAO check digits computed here, so the truth is exact.

export type RenderLayout = 'TD3' | 'TD1' | 'TD2' | 'MRVA' | 'MRVB';
export type RenderFont = 'sans' | 'serif' | 'condensed';
/** The MRZ's typeface: a monospace face standing in for OCR-B, its weight and extra spacing (em per character). */
export interface MrzFont {
  family: string;
  bold?: boolean;
  spacing?: number;
}

export interface DocumentSpec {
  name: string;
  layout: RenderLayout;
  font: RenderFont;
  rotation: 0 | 90 | 180 | 270;
  /** Small clockwise skew in degrees, applied after the rotation. */
  skew: number;
  blur: number;
  /** JPEG quality; null keeps PNG. */
  jpegQuality: number | null;
  seed: number;
  /** Print a wrong check digit (one OCR correction cannot explain). */
  wrongCheckDigit?: boolean;
  expired?: boolean;
  fathersName?: boolean;
  /** A photo to print as the portrait (JPEG or PNG bytes); default a grey silhouette. */
  portraitImage?: Buffer;
  /**
   * Photographed at an angle: the page's far (top) edge is this share narrower than its near
   * edge and the page is foreshortened by half as much (0 = straight above; 0.25 is a strong tilt).
   */
  perspective?: number;
  /**
   * The document number to print instead of a generated one (longer than nine characters on TD1/TD2: ICAO's long-number
   * rule).
   */
  documentNumber?: string;
  /**
   * MRZ characters printed other than the truth (as an OCR confusion would read them): line, 0-based position,
   * character.
   */
  misprint?: Array<{ line: number; index: number; char: string }>;
  /** The MRZ typeface; default DejaVu Sans Mono. */
  mrzFont?: MrzFont;
  /**
   * MRZ character cells covered by an opaque patch (a damaged or stickered zone): line, first and last position
   * (inclusive).
   */
  damage?: Array<{ line: number; from: number; to: number }>;
}

export interface RenderedTruth {
  format: RenderLayout;
  mrzLines: string[];
  documentCode: string;
  issuingState: string;
  documentNumber: string;
  nationality: string;
  surname: string;
  givenNames: string;
  /** YYYY-MM-DD */
  birthDate: string;
  issueDate: string;
  expirationDate: string;
  sex: 'M' | 'F';
  fathersName: string | null;
  /** Which check digit was printed wrong, if any. */
  brokenCheck: string | null;
  expired: boolean;
}

export interface RenderedDocument {
  /** The image that carries the portrait and visual zone (front); for TD3/TD2 also the MRZ. */
  bytes: Buffer;
  /** TD1 cards: the back, with the MRZ. */
  back?: Buffer;
  truth: RenderedTruth;
}

export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SURNAMES = [
  'ERIKSSON',
  'MUSTERMANN',
  'KOWALSKA',
  'NOVAK',
  'OKAFOR',
  'SILVA',
  'TANAKA',
  'MARTIN',
  'HANSEN',
  'ROSSI',
  'DUBOIS',
  'PETROV',
  'VAN DER BERG',
  'GARCIA LOPEZ',
];
const GIVEN = [
  'ANNA MARIA',
  'ERIKA',
  'JOHN',
  'LEE',
  'SARAH',
  'KENJI',
  'AMINA',
  'LUCAS',
  'SOFIA',
  'OMAR',
  'JEAN PIERRE',
  'MEI',
];
const FATHERS = ['HENRIK', 'JOSEF', 'MARCO', 'AHMED', 'PAUL', 'IVAN'];
const STATES = ['UTO', 'NLD', 'FRA', 'CAN', 'GBR', 'ESP', 'SWE', 'POL'];
const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const FONTS: Record<RenderFont, string> = {
  sans: 'DejaVu Sans',
  serif: 'DejaVu Serif',
  condensed: 'DejaVu Sans Condensed',
};
const ALNUM = 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789';

const pick = <T>(rnd: () => number, list: T[]): T => list[Math.floor(rnd() * list.length)]!;
const pad = (n: number) => String(n).padStart(2, '0');
const isoDate = (y: number, m: number, d: number) => `${y}-${pad(m)}-${pad(d)}`;
const yymmdd = (iso: string) => iso.slice(2).replace(/-/g, '');
const printed = (iso: string) => `${iso.slice(8, 10)} ${MONTHS[Number(iso.slice(5, 7)) - 1]} ${iso.slice(0, 4)}`;
const mrzName = (s: string) => s.replace(/ /g, '<');
const fill = (s: string, n: number) => (s + '<'.repeat(n)).slice(0, n);
const escapeXml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/'/g, '&apos;');

/**
 * The number's characters as ICAO 9303 prints them: up to nine in the number field with their
 * check digit; a longer one (TD1, TD2) has a filler for that digit and continues in the optional
 * data, followed by its check digit (over the whole number) and a filler.
 */
function numberFields(number: string): { head: string; optionalHead: string } {
  if (number.length <= 9) return { head: fill(number, 9) + checkDigit(fill(number, 9)), optionalHead: '' };
  return { head: `${number.slice(0, 9)}<`, optionalHead: `${number.slice(9)}${checkDigit(number)}<` };
}

export function mrzLinesFor(
  layout: RenderLayout,
  t: Omit<RenderedTruth, 'mrzLines' | 'brokenCheck' | 'format' | 'expired' | 'issueDate' | 'fathersName'>,
): string[] {
  const birth = yymmdd(t.birthDate);
  const expiry = yymmdd(t.expirationDate);
  const names = `${mrzName(t.surname)}<<${mrzName(t.givenNames)}`;
  const { head, optionalHead } = numberFields(t.documentNumber);
  if (optionalHead && layout !== 'TD1' && layout !== 'TD2') throw new Error(`${layout} has no long document numbers`);
  if (layout === 'TD1') {
    const l1 = fill(`${fill(t.documentCode, 2)}${t.issuingState}${head}${optionalHead}`, 30);
    const l2head = `${birth}${checkDigit(birth)}${t.sex}${expiry}${checkDigit(expiry)}${t.nationality}`;
    const l2body = fill(l2head, 29);
    const composite = checkDigit(l1.slice(5, 30) + l2body.slice(0, 7) + l2body.slice(8, 15) + l2body.slice(18, 29));
    return [l1, l2body + composite, fill(names, 30)];
  }
  const length = layout === 'TD3' || layout === 'MRVA' ? 44 : 36;
  const l1 = fill(`${fill(t.documentCode, 2)}${t.issuingState}${names}`, length);
  let l2 = `${head}${t.nationality}${birth}${checkDigit(birth)}${t.sex}${expiry}${checkDigit(expiry)}`;
  if (layout === 'TD3') {
    const personal = '<'.repeat(14);
    l2 += personal + checkDigit(personal);
    l2 += checkDigit(l2.slice(0, 10) + l2.slice(13, 20) + l2.slice(21, 43));
  } else if (layout === 'TD2') {
    l2 = fill(l2 + optionalHead, 35);
    l2 += checkDigit(l2.slice(0, 10) + l2.slice(13, 20) + l2.slice(21, 35));
  } else {
    // Visas: optional data to the end, no composite.
    l2 = fill(l2, length);
  }
  return [l1, l2];
}

/** Replaces the document-number check digit with a wrong one that no look-alike repair explains. */
function breakCheckDigit(lines: string[], layout: RenderLayout): string[] {
  const at = layout === 'TD1' ? { line: 0, index: 14 } : { line: 1, index: 9 };
  if (lines[at.line]![at.index] === '<') throw new Error('a long document number has its check digit elsewhere');
  const correct = lines[at.line]![at.index]!;
  for (const digit of '0123456789') {
    if (digit === correct) continue;
    const copy = lines.slice();
    copy[at.line] = copy[at.line]!.slice(0, at.index) + digit + copy[at.line]!.slice(at.index + 1);
    const reading = buildReading(copy, LAYOUTS[layout]);
    if (!reading.checkDigits.document_number) return copy;
  }
  throw new Error('no unrepairable wrong check digit');
}

function makeTruth(spec: DocumentSpec): RenderedTruth {
  const rnd = random(spec.seed);
  const state = pick(rnd, STATES);
  const birthYear = 1950 + Math.floor(rnd() * 55);
  const birthDate = isoDate(birthYear, 1 + Math.floor(rnd() * 12), 1 + Math.floor(rnd() * 28));
  const expiryYear = spec.expired ? 2016 + Math.floor(rnd() * 7) : 2027 + Math.floor(rnd() * 8);
  const expirationDate = isoDate(expiryYear, 1 + Math.floor(rnd() * 12), 1 + Math.floor(rnd() * 28));
  const issueDate = `${expiryYear - 10}${expirationDate.slice(4)}`;
  // Like real ones: one or two letters, then digits, sometimes one more letter inside.
  const numberLength = 8 + Math.floor(rnd() * 2);
  let documentNumber = pick(rnd, ['L', 'X', 'P', 'C', 'N', 'AB', 'ZE', 'PA']);
  while (documentNumber.length < numberLength) documentNumber += String(Math.floor(rnd() * 10));
  if (rnd() < 0.3) {
    const at = 3 + Math.floor(rnd() * (numberLength - 4));
    documentNumber = documentNumber.slice(0, at) + pick(rnd, [...ALNUM.slice(0, 23)]) + documentNumber.slice(at + 1);
  }
  const base = {
    documentCode: spec.layout === 'TD3' ? 'P' : spec.layout === 'TD1' ? 'ID' : spec.layout === 'TD2' ? 'I' : 'V',
    issuingState: state,
    documentNumber: spec.documentNumber ?? documentNumber,
    nationality: rnd() < 0.8 ? state : pick(rnd, STATES),
    surname: pick(rnd, SURNAMES),
    givenNames: pick(rnd, GIVEN),
    birthDate,
    expirationDate,
    sex: (rnd() < 0.5 ? 'F' : 'M') as 'M' | 'F',
  };
  let mrzLines = mrzLinesFor(spec.layout, base);
  if (spec.wrongCheckDigit) mrzLines = breakCheckDigit(mrzLines, spec.layout);
  return {
    ...base,
    format: spec.layout,
    mrzLines,
    issueDate,
    fathersName: spec.fathersName ? pick(rnd, FATHERS) : null,
    brokenCheck: spec.wrongCheckDigit ? 'document_number' : null,
    expired: !!spec.expired,
  };
}

interface Canvas {
  width: number;
  height: number;
  parts: string[];
}

function text(c: Canvas, x: number, y: number, size: number, family: string, value: string, extra = ''): void {
  c.parts.push(
    `<text x="${x}" y="${y}" font-family="${family}" font-size="${size}" ${extra}>${escapeXml(value)}</text>`,
  );
}

function field(c: Canvas, x: number, y: number, label: string, value: string, family: string, scale = 1): void {
  text(c, x, y, 15 * scale, family, label, 'fill="#35507a"');
  text(c, x, y + 28 * scale, 24 * scale, family, value, 'fill="#111" font-weight="bold"');
}

function background(c: Canvas, tint: string): void {
  c.parts.push(`<rect width="${c.width}" height="${c.height}" rx="24" fill="${tint}"/>`);
  for (let y = 20; y < c.height; y += 26)
    c.parts.push(
      `<path d="M0 ${y} Q ${c.width / 2} ${y + 14} ${c.width} ${y}" stroke="#dde4ee" stroke-width="1" fill="none"/>`,
    );
}

function portrait(c: Canvas, x: number, y: number, w: number, h: number, photo?: Buffer): void {
  if (photo) {
    const type = photo[0] === 0x89 ? 'png' : 'jpeg';
    c.parts.push(
      `<image x="${x}" y="${y}" width="${w}" height="${h}" preserveAspectRatio="xMidYMid slice" href="data:image/${type};base64,${photo.toString('base64')}"/>`,
    );
    return;
  }
  c.parts.push(`<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="#c9ced6"/>`);
  c.parts.push(`<ellipse cx="${x + w / 2}" cy="${y + h * 0.4}" rx="${w * 0.28}" ry="${h * 0.24}" fill="#9aa2ad"/>`);
  c.parts.push(`<ellipse cx="${x + w / 2}" cy="${y + h * 0.95}" rx="${w * 0.45}" ry="${h * 0.3}" fill="#9aa2ad"/>`);
}

/** The MRZ as printed: the truth's lines with the spec's misprints. */
function printedMrz(lines: string[], misprint: DocumentSpec['misprint'] = []): string[] {
  const out = lines.slice();
  for (const { line, index, char } of misprint)
    out[line] = out[line]!.slice(0, index) + char + out[line]!.slice(index + 1);
  return out;
}

function mrzBlock(
  c: Canvas,
  lines: string[],
  bottomMargin: number,
  damage: DocumentSpec['damage'] = [],
  font: MrzFont = { family: 'DejaVu Sans Mono' },
): void {
  const n = lines[0]!.length;
  // DejaVu Sans Mono and Liberation Mono advance about 0.6 em per character, plus the spacing.
  const advance = 0.602 + (font.spacing ?? 0);
  const size = Math.floor((c.width - 70) / (n * advance));
  const lineGap = size * 1.35;
  const y0 = c.height - bottomMargin - lineGap * (lines.length - 1);
  const style = `fill="#000"${font.bold ? ' font-weight="bold"' : ''}${font.spacing ? ` letter-spacing="${(font.spacing * size).toFixed(2)}"` : ''}`;
  for (const [i, line] of lines.entries()) text(c, 35, y0 + i * lineGap, size, font.family, line, style);
  // A patch over the cells, as a sticker or a worn-off laminate would.
  const pitch = size * advance;
  for (const { line, from, to } of damage)
    c.parts.push(
      `<rect x="${35 + from * pitch - 2}" y="${y0 + line * lineGap - size * 0.95}" width="${(to - from + 1) * pitch + 4}" height="${size * 1.25}" fill="#eceae4"/>`,
    );
}

function svg(c: Canvas): Buffer {
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${c.width}" height="${c.height}">${c.parts.join('')}</svg>`,
  );
}

function frontPage(spec: DocumentSpec, t: RenderedTruth, withMrz: boolean): Buffer {
  const family = FONTS[spec.font];
  const card = spec.layout === 'TD1';
  const c: Canvas = { width: card ? 856 : 1000, height: card ? 540 : 704, parts: [] };
  background(c, card ? '#eef3ea' : '#f3efe6');
  const title =
    spec.layout === 'TD3' ? 'PASSPORT' : spec.layout === 'MRVA' || spec.layout === 'MRVB' ? 'VISA' : 'IDENTITY CARD';
  text(c, 35, 50, 30, family, title, 'fill="#35507a" font-weight="bold"');
  text(c, c.width - 300, 50, 20, family, `STATE ${t.issuingState}`, 'fill="#35507a"');
  portrait(c, 35, 80, card ? 200 : 240, card ? 260 : 300, spec.portraitImage);
  const x = card ? 265 : 310;
  const s = card ? 0.85 : 1;
  const step = card ? 50 : 56;
  let y = card ? 95 : 100;
  const put = (label: string, value: string) => {
    field(c, x, y, label, value, family, s);
    y += step;
  };
  put(
    spec.layout === 'TD3'
      ? 'Passport No.'
      : spec.layout === 'MRVA' || spec.layout === 'MRVB'
        ? 'Visa No.'
        : 'Document No.',
    t.documentNumber,
  );
  put('Surname', t.surname);
  put('Given names', t.givenNames);
  if (t.fathersName) put("Father's name", t.fathersName);
  field(c, x, y, 'Date of birth', printed(t.birthDate), family, s);
  field(c, x + 280 * s, y, 'Sex', t.sex, family, s);
  y += step;
  field(c, x, y, 'Date of issue', printed(t.issueDate), family, s);
  field(c, x + 280 * s, y, 'Nationality', t.nationality, family, s);
  y += step;
  put('Date of expiry', printed(t.expirationDate));
  if (withMrz) mrzBlock(c, printedMrz(t.mrzLines, spec.misprint), 40, spec.damage, spec.mrzFont);
  return svg(c);
}

function cardBack(spec: DocumentSpec, t: RenderedTruth): Buffer {
  const c: Canvas = { width: 856, height: 540, parts: [] };
  background(c, '#eef3ea');
  text(c, 35, 60, 18, 'DejaVu Sans', 'Authority: CIVIL REGISTRY', 'fill="#35507a"');
  text(c, 35, 90, 18, 'DejaVu Sans', `Date of issue: ${printed(t.issueDate)}`, 'fill="#35507a"');
  mrzBlock(c, printedMrz(t.mrzLines, spec.misprint), 45, spec.damage, spec.mrzFont);
  return svg(c);
}

/**
 * The homography taking the four points `from` to the four points `to` (corners in the same
 * order), as the 8 coefficients of [a b c; d e f; g h 1], solved by Gaussian elimination.
 */
export function homography(from: Array<[number, number]>, to: Array<[number, number]>): number[] {
  const rows: number[][] = [];
  for (let i = 0; i < 4; i++) {
    const [x, y] = from[i]!;
    const [u, v] = to[i]!;
    rows.push([x, y, 1, 0, 0, 0, -u * x, -u * y, u]);
    rows.push([0, 0, 0, x, y, 1, -v * x, -v * y, v]);
  }
  for (let c = 0; c < 8; c++) {
    const pivot = rows.slice(c).reduce((best, r, k) => (Math.abs(r[c]!) > Math.abs(rows[best]![c]!) ? c + k : best), c);
    [rows[c], rows[pivot]] = [rows[pivot]!, rows[c]!];
    for (let r = 0; r < 8; r++) {
      if (r === c) continue;
      const f = rows[r]![c]! / rows[c]![c]!;
      for (let k = c; k < 9; k++) rows[r]![k]! -= f * rows[c]![k]!;
    }
  }
  return rows.map((r, c) => r[8]! / r[c]!);
}

/** The photo seen at an angle: each output pixel sampled (bilinear) where the inverse homography puts it. */
async function tilted(png: Buffer, amount: number, table: { r: number; g: number; b: number }): Promise<Buffer> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  const { width: w, height: h, channels } = info;
  const inset = (amount * w) / 2;
  const drop = (amount / 2) * h;
  // Output corners (top-left, top-right, bottom-right, bottom-left) back to the flat page's corners.
  const m = homography(
    [
      [inset, drop],
      [w - inset, drop],
      [w, h],
      [0, h],
    ],
    [
      [0, 0],
      [w, 0],
      [w, h],
      [0, h],
    ],
  );
  const out = Buffer.alloc(w * h * channels);
  const fill = [table.r, table.g, table.b];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const z = m[6]! * x + m[7]! * y + 1;
      const sx = (m[0]! * x + m[1]! * y + m[2]!) / z;
      const sy = (m[3]! * x + m[4]! * y + m[5]!) / z;
      const o = (y * w + x) * channels;
      if (sx < 0 || sy < 0 || sx >= w - 1 || sy >= h - 1) {
        for (let c = 0; c < channels; c++) out[o + c] = fill[c] ?? 255;
        continue;
      }
      const x0 = Math.floor(sx);
      const y0 = Math.floor(sy);
      const fx = sx - x0;
      const fy = sy - y0;
      for (let c = 0; c < channels; c++) {
        const at = (xx: number, yy: number) => data[(yy * w + xx) * channels + c]!;
        out[o + c] = Math.round(
          at(x0, y0) * (1 - fx) * (1 - fy) +
            at(x0 + 1, y0) * fx * (1 - fy) +
            at(x0, y0 + 1) * (1 - fx) * fy +
            at(x0 + 1, y0 + 1) * fx * fy,
        );
      }
    }
  }
  return sharp(out, { raw: { width: w, height: h, channels } })
    .png()
    .toBuffer();
}

/** Puts the page on a table, rotates, skews, blurs and encodes it like a phone picture. */
async function photograph(page: Buffer, spec: DocumentSpec): Promise<Buffer> {
  const table = { r: 92, g: 84, b: 74 };
  let image = sharp(await sharp(page).png().toBuffer()).extend({
    top: 40,
    bottom: 40,
    left: 40,
    right: 40,
    background: table,
  });
  if (spec.perspective)
    image = sharp(await tilted(await image.removeAlpha().png().toBuffer(), spec.perspective, table));
  if (spec.rotation) image = sharp(await image.png().toBuffer()).rotate(spec.rotation);
  if (spec.skew) image = sharp(await image.png().toBuffer()).rotate(spec.skew, { background: table });
  if (spec.blur > 0) image = image.blur(spec.blur);
  image = image.removeAlpha();
  return spec.jpegQuality ? image.jpeg({ quality: spec.jpegQuality }).toBuffer() : image.png().toBuffer();
}

/** The flat pages as SVG (the front, and a TD1 card's back with its MRZ) and their truth, before any photograph. */
export function documentPages(spec: DocumentSpec): { front: Buffer; back?: Buffer; truth: RenderedTruth } {
  const truth = makeTruth(spec);
  if (spec.layout === 'TD1') return { front: frontPage(spec, truth, false), back: cardBack(spec, truth), truth };
  return { front: frontPage(spec, truth, true), truth };
}

export async function renderDocument(spec: DocumentSpec): Promise<RenderedDocument> {
  const truth = makeTruth(spec);
  if (spec.layout === 'TD1') {
    return {
      bytes: await photograph(frontPage(spec, truth, false), spec),
      back: await photograph(cardBack(spec, truth), spec),
      truth,
    };
  }
  return { bytes: await photograph(frontPage(spec, truth, true), spec), truth };
}

/** An image with no document: soft shapes and a little non-MRZ text. */
export async function renderNonDocument(): Promise<Buffer> {
  const c: Canvas = { width: 900, height: 600, parts: [] };
  c.parts.push(
    '<rect width="900" height="600" fill="#7fa7c9"/><circle cx="300" cy="260" r="160" fill="#e8c170"/><rect x="500" y="300" width="300" height="200" fill="#4a6b3a"/>',
  );
  text(c, 80, 560, 28, 'DejaVu Serif', 'Summer afternoon by the lake', 'fill="#fff"');
  return sharp(svg(c)).jpeg({ quality: 85 }).toBuffer();
}

/** A varied, reproducible list of specs for evaluation: layouts, fonts, rotations, noise. */
export function renderSpecs(count: number): DocumentSpec[] {
  const layouts: RenderLayout[] = ['TD3', 'TD1', 'TD2'];
  const fonts: RenderFont[] = ['sans', 'serif', 'condensed'];
  const rotations: Array<0 | 90 | 180 | 270> = [0, 0, 0, 90, 180, 270];
  const specs: DocumentSpec[] = [];
  for (let i = 0; i < count; i++) {
    const rnd = random(1000 + i);
    const layout = layouts[i % layouts.length]!;
    const rotation = rotations[Math.floor(rnd() * rotations.length)]!;
    const skew = rnd() < 0.4 ? Math.round((rnd() * 16 - 8) * 10) / 10 : 0;
    const blur = rnd() < 0.3 ? 0.6 + rnd() * 0.8 : 0;
    const jpegQuality = rnd() < 0.6 ? 45 + Math.floor(rnd() * 45) : null;
    const font = fonts[Math.floor(i / 3) % 3]!;
    const spec: DocumentSpec = {
      name: `${layout}-${i}-${font}-r${rotation}${skew ? `-s${skew}` : ''}${blur ? '-blur' : ''}${jpegQuality ? `-q${jpegQuality}` : ''}`,
      layout,
      font,
      rotation,
      skew,
      blur: Math.round(blur * 10) / 10,
      jpegQuality,
      seed: 5000 + i,
      wrongCheckDigit: i % 11 === 7,
      expired: i % 7 === 3,
      fathersName: i % 4 === 1,
    };
    specs.push(spec);
  }
  return specs;
}
