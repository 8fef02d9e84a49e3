// A test set of our own for AAMVA licences: fictional holders, their AAMVA DL/ID file (versions 1
// to 10, US and Canadian date orders) encoded in a PDF417 with bwip-js, printed on card-like
// fronts and backs, then photographed synthetically (table, perspective, rotation, blur, glare,
// JPEG). Nothing here is a real person or a real card.
//
//   node --import @swc-node/register/esm-register scripts/aamva-set.ts [--count 24] [--out aamva-set]
//
// writes front/back JPEGs and truth.json into --out; eval-documents and the tests call the
// functions directly instead.

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import bwipjs from 'bwip-js/node';
import sharp from 'sharp';
import { random } from '../test/helpers/documents.js';

export interface Holder {
  familyName: string;
  givenNames: string;
  middleName: string;
  number: string;
  /** YYYY-MM-DD */
  birthDate: string;
  issueDate: string;
  expiryDate: string;
  sex: 'M' | 'F';
  street: string;
  city: string;
  jurisdiction: string;
  postalCode: string;
  country: 'USA' | 'CAN';
  iin: string;
  version: number;
  type: 'DL' | 'ID';
}

export interface Photography {
  /** Quarter turns of the whole photo. */
  rotation: 0 | 90 | 180 | 270;
  /** Small in-plane tilt, degrees. */
  tilt: number;
  /** How far the far edge shrinks (0 none, 0.1 a tenth): the card is held at an angle to the camera. */
  perspective: number;
  blur: number;
  glare: boolean;
  jpegQuality: number;
  /** Card width as a share of the photo width. */
  fill: number;
}

export interface LicenceSample {
  name: string;
  holder: Holder;
  photography: Photography;
  /** The AAMVA text in the barcode. */
  payload: string;
  front: Buffer;
  back: Buffer;
}

const JURISDICTIONS: Array<{
  code: string;
  name: string;
  iin: string;
  country: 'USA' | 'CAN';
  cities: string[];
  postal: (r: () => number) => string;
}> = [
  {
    code: 'CA',
    name: 'CALIFORNIA',
    iin: '636014',
    country: 'USA',
    cities: ['SACRAMENTO', 'FRESNO', 'OAKLAND'],
    postal: (r) => `9${digits(r, 4)}-${digits(r, 4)}`,
  },
  {
    code: 'NY',
    name: 'NEW YORK',
    iin: '636001',
    country: 'USA',
    cities: ['ALBANY', 'BUFFALO', 'ITHACA'],
    postal: (r) => `1${digits(r, 4)}`,
  },
  {
    code: 'TX',
    name: 'TEXAS',
    iin: '636015',
    country: 'USA',
    cities: ['AUSTIN', 'EL PASO', 'WACO'],
    postal: (r) => `7${digits(r, 4)}`,
  },
  {
    code: 'FL',
    name: 'FLORIDA',
    iin: '636010',
    country: 'USA',
    cities: ['TAMPA', 'OCALA', 'NAPLES'],
    postal: (r) => `3${digits(r, 4)}`,
  },
  {
    code: 'ON',
    name: 'ONTARIO',
    iin: '636012',
    country: 'CAN',
    cities: ['OTTAWA', 'TORONTO', 'LONDON'],
    postal: (r) => `K${digits(r, 1)}A ${digits(r, 1)}B${digits(r, 1)}`,
  },
  {
    code: 'BC',
    name: 'BRITISH COLUMBIA',
    iin: '636028',
    country: 'CAN',
    cities: ['VICTORIA', 'KELOWNA', 'SURREY'],
    postal: (r) => `V${digits(r, 1)}C ${digits(r, 1)}T${digits(r, 1)}`,
  },
];
const FAMILY = [
  'SAMPLE',
  'SPECIMEN',
  'EXAMPLE',
  'DOE',
  'TESTER',
  'FICTION',
  "O'NEIL-TEST",
  'QUINTERO',
  'NGUYEN-SAMPLE',
  'LAROCHE',
];
const GIVEN = ['ALEX', 'JORDAN', 'CASEY', 'MORGAN', 'TAYLOR', 'RILEY', 'JAMIE', 'AVERY', 'SAM', 'DREW'];
const MIDDLE = ['LEE', 'MARIE', 'JAMES', 'ANN', '', 'RAY'];
const STREETS = ['MAIN ST', 'OAK AVE', 'ELM DR', 'PINE RD', 'LAKESHORE BLVD', 'RUE PRINCIPALE'];

