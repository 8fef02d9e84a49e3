import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { prepareZXingModule, readBarcodes } from 'zxing-wasm/reader';
import { lineGeometry, resizeGray, rotateGray, type Gray } from './raster.js';

// 2D barcodes on documents, decoded by zxing-wasm (zxing-cpp in WebAssembly). Its .wasm is read
// from node_modules: by default the package would fetch it from a CDN. zxing tries 90/180/270
// itself but not small angles, so a tilted card is levelled first.

const require = createRequire(import.meta.url);

/** The 2D symbologies an ID document may carry: PDF417 for AAMVA, the others to name what was found instead. */
const FORMATS = ['PDF417', 'QRCode', 'DataMatrix', 'Aztec'] as const;
/** Decoding works on at most this long side: PDF417 modules of a card back photographed whole stay above 2 px. */
const BARCODE_MAX_SIDE = 2000;
/** Extra small angles tried when neither the upright nor the levelled image decodes. */
const EXTRA_ANGLES = [-4, 4, -8, 8];
/** Last resort for small, soft barcodes: enlarge by this much. */
const UPSCALE = 1.5;

export interface BarcodeRead {
  format: string;
  /** The payload as bytes read one to one (Latin-1), separators and control characters kept. */
  text: string;
}

let ready: Promise<unknown> | undefined;

function prepare(): Promise<unknown> {
  ready ??= (async () => {
    const file = readFileSync(require.resolve('zxing-wasm/reader/zxing_reader.wasm'));
    const wasmBinary = file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer;
    return prepareZXingModule({ overrides: { wasmBinary }, fireImmediately: true });
  })();
  return ready;
}

/** zxing takes browser ImageData; Node has no such class, so the same shape is built by hand. */
type ImageInput = Extract<Parameters<typeof readBarcodes>[0], { width: number }>;

function toImageData(g: Gray): ImageInput {
  const data = new Uint8ClampedArray(g.width * g.height * 4);
  for (let i = 0; i < g.width * g.height; i++) {
    const v = g.data[i]!;
    data[i * 4] = v;
    data[i * 4 + 1] = v;
    data[i * 4 + 2] = v;
    data[i * 4 + 3] = 255;
  }
  return { data, width: g.width, height: g.height, colorSpace: 'srgb' } as ImageInput;
}

async function decode(g: Gray): Promise<BarcodeRead[]> {
  const results = await readBarcodes(toImageData(g), {
    formats: [...FORMATS],
    tryHarder: true,
    tryRotate: true,
    tryInvert: false,
    maxNumberOfSymbols: 4,
  });
  return results
    .filter((r) => r.isValid)
    .map((r) => ({ format: r.format, text: Buffer.from(r.bytes).toString('latin1') }));
}

/**
 * Every 2D barcode found on an upright gray page. Quick: the page as it is (about 0.1 s).
 * Thorough: also levelled, at a few small angles and enlarged (about 1 s when there is none).
 */
export async function readDocumentBarcodes(
  page: Gray,
  options: { thorough: boolean } = { thorough: true },
): Promise<BarcodeRead[]> {
  await prepare();
  const long = Math.max(page.width, page.height);
  const g = long > BARCODE_MAX_SIDE ? await resizeGray(page, BARCODE_MAX_SIDE / long) : page;
  const found = await decode(g);
  if (found.length || !options.thorough) return found;
  const { skew } = await lineGeometry(g);
  const angles = [...(Math.abs(skew) >= 1 ? [-skew] : []), ...EXTRA_ANGLES];
  // Blurred, JPEG-worn modules of about 2 px: zxing samples them better enlarged.
  for (const scale of [1, UPSCALE]) {
    const sized = scale === 1 ? g : await resizeGray(g, scale);
    for (const angle of scale === 1 ? angles : [0, ...angles]) {
      const levelled = await decode(await rotateGray(sized, angle));
      if (levelled.length) return levelled;
    }
  }
  return [];
}