const pick = <T>(r: () => number, list: T[]): T => list[Math.floor(r() * list.length)]!;
const digits = (r: () => number, n: number) => Array.from({ length: n }, () => Math.floor(r() * 10)).join('');
const pad = (n: number) => String(n).padStart(2, '0');
const date = (y: number, m: number, d: number) => `${y}-${pad(m)}-${pad(d)}`;

export function makeHolder(seed: number, overrides: Partial<Holder> = {}): Holder {
  const r = random(seed);
  const j = pick(r, JURISDICTIONS);
  const birthYear = 1950 + Math.floor(r() * 55);
  const issueYear = 2022 + Math.floor(r() * 4);
  const month = 1 + Math.floor(r() * 12);
  const day = 1 + Math.floor(r() * 28);
  const numberStyle = r();
  const number =
    numberStyle < 0.4
      ? `${String.fromCharCode(65 + Math.floor(r() * 26))}${digits(r, 7)}`
      : numberStyle < 0.7
        ? digits(r, 9)
        : `${String.fromCharCode(65 + Math.floor(r() * 26))}${digits(r, 4)}-${digits(r, 5)}-${digits(r, 5)}`;
  return {
    familyName: pick(r, FAMILY),
    givenNames: pick(r, GIVEN),
    middleName: pick(r, MIDDLE),
    number,
    birthDate: date(birthYear, 1 + Math.floor(r() * 12), 1 + Math.floor(r() * 28)),
    issueDate: date(issueYear, month, day),
    expiryDate: date(issueYear + 5 + Math.floor(r() * 4), month, day),
    sex: r() < 0.5 ? 'F' : 'M',
    street: `${1 + Math.floor(r() * 9800)} ${pick(r, STREETS)}`,
    city: pick(r, j.cities),
    jurisdiction: j.code,
    postalCode: j.postal(r),
    country: j.country,
    iin: j.iin,
    version: 1 + Math.floor(r() * 10),
    type: r() < 0.8 ? 'DL' : 'ID',
    ...overrides,
  };
}

/** A date as the holder's issuer writes it: CCYYMMDD in Canada and in version 1, MMDDCCYY in the US. */
function aamvaDate(iso: string, h: Holder): string {
  const [y, m, d] = iso.split('-');
  return h.country === 'CAN' || h.version === 1 ? `${y}${m}${d}` : `${m}${d}${y}`;
}

/** The data elements of the DL/ID subfile, as each version names them. */
function elementsFor(h: Holder): Array<[string, string]> {
  const names: Array<[string, string]> =
    h.version === 1
      ? [['DAA', [h.familyName, h.givenNames, h.middleName].filter(Boolean).join(',')]]
      : h.version <= 3
        ? [
            ['DCS', h.familyName],
            ['DCT', [h.givenNames, h.middleName].filter(Boolean).join(',')],
          ]
        : [
            ['DCS', h.familyName],
            ['DAC', h.givenNames],
            ['DAD', h.middleName || 'NONE'],
          ];
  const sex = h.version === 1 ? h.sex : h.sex === 'M' ? '1' : '2';
  // US ZIP codes are written without the dash and padded with zeros, Canadian ones with spaces.
  const postal = h.country === 'USA' ? h.postalCode.replace('-', '').padEnd(11, '0') : h.postalCode.padEnd(11, ' ');
  return [
    ['DAQ', h.number],
    ...names,
    ['DBD', aamvaDate(h.issueDate, h)],
    ['DBB', aamvaDate(h.birthDate, h)],
    ['DBA', aamvaDate(h.expiryDate, h)],
    ['DBC', sex],
    ['DAY', 'BRO'],
    ['DAU', '070 IN'],
    ['DAG', h.street],
    ['DAI', h.city],
    ['DAJ', h.jurisdiction],
    ['DAK', postal],
    ...(h.version >= 2 ? ([['DCG', h.country]] as Array<[string, string]>) : []),
    ['DCF', digits(random(h.number.length), 10)],
  ];
}

/** Builds an AAMVA file: header, one designator, the DL/ID subfile (and a jurisdiction subfile). */
export function encodeAamva(h: Holder): string {
  const main = `${h.type}${elementsFor(h)
    .map(([id, value]) => `${id}${value}`)
    .join('\n')}\r`;
  const extra = `Z${h.jurisdiction[0]}Z${h.jurisdiction[0]}AFICTIONAL\r`;
  const entries = 2;
  const head = `@\n\x1e\rANSI ${h.iin}${pad(h.version)}${h.version >= 2 ? '00' : ''}${pad(entries)}`;
  const mainAt = head.length + 10 * entries;
  const designator = (type: string, offset: number, length: number) =>
    `${type}${String(offset).padStart(4, '0')}${String(length).padStart(4, '0')}`;
  return `${head}${designator(h.type, mainAt, main.length)}${designator(`Z${h.jurisdiction[0]}`, mainAt + main.length, extra.length)}${main}${extra}`;
}

const escapeXml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/'/g, '&apos;');
const usDate = (iso: string) => `${iso.slice(5, 7)}/${iso.slice(8, 10)}/${iso.slice(0, 4)}`;

function cardBackground(width: number, height: number, tint: string): string[] {
  const parts = [`<rect width="${width}" height="${height}" rx="28" fill="${tint}"/>`];
  for (let y = 12; y < height; y += 18)
    parts.push(
      `<path d="M0 ${y} Q ${width / 2} ${y + 22} ${width} ${y}" stroke="#ffffff" stroke-opacity="0.35" stroke-width="2" fill="none"/>`,
    );
  return parts;
}

/** The front: state, portrait, labelled fields with the abbreviations North American licences print. */
export function renderFront(h: Holder): Buffer {
  const j = JURISDICTIONS.find((x) => x.code === h.jurisdiction)!;
  const parts = cardBackground(856, 540, h.country === 'USA' ? '#d9e6f2' : '#e3eedf');
  const t = (x: number, y: number, size: number, value: string, extra = '') =>
    parts.push(
      `<text x="${x}" y="${y}" font-family="DejaVu Sans" font-size="${size}" ${extra}>${escapeXml(value)}</text>`,
    );
  t(30, 52, 34, j.name, 'fill="#1d3b66" font-weight="bold"');
  t(560, 52, 22, h.type === 'DL' ? 'DRIVER LICENSE' : 'IDENTIFICATION CARD', 'fill="#1d3b66"');
  parts.push(
    '<rect x="30" y="80" width="210" height="270" fill="#b9c2cc"/><ellipse cx="135" cy="185" rx="62" ry="74" fill="#8d98a5"/><ellipse cx="135" cy="345" rx="100" ry="70" fill="#8d98a5"/>',
  );
  const dates = (iso: string) => (h.country === 'USA' ? usDate(iso) : iso.replace(/-/g, '/'));
  const rows: Array<[string, string]> = [
    [h.type === 'DL' ? 'DL' : 'ID', h.number],
    ['LN', h.familyName],
    ['FN', [h.givenNames, h.middleName].filter(Boolean).join(' ')],
    ['DOB', dates(h.birthDate)],
    ['EXP', dates(h.expiryDate)],
    ['ISS', dates(h.issueDate)],
    ['SEX', h.sex],
  ];
  rows.forEach(([label, value], k) => {
    t(270, 100 + k * 52, 18, label, 'fill="#8a1c1c" font-weight="bold"');
    t(340, 100 + k * 52, 28, value, 'fill="#111"');
  });
  t(270, 470, 20, h.street, 'fill="#111"');
  t(270, 496, 20, `${h.city}, ${h.jurisdiction} ${h.postalCode}`, 'fill="#111"');
  t(30, 380, 13, 'FICTIONAL SPECIMEN', 'fill="#555"');
  return Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="856" height="540">${parts.join('')}</svg>`);
}

/** The back: the PDF417 across most of the card (or, for negative tests, a QR code), with fine print above it. */
export async function renderBack(
  h: Holder,
  payload: string,
  symbology: 'pdf417' | 'qrcode' = 'pdf417',
): Promise<Buffer> {
  const options = symbology === 'pdf417' ? { columns: 13, eclevel: 4, scale: 2, rowmult: 3 } : { scale: 6 };
  const barcode = await bwipjs.toBuffer({
    bcid: symbology,
    text: payload,
    paddingwidth: 6,
    paddingheight: 6,
    backgroundcolor: 'FFFFFF',
    ...options,
  } as Parameters<typeof bwipjs.toBuffer>[0]);
  const meta = await sharp(barcode).metadata();
  const width = symbology === 'pdf417' ? 780 : 360;
  const height = Math.round((meta.height! * width) / meta.width!);
  const code = await sharp(barcode).resize(width, height, { kernel: 'nearest' }).png().toBuffer();
  const parts = cardBackground(856, 540, h.country === 'USA' ? '#d9e6f2' : '#e3eedf');
  parts.push(
    `<text x="38" y="48" font-family="DejaVu Sans" font-size="16" fill="#333">This card is the property of the issuing jurisdiction. Fictional specimen.</text>`,
  );
  const card = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="856" height="540">${parts.join('')}</svg>`);
  return sharp(card)
    .composite([{ input: code, left: 38, top: Math.max(70, Math.round(300 - height / 2)) }])
    .png()
    .toBuffer();
}

/** Projective warp (inverse mapping, bilinear): the top edge narrower than the bottom, as a card tilted away. */
async function perspective(png: Buffer, amount: number, background: [number, number, number]): Promise<Buffer> {
  if (amount <= 0) return png;
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width: w, height: h, channels: c } = info;
  const out = Buffer.alloc(w * h * c);
  const inset = (amount * w) / 2;
  for (let y = 0; y < h; y++) {
    const v = y / (h - 1);
    // Row y of the output shows source row v, squeezed by the inset that shrinks toward the top.
    const left = inset * (1 - v);
    const span = w - 2 * left;
    for (let x = 0; x < w; x++) {
      const o = (y * w + x) * c;
      const u = (x - left) / span;
      if (u < 0 || u > 1) {
        out[o] = background[0];
        out[o + 1] = background[1];
        out[o + 2] = background[2];
        continue;
      }
      const sx = u * (w - 1);
      const sy = v * (h - 1);
      const x0 = Math.floor(sx);
      const y0 = Math.floor(sy);
      const x1 = Math.min(w - 1, x0 + 1);
      const y1 = Math.min(h - 1, y0 + 1);
      const fx = sx - x0;
      const fy = sy - y0;
      for (let k = 0; k < c; k++) {
        const a = data[(y0 * w + x0) * c + k]! * (1 - fx) + data[(y0 * w + x1) * c + k]! * fx;
        const b = data[(y1 * w + x0) * c + k]! * (1 - fx) + data[(y1 * w + x1) * c + k]! * fx;
        out[o + k] = Math.round(a * (1 - fy) + b * fy);
      }
    }
  }
  return sharp(out, { raw: { width: w, height: h, channels: c } })
    .png()
    .toBuffer();
}

/** Lays the card on a table and photographs it: fill, perspective, tilt, glare, blur, quarter turn, JPEG. */
export async function photograph(card: Buffer, p: Photography): Promise<Buffer> {
  const table: [number, number, number] = [96, 86, 74];
  const cardPng = await sharp(card).png().toBuffer();
  const frameWidth = Math.round(856 / p.fill);
  const frameHeight = Math.round(frameWidth * 0.75);
  const margin = { x: Math.round((frameWidth - 856) / 2), y: Math.round((frameHeight - 540) / 2) };
  let photo: Buffer = await sharp({
    create: {
      width: frameWidth,
      height: frameHeight,
      channels: 3,
      background: { r: table[0], g: table[1], b: table[2] },
    },
  })
    .composite([{ input: cardPng, left: margin.x, top: Math.max(0, margin.y) }])
    .png()
    .toBuffer();
  photo = await perspective(photo, p.perspective, table);
  if (p.tilt)
    photo = await sharp(photo)
      .rotate(p.tilt, { background: { r: table[0], g: table[1], b: table[2] } })
      .png()
      .toBuffer();
  const meta = await sharp(photo).metadata();
  let image = sharp(photo);
  if (p.glare) {
    const gw = meta.width!;
    const gh = meta.height!;
    const glare = Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${gw}" height="${gh}"><defs><radialGradient id="g"><stop offset="0" stop-color="#fff" stop-opacity="0.75"/><stop offset="1" stop-color="#fff" stop-opacity="0"/></radialGradient></defs><ellipse cx="${gw * 0.7}" cy="${gh * 0.3}" rx="${gw * 0.12}" ry="${gh * 0.1}" fill="url(#g)"/></svg>`,
    );
    image = sharp(
      await image
        .composite([{ input: glare }])
        .png()
        .toBuffer(),
    );
  }
  if (p.blur > 0) image = image.blur(p.blur);
  if (p.rotation) image = sharp(await image.png().toBuffer()).rotate(p.rotation);
  return image.removeAlpha().jpeg({ quality: p.jpegQuality }).toBuffer();
}

/** A reproducible set: each sample's holder, photography and images. */
export async function licenceSet(count: number, firstSeed = 7000): Promise<LicenceSample[]> {
  const out: LicenceSample[] = [];
  for (let i = 0; i < count; i++) {
    const r = random(firstSeed + i * 31);
    const holder = makeHolder(firstSeed + i);
    const photography: Photography = {
      rotation: pick(r, [0, 0, 0, 90, 180, 270] as const),
      tilt: Math.round((r() * 10 - 5) * 10) / 10,
      perspective: Math.round(r() * 0.12 * 100) / 100,
      blur: r() < 0.4 ? Math.round((0.5 + r()) * 10) / 10 : 0,
      glare: r() < 0.4,
      jpegQuality: 55 + Math.floor(r() * 40),
      fill: pick(r, [0.9, 0.7, 0.55]),
    };
    const payload = encodeAamva(holder);
    const [front, back] = await Promise.all([
      photograph(renderFront(holder), photography),
      photograph(await renderBack(holder, payload), photography),
    ]);
    const name = `${holder.jurisdiction}-v${holder.version}-${i}-r${photography.rotation}-t${photography.tilt}-p${photography.perspective}${photography.blur ? '-blur' : ''}${photography.glare ? '-glare' : ''}-q${photography.jpegQuality}`;
    out.push({ name, holder, photography, payload, front, back });
  }
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
  const out = option('--out') ?? 'aamva-set';
  mkdirSync(out, { recursive: true });
  const set = await licenceSet(Number(option('--count') ?? 24));
  for (const s of set) {
    writeFileSync(path.join(out, `${s.name}-front.jpg`), s.front);
    writeFileSync(path.join(out, `${s.name}-back.jpg`), s.back);
  }
  writeFileSync(
    path.join(out, 'truth.json'),
    JSON.stringify(
      set.map((s) => ({ name: s.name, holder: s.holder, photography: s.photography })),
      null,
      2,
    ),
  );
  console.log(`${set.length} fictional licences written to ${out}/`);
}
